package kb

import "github.com/cudadoctor/cudadoctor/internal/lazyre"

// cuResultRE is a driver API result printed by its type's name and its
// number, as wrappers around the virtual-memory and context calls log it
// when they keep no table of names: "CUresult error  result=2
// file=csrc/torch_memory_saver.cpp func=cu_mem_create", "CUresult = 700",
// "CUresult: 2". A CUresult numbers its statuses as the runtime's
// cudaError_t does since CUDA 10.1 (2 out of memory, 700 illegal address),
// so the number reads through the runtime's table. The type's name is
// required: a bare "result=2" is no CUDA status.
var cuResultRE = lazyre.New(`\bCUresult\b(?:\s+error)?\s*(?:result\s*)?[=:]?\s*\(?(\d{1,3})\)?(?:\D|$)`)
