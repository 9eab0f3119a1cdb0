package probe

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// cpuBuildRE is a pasted line that names a CPU-only PyTorch build, in the
// words each tool prints it with:
//   - a version with the CPU wheel's local tag, as torch.__version__, pip
//     and collect_env print it ("2.1.0+cpu", "torch==1.7.1+cpu");
//   - conda's package name or build string for it ("cpuonly 2.0 0
//     pytorch", "pytorch 1.4.0 py3.7_cpu_0", "pytorch/win-64::pytorch-1.10.0-py3.6_cpu_0",
//     "pytorch-mutex 1.0 cpu", conda-forge's "pytorch_cpu"/"pytorch-cpu");
//   - collect_env's "CUDA used to build PyTorch: None" (older releases
//     print "Could not collect" for the same None), and torch.version.cuda
//     printed as None on the line that asks for it.
var cpuBuildRE = lazyre.New(`(?i)(?:^|[\s'"(=v])\d+\.\d+(?:\.\d+)?(?:\.post\d+)?\+cpu\b|\bcpuonly\b|\bpy\d{1,2}(?:\.\d+)?_cpu(?:_\d+)?\b|\bpytorch-mutex\W+1\.0\W+cpu\b|\bpytorch[-_]cpu\b|CUDA used to build PyTorch:\s*(?:None|Could not collect)\s*$|torch\.version\.cuda\W*None\b`)

// cpuBuildOthers are packages whose own CPU builds carry the same "+cpu"
// tag and say nothing about torch's (Intel's extension, OpenVINO's).
var cpuBuildOthers = []string{"intel", "ipex", "openvino", "onnx"}

// cpuBuildWords gate cpuBuildRE: each of its wordings holds one of them
// (lower case).
var cpuBuildWords = []string{"+cpu", "cpuonly", "_cpu", "mutex", "pytorch-cpu", "pytorch_cpu", "cuda used to build pytorch", "torch.version.cuda"}

// CPUBuildLine is the index of the first of lines that names a CPU-only
// PyTorch build, and whether there is one.
func CPUBuildLine(lines []string) (int, bool) {
	for i, l := range lines {
		lower := strings.ToLower(l)
		if !containsAny(lower, cpuBuildWords) || containsAny(lower, cpuBuildOthers) {
			continue
		}
		if cpuBuildRE.MatchString(l) {
			return i, true
		}
	}
	return 0, false
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// StatedCUDALine is the index of the first of lines that states a CUDA
// version the way FromText reads the user's own ("cudatoolkit=11.3",
// "CUDA 12.1", nvcc's release line), and whether there is one: for a paste
// that holds too little else for FromText to read.
func StatedCUDALine(lines []string) (int, bool) {
	for i, l := range lines {
		if strings.Contains(l, "CUDA used to build") {
			continue
		}
		if m := statedCUDARE.FindStringSubmatch(l); m != nil && cudaKnown(m[1]) {
			return i, true
		}
	}
	return 0, false
}
