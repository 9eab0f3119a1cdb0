package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func TestNormaliseLooseGPU(t *testing.T) {
	for in, want := range map[string]string{
		"on an ubuntu workstation with 4 RTXA4000s.": "on an ubuntu workstation with 4 RTX A4000.",
		"my computer evn is cuda9.0 and GPU2080":     "my computer evn is cuda9.0 and GPU 2080",
		"在8卡 a100 环境下 finetune 时":                    "在8卡 NVIDIA A100 环境下 finetune 时",
		"training on a100x8 nodes":                   "training on NVIDIA A100 x8 nodes",
		"we run 8x a100 in one box":                  "we run 8x NVIDIA A100 in one box",
		"When my gpu version is Telsa T4.":           "When my gpu version is Tesla T4.",
		"two RTX 3090s and four A100s":               "two RTX 3090 and four A100",
		// Look-alikes stay as they are: a PCI address, an identifier
		// holding a model, a count of things that are not GPUs.
		"Unable to determine the device handle for GPU0000:03:00.0": "Unable to determine the device handle for GPU0000:03:00.0",
		"loading ckpt_a100x8.pt":                                    "loading ckpt_a100x8.pt",
		"trained for 100 epochs on 8 x 100 images":                  "trained for 100 epochs on 8 x 100 images",
		"GPU 0: NVIDIA GeForce RTX 3080":                            "GPU 0: NVIDIA GeForce RTX 3080",
		"Tesla V100-SXM2-16GB":                                      "Tesla V100-SXM2-16GB",
	} {
		if got := normaliseLooseGPU(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// The loose forms reach the facts and name the root behind a library
// status; the same statuses without them, or with a GPU the stated CUDA
// supports, keep their surface class.
func TestLooseGPUNamesFeedArchFacts(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct {
		log, want string
	}{
		{"my computer evn is cuda9.0 and GPU2080, do you know why this problem is caused?\n   RuntimeError: cublas runtime error : the GPU program failed to execute at /opt/conda/conda-bld/pytorch_1549628766161/work/aten/src/THC/THCBlas.cu:441", "no-kernel-image"},
		{"We are running deepemhancer `20220530_cu10` on a workstation with 4 RTXA4000s.\n2023-10-16 14:48:17.079997: E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED", "no-kernel-image"},
		// CUDA 10 covers a GTX 1080 Ti: the status stays the surface.
		{"We are running deepemhancer `20220530_cu10` on a workstation with 4 GTX1080Tis.\n2023-10-16 14:48:17.079997: E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED", "cublas-error"},
		// A CUDA 11 major tag does not settle sm_86 (11.0 lacks it, 11.1 has it).
		{"We are running deepemhancer `20220530_cu11` on a workstation with 4 RTXA4000s.\n2023-10-16 14:48:17.079997: E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED", "cublas-error"},
	} {
		fs := explainText(t, e, c.log+"\n")
		if len(fs) == 0 || fs[0].Class != c.want {
			t.Errorf("%q: got %+v, want %s", c.log, fs, c.want)
		}
	}
}
