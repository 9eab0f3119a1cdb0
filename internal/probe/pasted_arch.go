package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/nvml"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Logs print a GPU's compute capability without a name the capability
// table knows ("Device 0: NVIDIA GB10, compute capability 12.1", NCCL's
// "Min Comp Cap 8", detectron2's "(arch=8.6)", TensorFlow 1.x's "major: 3
// minor: 0", torch.cuda.get_device_capability()'s "(8, 6)"), and some builds say outright which capability they carry no
// binaries for (TensorFlow's "not built with CUDA kernel binaries
// compatible with compute capability 12.0"). Both are read here.

var (
	printedCCRE = lazyre.New(`(?i)\bcompute capability:?\s+(\d{1,2})\.(\d)\b|\bMin Comp Cap (\d{1,2})\b|\(arch=(\d{1,2})\.(\d)\)|\bmajor: (\d{1,2}) minor: (\d)\b|get_device_capability\(\w*\)\)?\s*(?:=|->|:|is|returns?|#)?\s*\((\d{1,2}),\s*(\d)\)`)
	// torch.cuda.get_device_capability()'s answer alone on the line after
	// the call, as a Python prompt shows it: "(8, 6)".
	capabilityTupleRE = lazyre.New(`^\s*\(\d{1,2},\s*\d\)\s*$`)
	tfLacksRE         = lazyre.New(`TensorFlow was not built with CUDA kernel binaries compatible with compute capability (\d{1,2})\.(\d)`)
)

// wheelTagRE is a CUDA wheel tag standing alone in prose ("pytorch with
// cu117", "the cu102 build", ".../whl/cu118"): the CUDA the user's build
// was made with. A tag glued to a version ("1.13.1+cu117") is the torch
// version's and read with it.
var wheelTagRE = lazyre.New(`(?i)(?:^|[\s/=(])cu(1[0-3]\d|[89]\d)\b`)

// wheelTagWords: the words wheelTagRE needs; FromText's first gate
// (factWords) holds them too.
var wheelTagWords = []string{"cu1", "cu9", "cu8"}

// wheelTagCUDA is the CUDA version of a wheel tag on the line ("11.7").
func wheelTagCUDA(w lineWords) (string, bool) {
	if !w.digit || !w.may(wheelTagWords) {
		return "", false
	}
	m := wheelTagRE.FindStringSubmatch(w.line)
	if m == nil {
		return "", false
	}
	return cudaTagVersion("cu" + m[1]), true
}

// archWords gate the two patterns: a line holds one of them (lower case);
// FromText's first gate (factWords) holds them too.
var archWords = []string{"compute capability", "min comp cap", "(arch=", "minor: ", "get_device_capability"}

// capabilityReply joins a line holding only a capability tuple to the
// torch.cuda.get_device_capability() call on the line before it, so that
// the pair reads as one statement of the GPU's capability; any other line
// is returned as it is.
func capabilityReply(prev, l string) string {
	if !strings.HasPrefix(strings.TrimSpace(l), "(") || !strings.Contains(prev, "get_device_capability(") || !capabilityTupleRE.MatchString(l) {
		return l
	}
	return strings.TrimRight(prev, " \t") + " " + strings.TrimSpace(l)
}

// printedCapability is the compute capability a line prints, if any.
func printedCapability(w lineWords) (major, minor int, ok bool) {
	if !w.digit || !w.may(archWords) {
		return 0, 0, false
	}
	m := printedCCRE.FindStringSubmatch(w.line)
	if m == nil {
		return 0, 0, false
	}
	maj, min := m[1]+m[3]+m[4]+m[6]+m[8], m[2]+m[5]+m[7]+m[9]
	if min == "" {
		min = "0"
	}
	a, _ := strconv.Atoi(maj)
	b, _ := strconv.Atoi(min)
	return a, b, a >= 2 && a <= 12
}

// readArchLine adds what line i says about architectures to p: a GPU
// known only by its printed capability (when the line named no GPU the
// table knows and no GPU of that capability is listed yet), and a build's
// statement that it lacks a capability.
func readArchLine(w lineWords, i int, p *Pasted, gpus []nvml.GPU, namedHere bool) []nvml.GPU {
	if m := tfLacksRE.FindStringSubmatch(w.line); m != nil && p.Facts.BuildArchs == nil {
		maj, _ := strconv.Atoi(m[1])
		min, _ := strconv.Atoi(m[2])
		p.Facts.BuildArchs = &BuildArchs{From: "TensorFlow", Lacks: []int{maj*10 + min}}
		p.Lines["build_archs"] = i
	}
	maj, min, ok := printedCapability(w)
	if !ok || namedHere {
		return gpus
	}
	for _, g := range gpus {
		if g.CCMajor == maj && g.CCMinor == min {
			return gpus
		}
	}
	gpus = append(gpus, nvml.GPU{Index: len(gpus), Name: fmt.Sprintf("GPU of compute capability %d.%d", maj, min), CCMajor: maj, CCMinor: min})
	if _, seen := p.Lines["gpu"]; !seen {
		p.Lines["gpu"] = i
	}
	return gpus
}

// BuildArchs is what a pasted log's build says about the architectures it
// carries.
type BuildArchs struct {
	From string `json:"from"`
	// Lacks are the compute capabilities (10*major+minor) the build says
	// it has no binaries for.
	Lacks []int `json:"lacks,omitempty"`
}

// buildArchCheck judges a build's own statement that it carries no
// binaries for the GPU: TensorFlow then JIT-compiles its kernels from PTX,
// which takes up to half an hour and, on an architecture newer than the
// build's toolkit, fails in ways that surface as other errors (an invalid
// handle, a failed cuBLAS or cuDNN call).
var buildArchCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/build-arch", Kind: report.KindProbe, Severity: report.Error,
		Title:   "the build carries binaries for the GPU's compute capability",
		Summary: "Reads a build's own statement, in a pasted log, that it has no kernel binaries for the GPU's compute capability (TensorFlow's \"not built with CUDA kernel binaries compatible with compute capability X\"). Its kernels then come from PTX compiled at run time, which is slow and fails on architectures newer than the build's toolkit.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "no-kernel-image"},
			{Title: "Fix", Body: "Install a release of the framework built for the GPU's compute capability (for TensorFlow: the newest release, or a build from source with TF_CUDA_COMPUTE_CAPABILITIES including it)."},
		},
	},
	Run: runBuildArch,
}

func runBuildArch(f *Facts) Result {
	b := f.BuildArchs
	if b == nil || len(b.Lacks) == 0 {
		return skip("no build states which architectures it lacks")
	}
	cc := b.Lacks[0]
	arch := smArch(cc/10, cc%10)
	fd := finding(report.Error,
		fmt.Sprintf("%s says it has no kernel binaries for this GPU's compute capability %d.%d (%s): its kernels are compiled from PTX at run time, which fails or stalls on an architecture newer than the build", b.From, cc/10, cc%10, arch),
		fmt.Sprintf("Install a %s release built for %s, or build it from source with that compute capability", b.From, arch))
	fd.Facts["capability"] = fmt.Sprintf("%d.%d", cc/10, cc%10)
	// The build still runs through PTX, so the statement explains a
	// failure of the GPU's own (a CUDA or library status), not any error
	// that happens to follow the warning.
	fd.Facts["ptx_jit"] = true
	return failWith(fd)
}
