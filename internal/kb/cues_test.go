package kb

import (
	"slices"
	"testing"
)

// TestCued checks that what a log shows reorders a finding's alternatives,
// and only those the corpus or the class admits.
func TestCued(t *testing.T) {
	k := MustDefault()
	alts := []string{"oom", "no-kernel-image", "library-mismatch", "shape-mismatch"}
	cases := []struct {
		name    string
		surface string
		alts    []string
		lines   []string
		first   string
		same    bool
	}{
		{"cudnn version named", "cudnn-error", alts, []string{"RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM", "cuda:9.0 cudnn:7"}, "library-mismatch", false},
		{"library path", "cudnn-error", alts, []string{"I tried setting LD_LIBRARY_PATH to /usr/local/cuda/lib64"}, "library-mismatch", false},
		{"batch size", "cudnn-error", []string{"no-kernel-image", "oom"}, []string{"When my batch size is 20 I get the error"}, "oom", false},
		{"nothing shown", "cudnn-error", alts, []string{"RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM"}, "", true},
		{"embedding behind cuBLAS", "cublas-error", []string{"oom", "no-kernel-image", "device-assert-index", "library-mismatch"}, []string{"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`", "    inputs_embeds = self.embed_tokens(input_ids)"}, "device-assert-index", false},
		{"added tokens", "cublas-error", []string{"oom", "no-kernel-image", "device-assert-index"}, []string{"I added special tokens to the tokenizer before fine-tuning"}, "device-assert-index", false},
		{"new GPU, old toolkit", "cublas-error", []string{"oom", "device-assert-index", "no-kernel-image"}, []string{"My setup: GeForce RTX 3090, CUDA 10.1, Ubuntu 18.04"}, "no-kernel-image", false},
		{"new GPU alone", "cublas-error", []string{"oom", "device-assert-index", "no-kernel-image"}, []string{"My setup: GeForce RTX 3090, Ubuntu 18.04"}, "", true},
		{"old toolkit alone", "cublas-error", []string{"oom", "device-assert-index", "no-kernel-image"}, []string{"My setup: GTX 1080, CUDA 10.1"}, "", true},
		{"plain gemm", "cublas-error", []string{"oom", "no-kernel-image", "device-assert-index"}, []string{"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"}, "", true},
		{"counted root joins", "other", []string{"driver-too-old", "no-kernel-image", "oom"}, []string{"$ pip list | grep torch", "torch                    2.2.1+cu118"}, "library-mismatch", false},
		{"no alternatives stay none", "other", nil, []string{"torch 2.2.1+cu118"}, "", true},
		{"uncounted root does not join", "autograd-inplace", []string{"nonfinite"}, []string{"cudnn: 8.9"}, "", true},
	}
	for _, c := range cases {
		got := k.Cued(c.surface, c.alts, c.lines)
		if c.same {
			if !slices.Equal(got, c.alts) {
				t.Errorf("%s: got %v, want %v unchanged", c.name, got, c.alts)
			}
			continue
		}
		if len(got) == 0 || got[0] != c.first {
			t.Errorf("%s: got %v, want %s first", c.name, got, c.first)
		}
		for _, a := range c.alts {
			if !slices.Contains(got, a) {
				t.Errorf("%s: %s was dropped from %v", c.name, a, got)
			}
		}
	}
}
