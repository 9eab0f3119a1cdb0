package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD103: CUDA is used in a process that was forked, or a fork happens after
// CUDA was initialised.
var CD103 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD103",
		Name:     "cuda-in-forked-process",
		Kind:     report.KindLint,
		Severity: report.Error,
		Title:    "CUDA used in a forked subprocess",
		Summary:  "A Dataset's `__getitem__`/`__iter__` creates or moves tensors to CUDA (also on a device kept in `self.device` that the Dataset was constructed with) while a DataLoader in the file uses (also on a Dataset made in another method and kept in self, as a data module's `setup()` does), or the DataLoader's `collate_fn` (a function of the file, also bound with `functools.partial` to a CUDA device) puts batches on CUDA in those workers worker processes started by fork, or a fork-based `multiprocessing` Pool/Process starts after CUDA was initialised (in the same function, at import time, or by a helper of the file or the project called before it that puts data on the GPU).",
		Sections: []report.DocSection{
			{Title: "Why", Body: `CUDA cannot be used in a child created by fork() once the parent initialised it: the
first CUDA call in the child raises "Cannot re-initialize CUDA in forked subprocess. To
use CUDA with multiprocessing, you must use the 'spawn' start method". DataLoader
workers are forked on Linux by default (Python before 3.14), so a Dataset that builds
CUDA tensors fails as soon as num_workers > 0, and so does a fork Pool whose function
touches the GPU.`},
			{Title: "Example", Body: `class OnGpu(Dataset):
    def __getitem__(self, i):
        return torch.full((4,), float(i), device="cuda")
loader = DataLoader(OnGpu(), num_workers=2)`},
			{Title: "Fix", Body: `Keep Datasets on the CPU and move whole batches to the GPU in the training loop
(batch.to("cuda", non_blocking=True) with pin_memory=True); if a worker must use CUDA,
pass multiprocessing_context="spawn" to the DataLoader or use
multiprocessing.get_context("spawn") for the Pool.`},
		},
		References: []string{
			"testdata/gpu/scenarios/s26_dataloader_worker_cuda.py and testdata/gpu/logs/h100/s26_dataloader_worker_cuda.plain.log (\"Cannot re-initialize CUDA in forked subprocess\")",
			"testdata/gpu/scenarios/s12_fork_reinit.py and testdata/gpu/logs/h100/s12_fork_reinit.plain.log (fork Pool after CUDA init, same error)",
			"https://docs.pytorch.org/docs/stable/notes/multiprocessing.html#cuda-in-multiprocessing (the CUDA runtime does not support the fork start method)",
		},
	},
	Anchors: []string{"DataLoader", "Pool", "get_context", "Process(", "ProcessPoolExecutor"},
	Check:   checkCD103,
}

func checkCD103(p *pycheck.Pass) {
	f := p.File
	spawnGlobal := setsSafeStartMethod(f)
	// Part 1: Datasets that touch CUDA, with a forking DataLoader in the file.
	if !spawnGlobal {
		var loaders []*pycheck.Node
		for _, call := range f.CallsAt("DataLoader(", 0, len(f.Src)) {
			if forkingLoader(f, call) {
				loaders = append(loaders, call)
			}
		}
		if len(loaders) > 0 {
			for _, m := range []string{"def __getitem__", "def __iter__", "def __getitems__"} {
				for _, off := range f.Find(m, 0, len(f.Src)) {
					fn := f.NodeAt(off, off+len(m))
					if fn == nil || fn.Type() != "function_definition" {
						continue
					}
					cls := pycheck.Ancestor(fn, "class_definition")
					if cls == nil || !strings.Contains(f.Text(cls.ChildByFieldName("superclasses")), "Dataset") {
						continue
					}
					loader, ctor := loaderOf(f, loaders, f.Text(cls.ChildByFieldName("name")))
					if loader == nil {
						continue
					}
					lline, _ := f.LineCol(int(loader.StartByte()))
					uses := cudaUses(f, int(fn.StartByte()), int(fn.EndByte()))
					uses = append(uses, ctorDeviceUses(f, cls, fn, ctor)...)
					sortNodes(uses)
					for _, use := range uses {
						p.Report(use, fmt.Sprintf("%s.%s puts tensors on CUDA, but the DataLoader at line %d starts fork workers: \"Cannot re-initialize CUDA in forked subprocess\"",
							f.Text(cls.ChildByFieldName("name")), strings.TrimPrefix(m, "def "), lline))
					}
				}
			}
		}
	}
	// Part 1b: a collate_fn of the file that puts batches on CUDA runs in
	// the same fork workers.
	if !spawnGlobal {
		for _, call := range f.CallsAt("DataLoader(", 0, len(f.Src)) {
			if !forkingLoader(f, call) {
				continue
			}
			fn, bound := collateFunc(f, f.Keyword(call, "collate_fn"))
			if fn == nil {
				continue
			}
			lline, _ := f.LineCol(int(call.StartByte()))
			uses := cudaUses(f, int(fn.StartByte()), int(fn.EndByte()))
			uses = append(uses, boundDeviceUses(f, fn, bound)...)
			sortNodes(uses)
			if len(uses) > 0 {
				p.Report(uses[0], fmt.Sprintf("collate function %s() puts tensors on CUDA, but the DataLoader at line %d runs it in fork workers: \"Cannot re-initialize CUDA in forked subprocess\"",
					f.Text(fn.ChildByFieldName("name")), lline))
			}
		}
	}
	// Part 2: a fork-based pool or process started after CUDA initialised.
	m := f.Model()
	var moduleCUDA []*pycheck.Node
	moduleDone := false
	moduleCUDAUse := func() *pycheck.Node {
		if !moduleDone {
			moduleDone = true
			for _, use := range cudaUses(f, 0, len(f.Src)) {
				if same(f.Scope(use), f.Root) {
					moduleCUDA = append(moduleCUDA, use)
				}
			}
		}
		if len(moduleCUDA) == 0 {
			return nil
		}
		return moduleCUDA[0]
	}
	for _, needle := range []string{"Pool(", "Process(", "ProcessPoolExecutor("} {
		for _, call := range f.CallsAt(needle, 0, len(f.Src)) {
			callee := f.Callee(call)
			last := pycheck.LastName(callee)
			if last == "ThreadPool" || strings.Contains(callee, "Thread") || !(last == "Pool" || last == "Process" || last == "ProcessPoolExecutor") {
				continue
			}
			scope := f.Scope(call)
			ctxText := f.Compact(call)
			qualified := m.QualifiedCallee(call)
			// ctx.Process(...) with ctx = get_context(...) kept in a variable.
			if r := pycheck.Unparen(receiver(call)); r != nil && r.Type() == "identifier" {
				if rhs := reachingValue(f, r); rhs != nil {
					ctxText += f.Compact(rhs)
					qualified = m.Qualified(rhs.ChildByFieldName("function")) + "." + last
				}
			}
			if !strings.Contains(ctxText, `get_context("fork")`) && !strings.Contains(ctxText, `get_context('fork')`) {
				if spawnGlobal || strings.Contains(ctxText, "spawn") || strings.Contains(ctxText, "forkserver") || !forkDefault(callee) && !forkDefault(qualified) {
					continue
				}
			}
			var first *pycheck.Node
			for _, use := range cudaUses(f, int(scope.StartByte()), int(call.StartByte())) {
				if same(f.Scope(use), scope) {
					first = use
					break
				}
			}
			// A helper of the file or the project that puts data on the
			// GPU, called before the fork (`configure()` making a CUDA
			// tensor), initialised CUDA as much as doing so here.
			for _, c := range f.Calls(int(scope.StartByte()), int(call.StartByte())) {
				if first != nil && c.StartByte() >= first.StartByte() {
					break
				}
				if s := m.Summary(c); s != nil && s.RunsCUDA && same(f.Scope(c), scope) {
					first = c
					break
				}
			}
			// CUDA initialised at import time precedes every call of a function.
			if first == nil && !same(scope, f.Root) {
				first = moduleCUDAUse()
			}
			if first == nil {
				continue
			}
			uline, _ := f.LineCol(int(first.StartByte()))
			p.Report(call, fmt.Sprintf("%s forks after CUDA was initialised (line %d); CUDA calls in the children fail with \"Cannot re-initialize CUDA in forked subprocess\"", last, uline))
		}
	}
}

func forkDefault(callee string) bool {
	return strings.Contains(callee, "get_context(") || strings.HasPrefix(callee, "multiprocessing.") || strings.HasPrefix(callee, "mp.") ||
		strings.HasPrefix(callee, "torch.multiprocessing.") || strings.HasPrefix(callee, "concurrent.futures.") ||
		callee == "Pool" || callee == "Process" || callee == "ProcessPoolExecutor"
}

// setsSafeStartMethod: the file switches to spawn/forkserver globally.
func setsSafeStartMethod(f *pycheck.File) bool {
	for _, call := range f.CallsAt("set_start_method(", 0, len(f.Src)) {
		t := f.Compact(call)
		if strings.Contains(t, "spawn") || strings.Contains(t, "forkserver") {
			return true
		}
	}
	return false
}

// forkingLoader: a DataLoader call with worker processes and no safe
// multiprocessing_context.
func forkingLoader(f *pycheck.File, call *pycheck.Node) bool {
	nw := f.Keyword(call, "num_workers")
	if nw == nil || f.Text(nw) == "0" {
		return false
	}
	if mc := f.Keyword(call, "multiprocessing_context"); mc != nil {
		t := f.Text(mc)
		return strings.Contains(t, "fork") && !strings.Contains(t, "forkserver")
	}
	return true
}

// cudaUses finds calls in [start, end) that initialise CUDA or put data on
// it: x.cuda(), x.to("cuda..."), factories with device="cuda...",
// torch.cuda.set_device/init/current_device.
func cudaUses(f *pycheck.File, start, end int) []*pycheck.Node {
	var out []*pycheck.Node
	for _, c := range f.CallsAt(".cuda(", start, end) {
		out = append(out, c)
	}
	for _, q := range []string{`"cuda`, `'cuda`} {
		for _, off := range f.Find(q, start, end) {
			s := f.NodeAt(off, off+len(q))
			for s != nil && s.Type() != "string" {
				s = s.Parent()
				if s != nil && s.Type() != "string" && s.Type() != "string_content" {
					s = nil
				}
			}
			if s == nil {
				continue
			}
			v, ok := stringValue(f, s)
			if !ok || !(v == "cuda" || strings.HasPrefix(v, "cuda:")) {
				continue
			}
			call := pycheck.Ancestor(s, "call")
			if call == nil || !pycheck.Within(call, f.Scope(s)) {
				continue
			}
			callee := f.Callee(call)
			if last := pycheck.LastName(callee); !strings.HasPrefix(callee, "torch.") && last != "to" && last != "cuda" {
				continue
			}
			if pycheck.LastName(callee) == "device" {
				if outer := pycheck.Ancestor(call, "call"); outer != nil {
					call = outer
				} else {
					continue
				}
			}
			out = append(out, call)
		}
	}
	// torch.cuda calls that create the context on the current device
	// (is_available and device_count do not: they leave fork safe). A
	// synchronize() before a fork is left out: it drains copies to the host
	// for a child that writes them out without CUDA (async checkpointing).
	for _, fn := range []string{"set_device", "init", "current_device"} {
		for _, c := range f.CallsAt("cuda."+fn+"(", start, end) {
			if q := f.Model().QualifiedCallee(c); q == "torch.cuda."+fn || fn == "set_device" {
				out = append(out, c)
			}
		}
	}
	sortNodes(out)
	return out
}

// loaderOf is the forking DataLoader whose dataset is an instance of class
// cls: built in the call, or bound to a name earlier in the same scope;
// with it the constructor call when it is at hand.
func loaderOf(f *pycheck.File, loaders []*pycheck.Node, cls string) (loader, ctor *pycheck.Node) {
	for _, l := range loaders {
		ds := f.Keyword(l, "dataset")
		if args := pycheck.PositionalArgs(l); ds == nil && len(args) > 0 {
			ds = args[0]
		}
		if ds == nil {
			continue
		}
		ds = pycheck.Unparen(ds)
		if ds.Type() == "identifier" {
			if rhs := reachingValue(f, ds); rhs != nil {
				ds = pycheck.Unparen(rhs)
			}
		}
		// self.train_set made in another method (a data module's setup()).
		if ds.Type() == "attribute" {
			for _, v := range f.Model().AttrValues(ds) {
				if strings.Contains(f.Text(v), cls+"(") {
					ds = pycheck.Unparen(v)
					break
				}
			}
		}
		if strings.Contains(f.Text(ds), cls+"(") {
			if ds.Type() != "call" || pycheck.LastName(f.Callee(ds)) != cls {
				ds = nil
			}
			return l, ds
		}
	}
	return nil, nil
}

// ctorDeviceUses are the calls of a Dataset method fn that put tensors on
// a device kept in an attribute (`device=self.device`, `.to(self.device)`)
// that __init__ set from a parameter the constructor call ctor passes a
// CUDA device for.
func ctorDeviceUses(f *pycheck.File, cls, fn, ctor *pycheck.Node) []*pycheck.Node {
	if ctor == nil {
		return nil
	}
	var out []*pycheck.Node
	for _, c := range f.Calls(int(fn.StartByte()), int(fn.EndByte())) {
		dev := deviceOperand(f, c)
		if dev == nil || dev.Type() != "attribute" || f.Text(dev.ChildByFieldName("object")) != "self" {
			continue
		}
		if arg := f.Model().CtorArg(cls, ctor, f.Text(dev.ChildByFieldName("attribute"))); arg != nil && strings.Contains(f.Text(arg), "cuda") {
			out = append(out, c)
		}
	}
	return out
}

// deviceOperand is the device a call puts tensors on: its device= keyword,
// or the first argument of .to(...); nil when it names none.
func deviceOperand(f *pycheck.File, c *pycheck.Node) *pycheck.Node {
	dev := f.Keyword(c, "device")
	if dev == nil && pycheck.LastName(f.Callee(c)) == "to" {
		if args := pycheck.PositionalArgs(c); len(args) > 0 {
			dev = args[0]
		}
	}
	return pycheck.Unparen(dev)
}

// collateFunc is the function of this file a DataLoader's collate_fn
// names, directly, through a name bound to it, or through
// functools.partial (whose call is returned as bound, for the arguments
// it fixes).
func collateFunc(f *pycheck.File, arg *pycheck.Node) (fn, bound *pycheck.Node) {
	arg = pycheck.Unparen(arg)
	for range 2 {
		if arg == nil || arg.Type() != "identifier" {
			break
		}
		v := reachingValue(f, arg)
		if v == nil {
			break
		}
		arg = pycheck.Unparen(v)
	}
	if arg != nil && arg.Type() == "call" && pycheck.LastName(f.Model().QualifiedCallee(arg)) == "partial" {
		bound = arg
		if args := pycheck.PositionalArgs(arg); len(args) > 0 {
			arg = pycheck.Unparen(args[0])
		} else {
			arg = nil
		}
	}
	if arg == nil || arg.Type() != "identifier" {
		return nil, nil
	}
	name := f.Text(arg)
	for _, off := range f.Find("def "+name+"(", 0, len(f.Src)) {
		d := f.NodeAt(off, off+len("def "+name))
		if d != nil && d.Type() == "function_definition" && f.Text(d.ChildByFieldName("name")) == name {
			return d, bound
		}
	}
	return nil, nil
}

// boundDeviceUses are the calls of fn that put tensors on a device
// parameter (`.to(device)`, `device=device`) that partial call bound fixes
// to a CUDA device.
func boundDeviceUses(f *pycheck.File, fn, bound *pycheck.Node) []*pycheck.Node {
	if bound == nil {
		return nil
	}
	var out []*pycheck.Node
	for _, c := range f.Calls(int(fn.StartByte()), int(fn.EndByte())) {
		dev := deviceOperand(f, c)
		if dev == nil || dev.Type() != "identifier" {
			continue
		}
		if v := f.Keyword(bound, f.Text(dev)); v != nil && strings.Contains(f.Text(v), "cuda") {
			out = append(out, c)
		}
	}
	return out
}
