package probe

import (
	"strings"
	"testing"
)

func TestToolOutput(t *testing.T) {
	tool := []string{
		"PyTorch version: 1.11.0+cu102",
		"CUDA used to build PyTorch: 10.2",
		"GPU 0: NVIDIA GeForce RTX 3090",
		"Nvidia driver version: 470.94",
		"[pip3] torch==1.1.0",
		"| NVIDIA-SMI 410.78       Driver Version: 410.78       CUDA Version: 10.0     |",
		"|   0  GeForce RTX 208...  Off  | 00000000:01:00.0  On |                  N/A |",
		"GPU 0: Tesla T4 (UUID: GPU-5a1c0d7e-1b2f-4e34-9d6b-2c1e0f5a6b7c)",
		"Cuda compilation tools, release 10.2, V10.2.89",
		"torch                     1.7.1+cu101              pypi_0    pypi",
		"torch==1.13.1+cu117",
		"'1.7.1+cu101'",
		">>> torch.__version__",
		"2019-07-07 15:22:11.420539: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1212] Found device 0 with properties: ",
		"name: GeForce RTX 2080 major: 7 minor: 5 memoryClockRate(GHz): 1.71",
		"pciBusID: 0000:01:00.0 name: GeForce RTX 3060 Ti computeCapability: 8.6",
		"NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation.",
	}
	prose := []string{
		"rtx 2080ti, ubuntu18.04, cuda9.0, cudnn7, tf1.9",
		"Graphics card：RTX 3080 Ti ，CUDA10.0",
		"Rtx3080",
		"cuda:10.0",
		"pytorch:1.0.0",
		"My environment: Geforce RTX 3080,cudatoolkit 10.0,pytorch 1.3.1with conda.",
		"* -GeForce RTX 2080",
		"I'm using a RTX 3090 with CUDA 10.2 and torch 1.6",
		"GPU model and memory: GeForce GTX 1080 8GB",
	}
	for _, l := range tool {
		if !toolOutput(l) {
			t.Errorf("printed by a tool, read as prose: %q", l)
		}
	}
	for _, l := range prose {
		if toolOutput(l) {
			t.Errorf("the user's own words, read as tool output: %q", l)
		}
	}
}

// A check's finding says whether the facts it rests on were printed by a
// tool or stated by the user.
func TestPastedProvenance(t *testing.T) {
	for _, tc := range []struct {
		name, text, check, want string
	}{
		{"collect_env", "PyTorch version: 1.11.0+cu102\nCUDA used to build PyTorch: 10.2\nGPU models and configuration: \nGPU 0: NVIDIA GeForce RTX 3090\n",
			"env/gpu-arch", FromTool},
		{"prose", "rtx 2080ti, ubuntu18.04, cuda9.0, cudnn7, tf1.9", "env/toolkit-arch", FromProse},
		// The build printed, the GPU only named by the user.
		{"mixed", "I have an RTX 3090\nPyTorch version: 1.6.0+cu101\nCUDA used to build PyTorch: 10.1\n", "env/gpu-arch", FromProse},
		// A GPU the user named first and nvidia-smi printed later counts as printed.
		{"named then printed", "my RTX 3090 fails\nPyTorch version: 1.6.0+cu101\n|   0  GeForce RTX 3090    Off  | 00000000:01:00.0  On |                  N/A |\n",
			"env/gpu-arch", FromTool},
	} {
		p := FromText(strings.Split(tc.text, "\n"))
		if p == nil {
			t.Fatalf("%s: no facts read", tc.name)
		}
		var got string
		for _, f := range p.Judge() {
			if f.Rule == tc.check {
				got, _ = f.Facts["pasted_from"].(string)
			}
		}
		if got != tc.want {
			t.Errorf("%s: %s pasted_from = %q, want %q", tc.name, tc.check, got, tc.want)
		}
	}
}
