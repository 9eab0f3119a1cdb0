package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/par"
	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// contextTriggers let the lines of pasted environment output (collect_env,
// nvidia-smi, torch.__version__, pip lists) reach the parser, so that the
// root behind a surface error can be read from them.
var contextTriggers = []string{"PyTorch version", "CUDA used to build", "Driver Version", "driver version", "CUDA Version",
	"GeForce", "Tesla ", "Quadro", "TITAN ", "torch==", "MiB / ", "torch.__version__", "torch.version.cuda",
	"get_device_name", "GPU models and configuration", "Unsupported .version", "PTX version from", "Is CUDA available", "NVIDIA A", "NVIDIA H", "NVIDIA L", "NVIDIA B", "NVIDIA T4", "NVIDIA RTX",
	// GPUs and CUDA versions as users write them in prose.
	"RTX 20", "RTX 30", "RTX 40", "RTX 50", "RTX 60", "RTX 80", "rtx 20", "rtx 30", "rtx 40", "rtx 50", "rtx-20", "rtx-30", "rtx-40", "RTX-20", "RTX-30", "RTX-40",
	"RTX206", "RTX207", "RTX208", "RTX306", "RTX307", "RTX308", "RTX309", "RTX406", "RTX407", "RTX408", "RTX409", "RTX507", "RTX508", "RTX509",
	"GTX 10", "GTX 16", "GTX 95", "GTX 96", "GTX 97", "GTX 98", "GTX 75", "GTX 76", "GTX 77", "GTX 78", "GTX 66", "GTX 67", "GTX 68",
	"GTX106", "GTX107", "GTX108", "GTX165", "GTX166", "GTX950", "GTX960", "GTX970", "GTX980",
	"CUDA 1", "CUDA 9", "CUDA 8", "cuda 1", "cuda 9", "cuda 8", "Cuda 1", "Cuda 9", "cuda:9", "cuda:8", "cuda:1",
	"CUDA version", "cuda version", "Cuda version", "CUDA/cuDNN", "cudatoolkit", "nvidia/cuda:", "compilation tools", "CUDA runtime version",
	"TensorFlow version", "tensorflow-gpu", "tensorflow:", "tensorflow==",
	"pytorch is", "pytorch0", "pytorch1", "pytorch 0", "pytorch 1", "pytorch 2", "PyTorch 0", "PyTorch 1", "PyTorch 2",
	"torch 0.", "torch 1.", "torch 2.", "torch0.", "torch1.", "torch2.", "pytorch:", "cuda9.", "cuda8.", "cuda10", "cuda11", "cuda12"}

// Every trigger is at least minTrigger bytes long: the pre-filter samples
// the log with a stride of the shortest pattern's length minus three, so a
// short trigger would slow the scan of every log (see logparse/prefilter.go).
const minTrigger = 6

// refinableBy names, for each root that pasted facts can establish, the
// surface classes it stands behind: a cuBLAS error on a GPU the build has no
// kernels for is that missing architecture; "CUDA unavailable" with a driver
// older than the build is the driver.
var refinableBy = map[string]map[string]bool{
	"no-kernel-image": set("cublas-error", "cudnn-error", "illegal-address", "other", "nccl-error", "launch-config", "device-assert-other"),
	"driver-too-old":  set("cuda-unavailable", "other", "cublas-error", "cudnn-error", "illegal-address", "device-busy", "library-mismatch", "no-kernel-image"),
	"oom":             set("cublas-error", "cudnn-error", "other"),
}

func set(xs ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// sourceLines are every parsed line of a source, in log order, one text
// per line number (the first of eventLines').
func sourceLines(s *source) []logparse.Line {
	var out []logparse.Line
	seen := map[int]bool{}
	for _, l := range eventLines(s) {
		if !seen[l.N] {
			seen[l.N] = true
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out
}

// applyContext refines findings whose log also holds pasted environment
// output: the environment checks run on those facts, and a failing check
// whose root stands behind the finding's surface class becomes its class,
// with the pasted lines as evidence and the surface kept as an alternative.
func applyContext(k *kb.KB, all []*source, fs []report.Finding) []report.Finding {
	// Reading the facts costs a dozen regexps per parsed line; a source
	// no finding can take them from is not read (a directory of thousands
	// of logs has many such), unless it says CUDA is unavailable.
	located := map[string][]int{} // path -> the findings it can refine
	for i := range fs {
		if f := &fs[i]; f.Location != nil && f.Severity >= report.Warning {
			located[f.Location.Path] = append(located[f.Location.Path], i)
		}
	}
	// named is located with the findings added below: the word passes of a
	// later source of the same name see them too.
	named := map[string][]int{}
	for p, idx := range located {
		named[p] = idx
	}
	read := make([]*sourceFacts, len(all))
	par.Do(len(all), func(i int) {
		s := all[i]
		lines := sourceLines(s)
		if len(lines) == 0 || len(located[s.name]) == 0 && !mayStandAlone(s, lines) {
			return
		}
		read[i] = readFacts(lines)
	})
	for si, s := range all {
		sf := read[si]
		if sf == nil {
			continue
		}
		idx := located[s.name]
		refineByWords(k, s.name, sf.lines, sf.texts, fs, named[s.name])
		refineByLibraryCopies(k, s.name, sf.lines, sf.texts, fs, named[s.name])
		refineForkChild(k, s, sf.lines, fs, named[s.name])
		refineByHardwareWords(k, s.name, sf.lines, sf.texts, fs, named[s.name])
		cueAlternatives(k, s.name, sf.texts, fs, named[s.name])
		p := sf.pasted
		if len(idx) == 0 {
			f, ok := standaloneFinding(k, s, sf, p)
			if !ok {
				continue
			}
			fs = append(fs, f)
			idx = append(idx, len(fs)-1)
			if f.Severity >= report.Warning {
				named[s.name] = append(named[s.name][:len(named[s.name]):len(named[s.name])], len(fs)-1)
			}
		}
		if p == nil {
			continue
		}
		for _, i := range idx {
			f := &fs[i]
			for _, c := range sf.judged {
				if !refinable(c, f) || c.Facts["binary_compatible"] == true && createsHandle(f) ||
					c.Facts["ptx_jit"] == true && !gpuFailure(f) || !ptxExplains(c, *f) ||
					c.Facts["library_only"] == true && !libraryFailure(f) {
					continue
				}
				refine(f, c, sf.lines, s.name)
				break
			}
			refineCuFFTOnNewGPU(f, p, sf.lines, s.name)
		}
	}
	return fs
}

// standaloneFinding is the finding a source with no failure of its own
// gets from what it states, first that wins: pasted environment output
// with no usable GPU, a CPU-only build, a device listing that closes
// after the CPU, a hardware fault stated in words, a GPU that the report
// says is not seen, a TensorRT build that ends in tactics skipped for want
// of memory. Each answers only when nothing else in the source failed,
// which keeps healthy logs quiet.
func standaloneFinding(k *kb.KB, s *source, sf *sourceFacts, p *probe.Pasted) (report.Finding, bool) {
	if p != nil {
		if f, ok := unavailableFinding(k, s.name, sf.lines, sf.texts, p); ok {
			return f, true
		}
	}
	if f, ok := cpuBuildFinding(k, s, sf.lines, p); ok {
		return f, true
	}
	if f, ok := deviceListFinding(k, s.name, sf.lines, sf.texts); ok {
		return f, true
	}
	if f, ok := hardwareStatedFinding(k, s.name, sf.lines, sf.texts); ok {
		return f, true
	}
	if f, ok := unseenGPUFinding(k, s.name, sf.lines, sf.texts); ok {
		return f, true
	}
	return tacticMemoryFinding(k, s, sf.lines, sf.texts)
}

// mayStandAlone is standaloneFinding's cheap test, one question per
// entry, asked before a source's facts are read: some line may state one
// of those failures.
func mayStandAlone(s *source, lines []logparse.Line) bool {
	return saysUnavailable(lines) || saysCPUBuild(s) || saysDeviceList(lines) || saysHardware(lines) || saysStated(lines)
}

// standingFinding is a finding of class id that a line of the source
// states by itself (no failure anchored it): at is its location and first
// evidence, more the further lines that support it; message "" takes the
// class's own verdict. False when the knowledge base lacks the class.
func standingFinding(k *kb.KB, id, name string, message string, at logparse.Line, more ...logparse.Line) (report.Finding, bool) {
	c, ok := k.Class(id)
	if !ok {
		return report.Finding{}, false
	}
	v := kb.Verdict{Class: c, Surface: c, Facts: map[string]string{}}
	if message == "" {
		message = v.Message()
	}
	ev := []report.Evidence{{Path: name, Line: at.N, Text: at.Text}}
	for _, l := range more {
		ev = append(ev, report.Evidence{Path: name, Line: l.N, Text: l.Text})
	}
	return report.Finding{
		Rule: c.ID, Class: c.ID, Severity: c.Severity, Message: message,
		Location: &report.Location{Path: name, Line: at.N},
		Evidence: ev,
		Remedies: v.Remedies(nil),
	}, true
}

// statedFinding is the finding of class id that line at states in the
// reporter's own words (no error line): the class's verdict, how the
// report puts it, and the line quoted. at < 0 is no finding.
func statedFinding(k *kb.KB, id, name string, lines []logparse.Line, at int, how string) (report.Finding, bool) {
	if at < 0 {
		return report.Finding{}, false
	}
	c, ok := k.Class(id)
	if !ok {
		return report.Finding{}, false
	}
	return standingFinding(k, id, name, c.Verdict+"; "+how+": "+strings.TrimSpace(lines[at].Text), lines[at])
}

// sourceFacts is what a source's parsed lines say about its environment:
// the part of applyContext that depends on the source alone, read for
// several sources side by side.
type sourceFacts struct {
	lines  []logparse.Line
	texts  []string // the lines' text
	pasted *probe.Pasted
	judged []report.Finding // pasted's checks, nil when pasted is
}

func readFacts(lines []logparse.Line) *sourceFacts {
	sf := &sourceFacts{lines: lines, texts: make([]string, len(lines))}
	expanded := make([]string, len(lines))
	for i, l := range lines {
		sf.texts[i] = l.Text
		expanded[i] = expandGPUNames(normaliseLooseGPU(l.Text))
	}
	if sf.pasted = probe.FromText(expanded); sf.pasted != nil {
		sf.judged = sf.pasted.Judge()
	}
	return sf
}

// ptxExplains: a driver whose compiler rejects the code's PTX version
// explains a failure to load or JIT-compile that code (a no-kernel-image
// status such as CUDA_ERROR_INVALID_PTX) and nothing else; and a failure to
// load code is the driver's only on that evidence, not on a driver merely
// older than the torch build (a build without the GPU's kernels fails the
// same way on any driver).
func ptxExplains(c, f report.Finding) bool {
	isa := c.Facts["ptx_isa"] == true
	if c.Class == "driver-too-old" && f.Class == "no-kernel-image" {
		return isa
	}
	return !isa
}

// createsHandle: the finding is cuBLAS failing to create its handle
// (cublasCreate, NOT_INITIALIZED, ALLOC_FAILED), which allocates memory and
// launches no kernel, so a GPU whose own major architecture the build
// carries (an RTX 4090 under CUDA 11.7 runs its sm_86 code) does not
// explain it.
func createsHandle(f *report.Finding) bool {
	if f.Class != "cublas-error" {
		return false
	}
	st, call := fmt.Sprint(f.Facts["cublas_status"]), fmt.Sprint(f.Facts["cublas_call"])
	return st == "NOT_INITIALIZED" || st == "ALLOC_FAILED" || call == "cublasCreate"
}

func refine(f *report.Finding, c report.Finding, lines []logparse.Line, name string) {
	surface := f.Class
	if s, ok := f.Facts["surface_class"].(string); ok {
		surface = s
	}
	var ev []report.Evidence
	for _, e := range c.Evidence {
		if e.Line >= 1 && e.Line <= len(lines) {
			l := lines[e.Line-1]
			ev = append(ev, report.Evidence{Path: name, Line: l.N, Text: l.Text})
		}
	}
	reclass(f, c.Class)
	f.Severity = report.Error
	f.Message = c.Message + "; the log's " + surface + " failure is its symptom"
	f.Evidence = append(ev, f.Evidence...)
	f.Remedies = append(append([]string{}, c.Remedies...), f.Remedies...)
	if f.Facts == nil {
		f.Facts = map[string]any{}
	}
	f.Facts["surface_class"] = surface
	for k, v := range c.Facts {
		if _, ok := f.Facts[k]; !ok {
			f.Facts[k] = v
		}
	}
}

// reclass makes to the finding's class and rule, with the surface class it
// had as the first alternative.
func reclass(f *report.Finding, to string) {
	surface := f.Class
	alts := []string{surface}
	for _, a := range f.Alternatives {
		if a != to && a != surface {
			alts = append(alts, a)
		}
	}
	f.Rule, f.Class, f.Alternatives = to, to, alts
}

// refineByWords applies the knowledge base's context refinements: a bare
// finding (no kernel assertion, no refinement of its own) becomes the
// class the words around it point to, with that line as evidence and the
// surface kept as the first alternative.
func refineByWords(k *kb.KB, name string, lines []logparse.Line, texts []string, fs []report.Finding, idx []int) {
	for _, i := range idx {
		f := &fs[i]
		if _, known := f.Facts["assertion"]; known {
			continue
		}
		status, _ := f.Facts["status"].(string)
		to, at := k.RefineByContext(f.Class, status, texts)
		if to == nil {
			continue
		}
		f.Message = reroot(f, to, name, lines[at])
	}
}

// reroot makes to the root of f on the evidence of line: the class, with
// the surface kept as the first alternative, the line appended to the
// evidence, to's remedies before the surface's. It returns to's message,
// its holes filled from f's facts.
func reroot(f *report.Finding, to *kb.Class, name string, line logparse.Line) string {
	facts := map[string]string{}
	for key, v := range f.Facts {
		facts[key] = fmt.Sprint(v)
	}
	v := kb.Verdict{Class: to, Surface: to, Facts: facts}
	if f.Facts == nil {
		f.Facts = map[string]any{}
	}
	if _, ok := f.Facts["surface_class"]; !ok {
		f.Facts["surface_class"] = f.Class
	}
	reclass(f, to.ID)
	f.Evidence = append(f.Evidence, report.Evidence{Path: name, Line: line.N, Text: line.Text})
	f.Remedies = append(v.Remedies(nil), f.Remedies...)
	return v.Message()
}

// cueAlternatives puts first, among each unrefined finding's alternatives,
// the roots whose cues the input shows ("allow_growth", a cuDNN version
// named next to a cuDNN error): the verdict stays the surface the failure
// states, and what the report itself points at is offered next.
func cueAlternatives(k *kb.KB, name string, texts []string, fs []report.Finding, idx []int) {
	for _, i := range idx {
		f := &fs[i]
		f.Alternatives = k.Cued(f.Class, f.Alternatives, texts)
	}
}

// saysUnavailable: some parsed line of the source holds collect_env's
// "Is CUDA available" (a cheap test before its facts are read).
func saysUnavailable(lines []logparse.Line) bool {
	for _, l := range lines {
		if strings.Contains(l.Text, "Is CUDA available") {
			return true
		}
	}
	return false
}

// unavailableRE is collect_env's verdict that PyTorch sees no GPU.
var unavailableRE = lazyre.New(`^\s*Is CUDA available:\s*(?:No|False)\s*$`)

// unavailableFinding: a pasted collect_env that says CUDA is unavailable on
// a machine that lists a GPU is the failure itself when nothing else in the
// input is (the caller asks only then); the environment checks that follow may name its root. Without
// a GPU in the paste (a CPU runner printing its environment) it is not.
func unavailableFinding(k *kb.KB, name string, lines []logparse.Line, texts []string, p *probe.Pasted) (report.Finding, bool) {
	if _, gpu := p.Lines["gpu"]; !gpu {
		return report.Finding{}, false
	}
	for i, t := range texts {
		if unavailableRE.MatchString(t) {
			return standingFinding(k, "cuda-unavailable", name, "", lines[i])
		}
	}
	return report.Finding{}, false
}
