package rules

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD108: GPU work timed with a host clock without synchronising first.
var CD108 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD108",
		Name:     "unsynchronized-timing",
		Kind:     report.KindLint,
		Severity: report.Warning,
		Title:    "GPU work timed with a host clock and no synchronisation",
		Summary:  "`time.time()`/`time.perf_counter()` is read before and after CUDA work, with no `torch.cuda.synchronize()` (or CUDA event timing) before the second read: the synchronize must run on every path of the control flow from the work to the second read (one on a single branch, or one a `break` or `continue` skips, leaves the timing open), while a call that waits incidentally (`.item()`, a result read back) counts where some path passes it. The clock may be imported under another name (`from time import perf_counter as clock`); the work and the synchronisation may sit in helpers of this file or imported from another module of the project, whose summaries say whether they run CUDA work or wait for the GPU. A `@contextlib.contextmanager` timer that reads the clock around its `yield` with no synchronize after it is reported where a `with` block times GPU work with it and does not synchronise at the block's end; likewise a decorator whose wrapper reads the clock around the call of the function it wraps (`@timed`, `@timed(\"fwd\")`) is reported where it decorates a function that runs GPU work and does not wait for it before returning. A timer class that reads the clock into an attribute in one method and subtracts it in another with no wait in between is reported where it times GPU work: `start()`/`stop()` called on an instance around GPU work, `__enter__`/`__exit__` around a `with` block that runs it, or hooks called around each step (Lightning's batch hooks, forward pre- and post-hooks it registers).",
		Sections: []report.DocSection{
			{Title: "Why", Body: `CUDA kernels run asynchronously: a PyTorch call returns once the kernel is queued.
The host clock read right after measures how long it took to queue the work, not to
run it, so the number is usually far too small (and the next synchronising call gets
blamed for the time).`},
			{Title: "Example", Body: `t0 = time.perf_counter()
y = model(x.cuda())
elapsed = time.perf_counter() - t0      # measures launch time only`},
			{Title: "Fix", Body: `Call torch.cuda.synchronize() before each clock read, or time with CUDA events:
start = torch.cuda.Event(enable_timing=True); end = ...; start.record(); ...;
end.record(); end.synchronize(); start.elapsed_time(end). torch.utils.benchmark does
both for you.`},
		},
		References: []string{
			"https://docs.pytorch.org/docs/stable/notes/cuda.html#asynchronous-execution (CUDA operations are asynchronous; time with synchronize() or events)",
			"testdata/gpu/README.md (s01..s10: kernels failed asynchronously and the error surfaced at a later call, the same queuing that skews host timings)",
		},
	},
	Anchors: []string{"time.time", "perf_counter", "monotonic", "import time", "default_timer"},
	// Without CUDA in the file there is nothing asynchronous to time,
	// unless a training framework's batch hooks are timed (the batches run
	// where the trainer puts them).
	AlsoAnchors: []string{"cuda", "_batch_end("},
	Follows:     func(s *pycheck.FuncSummary) bool { return s.RunsCUDA },
	Check:       checkCD108,
}

// clockFuncs are the host clocks, by qualified name.
var clockFuncs = map[string]bool{"time.time": true, "time.perf_counter": true, "time.monotonic": true, "time.perf_counter_ns": true,
	"time.time_ns": true, "time.monotonic_ns": true, "timeit.default_timer": true}

// gpuCallees are callee names that launch GPU work when a model or tensor
// lives there; .cuda() and .to() are checked separately. Pipelines are not
// among them: they return images or arrays, read back from the GPU.
var gpuCallees = map[string]bool{"model": true, "forward": true, "backward": true, "net": true, "unet": true, "step": true, "vae": true,
	"encoder": true, "decoder": true, "transformer": true}

func checkCD108(p *pycheck.Pass) {
	f := p.File
	// A file that never names CUDA times GPU work only through a project
	// helper that runs it (its summary says so); its own calls are taken
	// as CPU work.
	helpersOnly := !bytes.Contains(f.Src, []byte("cuda"))
	m := f.Model()
	managers := map[string]int{}            // timing context managers of the file -> line of their second clock read
	decorators := map[timingDecorator]int{} // timing decorators of the file -> line of their second clock read
	var clocks []*pycheck.Node
	for _, c := range f.Calls(0, len(f.Src)) {
		if clockFuncs[m.QualifiedCallee(c)] && len(pycheck.PositionalArgs(c)) == 0 {
			clocks = append(clocks, c)
		}
	}
	var splits []splitTimer
	for _, end := range clocks {
		start, carried := clockStart(f, m, end)
		if start == nil {
			if st, ok := splitTimerAt(f, m, end); ok {
				splits = append(splits, st)
			}
			continue
		}
		// t = time.time(); t - t: the start is the end itself.
		if start == nil || start.EndByte() > end.StartByte() {
			continue
		}
		from := int(start.EndByte())
		// end = time.time() as the loop body's last step, read at the next
		// iteration's `time.time() - end`: each iteration's body up to the
		// clock is timed (the batch_time of the ImageNet example).
		if carried {
			if body := f.Loop(end).ChildByFieldName("body"); body != nil {
				from = int(body.StartByte())
			}
		} else if f.Loop(start) != f.Loop(end) {
			// A start read in another loop does not bracket one stretch of work.
			continue
		}
		if bytes.Contains(f.Src[from:end.StartByte()], []byte("yield")) {
			// A context manager that times its with block: the block is
			// the work, checked where the manager is used.
			if mgr := timingManager(f, m, start, end); mgr != "" {
				managers[mgr] = line(f, end)
			}
			continue
		}
		work, synced := timedWork(f, m, from, end, helpersOnly)
		if work == nil {
			// A decorator's wrapper that times the function it wraps: the
			// decorated functions are the work, checked where applied.
			if d, ok := wrapperTiming(f, m, from, end); ok {
				decorators[d] = line(f, end)
			}
			continue
		}
		if synced {
			continue
		}
		line, _ := f.LineCol(int(start.StartByte()))
		p.Report(end, fmt.Sprintf("%s measures GPU work (%s, line %d) without torch.cuda.synchronize(): it times the kernel launches, not the kernels",
			f.Callee(end), shorten(f.Callee(work))+"()", line))
	}
	if len(managers) > 0 {
		checkTimedWithBlocks(p, m, managers, helpersOnly)
	}
	for _, st := range splits {
		checkSplitTimer(p, m, st, helpersOnly)
	}
	if len(decorators) > 0 {
		checkTimedDefinitions(p, m, decorators, helpersOnly)
	}
}

// timingDecorator names a decorator of the file whose wrapper reads the
// clock around the call of the function it wraps: `@name`, or `@name(...)`
// when factory is set (a function returning the decorator).
type timingDecorator struct {
	name    string
	factory bool
}

// wrapperTiming: the clock reads bracketing [from, end) sit in a wrapper
// function nested in a decorator (`def timed(fn): def wrapper(*a, **kw):
// ...`) and call the decorator's parameter (`fn(*a, **kw)`) with no
// synchronisation in between; the decorator, or ok=false.
func wrapperTiming(f *pycheck.File, m *pycheck.Model, from int, end *pycheck.Node) (timingDecorator, bool) {
	wrapper := f.Scope(end)
	if wrapper == nil || wrapper.Type() != "function_definition" {
		return timingDecorator{}, false
	}
	deco := f.Scope(wrapper)
	if deco == nil || deco.Type() != "function_definition" {
		return timingDecorator{}, false
	}
	params := deco.ChildByFieldName("parameters")
	if params == nil || params.NamedChildCount() == 0 {
		return timingDecorator{}, false
	}
	wrapped := params.NamedChild(0)
	if wrapped.Type() != "identifier" {
		return timingDecorator{}, false
	}
	calls := false
	for _, c := range f.Calls(from, int(end.StartByte())) {
		if pycheck.LastName(m.QualifiedCallee(c)) == "synchronize" || m.CallSyncs(c) {
			return timingDecorator{}, false
		}
		if s := m.Summary(c); s != nil && s.Syncs {
			return timingDecorator{}, false
		}
		if f.Callee(c) == f.Text(wrapped) && same(f.Scope(c), wrapper) {
			calls = true
		}
	}
	if !calls {
		return timingDecorator{}, false
	}
	d := timingDecorator{name: f.Text(deco.ChildByFieldName("name"))}
	// def timed(label): def deco(fn): def wrapper(...): applied as
	// @timed("fwd").
	if outer := f.Scope(deco); outer != nil && outer.Type() == "function_definition" {
		d = timingDecorator{name: f.Text(outer.ChildByFieldName("name")), factory: true}
	}
	return d, true
}

// checkTimedDefinitions reports the functions of the file decorated with
// a timing decorator whose body runs GPU work and does not wait for it
// before returning (`@timed def infer(x): return model(x.cuda())`).
func checkTimedDefinitions(p *pycheck.Pass, m *pycheck.Model, decorators map[timingDecorator]int, helpersOnly bool) {
	f := p.File
	for d, endLine := range decorators {
		for _, off := range f.Find("@"+d.name, 0, len(f.Src)) {
			n := f.NodeAt(off+1, off+1+len(d.name))
			dec := pycheck.Ancestor(n, "decorator")
			if dec == nil || int(dec.StartByte()) != off {
				continue
			}
			e := pycheck.Unparen(dec.NamedChild(0))
			if d.factory {
				if e == nil || e.Type() != "call" {
					continue
				}
				e = e.ChildByFieldName("function")
			}
			if e == nil || e.Type() != "identifier" || f.Text(e) != d.name {
				continue
			}
			def := dec.Parent().ChildByFieldName("definition")
			if def == nil || def.Type() != "function_definition" {
				continue
			}
			body := def.ChildByFieldName("body")
			if body == nil {
				continue
			}
			work, synced := timedWorkIn(f, m, int(body.StartByte()), int(body.EndByte()), nil, helpersOnly)
			if work == nil || synced || m.CallsImported(work) {
				continue
			}
			p.Report(dec, fmt.Sprintf("@%s times %s(), which runs GPU work (%s, line %d), with a host clock it reads again at line %d without torch.cuda.synchronize(): it times the kernel launches, not the kernels",
				d.name, f.Text(def.ChildByFieldName("name")), shorten(f.Callee(work))+"()", line(f, work), endLine))
		}
	}
}

// timingManager is the name of the @contextlib.contextmanager function
// whose clock reads start and end bracket its yield with no
// synchronize() between the yield and the end; "" otherwise.
func timingManager(f *pycheck.File, m *pycheck.Model, start, end *pycheck.Node) string {
	fn := f.Scope(end)
	if fn.Type() != "function_definition" || !same(f.Scope(start), fn) {
		return ""
	}
	dec := fn.Parent()
	if dec == nil || dec.Type() != "decorated_definition" {
		return ""
	}
	isManager := false
	for _, d := range dec.NamedChildren() {
		if d.Type() == "decorator" && m.Qualified(pycheck.Unparen(d.NamedChild(0))) == "contextlib.contextmanager" {
			isManager = true
		}
	}
	if !isManager {
		return ""
	}
	yields := f.Find("yield", int(start.EndByte()), int(end.StartByte()))
	if len(yields) == 0 {
		return ""
	}
	for _, c := range f.Calls(yields[0], int(end.StartByte())) {
		if pycheck.LastName(m.QualifiedCallee(c)) == "synchronize" || m.CallSyncs(c) {
			return ""
		}
	}
	return f.Text(fn.ChildByFieldName("name"))
}

// checkTimedWithBlocks reports the with statements of the file that time
// GPU work with a timing context manager of the file that does not
// synchronise (`with timer("fwd"): y = model(x.cuda())`), unless the
// block itself synchronises after the work.
func checkTimedWithBlocks(p *pycheck.Pass, m *pycheck.Model, managers map[string]int, helpersOnly bool) {
	f := p.File
	for name, endLine := range managers {
		for _, call := range f.CallsAt(name+"(", 0, len(f.Src)) {
			if f.Callee(call) != name {
				continue
			}
			item := upParen(call).Parent()
			if item != nil && item.Type() == "as_pattern" {
				item = item.Parent()
			}
			if item == nil || item.Type() != "with_item" {
				continue
			}
			with := pycheck.Ancestor(item, "with_statement")
			body := with.ChildByFieldName("body")
			if body == nil {
				continue
			}
			work, synced := timedWorkIn(f, m, int(body.StartByte()), int(body.EndByte()), nil, helpersOnly)
			// A block that only calls into another module (a setup step
			// logged by name) is not read as a GPU benchmark.
			if work == nil || synced || m.CallsImported(work) {
				continue
			}
			p.Report(call, fmt.Sprintf("%s() times GPU work (%s, line %d) with a host clock it reads again at line %d without torch.cuda.synchronize(): it times the kernel launches, not the kernels",
				name, shorten(f.Callee(work))+"()", line(f, work), endLine))
		}
	}
}

// timedWork finds the first call in [start, end) that runs GPU work, and
// whether the host waits for the GPU before the second clock read: a
// synchronize() on every path of the function's control flow from the
// work to the clock, or a call that waits incidentally (.item(), a
// function of the file or project that synchronises, a CUDA event,
// generation, which reads each token back) in the timed region.
func timedWork(f *pycheck.File, m *pycheck.Model, start int, endClock *pycheck.Node, helpersOnly bool) (work *pycheck.Node, synced bool) {
	return timedWorkIn(f, m, start, int(endClock.StartByte()), endClock, helpersOnly)
}

// timedWorkIn is timedWork for the region [start, end) of one scope; with
// no end clock (the body of a timing context manager's with statement)
// the region is synchronised when a synchronize() that always runs
// follows the work in it.
func timedWorkIn(f *pycheck.File, m *pycheck.Model, start, end int, endClock *pycheck.Node, helpersOnly bool) (work *pycheck.Node, synced bool) {
	at := endClock
	if at == nil {
		at = f.NodeAt(start, start)
	}
	scope := f.Scope(at)
	fl := f.Flow(scope)
	// Explicit waits (synchronize()) count where every path from the work
	// to the clock passes one; an incidental wait (.item(), a helper that
	// reads a result back, generation) counts where some path from the
	// work passes it: real timed regions read results back on the branches
	// that log them, and time the rest at launch cost too rarely to warn.
	var syncs, incidental []*pycheck.Node
	for _, c := range f.Calls(start, end) {
		if !fl.Contains(c) {
			continue
		}
		callee := f.Callee(c)
		last := pycheck.LastName(m.QualifiedCallee(c))
		// A project helper imported from elsewhere that neither waits nor
		// runs CUDA work reads as an unknown call (as it does before its
		// module is summarised).
		if s := m.Summary(c); s != nil && (s.Syncs || s.RunsCUDA || !m.CallsImported(c)) {
			if s.Syncs {
				incidental = append(incidental, c)
			}
			if s.RunsCUDA && work == nil && !s.Syncs {
				work = c
			}
			// A helper of the file that names no CUDA still runs on the
			// GPU when it is handed a tensor put there (a torch.compile'd
			// step given x = x.cuda()).
			if !s.Syncs && !s.RunsCUDA && work == nil && !helpersOnly && takesCUDAValue(f, c, scope) {
				work = c
			}
			continue
		}
		if m.CallSyncs(c) || last == "generate" || strings.HasPrefix(m.QualifiedCallee(c), "torch.cuda.Event") {
			if last != "synchronize" {
				incidental = append(incidental, c)
			} else if fl.Certain(c) {
				syncs = append(syncs, c)
			}
			continue
		}
		if work != nil || helpersOnly {
			continue
		}
		switch {
		case last == "cuda":
			work = c
		case last == "to" && strings.Contains(f.Text(c.ChildByFieldName("arguments")), "cuda"):
			work = c
		case gpuCallees[last] && !strings.HasPrefix(callee, "np.") && !strings.HasPrefix(callee, "numpy."):
			work = c
		case takesCUDAValue(f, c, scope):
			work = c
		}
	}
	if work == nil {
		return nil, false
	}
	for _, c := range incidental {
		if c.StartByte() < work.StartByte() || fl.Reaches(work, c, nil, true) {
			return work, true
		}
	}
	if endClock == nil {
		for _, c := range syncs {
			if c.StartByte() > work.StartByte() {
				return work, true
			}
		}
		return work, false
	}
	// A machine that runs this timing has a GPU: a synchronize() under
	// `if torch.cuda.is_available():` runs.
	return work, fl.EveryPathPasses(work, endClock, syncs, true)
}

// takesCUDAValue: a call is given a name that this function put on the
// GPU (x = x.cuda(), x.to("cuda"), torch.randn(..., device="cuda")).
func takesCUDAValue(f *pycheck.File, c, scope *pycheck.Node) bool {
	for _, a := range pycheck.PositionalArgs(c) {
		a = pycheck.Unparen(a)
		if a.Type() != "identifier" {
			continue
		}
		rhs := reachingValue(f, a)
		if rhs == nil || rhs.Type() != "call" {
			continue
		}
		switch pycheck.LastName(f.Callee(rhs)) {
		case "cuda":
			return true
		case "to":
			if t := f.Compact(rhs.ChildByFieldName("arguments")); strings.HasPrefix(t, `("cuda`) || strings.HasPrefix(t, `('cuda`) {
				return true
			}
		}
		if v, ok := stringValue(f, f.Keyword(rhs, "device")); ok && strings.HasPrefix(v, "cuda") {
			return true
		}
	}
	return false
}

// clockStart is the clock read the end is subtracted from, and whether a
// read later in the end's own loop also reaches it around the back edge.
func clockStart(f *pycheck.File, m *pycheck.Model, end *pycheck.Node) (*pycheck.Node, bool) {
	var start *pycheck.Node
	if p := upParen(end).Parent(); p != nil && p.Type() == "binary_operator" && f.Text(p.ChildByFieldName("operator")) == "-" && same(pycheck.Unparen(p.ChildByFieldName("left")), end) {
		start = pycheck.Unparen(p.ChildByFieldName("right"))
	} else if name := assignedName(end); name != nil {
		for _, use := range usesAfter(f, name) {
			if p := use.Parent(); p != nil && p.Type() == "binary_operator" && f.Text(p.ChildByFieldName("operator")) == "-" && same(p.ChildByFieldName("left"), use) {
				start = pycheck.Unparen(p.ChildByFieldName("right"))
				break
			}
		}
	}
	if start == nil || !pycheck.IsPlace(start) {
		return nil, false
	}
	// The clock read the start holds: every assignment of it that reaches
	// the subtraction reads a clock (a start set on one branch only to
	// something else is not a timing), the last of them in the source.
	var rhs *pycheck.Node
	carried := false
	for _, d := range f.Flow(f.Scope(end)).ReachingDefs(start, start) {
		v := pycheck.Unparen(defValue(d))
		if v == nil || v.Type() != "call" || !clockFuncs[m.QualifiedCallee(v)] {
			return nil, false
		}
		if loop := f.Loop(end); loop != nil && v.StartByte() > end.StartByte() && f.Loop(v) == loop {
			carried = true
		}
		if v.StartByte() < end.StartByte() && (rhs == nil || v.StartByte() > rhs.StartByte()) {
			rhs = v
		}
	}
	if rhs == nil || rhs.Type() != "call" || !clockFuncs[m.QualifiedCallee(rhs)] {
		return nil, false
	}
	return rhs, carried
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// splitTimer is a timer class of the file that reads the clock into an
// attribute in one method (start) and subtracts it in another (stop):
// a Stopwatch's start()/stop(), a context manager's __enter__/__exit__,
// a framework's hook pair.
type splitTimer struct {
	cls, start, stop *pycheck.Node // the class and its two methods
	end              *pycheck.Node // the second clock read, in stop
}

// frameworkHookPairs are method pairs a framework calls around the GPU
// work of a step: Lightning's batch hooks (callbacks and modules alike).
var frameworkHookPairs = map[[2]string]bool{
	{"on_train_batch_start", "on_train_batch_end"}:           true,
	{"on_validation_batch_start", "on_validation_batch_end"}: true,
	{"on_test_batch_start", "on_test_batch_end"}:             true,
	{"on_predict_batch_start", "on_predict_batch_end"}:       true,
	{"on_before_backward", "on_after_backward"}:              true,
}

// splitTimerAt: end is `clock() - self.t0` in a method, and self.t0 holds
// a clock read made in another method of the same class.
func splitTimerAt(f *pycheck.File, m *pycheck.Model, end *pycheck.Node) (splitTimer, bool) {
	p := upParen(end).Parent()
	if p == nil || p.Type() != "binary_operator" || f.Text(p.ChildByFieldName("operator")) != "-" || !same(pycheck.Unparen(p.ChildByFieldName("left")), end) {
		return splitTimer{}, false
	}
	start := pycheck.Unparen(p.ChildByFieldName("right"))
	stop := f.Scope(end)
	cls := pycheck.Ancestor(stop, "class_definition")
	if start == nil || start.Type() != "attribute" || f.Text(start.ChildByFieldName("object")) != "self" ||
		stop.Type() != "function_definition" || cls == nil || !same(pycheck.Ancestor(stop, "class_definition", "function_definition"), cls) {
		return splitTimer{}, false
	}
	for _, v := range m.AttrValues(start) {
		v = pycheck.Unparen(v)
		if v.Type() != "call" || !clockFuncs[m.QualifiedCallee(v)] {
			continue
		}
		if begin := f.Scope(v); begin.Type() == "function_definition" && !same(begin, stop) && same(pycheck.Ancestor(begin, "class_definition", "function_definition"), cls) {
			return splitTimer{cls: cls, start: begin, stop: stop, end: end}, true
		}
	}
	return splitTimer{}, false
}

// checkSplitTimer reports a timer class that does not wait for the GPU
// in its stop method before the clock, where it times GPU work: hooks a
// framework calls around each step or the model's forward (the pair is a
// framework's, or registered as forward pre- and post-hooks), a with
// block around GPU work (__enter__/__exit__), or GPU work between calls
// of start and stop on an instance.
func checkSplitTimer(p *pycheck.Pass, m *pycheck.Model, st splitTimer, helpersOnly bool) {
	f := p.File
	body := st.stop.ChildByFieldName("body")
	if body == nil {
		return
	}
	for _, c := range f.Calls(int(body.StartByte()), int(st.end.StartByte())) {
		if pycheck.LastName(m.QualifiedCallee(c)) == "synchronize" || m.CallSyncs(c) {
			return
		}
	}
	startName, stopName := f.Text(st.start.ChildByFieldName("name")), f.Text(st.stop.ChildByFieldName("name"))
	clsName := f.Text(st.cls.ChildByFieldName("name"))
	if frameworkHookPairs[[2]string{startName, stopName}] || registeredHook(f, st.cls, "register_forward_pre_hook", startName) && registeredHook(f, st.cls, "register_forward_hook", stopName) {
		p.Report(st.end, fmt.Sprintf("%s measures the GPU work between %s() and %s() without torch.cuda.synchronize(): it times the kernel launches, not the kernels",
			f.Callee(st.end), startName, stopName))
		return
	}
	if startName == "__enter__" && stopName == "__exit__" {
		for _, off := range f.Find("with ", 0, len(f.Src)) {
			w := f.NodeAt(off, off+len("with"))
			for w != nil && w.Type() != "with_statement" && int(w.StartByte()) == off {
				w = w.Parent()
			}
			if w == nil || w.Type() != "with_statement" || int(w.StartByte()) != off {
				continue
			}
			for _, item := range withItemValues(w) {
				if !instanceOf(f, m, item, clsName) {
					continue
				}
				wb := w.ChildByFieldName("body")
				if wb == nil {
					continue
				}
				work, synced := timedWorkIn(f, m, int(wb.StartByte()), int(wb.EndByte()), nil, helpersOnly)
				if work == nil || synced || m.CallsImported(work) {
					continue
				}
				p.Report(item, fmt.Sprintf("%s times GPU work (%s, line %d) with a host clock its __exit__ reads at line %d without torch.cuda.synchronize(): it times the kernel launches, not the kernels",
					clsName, shorten(f.Callee(work))+"()", line(f, work), line(f, st.end)))
			}
		}
		return
	}
	for _, stop := range f.CallsAt("."+stopName+"(", 0, len(f.Src)) {
		recv := pycheck.Unparen(receiver(stop))
		if recv == nil || recv.Type() != "identifier" || !instanceOf(f, m, recv, clsName) {
			continue
		}
		// The start call on the same instance that reaches this stop.
		var begin *pycheck.Node
		for _, c := range f.CallsAt(f.Text(recv)+"."+startName+"(", int(f.Scope(stop).StartByte()), int(stop.StartByte())) {
			if f.Callee(c) == f.Text(recv)+"."+startName && same(f.Scope(c), f.Scope(stop)) {
				begin = c
			}
		}
		if begin == nil {
			continue
		}
		work, synced := timedWorkIn(f, m, int(begin.EndByte()), int(stop.StartByte()), stop, helpersOnly)
		if work == nil || synced {
			continue
		}
		p.Report(stop, fmt.Sprintf("%s.%s() measures GPU work (%s, line %d) started at %s() (line %d) without torch.cuda.synchronize(): it times the kernel launches, not the kernels",
			f.Text(recv), stopName, shorten(f.Callee(work))+"()", line(f, work), startName, line(f, begin)))
	}
}

// registeredHook: the class registers its method name with reg
// (`module.register_forward_hook(self.after)`).
func registeredHook(f *pycheck.File, cls *pycheck.Node, reg, method string) bool {
	for _, c := range f.CallsAt("."+reg+"(", int(cls.StartByte()), int(cls.EndByte())) {
		if args := pycheck.PositionalArgs(c); len(args) > 0 && f.Compact(args[0]) == "self."+method {
			return true
		}
	}
	return false
}

// withItemValues are the context managers of a with statement.
func withItemValues(w *pycheck.Node) []*pycheck.Node {
	var out []*pycheck.Node
	for _, n := range w.NamedChildren() {
		if n.Type() != "with_clause" {
			continue
		}
		for _, item := range n.NamedChildren() {
			if item.Type() != "with_item" {
				continue
			}
			v := pycheck.Unparen(item.ChildByFieldName("value"))
			if v != nil && v.Type() == "as_pattern" {
				v = pycheck.Unparen(v.NamedChild(0))
			}
			if v != nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// instanceOf: e is `Cls(...)` or a name bound to one.
func instanceOf(f *pycheck.File, m *pycheck.Model, e *pycheck.Node, cls string) bool {
	if e.Type() == "call" {
		return f.Callee(e) == cls
	}
	if e.Type() != "identifier" {
		return false
	}
	for _, v := range reachingValues(f, e) {
		if v = pycheck.Unparen(v); v != nil && v.Type() == "call" && f.Callee(v) == cls {
			return true
		}
	}
	return false
}

// reachingValues are the values of the assignments of a name that reach
// its use.
func reachingValues(f *pycheck.File, use *pycheck.Node) []*pycheck.Node {
	var out []*pycheck.Node
	for _, d := range f.Flow(f.Scope(use)).ReachingDefs(use, use) {
		if v := defValue(d); v != nil {
			out = append(out, v)
		}
	}
	return out
}
