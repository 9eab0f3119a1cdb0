package kb

import (
	"strings"
	"testing"
)

// TestReportWordings classifies wordings as users paste them into reports:
// single error lines of every PyTorch generation, without the kernel lines
// or the logs around them. Lines that name no class must stay unclassified.
func TestReportWordings(t *testing.T) {
	k := MustDefault()
	cases := []struct{ text, want string }{
		{"RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", "oom"},
		{"RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR", "cudnn-error"},
		{"RuntimeError: CUDA error: unspecified launch failure", "illegal-address"},
		{"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.69 GiB total capacity; 22.85 GiB already allocated; 11.06 MiB free; 23.06 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.", "oom"},
		{"RuntimeError: CUDA error: device-side assert triggered\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", "device-assert-other"},
		{"  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 2199, in embedding\n    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\nRuntimeError: CUDA error: device-side assert triggered", "device-assert-index"},
		{"  File \"/opt/conda/lib/python3.8/site-packages/torch/nn/functional.py\", line 2824, in cross_entropy\n    return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)\nRuntimeError: CUDA error: device-side assert triggered", "device-assert-target"},
		{"RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.cuda.FloatTensor instead (while checking arguments for embedding)", "dtype-mismatch"},
		{"RuntimeError: Expected 4-dimensional input for 4-dimensional weight [64, 3, 7, 7], but got 3-dimensional input of size [3, 224, 224] instead", "shape-mismatch"},
		{"RuntimeError: Given groups=1, weight of size [64, 3, 3, 3], expected input[1, 4, 224, 224] to have 3 channels, but got 4 channels instead", "shape-mismatch"},
		{"RuntimeError: Error(s) in loading state_dict for ResNet:\n\tsize mismatch for fc.weight: copying a param with shape torch.Size([1000, 2048]) from checkpoint, the shape in current model is torch.Size([10, 2048]).", "shape-mismatch"},
		{"RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same or input should be a MKLDNN tensor and weight is a dense tensor", "device-mismatch"},
		{"RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same", "dtype-mismatch"},
		{"RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'", "dtype-mismatch"},
		{"RuntimeError: CUDA error: no kernel image is available for execution on the device", "no-kernel-image"},
		{"UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available devices to be zero.", "cuda-unavailable"},
		{"RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW", "driver-too-old"},
		{"RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized", "cuda-unavailable"},
		{"Could not load library libcudnn_cnn_infer.so.8. Error: libnvrtc.so: cannot open shared object file: No such file or directory\nAborted (core dumped)", "library-mismatch"},
		{"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:219, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.14.3\nncclInvalidUsage: This usually reflects invalid usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000", "nccl-error"},
		{"RuntimeError: DataLoader worker (pid(s) 9528, 9529) exited unexpectedly", "host-killed"},
		{"/bin/bash: line 1: 12345 Killed                  python train.py", "host-killed"},
		{"RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [1, 512, 4, 4]] is at version 3; expected version 2 instead.", "autograd-inplace"},
		{"RuntimeError: Deterministic behavior was enabled with either `torch.use_deterministic_algorithms(True)` or `at::Context::setDeterministicAlgorithms(true)`, but this operation is not deterministic because it uses CuBLAS and you have CUDA >= 10.2.", "deterministic"},
		{"RuntimeError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling `cusolverDnSgetrf( handle, m, n, dA, ldda, static_cast<float*>(dataPtr.get()), ipiv, info)`. This error may appear if the input matrix contains NaN.", ""}, // cuSOLVER is not cuBLAS: the engine names the status in an "other" finding
		{"torch._C._cuda_init()\nRuntimeError: The NVIDIA driver on your system is too old (found version 10020).", "driver-too-old"},
		{"RuntimeError: CUDA error: invalid argument", ""},
		{"RuntimeError: CUDA error: unknown error", ""},
		{"Epoch 1: 100%|██████████| 100/100 [00:10<00:00, loss=0.123, v_num=0]", ""},
		{"Is CUDA available: False\nCUDA runtime version: No CUDA", ""},
	}
	for _, c := range cases {
		if got := classOf(k, strings.Split(c.text, "\n")...); got != c.want {
			t.Errorf("%.80q: got %q, want %q", c.text, got, c.want)
		}
	}
}

// classOf is the class Classify gives lines, or "" when it gives none.
func classOf(k *KB, lines ...string) string {
	if v, ok := k.Classify(lines); ok {
		return v.Class.ID
	}
	return ""
}

// TestCarriageReturns: lines of Windows logs end in \r; anchored signatures
// still match.
func TestCarriageReturns(t *testing.T) {
	k := MustDefault()
	for _, c := range []struct{ line, want string }{
		{"Killed\r", "host-killed"},
		{"Bus error (core dumped)\r", "host-killed"},
		{"NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\r", "no-kernel-image"},
	} {
		v, ok := k.Classify([]string{c.line})
		if !ok || v.Class.ID != c.want {
			t.Errorf("%q: got %v", c.line, v.Class)
		}
	}
	v, _ := k.Classify([]string{"NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.", "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70.\r"})
	if v.Facts["arch_list"] != "sm_50 sm_60 sm_70" {
		t.Errorf("arch_list = %q", v.Facts["arch_list"])
	}
}
