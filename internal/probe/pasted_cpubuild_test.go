package probe

import "testing"

func TestCPUBuildLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"2.1.0+cpu", true},
		{"'1.13.1+cpu'", true},
		{"torch==1.7.1+cpu", true},
		{"PyTorch version: 2.0.0+cpu", true},
		{"[pip3] torch==2.2.1+cpu", true},
		{"cpuonly                   2.0                           0    pytorch", true},
		{"pytorch                   1.4.0               py3.7_cpu_0  [cpuonly]  pytorch", true},
		{"  pytorch            pytorch/win-64::pytorch-1.10.0-py3.6_cpu_0", true},
		{"pytorch-mutex             1.0                         cpu    pytorch", true},
		{"CUDA used to build PyTorch: None", true},
		{"CUDA used to build PyTorch: Could not collect", true},
		{"torch.version.cuda: None", true},
		// Look-alikes: a CUDA build, another package's CPU build, the CPU
		// index in a command, words about CPUs.
		{"2.1.0+cu121", false},
		{"CUDA used to build PyTorch: 12.1", false},
		{"intel_extension_for_pytorch 2.1.0+cpu", false},
		{"openvino 2023.0.0+cpu", false},
		{"pip install torch --index-url https://download.pytorch.org/whl/cpu", false},
		{"torch.multiprocessing.cpu_count() = 16", false},
		{"pytorch-mutex             1.0                        cuda    pytorch", false},
	} {
		if _, got := CPUBuildLine([]string{tc.line}); got != tc.want {
			t.Errorf("CPUBuildLine(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
