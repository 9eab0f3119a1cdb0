package kb

import "testing"

// TestCuFFTResultNumbers: the cufftResult TensorFlow's and XLA's FFT
// support log by number reads through the cuFFT table; a number after
// "cuFFT ... plan:" on a line that reports no failure is no status.
func TestCuFFTResultNumbers(t *testing.T) {
	k := MustDefault()
	checkFirstStatus(t, k, []statusCase{
		{"2017-03-27 E c:\\tf_jenkins\\tensorflow\\stream_executor\\cuda\\cuda_fft.cc:165] failed to create cuFFT batched plan:2", "CUFFT_ALLOC_FAILED"},
		{"E external/org_tensorflow/tensorflow/stream_executor/cuda/cuda_fft.cc:207] failed to create cuFFT batched plan:11", "CUFFT_INVALID_DEVICE"},
		{"failed to set work area for cuFFT plan: 13", "CUFFT_NO_WORKSPACE"},
		{"Failed to run cuFFT routine cufftExecC2C: 6", "CUFFT_EXEC_FAILED"},
		{"using cuFFT plan: 3 stages", ""},
		{"failed to initialize batched cufft plan with customized allocator: Failed to create cuFFT batched plan.", ""},
	})
	for _, c := range []struct{ line, want string }{
		{"failed to create cuFFT batched plan:2", "oom"},
		{"RuntimeError: CUDA error: CUTENSOR_STATUS_ALLOC_FAILED", "oom"},
	} {
		if got := classOf(k, c.line); got != c.want {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
}
