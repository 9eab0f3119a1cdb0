package probe

import (
	"fmt"
	"testing"
)

func TestPrintedCapability(t *testing.T) {
	for in, want := range map[string]int{
		"Device 0: NVIDIA GB10, compute capability 12.1, VMM: yes":                               121,
		"node01:1297856:1297856 [7] NCCL INFO Using 256 threads, Min Comp Cap 8, Trees disabled": 80,
		"GPU 0                   GeForce RTX 3090 (arch=8.6)":                                    86,
		"name: Quadro K4200 major: 3 minor: 0 memoryClockRate(GHz): 0.784":                       30,
		"print(torch.cuda.get_device_capability(0))  # (8, 6)":                                   86,
		"torch.cuda.get_device_capability() = (3, 7)":                                            37,
		// A call without its answer, or a tuple that is not its answer.
		"cap = torch.cuda.get_device_capability()": 0,
		"x = torch.zeros((8, 6))":                  0,
		// Requirements and thresholds are not a GPU's capability.
		"Bfloat16 is only supported on GPUs with compute capability of at least 8.0.": 0,
		"WARNING: Compute capability < 7.5 detected! Only slow 8-bit matmul":          0,
		"the 1.4.0 release notes: compute capability":                                 0,
	} {
		maj, min, ok := printedCapability(newLineWords(in, true))
		got := 0
		if ok {
			got = maj*10 + min
		}
		if got != want {
			t.Errorf("%q: got %d, want %d", in, got, want)
		}
	}
}

// TensorFlow's statement that it lacks binaries for the GPU fails
// env/build-arch with that capability; without it the check skips.
func TestBuildArchStatement(t *testing.T) {
	p := FromText([]string{"2025-08-17 W tensorflow/core/common_runtime/gpu/gpu_device.cc:2348] TensorFlow was not built with CUDA kernel binaries compatible with compute capability 9.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer."})
	if p == nil || p.Facts.BuildArchs == nil {
		t.Fatal("the statement was not read")
	}
	r := buildArchCheck.Run(p.Facts)
	if r.Status != Fail || r.Findings[0].Facts["capability"] != "9.0" {
		t.Errorf("got %+v", r)
	}
	if r := buildArchCheck.Run(&Facts{}); r.Status != Skip {
		t.Errorf("no statement: %+v", r)
	}
}

func TestWheelTagCUDA(t *testing.T) {
	for in, want := range map[string]string{
		"pytorch with cu117 causing CUFFT_INTERNAL_ERROR":                      "11.7",
		"pip install torch --index-url https://download.pytorch.org/whl/cu118": "11.8",
		"the cu92 build":                      "9.2",
		"accu120 is the metric":               "",
		"CUDA 12.1 is installed":              "",
		"torch==2.0.1 (cu1 mirror), step 117": "",
	} {
		got, _ := wheelTagCUDA(newLineWords(in, true))
		if got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// A prompt prints get_device_capability()'s answer on the next line: the
// pair is read as the GPU's capability; a tuple after any other line is
// not.
func TestCapabilityReply(t *testing.T) {
	capOf := func(lines ...string) string {
		p := FromText(lines)
		if p == nil || len(p.Facts.NVML.GPUs) == 0 {
			return ""
		}
		g := p.Facts.NVML.GPUs[0]
		return fmt.Sprintf("%d.%d", g.CCMajor, g.CCMinor)
	}
	if got := capOf("torch 1.6.0+cu101", ">>> torch.cuda.get_device_capability()", "(8, 6)"); got != "8.6" {
		t.Errorf("prompt answer: got %q, want 8.6", got)
	}
	if got := capOf("torch 1.6.0+cu101", ">>> x.shape[:2]", "(8, 6)"); got != "" {
		t.Errorf("another tuple: got %q, want none", got)
	}
}
