package kb

import "testing"

// TestAllocationCheckContexts: "out of memory" counts as CUDA's status 2
// where the line compares a result with cudaSuccess or names cudaMalloc,
// as faiss's allocation checks print it, and not in prose that names
// neither.
func TestAllocationCheckContexts(t *testing.T) {
	k := MustDefault()
	checkFirstStatus(t, k, []statusCase{
		{"Error: 'err == cudaSuccess' failed: failed to cudaMalloc 47064032 bytes (error 2 out of memory)", "cudaErrorMemoryAllocation"},
		{"dev 0 space Device stream 0x7f7b46ba9a60 size 1610612736 bytes (cudaMalloc error out of memory [2])", "cudaErrorMemoryAllocation"},
		{"the page cache ran out of memory [2]", ""},
		{"cudaMallocHost buffers are pinned; the OOM killer reported out of memory", ""},
	})
}
