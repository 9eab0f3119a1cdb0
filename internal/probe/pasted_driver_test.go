package probe

import (
	"strings"
	"testing"
)

// driverOfText is the driver version FromText reads, "" when none.
func driverOfText(text string) string {
	p := FromText(strings.Split(text, "\n"))
	if p == nil {
		return ""
	}
	return p.Facts.NVML.DriverVersion
}

func TestProseDriver(t *testing.T) {
	for text, want := range map[string]string{
		"GPU: RTX 3090\nhost driver 470, container CUDA 12.1":                                                            "470",
		"GPU: RTX 3090\nNvidia Driver:450.51.06":                                                                         "450.51.06",
		"GPU: RTX 3090\nmy nvidia driver is 418.67":                                                                      "418.67",
		"GPU: RTX 3090\nsudo apt install nvidia-driver-525":                                                              "525",
		"GPU: RTX 3090\ncuda版本：11.1，驱动 470":                                                                              "470",
		"GPU: NVIDIA A100\n驱动版本：510.60.02":                                                                               "510.60.02",
		"GPU: RTX 3090\nI tensorflow/stream_executor/cuda/cuda_diagnostics.cc:204] kernel reported version is: 418.87.0": "418.87.0",
		// A tool's reading wins over the user's words, wherever it stands.
		"GPU: RTX 3090\nmy old driver was 418.67\n| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |": "535.104.05",
		// Look-alikes: a requirement or advice is not the machine's
		// driver; a source file name holds the word joined; the driver's
		// CUDA version and torch's "found version 11040" are no driver
		// numbers.
		"GPU: RTX 3090\nCUDA 12 needs driver 525 or newer":                                                                 "",
		"GPU: RTX 3090\nplease upgrade the driver to 535":                                                                  "",
		"GPU: RTX 3090\nE tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit":                       "",
		"GPU: RTX 3090\nCUDA Driver Version / Runtime Version          11.4 / 11.2":                                        "",
		"GPU: RTX 3090\nThe NVIDIA driver on your system is too old (found version 11040).":                                "",
		"GPU: RTX 3090\nI tensorflow/stream_executor/cuda/cuda_diagnostics.cc:200] libcuda reported version is: 525.60.13": "",
	} {
		if got := driverOfText(text); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

// judgedRules are the rules of the failing pasted checks on text.
func judgedRules(text string) []string {
	p := FromText(strings.Split(text, "\n"))
	if p == nil {
		return nil
	}
	var out []string
	for _, f := range p.Judge() {
		out = append(out, f.Rule)
	}
	return out
}

func TestToolkitDriver(t *testing.T) {
	for text, want := range map[string]string{
		"host driver 470, container CUDA 12.1":                                                   "env/toolkit-driver",
		"TensorFlow version: 2.11.0\nkernel reported version is: 418.87.0":                       "env/toolkit-driver",
		"my cuda version is 10.2\nNvidia Driver:418.67":                                          "env/toolkit-driver",
		"| NVIDIA-SMI 470.161.03   Driver Version: 470.161.03   CUDA Version: 11.4 |\nCUDA 12.1": "env/toolkit-driver",
		// Look-alikes: a driver the stated CUDA runs; a major alone that
		// may be new enough ("525" for CUDA 12.0's 525.60.13); a torch
		// build whose own CUDA is known, which the driver-version check
		// judges instead.
		"host driver 535, container CUDA 12.1":                             "",
		"driver 525, CUDA 12.0":                                            "",
		"TensorFlow version: 2.11.0\nkernel reported version is: 470.57.2": "",
		"PyTorch version: 2.1.0+cu118\nhost driver 470, CUDA 12.1":         "",
	} {
		got := strings.Join(judgedRules(text), ",")
		if want == "" && strings.Contains(got, "env/toolkit-driver") || want != "" && !strings.Contains(got, want) {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}
