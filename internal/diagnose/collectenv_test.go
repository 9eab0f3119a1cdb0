package diagnose

import (
	"fmt"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A pasted collect_env that says CUDA is unavailable on a machine with a GPU
// is the failure; the checks on its facts name the root.
func TestCollectEnvUnavailable(t *testing.T) {
	e := New(kb.MustDefault())
	paste := "PyTorch version: 1.5.0\nIs debug build: No\nCUDA used to build PyTorch: 10.2\n\nIs CUDA available: No\nCUDA runtime version: 10.0.130\n" +
		"GPU models and configuration:\nGPU 0: Tesla P100-PCIE-16GB\n\nNvidia driver version: %s\n"
	fs := explainText(t, e, fmt.Sprintf(paste, "410.104"))
	if len(fs) != 1 || fs[0].Class != "driver-too-old" || len(fs[0].Alternatives) == 0 || fs[0].Alternatives[0] != "cuda-unavailable" {
		t.Fatalf("driver 410 with a CUDA 10.2 build: %+v", fs)
	}
	fs = explainText(t, e, fmt.Sprintf(paste, "450.51.06"))
	if len(fs) != 1 || fs[0].Class != "cuda-unavailable" {
		t.Errorf("a new enough driver leaves the surface: %+v", fs)
	}
	// A CPU runner printing its environment has no GPU and no failure.
	cpu := "PyTorch version: 2.3.0+cpu\nCUDA used to build PyTorch: None\nIs CUDA available: False\nGPU models and configuration: No CUDA\n"
	if fs := explainText(t, e, cpu); len(fs) != 0 {
		t.Errorf("a CPU-only environment dump is a failure: %+v", fs)
	}
}
