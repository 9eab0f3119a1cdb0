package diagnose

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/par"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/usercode"
)

// built is a finding with what arrange needs to order and merge it.
type built struct {
	f      report.Finding
	fail   *failure
	class  *kb.Class
	victim bool // only a consequence of another rank's failure: a timeout or a kill
	// suspect is the rank the evidence says this one waited for (it never
	// published what was waited on), or -1.
	suspect int
	time    string
	script  string // the script of the traceback's outermost frame
	async   bool   // reported asynchronously, origin unknown
	launchB bool   // ran under CUDA_LAUNCH_BLOCKING=1 (no async hint)
	dsa     bool   // the log carries the TORCH_USE_CUDA_DSA hint
	// inplace: autograd found a saved tensor modified in place; the
	// traceback names backward(), where it was noticed, not the write.
	inplace bool
	verdict kb.Verdict
}

// lineRef ties a classification line back to the log.
type lineRef struct {
	path  string
	line  int
	text  string
	count int
}

const maxEvidence = 10

// torchCUDAErrorRE is PyTorch's own CUDA error exception line.
var torchCUDAErrorRE = lazyre.New(`^(?:RuntimeError|torch\.AcceleratorError|torch\.cuda\.\w+Error): CUDA error: `)

// classified is a cached Classify result: a log that repeats one error
// thousands of times, or a directory of logs that share failures, is
// classified once per distinct text. For a failure of no class it also
// keeps which line names a status and which reports a failure (-1 when
// none): both depend on the texts alone, and a regex over every line of
// every such failure cost more than the classification itself.
type classified struct {
	v  kb.Verdict
	ok bool
	// status and fatal index the failure's lines, for a failure of no
	// class only.
	status, fatal int
	// exitOnly: the fatal line is only a non-zero exit code.
	exitOnly bool
	st       *kb.Status
	hints    textHints
}

// textHints are what a failure's lines say about how it was reported.
type textHints struct {
	async     bool // PyTorch's note that the error may have been reported late
	dsa       bool // the TORCH_USE_CUDA_DSA hint
	modern    bool // the notes PyTorch 1.8 and later print with a CUDA error
	torchCUDA bool // PyTorch's own CUDA error exception line
}

func hintsOf(texts []string) textHints {
	var h textHints
	for _, t := range texts {
		if logparse.HasAsyncHint(t) {
			h.async = true
		}
		if strings.Contains(t, "TORCH_USE_CUDA_DSA") {
			h.dsa = true
		}
		if strings.Contains(t, "Search for `cuda") || strings.Contains(t, "CUDA_LAUNCH_BLOCKING") || strings.Contains(t, "TORCH_USE_CUDA_DSA") {
			h.modern = true
		}
		if torchCUDAErrorRE.MatchString(t) {
			h.torchCUDA = true
		}
	}
	return h
}

// failureText is the lines of a failure that classification reads, and
// the key its classification is shared under.
type failureText struct {
	texts []string
	refs  []lineRef
	key   string
}

func textOf(f *failure) failureText {
	var ft failureText
	for _, ev := range f.events {
		for i, l := range classifyLines(ev) {
			count := 0
			if i == 0 {
				count = ev.Count // a folded event's count belongs to its first line
			}
			ft.texts = append(ft.texts, l.Text)
			ft.refs = append(ft.refs, lineRef{f.src.name, l.N, l.Text, count})
		}
	}
	ft.key = strings.Join(ft.texts, "\n")
	return ft
}

// classify is the part of building a finding that depends on the text
// alone; failures with the same text share it.
func (e *Engine) classify(texts []string) classified {
	var c classified
	c.v, c.ok = e.KB.Classify(texts)
	if !c.ok {
		c.status, c.st = e.statusLine(texts)
		c.fatal = fatalLine(texts)
		if c.fatal < 0 {
			// A non-zero exit code, only when no other line failed.
			c.fatal = slices.IndexFunc(texts, exitCodeRE.MatchString)
			c.exitOnly = c.fatal >= 0
		}
	}
	c.hints = hintsOf(texts)
	return c
}

// cacheable says a text's classification is kept for the failures after it.
func cacheable(key string) bool { return len(key) < 1<<16 }

// classifyAll classifies every distinct text of the failures, GOMAXPROCS
// at a time; build then finds each in the cache.
func (e *Engine) classifyAll(fts []failureText) map[string]classified {
	cache := map[string]classified{}
	var todo []int
	for i, ft := range fts {
		if _, seen := cache[ft.key]; len(ft.texts) > 0 && cacheable(ft.key) && !seen {
			cache[ft.key] = classified{}
			todo = append(todo, i)
		}
	}
	out := make([]classified, len(todo))
	par.Do(len(todo), func(j int) { out[j] = e.classify(fts[todo[j]].texts) })
	for j, i := range todo {
		cache[fts[i].key] = out[j]
	}
	return cache
}

func (e *Engine) build(f *failure, ft failureText, cache map[string]classified) *built {
	texts, refs := ft.texts, ft.refs
	if len(texts) == 0 {
		return nil
	}
	c, hit := cache[ft.key]
	if !hit {
		c = e.classify(texts)
		if cacheable(ft.key) {
			cache[ft.key] = c
		}
	}
	v, ok := c.v, c.ok
	if ok && (v.Class.ID == "oom" || v.Class.ID == "oom-fragmentation") {
		if g, grew := f.src.track.memoryGrowth(f.firstLine()); grew {
			// The verdict is shared through the cache: copy its facts.
			vf := make(map[string]string, len(v.Facts)+1)
			for k, x := range v.Facts {
				vf[k] = x
			}
			vf["memory_growth"] = g
			v.Facts = vf
		}
	}
	b := &built{fail: f, time: f.time()}
	facts := map[string]any{}
	if !ok {
		// A failure cudadoctor has no class for: never silent, but soft.
		// Quote the error and say what would settle it.
		exc := rootException(f)
		named, st := c.status >= 0, c.st
		var r lineRef
		if named {
			r = refs[c.status]
		}
		torchMsg := false // a PyTorch error pasted without its exception line
		switch {
		case named:
			// A CUDA or library status that names no class by itself
			// (cudaErrorUnknown, a cuSOLVER or cuFFT status) is still a
			// failure, and the status says more than the exception.
			b.f = report.Finding{Rule: "other", Class: "other", Severity: report.Warning,
				Message: fmt.Sprintf("%s reported %s, which does not say what failed: %s", statusFamily(st), st.Name, leadingWords(r.text, 24))}
			facts["status"] = st.Name
			b.f.Evidence = []report.Evidence{{Path: r.path, Line: r.line, Text: r.text}}
			b.f.Location = &report.Location{Path: r.path, Line: r.line}
		case exc != nil && strings.HasSuffix(exc.Type, "ExceptionGroup"):
			// A container: Python prints each of its sub-exceptions right
			// after it, as tracebacks of their own, and those are the
			// failures ("unhandled errors in a TaskGroup" says nothing).
			return nil
		case exc != nil && (exc.Type != "" || endsInException(exc)):
			what := oneLine(exc.Type, exc.Message)
			if exc.Type == "" {
				what = oneLine(exc.Lines[0].Text, "")
			}
			b.f = report.Finding{Rule: "other", Class: "other", Severity: report.Warning,
				Message: fmt.Sprintf("a Python exception that is not a known CUDA or PyTorch failure: %s", what)}
			b.f.Evidence = []report.Evidence{{Path: f.src.name, Line: exc.Lines[0].N, Text: exc.Lines[0].Text}}
			b.f.Location = &report.Location{Path: f.src.name, Line: exc.Lines[0].N}
		case (c.fatal < 0 || c.exitOnly) && cutOff(exc):
			// A traceback whose paste ends at a frame: the error line was
			// cut off, but a traceback is only printed when something
			// raised. Say so, quote the deepest frame, and ask for the rest.
			fr := &exc.Frames[len(exc.Frames)-1]
			text := fmt.Sprintf("File %q, line %d", fr.Path, fr.Line)
			if fr.Function != "" {
				text += ", in " + fr.Function
			}
			b.f = report.Finding{Rule: "other", Class: "other", Severity: report.Warning,
				Message: "a Python traceback that ends before its error line (the log or the paste was cut off); its last frame: " + text}
			b.f.Evidence = []report.Evidence{{Path: f.src.name, Line: fr.LogLine, Text: text}}
			b.f.Location = &report.Location{Path: f.src.name, Line: fr.LogLine}
			if u := innermostUser(exc.Frames); u != nil {
				b.f.Location = loc(u)
			}
		default:
			if c.fatal < 0 {
				return nil
			}
			r := refs[c.fatal]
			msg := "an error that is not a known CUDA or PyTorch failure: "
			var fix string
			if fix, torchMsg = torchErrorFix(r.text); torchMsg {
				msg = "a PyTorch error of no CUDA failure class: "
				if fix == hostRAMFix {
					msg = "the machine's RAM ran out, not the GPU's memory: "
				}
			}
			b.f = report.Finding{Rule: "other", Class: "other", Severity: report.Warning,
				Message: msg + leadingWords(r.text, 24)}
			b.f.Evidence = []report.Evidence{{Path: r.path, Line: r.line, Text: r.text}}
			b.f.Location = &report.Location{Path: r.path, Line: r.line}
		}
		if named || ((exc == nil || exc.Type == "") && !torchMsg) || (exc != nil && cudaWordRE.MatchString(exc.Type+": "+exc.Message)) {
			// A crash, a status, or an exception about the GPU: say which
			// roots most often stood behind such a failure. A ValueError
			// in the user's own code, or a PyTorch error that names its
			// own cause, gets none.
			for _, a := range e.KB.OtherAlternatives() {
				b.f.Alternatives = append(b.f.Alternatives, a.Class)
			}
		}
		b.f.Remedies = unknownRemedies
		if cutOff(exc) && (c.fatal < 0 || c.exitOnly) {
			b.f.Remedies = cutOffRemedies
		}
		if st != nil && len(st.Remedies) > 0 {
			b.f.Remedies = append(append([]string{}, st.Remedies...), unknownRemedies...)
		}
		// A PyTorch error that names its own cause, bare or in the
		// exception's message, gets that cause's fix, not GPU advice.
		quoted := b.f.Evidence[0].Text
		if exc != nil && exc.Type != "" && !named {
			quoted = exc.Message
		}
		if fix, ok := torchErrorFix(quoted); ok && !named {
			b.f.Remedies = []string{fix}
		}
	} else {
		b.class = v.Class
		b.verdict = v
		b.f = report.Finding{Rule: v.Class.ID, Class: v.Class.ID, Severity: v.Class.Severity}
		if v.Notice() {
			b.f.Severity = report.Info
		}
		for _, a := range v.Alternatives {
			if a.Class != v.Class.ID {
				b.f.Alternatives = append(b.f.Alternatives, a.Class)
			}
		}
		for k, val := range v.Facts {
			facts[k] = typed(val)
		}
		if v.Surface != nil && v.Class != v.Surface && !v.Notice() {
			facts["surface_class"] = v.Surface.ID
		}
		pr := refs[v.Primary]
		b.f.Location = &report.Location{Path: pr.path, Line: pr.line}
		seen := map[string]bool{}
		for _, i := range v.Evidence {
			r := refs[i]
			if seen[r.text] || len(b.f.Evidence) >= maxEvidence {
				continue
			}
			seen[r.text] = true
			ev := report.Evidence{Path: r.path, Line: r.line, Text: r.text}
			if r.count > 1 {
				ev.Count = r.count
			}
			b.f.Evidence = append(b.f.Evidence, ev)
		}
	}
	e.eventFacts(f, facts)
	switch {
	case f.rank >= 0 && f.localRank():
		facts["local_rank"] = f.rank
	case f.rank >= 0:
		b.f.Rank = report.IntPtr(f.rank)
	}
	asyncHint, dsaHint := c.hints.async, c.hints.dsa
	torchCUDA, modern := c.hints.torchCUDA, c.hints.modern
	// PyTorch before about 1.8 printed a bare "CUDA error: ..." without
	// the note, blocking or not: without the note's companions, nothing
	// says the traceback line is the origin, so it counts as reported late.
	if torchCUDA && !modern {
		asyncHint = true
	}
	// Without a class, any error that carries the hint was reported late.
	classAsync := (b.class == nil && asyncHint) || (b.class != nil && (v.Async || b.class.Async || (v.Surface != nil && v.Surface.Async)))
	if b.class != nil {
		b.addEvidence(f, refs, asyncHint && classAsync)
	}
	b.inplace = b.class != nil && isInplaceFailure(f)
	b.locate(f, asyncHint && classAsync)
	b.launchB = classAsync && !asyncHint
	if len(facts) > 0 {
		b.f.Facts = facts
	}
	b.victim = isVictim(b, f)
	b.suspect = -1
	if b.class != nil {
		b.f.Message = e.message(b, v, facts)
		b.asyncHint(classAsync, asyncHint, dsaHint)
		reporter := -1
		if f.rank >= 0 && !f.localRank() {
			reporter = f.rank
		}
		b.nameSuspect(reporter)
	}
	return b
}

// fatalLineRE recognises a line that reports a failure in any program: an
// exception line of any language's usual form, a crash (also as Python's
// faulthandler on Windows, an IDE's "interrupted by signal 11: SIGSEGV" or a
// Windows NTSTATUS exit code such as 0xC0000005 words it), a failed check.
var fatalLineRE = lazyre.New(`^\s*(?:[A-Za-z_][\w.]*\.)?_?[A-Z]\w*(?:Error|Exception)(?::|$)|Segmentation fault|core dumped|Fatal Python error|terminate called after throwing|\bCheck failed: |panicked at |\b(?:FATAL|Fatal error|fatal error): |\bTest (?:CUDA|NCCL) failure \S+:\d+|Windows fatal exception: |interrupted by signal \d+: SIG[A-Z]+|exit code -?\d+ \(0x[Cc]0000[0-9A-Fa-f]{3}\)|\] Error Code \d+: |\b[Aa]ssertion [\x60'"].{1,300}?['"\x60] failed\b|: F (?:tensorflow|external|third_party|xla)/\S+:\d+\] `)

// A log's own error tag ("ERROR:", "[ERROR]", a logger's "ERROR -",
// "error:") on a line that names the GPU stack, before or after the tag
// ("[CUDA] ERROR gpu 0: ...", "ERROR: CUDA initialisation failed"), is a
// failure line too.
// The libraries are named as their own messages spell them (Caffe's
// "Cublas" and "Curand", ONNX Runtime's "CUDAExecutionProvider"), and a
// driver API call ("cuInit", "cuCtxCreate") names the driver.
var gpuStackRE = lazyre.New(`\b(?:CUDA\w*|[Cc]uda|GPU|gpu|cuDNN|cudnn|CUDNN|cuBLAS|[Cc]ublas|CUBLAS|cuRAND|[Cc]urand|CURAND|cuFFT|cufft|NCCL|nccl|NVML|nvml|NVIDIA|[Nn]vidia|TensorRT|nvcc|ptxas|cu[A-Z][a-z]\w*)\b`)

// errorTagRE finds an ERROR word with what follows it; errorTagged decides
// whether it is a tag.
var errorTagRE = lazyre.New(`\bERROR\b(\s*[:\]-])?|\berror:`)

// errorTagged: the line carries an error tag. ERROR is a tag where a colon,
// a bracket or a logger's dash follows it, or where no prose comes before
// it (a time stamp, "[CUDA] ERROR gpu 0"); "no ERROR seen" is prose.
func errorTagged(line string) bool {
	for _, m := range errorTagRE.FindAllStringSubmatchIndex(line, -1) {
		if line[m[0]] == 'e' || m[2] >= 0 {
			return true
		}
		if !strings.ContainsFunc(line[:m[0]], unicode.IsLower) {
			return true
		}
	}
	return false
}

// cudaWordRE: an exception that is about the GPU stack, or a distributed
// job's summary of a worker that failed (torchrun's ChildFailedError).
var cudaWordRE = lazyre.New(`(?i)cuda|cudnn|cublas|nccl|nvidia|\bgpu\b|driver|distributed\.elastic|ChildFailedError`)

// statusFamily names the library a status belongs to, as users know it.
func statusFamily(s *kb.Status) string {
	switch s.Family {
	case "cuda":
		return "CUDA"
	case "nccl":
		return "NCCL"
	}
	return "cu" + strings.ToUpper(strings.TrimPrefix(s.Family, "cu"))
}

// statusLine is the index of the first of texts that names a CUDA or
// library status, alone or read with the lines after it when the message
// was wrapped, and that status; -1 when none does.
func (e *Engine) statusLine(texts []string) (int, *kb.Status) {
	for i := range texts {
		if hs := e.KB.StatusesAt(texts, i); len(hs) > 0 {
			return i, hs[0].Status
		}
	}
	return -1, nil
}

// torchErrors are the fixed parts of PyTorch error messages that users
// paste without the exception line in front of them ("RuntimeError:
// ..."), with the fix each message's cause calls for. Each is a failure by
// itself, of no class of the taxonomy, so the line counts as a fatal line:
// the log gets an "other" finding that quotes it instead of silence, and
// the fix instead of GPU advice (also when the exception line is there).
// Each text is the wording of the PyTorch source file named beside it,
// long enough that no progress or warning line holds it.
var torchErrors = []struct{ text, fix string }{
	// c10/core/impl/alloc_cpu.cpp: the host, not the GPU, is out of
	// memory ("DefaultCPUAllocator: not enough memory: you tried to
	// allocate N bytes", before 1.10 "can't allocate memory ... Error code
	// 12"); NumPy's own wording of the same ("Unable to allocate 3.5 GiB
	// for an array with shape ...").
	{"DefaultCPUAllocator: not enough memory", hostRAMFix},
	{"DefaultCPUAllocator: can't allocate memory", hostRAMFix},
	{"for an array with shape", hostRAMFix},
	// torch/csrc/distributed/c10d/reducer.cpp: DDP found parameters that
	// took no part in the loss, or a parameter's gradient ready twice.
	{"Expected to have finished reduction in the prior iteration",
		"Some parameters took no part in this step's loss (a branch not taken, an unused head or output): make every output of forward() count in the loss, or pass find_unused_parameters=True to DistributedDataParallel."},
	{"Expected to mark a variable ready only once",
		"A parameter's gradient became ready twice in one backward under DDP: a module called twice per step, or reentrant activation checkpointing. Use torch.utils.checkpoint with use_reentrant=False, or static_graph=True when the graph is the same every step."},
	{"has been marked as ready twice",
		"A parameter's gradient became ready twice in one backward under DDP: a module called twice per step, or reentrant activation checkpointing. Use torch.utils.checkpoint with use_reentrant=False, or static_graph=True when the graph is the same every step."},
	// torch/csrc/autograd/saved_variable.cpp: a second backward through a
	// freed graph.
	{"Trying to backward through the graph a second time",
		"Call backward() once per graph. A tensor carried from one step to the next (an RNN's hidden state, a running loss) keeps the old graph alive: detach() it at the end of each step; use retain_graph=True only when the same graph really is used twice."},
	// torch/csrc/autograd/autograd.cpp: backward() on a tensor outside
	// the graph.
	{"does not require grad and does not have a grad_fn",
		"The loss was computed outside autograd: look for torch.no_grad() or inference_mode() around the forward, .detach(), .item() or .numpy() on the way to the loss, or every parameter frozen (requires_grad=False)."},
	// torch/autograd/__init__.py: backward() on a non-scalar without a
	// gradient.
	{"grad can be implicitly created only for scalar outputs",
		"backward() needs a scalar: reduce the output first (loss.mean() or loss.sum()), or pass the gradient explicitly (out.backward(torch.ones_like(out)))."},
	// torch/distributed/distributed_c10d.py: a collective before
	// init_process_group.
	{"Default process group has not been initialized",
		"Call torch.distributed.init_process_group() in every process before wrapping the model in DistributedDataParallel or calling a collective, and launch with torchrun so each process gets its rank and world size."},
	// torch/nn/functional.py: batch norm on a batch of one in training.
	{"Expected more than 1 value per channel when training",
		"A batch of one sample reached BatchNorm in training mode: drop the last incomplete batch (DataLoader(..., drop_last=True)), use a larger batch, or put that module in eval() mode."},
	// torch/nn/modules/module.py: a checkpoint that does not fit the
	// model.
	{"Error(s) in loading state_dict for",
		"The checkpoint does not fit the model: read the missing and unexpected keys and the size mismatches listed with the error; strip a 'module.' prefix saved from DataParallel or DDP, or build the model with the configuration the checkpoint was trained with. Use strict=False only for keys meant to be skipped."},
}

// torchErrorTemplates are the texts of torchErrors, which the prefilter
// lets through.
var torchErrorTemplates = func() []string {
	out := make([]string, len(torchErrors))
	for i, t := range torchErrors {
		out[i] = t.text
	}
	return out
}()

// hostRAMFix is the fix for a failure of the machine's RAM, which the GPU's
// memory settings do not touch.
const hostRAMFix = "The machine's RAM ran out, not the GPU's memory: lower the DataLoader's num_workers and prefetch_factor, load the dataset lazily instead of into memory, load checkpoints with map_location straight to the GPU or with mmap=True, and check free -h and the job's memory limit (cgroup, Slurm --mem)."

// torchErrorFix is the fix for the PyTorch error whose text s holds.
func torchErrorFix(s string) (string, bool) {
	for _, t := range torchErrors {
		if strings.Contains(s, t.text) {
			return t.fix, true
		}
	}
	return "", false
}

// fatalLine is the index of the first of texts that reports a failure, or -1.
func fatalLine(texts []string) int {
	for i, t := range texts {
		if fatalLineRE.MatchString(t) || holdsTorchTemplate(t) || (gpuStackRE.MatchString(t) && errorTagged(t)) || reportsCrash(t) || holdsErrorLevelFailure(t) {
			return i
		}
	}
	return -1
}

// holdsTorchTemplate reports whether a line holds a PyTorch error message
// of torchErrors.
func holdsTorchTemplate(line string) bool {
	_, ok := torchErrorFix(line)
	return ok
}

// unknownRemedies say what would settle a failure of no known class.
var unknownRemedies = []string{
	"Run `cudadoctor env` on the machine that failed: a driver, library or GPU-architecture problem shows there even when the error text does not name it.",
	"If the error came from a CUDA kernel, re-run with CUDA_LAUNCH_BLOCKING=1 (or `cudadoctor run -- CMD`) so that it is reported at the call that caused it, and explain the new log.",
	"Give cudadoctor the whole log, not only its last lines: the first error printed is usually the cause.",
}

// cutOffRemedies ask first for what a cut-off traceback lacks.
var cutOffRemedies = []string{
	"The error line comes right after the last frame of a traceback: give cudadoctor the log up to its end (the whole file, not a copy of the screen), and it names the failure.",
	unknownRemedies[0],
}

func oneLine(typ, msg string) string {
	if msg == "" {
		return typ
	}
	if len(msg) > 160 {
		msg = msg[:157] + "..."
	}
	return typ + ": " + msg
}

// typed turns numeric fact strings into numbers for JSON.
func typed(s string) any {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return s
}

// eventFacts adds what the parser measured: the assertion, the collective,
// torchrun's exit status.
func (e *Engine) eventFacts(f *failure, facts map[string]any) {
	workSeen := false
	for _, ev := range f.events {
		switch {
		case ev.Assert != nil:
			if _, ok := facts["failed_threads"]; !ok {
				// The knowledge base names the first line's parts; the
				// parser adds what only the whole flood shows.
				setDefault(facts, "kernel", ev.Assert.Kernel)
				setDefault(facts, "assertion", ev.Assert.Expr)
				if _, ok := facts["kernel_src"]; !ok {
					setDefault(facts, "assert_source", fmt.Sprintf("%s:%d", ev.Assert.File, ev.Assert.Line))
				}
				setDefault(facts, "block", ev.Assert.Block)
				setDefault(facts, "thread", ev.Assert.Thread)
				facts["failed_threads"] = ev.Count
			}
		case ev.Work != nil:
			if !workSeen {
				// The knowledge base's signature may have named some of
				// these already, under the same names: fill the rest.
				workSeen = true
				w := ev.Work
				setDefault(facts, "seq", w.SeqNum)
				setDefault(facts, "nccl_op", w.OpType)
				if w.NumelIn > 0 || w.NumelOut > 0 {
					setDefault(facts, "numel_in", w.NumelIn)
					setDefault(facts, "numel_out", w.NumelOut)
				}
				setDefault(facts, "timeout_ms", w.TimeoutMs)
				if w.RanForMs > 0 {
					setDefault(facts, "ran_ms", w.RanForMs)
				}
			}
		case ev.Kind == logparse.KindSanitizer:
			if len(ev.Lines) > 0 {
				facts["sanitizer_error"] = ev.Lines[0].Text
				if ev.Count > 1 {
					facts["sanitizer_records"] = ev.Count
				}
				for _, l := range ev.Lines[1:] {
					if strings.HasPrefix(l.Text, "at ") {
						facts["kernel_location"] = strings.TrimPrefix(l.Text, "at ")
						break
					}
				}
			}
		}
	}
	for _, ev := range f.events {
		for _, l := range ev.Lines {
			if m := fingerprintRE.FindAllStringSubmatch(l.Text, -1); len(m) == 2 {
				ranks := rankRunningRE.FindAllStringSubmatch(l.Text, -1)
				if len(ranks) == 2 {
					facts["nccl_op"] = m[0][2]
					facts["seq"] = typed(m[0][1])
					facts["rank_"+ranks[0][1]+"_shape"] = "[" + m[0][3] + "]"
					facts["rank_"+ranks[1][1]+"_shape"] = "[" + m[1][3] + "]"
					if m[0][4] != m[1][4] {
						facts["rank_"+ranks[0][1]+"_dtype"] = m[0][4]
						facts["rank_"+ranks[1][1]+"_dtype"] = m[1][4]
					}
				}
				return
			}
		}
	}
}

// fingerprintMismatch reports whether the facts hold two ranks'
// fingerprints of one collective (rank_<r>_shape), which settles the cause.
func fingerprintMismatch(facts map[string]any) bool {
	n := 0
	for k := range facts {
		if strings.HasPrefix(k, "rank_") && strings.HasSuffix(k, "_shape") {
			n++
		}
	}
	return n >= 2
}

var (
	fingerprintRE = lazyre.New(`CollectiveFingerPrint\(SequenceNumber=(\d+), OpType=(\w+), TensorShape=\[([^\]]*)\], TensorDtypes=(\w+)`)
	rankRunningRE = lazyre.New(`Rank (\d+) is running collective`)
)

// rootException is the first exception of the failure's chain: the cause.
func rootException(f *failure) *logparse.Exception {
	for _, ev := range f.events {
		if ev.Kind == logparse.KindTraceback && len(ev.Chain) > 0 {
			return &ev.Chain[0]
		}
	}
	return nil
}

// cutOff says a traceback was cut off before its exception line: frames,
// and nothing after them.
func cutOff(exc *logparse.Exception) bool {
	return exc != nil && exc.Type == "" && exc.Message == "" && len(exc.Frames) > 0
}

// innermostUser returns the deepest user frame of an exception.
func innermostUser(frames []logparse.Frame) *logparse.Frame {
	for i := len(frames) - 1; i >= 0; i-- {
		if usercode.IsUser(frames[i].Path) {
			return &frames[i]
		}
	}
	return nil
}

func loc(fr *logparse.Frame) *report.Location {
	return &report.Location{Path: fr.Path, Line: fr.Line, Function: fr.Function, Code: fr.Code}
}

// locate sets origin and reported. The traceback's innermost user frame of
// the root exception is where the error surfaced. It is the origin unless
// the error was reported asynchronously; then only other evidence names
// the origin: the failed collective's stack, or a sanitizer's host
// backtrace.
func (b *built) locate(f *failure, async bool) {
	var surfaced *logparse.Frame
	var userFiles = map[string]string{} // basename -> full path
	for _, ev := range f.events {
		if ev.Kind != logparse.KindTraceback {
			continue
		}
		for ci := range ev.Chain {
			for _, fr := range ev.Chain[ci].Frames {
				if usercode.IsUser(fr.Path) {
					userFiles[filepath.Base(fr.Path)] = fr.Path
				}
			}
			if surfaced == nil {
				surfaced = innermostUser(ev.Chain[ci].Frames)
			}
		}
		if b.script == "" && len(ev.Chain) > 0 {
			last := ev.Chain[len(ev.Chain)-1]
			for _, fr := range last.Frames {
				if usercode.IsUser(fr.Path) {
					b.script = fr.Path
					break
				}
			}
		}
	}
	var other *logparse.Frame
	for _, ev := range f.events {
		if other != nil {
			break
		}
		switch ev.Kind {
		case logparse.KindMessage:
			// "#0 all_reduce from ..." frames are innermost first.
			for i := range ev.Frames {
				if usercode.IsUser(ev.Frames[i].Path) {
					fr := ev.Frames[i]
					other = &fr
					break
				}
			}
		case logparse.KindSanitizer:
			// Host frames are bare file names; prefer one the traceback
			// shows as user code, else the outermost.
			for i := range ev.Frames {
				if full, ok := userFiles[filepath.Base(ev.Frames[i].Path)]; ok {
					fr := ev.Frames[i]
					fr.Path = full
					other = &fr
					break
				}
			}
			if other == nil && len(ev.Frames) > 0 {
				fr := ev.Frames[len(ev.Frames)-1]
				other = &fr
			}
		}
	}
	switch {
	case other != nil:
		b.f.Origin = loc(other)
		if surfaced != nil && (surfaced.Line != other.Line || filepath.Base(surfaced.Path) != filepath.Base(other.Path)) {
			b.f.Reported = loc(surfaced)
		}
	case async:
		if surfaced != nil {
			b.f.Reported = loc(surfaced)
		}
		b.async = true
	case surfaced != nil && b.inplace:
		b.f.Reported = loc(surfaced)
	case surfaced != nil:
		b.f.Origin = loc(surfaced)
	}
	if b.inplace {
		if node, fwd := anomalyForward(f); fwd != nil {
			b.f.Related = append(b.f.Related, report.Related{
				Message:  fmt.Sprintf("the tensor changed in place was saved for backward here, by %s (anomaly detection); the in-place write is here or later", node),
				Location: loc(fwd),
			})
		}
	}
	if b.script == "" && surfaced != nil {
		b.script = surfaced.Path
	}
}

// isVictim: a failure that only shows a rank waiting for, or killed
// because of, another rank.
func isVictim(b *built, f *failure) bool {
	if b.class == nil {
		return true
	}
	for _, ev := range f.events {
		for _, l := range ev.Lines {
			t := l.Text
			if strings.Contains(t, "Detected mismatch between collectives") {
				return false
			}
		}
	}
	switch b.class.ID {
	case "nccl-error", "host-killed":
		return true
	}
	return false
}

func factStrings(facts map[string]any) map[string]string {
	out := make(map[string]string, len(facts))
	for k, v := range facts {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// classifyLines are the lines of an event the knowledge base judges: its
// significant lines and, for tracebacks, the frame lines (a refinement may
// need to know the error came from a kernel launch), in log order. Code
// lines are left out: source text is not evidence of a failure.
func classifyLines(ev *logparse.Event) []logparse.Line {
	if ev.Kind != logparse.KindTraceback {
		return ev.Lines
	}
	var out []logparse.Line
	for _, e := range ev.Chain {
		for _, fr := range e.Frames {
			text := fmt.Sprintf("File %q, line %d", fr.Path, fr.Line)
			if fr.Function != "" {
				text += ", in " + fr.Function
			}
			out = append(out, logparse.Line{N: fr.LogLine, Text: text})
			// The statement itself ("loss = F.cross_entropy(logits, y)") is
			// often the only clue to which kernel asserted: notebooks never
			// show the kernel's own assertion line.
			if fr.Code != "" {
				out = append(out, logparse.Line{N: fr.LogLine + 1, Text: fr.Code})
			}
		}
	}
	out = append(out, ev.Lines...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out
}

func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// addEvidence makes sure the evidence shows the exception that surfaced
// and, when it matters, PyTorch's note that it was reported late.
func (b *built) addEvidence(f *failure, refs []lineRef, async bool) {
	have := map[string]bool{}
	for _, e := range b.f.Evidence {
		have[e.Text] = true
	}
	add := func(r lineRef) {
		if have[r.text] || len(b.f.Evidence) >= maxEvidence {
			return
		}
		have[r.text] = true
		b.f.Evidence = append(b.f.Evidence, report.Evidence{Path: r.path, Line: r.line, Text: r.text})
	}
	if exc := rootException(f); exc != nil && len(exc.Lines) > 0 {
		add(lineRef{path: f.src.name, line: exc.Lines[0].N, text: exc.Lines[0].Text})
	}
	if async {
		for _, r := range refs {
			if logparse.HasAsyncHint(r.text) {
				add(r)
				break
			}
		}
	}
	sort.SliceStable(b.f.Evidence, func(i, j int) bool { return b.f.Evidence[i].Line < b.f.Evidence[j].Line })
}
