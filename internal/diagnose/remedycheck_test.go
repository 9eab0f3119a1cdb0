package diagnose

import "regexp"

// pytorchOnlyRE recognises a fix that only a PyTorch program can apply:
// a torch API, a PyTorch allocator setting, a PyTorch debugging switch.
var pytorchOnlyRE = regexp.MustCompile(`\btorch\.|PYTORCH_CUDA_ALLOC_CONF|TORCH_USE_CUDA_DSA|\bloss\.item\(\)|cudadoctor memory`)
