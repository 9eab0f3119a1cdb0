package probe

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// A fact read from a paste is only as good as the line it came from. A
// tool prints what the machine has: collect_env, nvidia-smi, nvcc, pip and
// conda lists, a framework's device log, a Python prompt echoing
// torch.__version__. A user's own sentence ("rtx 2080ti, cuda9.0") states
// what they believe they run, and is often the CUDA they installed
// system-wide rather than the one the failing build carries. Verdicts that
// other evidence already settled give way only to printed facts.

// Provenance values of a pasted finding's "pasted_from" fact.
const (
	FromTool  = "tool"  // every fact the check read was printed by a tool
	FromProse = "prose" // at least one fact was the user's own statement
)

var (
	// collect_env's keys, nvidia-smi's header and table rows, nvidia-smi -L,
	// nvcc's banner, and PyTorch's own warning that names the GPU and its
	// capability.
	toolLineRE = lazyre.New(`^\s*(?:PyTorch version:|CUDA used to build PyTorch:|Is debug build:|GPU models and configuration:|GPU \d+: |Nvidia driver version:|CUDA runtime version:|cuDNN version:|Is CUDA available:|\[(?:pip3?|conda)\] )|^\s*[|+](?:\s|-|=)|NVIDIA-SMI \d|Driver Version:\s*\d+\.\d+.*CUDA Version:|\(UUID: GPU-|Cuda compilation tools, release|nvcc: NVIDIA \(R\)|with CUDA capability sm_\d+`)
	// A framework's log line: a timestamp or glog prefix, or TensorFlow,
	// XLA and Paddle describing the device they found (TensorFlow 2's
	// "pciBusID: ... name: GeForce RTX 3090 computeCapability: 8.6" among
	// them).
	frameworkLogRE = lazyre.New(`^\s*\[?\d{4}[-/]\d\d[-/]\d\d[ T_]\d\d:\d\d|^\s*[IWEF]\d{4} \d\d:\d\d:\d\d|Found device \d+ with properties|StreamExecutor device \(\d+\)|Created (?:TensorFlow )?device|\bname: .+ major: \d+ minor: \d+|GPU Compute Capability: \d|compute capability: \d+\.\d|\bcomputeCapability: \d+\.\d`)
	// A pip or conda list row ("torch   1.7.1+cu101   pypi_0   pypi"), a
	// pip freeze line alone ("torch==1.13.1+cu117"), or the bare version a
	// Python prompt prints back ("'1.7.1+cu101'").
	packageRowRE = lazyre.New(`^\s*(?:py)?torch(?:vision|audio)?\s{2,}\d|^\s*(?:tensorflow|tensorflow-gpu|jax|jaxlib|cudatoolkit|cudnn|nvidia-[\w-]+)\s{2,}\d|^\s*[\w.-]+==\S+\s*$|^\s*['"]?\d+\.\d+(?:\.\d+)?(?:[+.]\w+)?['"]?\s*$`)
)

// promptWords mark a line typed at, or printed by, an interactive Python
// session: what follows the prompt is the interpreter's answer.
var promptWords = []string{">>>", "In [", "Out[", "torch.__version__", "torch.version.cuda", "get_device_name(", "torch.cuda.get_device"}

// toolOutput: the line was printed by a program, not written by the user.
func toolOutput(l string) bool {
	for _, w := range promptWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return toolLineRE.MatchString(l) || frameworkLogRE.MatchString(l) || packageRowRE.MatchString(l)
}

// decidingKeys are the facts (keys of Pasted.Lines) a check's verdict
// rests on: the GPU and the build for the architecture checks, the driver
// and the build for the driver's, the memory reading for the memory check.
// The build is whichever line supplied the toolkit.
func (p *Pasted) decidingKeys(check string) []string {
	build := "cuda"
	if tk := p.Facts.Toolkit; tk != nil {
		switch {
		case tk.From == "as stated":
			build = "stated"
		case strings.HasPrefix(tk.From, "TensorFlow"):
			build = "tensorflow"
		case strings.HasPrefix(tk.From, "the newest of"):
			build = "torch"
		}
	}
	switch check {
	case "env/gpu-arch":
		return []string{"gpu", "cuda"}
	case "env/toolkit-arch":
		return []string{"gpu", build}
	case "env/build-arch":
		return []string{"gpu", "build_archs"}
	case "env/driver-version", "env/toolkit-driver":
		return []string{"driver", build}
	case "env/ptx-version":
		return []string{"ptx", "driver"}
	case "env/gpu-memory":
		return []string{"memory"}
	}
	return evidenceKeys[check]
}

// provenance is FromTool when every fact check rests on that the paste
// holds was read from a tool's output, FromProse otherwise.
func (p *Pasted) provenance(check string) string {
	for _, k := range p.decidingKeys(check) {
		if _, read := p.Lines[k]; read && !p.Tool[k] {
			return FromProse
		}
	}
	return FromTool
}
