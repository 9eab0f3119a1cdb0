package probe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Pasted environment output is judged by the same checks as a live machine.
func TestPastedEnvironment(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		class string // "" = no failing check
	}{
		{"collect_env: sm_86 card, CUDA 10.1 build", `PyTorch version: 1.6.0+cu101
Is debug build: No
CUDA used to build PyTorch: 10.1
GPU models and configuration: GPU 0: GeForce RTX 3090
Nvidia driver version: 455.23.05`, "no-kernel-image"},
		{"torch.__version__ and device name: RTX 5090 on a cu121 wheel", `>>> torch.__version__
'2.3.1+cu121'
>>> torch.cuda.get_device_name(0)
'NVIDIA GeForce RTX 5090'`, "no-kernel-image"},
		{"nvidia-smi driver too old for a CUDA 11.3 build", `torch 1.10.0+cu113
| NVIDIA-SMI 440.33.01    Driver Version: 440.33.01    CUDA Version: 10.2     |
|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |`, "driver-too-old"},
		{"nvidia-smi: a card already full", `| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |
|   0  NVIDIA GeForce RTX 3060    Off | 00000000:01:00.0 Off |                  N/A |
| 30%   45C    P2    40W / 170W |  11980MiB / 12288MiB |    100%      Default |`, "oom"},
		{"collect_env: driver 410 for a CUDA 10.2 build (no minor-version compatibility before CUDA 11)", `PyTorch version: 1.5.0
CUDA used to build PyTorch: 10.2
Is CUDA available: No
GPU models and configuration:
GPU 0: Tesla P100-PCIE-16GB
Nvidia driver version: 410.104`, "driver-too-old"},
		{"collect_env: driver 440.33 runs a CUDA 10.2 build", `PyTorch version: 1.5.0
CUDA used to build PyTorch: 10.2
GPU models and configuration: GPU 0: Tesla P100-PCIE-16GB
Nvidia driver version: 440.33.01`, ""},
		{"a supported card", `PyTorch version: 2.1.0+cu121
GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB
Nvidia driver version: 535.104.05`, ""},
		{"prose: RTX 2060 with torch 0.4.1 (no build of it has CUDA 10)", "My cuda version is  10.1,pytorch is 0.4.1.post2.My PC is RTX2060.", "no-kernel-image"},
		{"issue template: TF 1.14 (CUDA 10.0) on RTX 3080", `- TensorFlow version (use command below): 1.14.0-gpu
- CUDA/cuDNN version: 10.0/7.6.0.64
- GPU model and memory: 2xRTX 3080`, "no-kernel-image"},
		{"docker image CUDA 8 on an RTX 2080", "I use the image built with `nvidia/cuda:8.0-cudnn5-devel`; when I run the same image on RTX2080 it fails", "no-kernel-image"},
		{"collect_env: CUDA 11.7 build on an RTX 4090 (cuFFT has no sm_89 kernels)", "PyTorch version: 2.1.0.dev20230314\nCUDA used to build PyTorch: 11.7\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090", "no-kernel-image"},
		{"a CUDA new enough for the GPU", "- RTX 3080\n- PyTorch 1.8.0\n  - CUDA 11.1", ""},
		{"CUDA 9 on Turing fails in cuBLAS", "CUDA 9.0\ncuDNN 7.5 for cuda 9.0\nRTX 2080 ti", "no-kernel-image"},
		{"a docker-style tag: pytorch:0.3.0-cuda9.0 on an RTX 2080", "pytorch:0.3.0-cuda9.0\ngpu:rtx-2080", "no-kernel-image"},
		{"a device string is not a CUDA version", "x = x.to('cuda:1')\nGeForce GTX 1080 Ti", ""},
		{"a user's own \"cuda version\" is no driver's (driver 535 runs CUDA 12.1)", `cuda version: 11.3
PyTorch version: 2.3.1+cu121
CUDA used to build PyTorch: 12.1
GPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB
Nvidia driver version: 535.161.08`, ""},
		{"a file path is not a torch version", `  File "/usr/lib/python3/site-packages/torch/nn/modules/module.py", line 1130, in _call_impl`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := FromText(strings.Split(c.text, "\n"))
			var got string
			if p != nil {
				if fs := p.Judge(); len(fs) > 0 {
					got = fs[0].Class
					if len(fs[0].Evidence) == 0 {
						t.Errorf("finding %q quotes no pasted line", fs[0].Message)
					}
				}
			}
			if got != c.class {
				t.Errorf("class = %q, want %q", got, c.class)
			}
		})
	}
}

func TestToolkitArchRange(t *testing.T) {
	for _, c := range []struct {
		cuda   string
		lo, hi int
	}{{"10.1", 30, 75}, {"11.0", 35, 80}, {"11.3", 35, 86}, {"11.8", 35, 90}, {"12.1", 50, 90}, {"12.8", 50, 121}, {"13.0", 75, 121}, {"8.0", 20, 62}} {
		if lo, hi := toolkitArchRange(c.cuda); lo != c.lo || hi != c.hi {
			t.Errorf("toolkitArchRange(%s) = %d..%d, want %d..%d", c.cuda, lo, hi, c.lo, c.hi)
		}
	}
}

// TestFactGateChangesNothing reads every real log of the report corpus and
// the fixtures with and without the word gate before the fact patterns:
// the facts must be the same.
func TestFactGateChangesNothing(t *testing.T) {
	var logs []string
	files, _ := filepath.Glob("../../testdata/reports/*.jsonl")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			var rec struct {
				Log string `json:"log"`
			}
			if line != "" && json.Unmarshal([]byte(line), &rec) == nil {
				logs = append(logs, rec.Log)
			}
		}
	}
	more, _ := filepath.Glob("../../testdata/gpu/logs/*/*.log")
	for _, f := range more {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, string(data))
	}
	if len(logs) < 100 {
		t.Fatalf("only %d logs found", len(logs))
	}
	found := 0
	check := func(part []string) {
		want, got := fromText(part, false), fromText(part, true)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("the gate changed the facts of\n%s\nwithout: %+v\nwith:    %+v", strings.Join(part, "\n"), want, got)
		}
		if want != nil {
			found++
		}
	}
	for _, log := range logs {
		lines := strings.Split(log, "\n")
		check(lines)
	}
	if found < 50 {
		t.Errorf("facts found in only %d windows: the test reads too little", found)
	}
}
