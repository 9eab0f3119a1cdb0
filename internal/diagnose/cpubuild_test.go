package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A paste that shows a CPU-only PyTorch next to an NVIDIA GPU or driver is
// the failure when nothing else is; the same build without a GPU (a CPU
// runner's environment), or next to a CUDA build, is not.
func TestCPUBuildOnGPUMachine(t *testing.T) {
	e := New(kb.MustDefault())
	for _, tc := range []struct {
		name, log string
		want      string // the class, "" for no finding
		line      string // the CPU build's line, quoted as evidence
	}{
		{"version tag next to the GPU the user names",
			"I have an RTX 3060 but training runs on the CPU\n>>> print(torch.__version__)\n2.0.1+cpu\n",
			"cuda-unavailable", "2.0.1+cpu"},
		{"conda build string next to nvidia-smi",
			"$ conda list | grep torch\npytorch                   1.4.0               py3.7_cpu_0  [cpuonly]  pytorch\n" +
				"$ nvidia-smi\n| NVIDIA-SMI 440.33.01    Driver Version: 440.33.01    CUDA Version: 10.2     |\n",
			"cuda-unavailable", "py3.7_cpu_0"},
		{"collect_env of a CPU build on a GPU machine",
			"PyTorch version: 2.1.0\nCUDA used to build PyTorch: None\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090\nNvidia driver version: 535.98\n",
			"cuda-unavailable", "CUDA used to build PyTorch: None"},
		{"conda's plan: the CPU build for a CUDA request",
			"conda install pytorch torchvision cudatoolkit=10.1 -c pytorch\nThe following NEW packages will be INSTALLED:\n" +
				"  cpuonly            pytorch/noarch::cpuonly-2.0-0\n  pytorch            pytorch/win-64::pytorch-1.10.0-py3.6_cpu_0\n",
			"cuda-unavailable", "cpuonly"},
		{"a CPU runner's environment",
			"PyTorch version: 2.3.0+cpu\nCUDA used to build PyTorch: None\nROCM used to build PyTorch: N/A\n", "", ""},
		{"a CPU build next to the CUDA build of another environment",
			"env1: torch 2.1.0+cu121\nenv2: torch 2.1.0+cpu\nGPU 0: NVIDIA GeForce RTX 4090\n", "", ""},
		{"Intel's CPU extension on a GPU machine",
			"intel_extension_for_pytorch 2.1.0+cpu\ntorch 2.1.0+cu121\nGPU 0: NVIDIA GeForce RTX 3090\n", "", ""},
		{"the CPU index named in an install command",
			"pip install torch --index-url https://download.pytorch.org/whl/cpu\nGPU 0: NVIDIA GeForce RTX 3090\n", "", ""},
	} {
		fs := explainText(t, e, tc.log)
		if tc.want == "" {
			if len(fs) != 0 {
				t.Errorf("%s: want no finding, got %+v", tc.name, fs)
			}
			continue
		}
		if len(fs) != 1 || fs[0].Class != tc.want {
			t.Errorf("%s: want one %s finding, got %+v", tc.name, tc.want, fs)
			continue
		}
		if len(fs[0].Evidence) == 0 || !strings.Contains(fs[0].Evidence[0].Text, tc.line) {
			t.Errorf("%s: evidence %+v does not quote %q", tc.name, fs[0].Evidence, tc.line)
		}
	}
}
