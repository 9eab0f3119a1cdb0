package kb

import "testing"

// TestAPIErrorStatuses: a CUDA call named with the error number it failed
// with is that status, read through whichever numbering knows the number
// (10 is cudaErrorInvalidDevice only before CUDA 10.1); the same shape
// after another name, or a number no numbering has, is nothing.
func TestAPIErrorStatuses(t *testing.T) {
	k := MustDefault()
	cases := []struct{ line, want string }{
		{"ERROR: cudart.cudaSetDevice error 10", "invalid-device-ordinal"},
		{"cudaMalloc error 2 at src/pool.cpp:41", "oom"},
		{"cuMemAlloc_v2 error: 2", "oom"},
		{"cudaGetDeviceCount error 35", "driver-too-old"},
		{"my_cuda_helper error 10 times retried", ""},
		{"validation error 2.5 after epoch 3", ""},
		{"cudaMemcpy error 0 bytes left", ""},
		// A library named in capitals is not a call: its own family reads it.
		{"retrying: 2 cuBLAS error 3 at startup were logged before", ""},
		{"cuDNN error 4 seen twice", ""},
	}
	for _, c := range cases {
		if got := classOf(k, c.line); got != c.want {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
}
