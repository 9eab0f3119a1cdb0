package kb

import "testing"

// TestProbeAndSourceStatuses: a GPU discovery probe's numbered result and a
// check macro's message at a line of a .cu file are CUDA statuses; the same
// shapes about other numbers or other files are not.
func TestProbeAndSourceStatuses(t *testing.T) {
	k := MustDefault()
	cases := []struct{ line, want string }{
		{"Error named symbol not found at line 116 in file bitsandbytes/csrc/ops.cu", "no-kernel-image"},
		{`Error named symbol not found at line 90 in file D:\a\bitsandbytes\bitsandbytes\csrc\ops.cu`, "no-kernel-image"},
		{"Error out of memory at line 52 in file src/kernels/scan.cuh", "oom"},
		{"Error: named symbol not found (at E:/nunchaku/src/kernels/awq/gemv_awq.cu:313)", "no-kernel-image"},
		{"Error named symbol not found at line 52 in file src/reader.c", ""},
		{"named symbol not found at line 3 in file notes.cu", ""},
		{"Error: file not found at line 7 in file setup.cfg", ""},
		{`time=2025-08-02T22:42:20.643Z level=INFO source=gpu.go:612 msg="Unable to load cudart library /usr/lib/x86_64-linux-gnu/libcuda.so.575.57.08: cuda driver library init failure: 3"`, "cuda-unavailable"},
		{"Unable to load cudart library /usr/lib/x86_64-linux-gnu/libcuda.so.570.169: cuda driver library init failure: 802", "cuda-unavailable"},
		{"cudaSetDevice err: 35", "driver-too-old"},
		{"cuInit err: 100", "cuda-unavailable"},
		{"nvml init failure: 9", ""},
		{"ffmpeg err: 35 frames dropped", ""},
		{"plugin init failure: 3 retries left", ""},
	}
	for _, c := range cases {
		if got := classOf(k, c.line); got != c.want {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
}
