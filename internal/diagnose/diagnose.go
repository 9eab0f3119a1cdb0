// Package diagnose turns logs into diagnoses: it parses each input into
// events, groups them into distinct failures, asks the knowledge base for
// each failure's root class, locates the user-code line it comes from, and
// joins the ranks of a distributed job into one verdict.
//
// The API is one call: New(kb).Explain(ctx, inputs), or its two halves
// when the caller reads inputs side by side: Read for each input (safe
// concurrently), then Diagnose over them in order. Each Input's Reader is
// read to its end in one streaming pass (a pipe from a running child is
// fine); memory stays bounded whatever the input size.
package diagnose

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/par"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/shellquote"
)

// NothingFound is what explain and run say when the input holds no
// failure.
const NothingFound = "no CUDA or PyTorch failure found in the input"

// Input is one named log stream ("-" for stdin).
type Input struct {
	Name   string
	Reader io.Reader
}

// Engine diagnoses inputs with a knowledge base. It is safe for
// concurrent use.
type Engine struct {
	KB *kb.KB
	// Warn, when set, is told of what an input held that was not read
	// whole (a line longer than the parser reads), one message each.
	Warn func(msg string)

	// keepBytes bounds the event text one input keeps (0: defaultKeepBytes).
	keepBytes int
	// memSample says which reads of a long input the memory scan looks at.
	memSample memSampling

	once sync.Once
	pf   *logparse.Prefilter
}

// New returns an engine over k.
func New(k *kb.KB) *Engine { return &Engine{KB: k} }

// commandTriggers find a command line echoed into the log (a shell prompt
// or `set -x` trace), so remedies can repeat the user's own command.
var commandTriggers = []string{"$ python", "+ python", "$ torchrun", "+ torchrun", "$ srun ", "+ srun "}

// fatalTriggers let lines that report a failure of no known class reach the
// parser, so that a log with an error is never answered with silence.
var fatalTriggers = []string{"Error: ", "Exception: ", "Segmentation fault", "core dumped", "Fatal Python error",
	"terminate called after", "Check failed: ", "panicked at ", "FATAL: ", "fatal error: ",
	// nccl-tests' own failure lines.
	"Test CUDA failure", "Test NCCL failure",
	// Crashes as Windows, Python's faulthandler on Windows and IDEs report them.
	"Windows fatal exception", "interrupted by signal", "(0xC0000", "(0xc0000",
	// TensorRT's error lines ("[E] 2: [builder.cpp::...] Error Code 2:
	// Internal Error (...)").
	"] Error Code ",
	// A log's own error tag on a line about the GPU stack ("ERROR: CUDA
	// initialisation failed", "[ERROR] GPU 0 not responding", "[CUDA]
	// ERROR gpu 0: ..."); fatalLine keeps those that name it.
	"ERROR: ", "[ERROR]", "ERROR ", "error: ",
	// A host-side assertion in C or C++ code ("python: op.cpp:42: void
	// run(): Assertion `status == CUBLAS_STATUS_SUCCESS' failed.", "Faiss
	// assertion 'err == cudaSuccess' failed in ..."); device asserts are
	// the parser's.
	"Assertion '", "assertion '", "assertion `",
	// TensorFlow's and XLA's fatal log line ("2019-03-01 12:00:01.123456:
	// F tensorflow/core/common_runtime/gpu/gpu_util.cc:339] GPU->CPU
	// Memcpy failed"), which aborts the process right after.
	": F tensorflow/", ": F external/", ": F third_party/", ": F xla/"}

// failureTriggers are fatalTriggers and the PyTorch error messages that
// report a failure even when pasted without their exception line.
var failureTriggers = slices.Concat(fatalTriggers, torchErrorTemplates)

// triggers are the texts besides the signatures' anchors that let a line
// reach the parser. Each is at least minTrigger bytes long, which keeps
// the prefilter's stride (see TestTriggersAreLong).
func triggers(k *kb.KB) []string {
	return slices.Concat(logparse.Triggers(), commandTriggers, k.StatusAnchors(), failureTriggers, crashTriggers, runtimeTriggers, contextTriggers, libraryCopyTriggers, cpuBuildTriggers, deviceListTriggers, tacticTriggers, gpuBurnTriggers, gpuWordTriggers, looseGPUTriggers, driverWordTriggers, forkChildTriggers, k.ContextWords(), k.CueWords())
}

func (e *Engine) prefilter() *logparse.Prefilter {
	e.once.Do(func() {
		as, reqs := withLineAnchors(anchorSet(e.KB))
		rest := triggers(e.KB)
		pats := slices.Concat(as, rest)
		e.pf = logparse.NewPrefilter(pats, slices.Concat(hardwareWords, hardwareUnitWords, minerWords, unseenGPUWords)...)
		// A text that is both a signature's anchor and a trigger of its
		// own ("CUDA error", which the status layer reads with any number
		// after it) keeps the prefilter's first index, the anchor's: it
		// must still pass as the trigger it also is.
		structural := make([]bool, len(as))
		for _, t := range rest {
			for i, a := range as {
				if a == t {
					structural[i] = true
				}
			}
		}
		// A line holding only an anchor ("214" in "step 214") is no
		// candidate unless it holds the rest a signature needs ("cuda").
		e.pf.Accept = func(line []byte, ids []int) bool {
			for _, id := range ids {
				if id >= len(as) || structural[id] {
					return true // a structural trigger or a command
				}
				for i := range reqs[id] {
					if reqs[id][i].holds(line) {
						return true
					}
				}
			}
			return false
		}
	})
	return e.pf
}

// defaultKeepBytes bounds the event text one input keeps: the first half
// of the budget and the most recent half, so a log full of errors still
// ends with its last failure and memory stays flat whatever the input.
const defaultKeepBytes = 16 << 20

// Explain reads every input to its end and returns the findings, primary
// first. Empty inputs yield no findings; binary input is an error.
func (e *Engine) Explain(ctx context.Context, inputs []Input) ([]report.Finding, error) {
	read := make([]*Parsed, 0, len(inputs))
	for _, in := range inputs {
		r, err := e.Read(ctx, in)
		if err != nil {
			return nil, err
		}
		if w := r.Warning(); w != "" && e.Warn != nil {
			e.Warn(w)
		}
		read = append(read, r)
	}
	return e.Diagnose(read), nil
}

// Parsed is one input read to its end: its events, and what it said outside
// them.
type Parsed struct {
	src *source
}

// Warning is what the input held that was not read whole (a line longer
// than the parser reads), or "".
func (r *Parsed) Warning() string { return r.src.track.long.warning(r.src.name) }

// Read reads one input to its end in one streaming pass. Inputs may be
// read concurrently; Diagnose takes them in the order they were given.
func (e *Engine) Read(ctx context.Context, in Input) (*Parsed, error) {
	pf := e.prefilter()
	keepBytes := e.keepBytes
	if keepBytes == 0 {
		keepBytes = defaultKeepBytes
	}
	src := &source{name: in.Name, track: &tracker{r: in.Reader, sample: e.memSample}}
	var headBytes int
	tail := &window{budget: keepBytes / 2}
	err := logparse.Parse(ctx, src.track, in.Name, pf, func(ev logparse.Event) {
		if n := eventBytes(&ev); headBytes+n <= keepBytes/2 {
			src.events = append(src.events, ev)
			headBytes += n
			return
		}
		tail.push(ev)
	})
	if err != nil {
		return nil, err
	}
	src.events = append(src.events, tail.items()...)
	src.fileRank = rankFromName(in.Name)
	return &Parsed{src: src}, nil
}

// Diagnose returns the findings of the inputs read, primary first.
func (e *Engine) Diagnose(read []*Parsed) []report.Finding {
	all := make([]*source, len(read))
	for i, r := range read {
		r.src.index = i
		all[i] = r.src
	}
	var fails []*failure
	var sums []summaryRef
	var cmd string
	for _, s := range all {
		f, su, c := s.group()
		fails = append(fails, f...)
		sums = append(sums, su...)
		if cmd == "" {
			cmd = c
		}
	}
	fts := make([]failureText, len(fails))
	par.Do(len(fails), func(i int) { fts[i] = textOf(fails[i]) })
	cache := e.classifyAll(fts)
	var findings []*built
	for i, f := range fails {
		if b := e.build(f, fts[i], cache); b != nil {
			findings = append(findings, b)
		}
	}
	findings = gate(findings)
	findings = e.reconcileTorchrun(findings, sums)
	out := e.arrange(findings, sums, cmd, len(all))
	out = applyContext(e.KB, all, out)
	settleAlternatives(e.KB, out)
	return out
}

// settleAlternatives says, for each alternative of each finding, what
// would tell it apart from the finding's class, once the class and its
// alternatives are final.
func settleAlternatives(k *kb.KB, fs []report.Finding) {
	for i := range fs {
		f := &fs[i]
		for _, alt := range f.Alternatives {
			if s := k.SettleBy(f.Class, alt); s != "" {
				if f.SettleBy == nil {
					f.SettleBy = map[string]string{}
				}
				f.SettleBy[alt] = s
			}
		}
	}
}

var rankNameRE = lazyre.New(`(?i)rank[_-]?(\d+)`)

// rankFromName reads a rank from a per-rank log's file name ("rank_3.log").
func rankFromName(name string) int {
	if m := rankNameRE.FindStringSubmatch(filepath.Base(name)); m != nil {
		n := 0
		fmt.Sscan(m[1], &n)
		return n
	}
	return -1
}

// window keeps the most recent events within a byte budget.
type window struct {
	budget, bytes int
	evs           []logparse.Event
	sizes         []int
	start         int
}

func (w *window) push(ev logparse.Event) {
	n := eventBytes(&ev)
	w.evs = append(w.evs, ev)
	w.sizes = append(w.sizes, n)
	w.bytes += n
	for w.bytes > w.budget && w.start < len(w.evs)-1 {
		w.bytes -= w.sizes[w.start]
		w.evs[w.start] = logparse.Event{}
		w.start++
	}
	if w.start > 1024 && w.start*2 > len(w.evs) {
		w.evs = append([]logparse.Event(nil), w.evs[w.start:]...)
		w.sizes = append([]int(nil), w.sizes[w.start:]...)
		w.start = 0
	}
}

func (w *window) items() []logparse.Event { return w.evs[w.start:] }

// eventBytes estimates an event's memory: its text and frames.
func eventBytes(ev *logparse.Event) int {
	n := 256
	for _, l := range ev.Lines {
		n += len(l.Text) + 32
	}
	for _, e := range ev.Chain {
		for _, l := range e.Lines {
			n += len(l.Text) + 32
		}
		for _, f := range e.Frames {
			n += len(f.Path) + len(f.Code) + len(f.Function) + 64
		}
	}
	for _, f := range ev.Frames {
		n += len(f.Path) + len(f.Function) + 64
	}
	if ev.Summary != nil {
		for _, f := range ev.Summary.Failures {
			for _, l := range f.Traceback {
				n += len(l.Text) + 32
			}
		}
	}
	return n
}

// source is one input's events.
type source struct {
	name     string
	index    int
	events   []logparse.Event
	fileRank int
	track    *tracker // what the input said outside its events
}

// failure is the events of one distinct failure of one process.
type failure struct {
	src    *source
	rank   int
	events []*logparse.Event
}

func (f *failure) firstLine() int { return f.events[0].Line }

// srun says the failure's rank came from srun --label's prefix.
func (f *failure) srun() bool {
	for _, ev := range f.events {
		if ev.Rank == f.rank && ev.SrunLabel {
			return true
		}
	}
	return false
}

// localRank says the failure's rank is a node-local one, from a
// "[default0]:" prefix: the job's global rank is not known from it.
func (f *failure) localRank() bool {
	for _, ev := range f.events {
		if ev.Rank == f.rank && ev.LocalRank {
			return true
		}
	}
	return false
}

func (f *failure) time() string {
	for _, ev := range f.events {
		if ev.Time != "" {
			return ev.Time
		}
	}
	return ""
}

type summaryRef struct {
	src *source
	ev  *logparse.Event
}

// isLauncherTraceback is torchrun's own traceback: it reports that a child
// failed, not why.
func isLauncherTraceback(ev *logparse.Event) bool {
	if ev.Kind != logparse.KindTraceback || len(ev.Chain) == 0 {
		return false
	}
	last := ev.Chain[len(ev.Chain)-1]
	return strings.HasSuffix(last.Type, "ChildFailedError")
}

// Attachment windows: how far (in lines) an event may be from the traceback
// it is folded into. Device asserts and sanitizer records print before the
// error surfaces; C++ dumps and watchdog messages print after it.
const (
	attachForward  = 64
	attachBackward = 400
	// maxLooseEvents splits a long burst of messages into several failures.
	maxLooseEvents = 64
)

// group splits a source's events into failures. Each traceback anchors a
// failure; assertion floods and sanitizer records join the next traceback;
// other events join the previous failure of their rank (the process is
// already dying), or the next one if none came before.
func (s *source) group() ([]*failure, []summaryRef, string) {
	evs := s.events
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Line < evs[j].Line })
	var sums []summaryRef
	var cmd string
	multiRank := false
	for i := range evs {
		if evs[i].Rank < 0 && s.fileRank >= 0 {
			evs[i].Rank = s.fileRank
		}
		if evs[i].Rank >= 0 {
			multiRank = true
		}
	}
	var anchors []*failure
	anchorOf := map[int]*failure{} // event index -> failure
	for i := range evs {
		ev := &evs[i]
		if ev.Kind == logparse.KindSummary {
			sums = append(sums, summaryRef{s, ev})
			continue
		}
		if ev.Kind == logparse.KindMessage && len(ev.Lines) > 0 {
			if c := commandIn(ev.Lines[0].Text); c != "" {
				if cmd == "" {
					cmd = c
				}
				// The command's own event is no failure; the lines the
				// parser grouped after it (the program's first output,
				// a loader warning) still may be.
				if len(ev.Lines) == 1 {
					anchorOf[i] = nil
					continue
				}
			}
		}
		if ev.Kind == logparse.KindTraceback && !isLauncherTraceback(ev) {
			f := &failure{src: s, rank: ev.Rank, events: []*logparse.Event{ev}}
			anchors = append(anchors, f)
			anchorOf[i] = f
		}
	}
	var loose []*failure
	for i := range evs {
		ev := &evs[i]
		if _, done := anchorOf[i]; done || ev.Kind == logparse.KindSummary || isLauncherTraceback(ev) {
			continue
		}
		sameRank := func(f *failure) bool {
			return f.rank == ev.Rank || (ev.Rank < 0 && multiRank) || (!multiRank)
		}
		var prev, next *failure
		for _, a := range anchors {
			if a.events[0].Line < ev.Line && sameRank(a) {
				prev = a
			}
			if a.events[0].Line > ev.Line && sameRank(a) && next == nil {
				next = a
			}
		}
		forward := ev.Kind == logparse.KindAssert || ev.Kind == logparse.KindSanitizer
		var to *failure
		switch {
		case forward && next != nil && next.events[0].Line-ev.EndLine <= attachForward:
			to = next
		case prev != nil && ev.Line-lastLine(prev) <= attachBackward:
			to = prev
		case next != nil && next.events[0].Line-ev.EndLine <= attachForward:
			to = next
		}
		if to == nil {
			// Join a loose failure of the same rank that ends right before
			// (the lines of one message burst), up to a size that keeps
			// classification cheap.
			if n := len(loose); n > 0 {
				l := loose[n-1]
				if (l.rank == ev.Rank || (ev.Rank < 0 && multiRank)) && ev.Line-lastLine(l) <= attachForward && len(l.events) < maxLooseEvents {
					to = l
				}
			}
		}
		if to == nil {
			to = &failure{src: s, rank: ev.Rank}
			loose = append(loose, to)
		}
		to.events = append(to.events, ev)
		if to.rank < 0 && ev.Rank >= 0 && to.events[0] == ev {
			to.rank = ev.Rank
		}
	}
	out := append(anchors, loose...)
	for _, f := range out {
		sort.SliceStable(f.events, func(i, j int) bool { return f.events[i].Line < f.events[j].Line })
		if f.rank < 0 {
			for _, ev := range f.events {
				if ev.Rank >= 0 {
					f.rank = ev.Rank
					break
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].firstLine() < out[j].firstLine() })
	return out, sums, cmd
}

func lastLine(f *failure) int {
	n := 0
	for _, ev := range f.events {
		if ev.EndLine > n {
			n = ev.EndLine
		}
	}
	return n
}

var commandRE = lazyre.New(`^\s*[$+] ((?:python[\d.]*|torchrun|srun|accelerate|deepspeed)\b.*)$`)

// commandIn returns the command echoed on a log line, rewritten so that
// pasting it runs that one command and nothing else: the log may come from
// anyone, and `$ python train.py; curl x | sh` must not become a remedy. A
// line with anything a shell would act on besides words (a separator, a
// redirection, an expansion) gives no command; quoted words are quoted again
// by shellquote, plain ones are kept as written.
func commandIn(text string) string {
	m := commandRE.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	words, ok := shellWords(strings.TrimSpace(m[1]))
	if !ok {
		return ""
	}
	return strings.Join(words, " ")
}

// shellWords splits a command line into words as a POSIX shell would when
// it holds only words: plain characters, '...', "..." without expansions,
// and backslash escapes. A word typed plainly is returned as typed (a glob
// or ~ stays the user's); one with quoting is returned requoted.
func shellWords(line string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	flush := func() {
		if !inWord {
			return
		}
		w := cur.String()
		if quoted {
			w = shellquote.Word(w)
		}
		words = append(words, w)
		cur.Reset()
		inWord, quoted = false, false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte(";|&<>()$`\n\r", c) >= 0:
			return nil, false
		case c == '#' && !inWord:
			flush()
			return words, len(words) > 0 // a comment ends the command
		case c == '\\':
			if i+1 >= len(line) {
				return nil, false
			}
			i++
			cur.WriteByte(line[i])
			inWord, quoted = true, true
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord, quoted = true, true
		case c == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				return nil, false
			}
			part := line[i+1 : i+1+end]
			if strings.ContainsAny(part, "$`\\") {
				return nil, false // an expansion or escape only that shell could resolve
			}
			cur.WriteString(part)
			i += end + 1
			inWord, quoted = true, true
		default:
			if c < ' ' || c == 0x7f {
				return nil, false
			}
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, len(words) > 0
}
