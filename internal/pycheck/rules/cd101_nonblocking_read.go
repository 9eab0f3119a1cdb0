package rules

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD101: a device-to-host copy made with non_blocking=True is read on the
// host before the GPU has finished it.
var CD101 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD101",
		Name:     "nonblocking-copy-read",
		Kind:     report.KindLint,
		Severity: report.Error,
		Title:    "Result of a non_blocking device-to-host copy read before synchronising",
		Summary:  "A `non_blocking=True` copy from the GPU to the CPU (`.to(\"cpu\")`, or `.to(dev)` with every assignment of `dev` in the file naming the CPU: `dev = torch.device(\"cpu\")`, or a parameter of the function defaulting to the CPU that it does not rebind: `def stash(t, device=\"cpu\")`) returns at once (also with the options in a mapping spelt in the file: `x.to(**opts)` with `opts = dict(device=\"cpu\", non_blocking=True)`); its result is read on the host (`.tolist()`, `.item()`, `print`, indexing; `arr = t.numpy()` shares the memory and reads nothing, so the reads of `arr` are followed) before any synchronisation. The copy may be made in a helper, of this file or imported from another module of the project (`from .transfer import to_host`, `import pkg.transfer as tr; tr.to_host(x)`, a package's re-export, a helper that returns another's copy, a helper that returns a tuple of copies the caller unpacks: `boxes, scores = to_host(out)`, a `@property` of the class read as `self.host`, a lambda bound to a name, `to_cpu = lambda t: t.to(\"cpu\", non_blocking=True)`, or `functools.partial(torch.Tensor.to, device=\"cpu\", non_blocking=True)`; a generator that yields copies, read through the loop over it: `for host in batches(...)`), or with `dst.copy_(src, non_blocking=True)` into pinned memory (also into a slice of it, `buf[:n].copy_(...)` or through a local name bound to one, `part = self.buf[:n]; part.copy_(...)`, with `buf` kept in self read in another method directly or through a numpy view of it the class keeps, `self.view = self.buf.numpy()`; writing into another slice reads nothing); the copy is followed into the names it is copied to (`prev = cur`, `a, b = x, y`), into the targets a generator of copies is unpacked into (`b, s = (t.to(\"cpu\", non_blocking=True) for t in pair)`), into a list it is appended to (whose elements a loop or comprehension reads), into a dict a comprehension builds of copies (`{k: v.to(\"cpu\", non_blocking=True) for k, v in out.items()}`, read through its elements, also in a loop over its `.items()` or `.values()`), into a local dict or list filled slot by slot (`host[k] = v.to(\"cpu\", non_blocking=True)` in a loop over a state dict, read through its elements or handed whole to a function that reads it, `torch.save(host, path)`), into the field of an object of a class of the file it is handed to (a dataclass, NamedTuple or plain class: `Out(loss=copy)`, also returned from a helper and read as `res.loss` by its caller), and from an attribute of self (or a container kept in one, `self.cache[key] = copy`) into the class's other methods (`self.pending` set in `update()`, read in `compute()` with no wait there; not when the method that made it waits after the copy on every path out of it: an early return or a wait on one branch only leaves the copy unfinished); the read is followed along the function's control flow (also into a lambda that `sorted`, `min` or `max` runs before returning, branches, early returns, a loop's next pass, a `finally` clause), and a synchronising call, also one inside a helper, counts only where it runs on every path from the copy to the read: `torch.cuda.synchronize()`, an event's or stream's `synchronize()`, a `while not event.query()` loop, the end of a `with` block whose context manager is an object of a class of the file whose `__exit__` synchronises (past the block, not inside it), or a blocking read (`.item()`, `.tolist()`, `float()`) of a value computed from the copy's GPU source, which drains the stream the copy is queued on (not when the copy runs on a side stream).",
		Sections: []report.DocSection{
			{Title: "Why", Body: `With non_blocking=True the copy into (pinned) host memory is only queued on the CUDA
stream; the call returns before the data arrives. Reading the destination on the host
before torch.cuda.synchronize(), an event's synchronize() or the stream's synchronize()
reads whatever the memory held before: no error is raised, the numbers are just wrong.`},
			{Title: "Example", Body: `probs = logits.softmax(-1).to("cpu", non_blocking=True)
print(probs.tolist())        # may print stale memory`},
			{Title: "Fix", Body: `Synchronise before reading: call torch.cuda.synchronize() (or record an event after the
copy and call event.synchronize()) before touching the result on the host; or drop
non_blocking=True when the value is needed right away.`},
		},
		References: []string{
			"https://docs.pytorch.org/tutorials/intermediate/pinmem_nonblock.html (A guide on good usage of non_blocking and pin_memory(): reading a non-blocking device-to-host copy before synchronising gives undefined data)",
			"testdata/gpu/scenarios/s21_nonblocking_race.py (H100: an unsynchronised non_blocking copy was corrupted 50 times out of 50, silently)",
		},
	},
	Anchors: []string{"non_blocking"},
	Follows: func(s *pycheck.FuncSummary) bool { return s.ReturnsNonBlockingD2H || s.NonBlockingD2HElems != 0 },
	Check:   checkCD101,
}

// hostReads are the methods that read a CPU tensor's data into Python.
var hostReads = map[string]bool{"tolist": true, "numpy": true, "item": true, "__array__": true}

// passOn are methods that hand a copy on without reading its data on the
// host: a copy back to the device runs on the same stream, after the first.
var passOn = map[string]bool{"to": true, "cuda": true, "pin_memory": true, "record_stream": true, "share_memory_": true,
	"size": true, "dim": true, "numel": true, "copy_": true,
	// A list holding copies: adding to it reads none of them.
	"append": true, "extend": true, "insert": true}

// hostReadFuncs are builtins and numpy functions that read their argument.
var hostReadFuncs = map[string]bool{"print": true, "float": true, "int": true, "bool": true, "list": true, "str": true,
	"repr": true, "np.array": true, "np.asarray": true, "numpy.array": true, "numpy.asarray": true, "np.save": true, "torch.save": true, "len": false,
	// Builtins that compare or add the elements they iterate: a read of
	// a tensor's elements, and of the tensors in a list.
	"max": true, "min": true, "sum": true, "sorted": true, "any": true, "all": true}

// iterFuncs are builtins that iterate their argument: of a tensor, they
// read each element on the host (zip and enumerate when what they yield
// is iterated, at once in practice); of a list, they only hand its
// tensors on.
var iterFuncs = map[string]bool{"zip": true, "enumerate": true, "iter": true, "reversed": true, "tuple": true, "set": true}

func checkCD101(p *pycheck.Pass) {
	f := p.File
	for _, call := range nonBlockingCalls(f) {
		if pycheck.LastName(f.Callee(call)) == "copy_" {
			// dst.copy_(src, non_blocking=True) into host memory: dst is
			// what the host must not read yet.
			dst := pycheck.Unparen(receiver(call))
			// buf[:n].copy_(src, non_blocking=True) fills part of buf.
			for dst != nil && dst.Type() == "subscript" && sliced(dst) {
				dst = pycheck.Unparen(dst.ChildByFieldName("value"))
			}
			if dst != nil && pycheck.IsPlace(dst) && hostBuffer(f, dst) {
				checkPlaceReads(p, call, dst, f.Text(dst)+", filled by a non_blocking copy_ from the GPU")
			}
			continue
		}
		if copyDirection(f, call) != "d2h" {
			continue
		}
		checkCopyRead(p, call, "the result of a non_blocking device-to-host copy")
	}
	m := f.Model()
	for _, call := range f.Calls(0, len(f.Src)) {
		s := m.Summary(call)
		if s == nil {
			continue
		}
		if s.Generator {
			// for host in batches(...): each element the generator yields.
			if s.ReturnsNonBlockingD2H {
				for _, target := range m.IterTargets(call, -1) {
					checkPlaceReads(p, call, target, f.Text(target)+fmt.Sprintf(", a non_blocking device-to-host copy %s() yields", s.Name))
				}
			}
			for i := 0; i < 32 && s.NonBlockingD2HElems>>i != 0; i++ {
				if s.NonBlockingD2HElems&(1<<i) != 0 {
					for _, target := range m.IterTargets(call, i) {
						checkPlaceReads(p, call, target, f.Text(target)+fmt.Sprintf(", element %d of the tuples of non_blocking device-to-host copies %s() yields", i, s.Name))
					}
				}
			}
			continue
		}
		if s.ReturnsNonBlockingD2H {
			checkCopyRead(p, call, fmt.Sprintf("the non_blocking device-to-host copy %s() returns", s.Name))
		}
		if s.NonBlockingD2HElems != 0 {
			for i, target := range unpackedTargets(call) {
				if i < 32 && s.NonBlockingD2HElems&(1<<i) != 0 && target != nil {
					checkPlaceReads(p, call, target, f.Text(target)+fmt.Sprintf(", element %d of the tuple of non_blocking device-to-host copies %s() returns", i, s.Name))
				}
			}
		}
	}
	// self.host with `@property def host(self)` returning such a copy.
	for _, n := range m.PropertyReads(0, len(f.Src)) {
		if s := m.PropertyRead(n); s.ReturnsNonBlockingD2H {
			checkCopyRead(p, n, fmt.Sprintf("the non_blocking device-to-host copy the property %s returns", s.Name))
		}
	}
}

// sliced: the subscript takes a slice (buf[:n], buf[a:b, 0]).
func sliced(n *pycheck.Node) bool {
	sub := n.ChildByFieldName("subscript")
	if sub == nil {
		return false
	}
	if sub.Type() == "slice" {
		return true
	}
	for _, c := range n.NamedChildren() {
		if c.Type() == "slice" {
			return true
		}
	}
	return false
}

// unpackedTargets are the places a call's tuple result is unpacked into
// (`a, b = f()`), by position; nil for a target that is no plain place,
// and none from a starred target on (its position is not known).
func unpackedTargets(call *pycheck.Node) []*pycheck.Node {
	c := upParen(call)
	a := c.Parent()
	if a == nil || a.Type() != "assignment" || c.FieldName() != "right" {
		return nil
	}
	l := pycheck.Unparen(a.ChildByFieldName("left"))
	if l == nil {
		return nil
	}
	switch l.Type() {
	case "pattern_list", "tuple_pattern", "list_pattern":
	default:
		return nil
	}
	var out []*pycheck.Node
	for _, t := range l.NamedChildren() {
		t = pycheck.Unparen(t)
		if t.Type() == "list_splat_pattern" {
			break
		}
		if !pycheck.IsPlace(t) {
			t = nil
		}
		out = append(out, t)
	}
	return out
}

// hostBuffer reports whether a place holds host memory: a pinned or CPU
// tensor was assigned to it (a name: by an assignment that reaches here,
// or to the name it was copied from; self.x: anywhere in the class).
func hostBuffer(f *pycheck.File, place *pycheck.Node) bool {
	return hostBufferVia(f, place, 3)
}

var hostMarks = []string{"pin_memory", `device="cpu"`, `device='cpu'`, ".cpu()", ".numpy()"}

func hostBufferVia(f *pycheck.File, place *pycheck.Node, depth int) bool {
	if place.Type() == "identifier" {
		for _, d := range f.Flow(f.Scope(place)).ReachingDefs(place, place) {
			v := pycheck.Unparen(defValue(d))
			// pinned = self.buf[:n]: a view of part of a buffer.
			for v != nil && v.Type() == "subscript" && sliced(v) {
				v = pycheck.Unparen(v.ChildByFieldName("value"))
			}
			if v == nil {
				continue
			}
			if containsAny(f.Compact(v), hostMarks) {
				return true
			}
			if depth > 0 && pycheck.IsPlace(v) && f.Text(v) != f.Text(place) && hostBufferVia(f, v, depth-1) {
				return true
			}
		}
		return false
	}
	for _, v := range f.Model().AttrValues(place) {
		if containsAny(f.Compact(v), hostMarks) {
			return true
		}
	}
	return false
}

func checkCopyRead(p *pycheck.Pass, call *pycheck.Node, what string) {
	f := p.File
	if v, place := numpyView(f, upParen(call)); v != nil {
		checkPlaceReads(p, v, place, what)
		return
	}
	if n, how := hostRead(f, upParen(call)); n != nil {
		p.Report(n, fmt.Sprintf("%s reads %s before it has completed", how, what))
		return
	}
	if n, how := iterationRead(f, upParen(call)); n != nil {
		p.Report(n, fmt.Sprintf("%s reads %s before it has completed", how, what))
		return
	}
	// Copies made in a comprehension: the list they land in is the place,
	// or each target it is unpacked into (`a, b = (t.to(...) for t in
	// pair)`).
	if c := pycheck.Ancestor(call, "list_comprehension", "generator_expression", "function_definition"); c != nil && c.Type() != "function_definition" {
		if body := c.ChildByFieldName("body"); body != nil && same(pycheck.Unparen(body), upParen(call)) {
			if targets := unpackedTargets(c); len(targets) > 0 {
				for _, t := range targets {
					if t != nil {
						checkPlaceReads(p, c, t, f.Text(t)+", unpacked from copies that are each "+what)
					}
				}
				return
			}
			call = c
		}
	}
	// {k: v.to("cpu", non_blocking=True) for k, v in out.items()}: the
	// dict they land in is the place.
	if pr := upParen(call).Parent(); pr != nil && pr.Type() == "pair" && same(pr.ChildByFieldName("value"), upParen(call)) {
		if c := pr.Parent(); c != nil && c.Type() == "dictionary_comprehension" && same(c.ChildByFieldName("body"), pr) {
			call = c
		}
	}
	// outs.append(copy): the list holds the copy; its elements are read
	// when the list is iterated (`[o.tolist() for o in outs]`).
	if lst := appendedTo(f, upParen(call)); lst != nil {
		checkPlaceReads(p, call, lst, f.Text(lst)+", a list holding "+what)
		return
	}
	if ctor, attr := f.Model().ConstructedField(upParen(call)); ctor != nil {
		checkFieldReads(p, call, ctor, attr, what)
		return
	}
	place := assignedPlace(f, call)
	if place == nil {
		// self.cache[key] = copy: the container kept in self holds it
		// for the class's other methods.
		if c := upParen(call); c.FieldName() == "right" && c.Parent().Type() == "assignment" {
			if l := pycheck.Unparen(c.Parent().ChildByFieldName("left")); l != nil && l.Type() == "subscript" {
				if v := pycheck.Unparen(l.ChildByFieldName("value")); v != nil && v.Type() == "attribute" && pycheck.IsPlace(v) {
					line, _ := f.LineCol(int(call.StartByte()))
					checkOtherMethodReads(p, call, line, v, f.Text(v)+", a container holding "+what)
				} else if v != nil && v.Type() == "identifier" {
					// host[key] = copy: a local dict or list filled slot by slot.
					checkSlotReads(p, call, v, f.Text(v)+", a container holding "+what)
				}
			}
		}
		return
	}
	checkPlaceReads(p, call, place, f.Text(place)+", "+what)
}

// checkSlotReads follows copies stored in the slots of a local container
// (`host[key] = t.to("cpu", non_blocking=True)`, in a loop over a state
// dict) to where the container or one of its elements is read before a
// synchronisation: an element looked up and read (`host[k].tolist()`),
// iterated and read, or the whole container handed to a function that
// reads it (`torch.save(host, path)`, `print(host)`).
func checkSlotReads(p *pycheck.Pass, call, container *pycheck.Node, what string) {
	f := p.File
	fl := f.Flow(f.Scope(call))
	line, _ := f.LineCol(int(call.StartByte()))
	uses := fl.UsesAfter(call, container, hostSyncs(f, fl, copySource(f, call)), true)
	sortNodes(uses)
	for _, use := range uses {
		var n *pycheck.Node
		var how string
		if el := upParen(use).Parent(); el != nil && el.Type() == "subscript" && same(el.ChildByFieldName("value"), upParen(use)) {
			if pycheck.IsDef(el) {
				continue
			}
			n, how = hostRead(f, el)
		} else if pr := upParen(use).Parent(); pr != nil && pr.Type() == "argument_list" {
			n, how = hostRead(f, use)
		}
		if n == nil {
			n, how = elementRead(f, use)
		}
		if n != nil {
			p.Report(n, fmt.Sprintf("%s reads %s (line %d), before any synchronize()", how, what, line))
			return
		}
	}
}

// checkFieldReads follows a copy handed to a constructor of the file's
// class (a dataclass, NamedTuple or plain class keeping it in attr) to
// the reads of that attribute: of the object made (`out = Out(loss=copy)`,
// then out.loss), or of what the callers of the function returning it
// bind (`return Out(loss=copy)`; `res = step(...)`, then res.loss), when
// that function does not synchronise after the copy.
func checkFieldReads(p *pycheck.Pass, call, ctor *pycheck.Node, attr, what string) {
	f := p.File
	what = fmt.Sprintf("field %s holding %s", attr, what)
	if obj := assignedPlace(f, ctor); obj != nil && obj.Type() == "identifier" {
		if n := attrAfter(f, ctor, f.Text(obj)+"."+attr); n != nil {
			checkPlaceReads(p, call, n, f.Text(n)+", "+what)
		}
		return
	}
	ret := upParen(ctor).Parent()
	maker := f.Scope(ctor)
	if ret == nil || ret.Type() != "return_statement" || maker.Type() != "function_definition" {
		return
	}
	mfl := f.Flow(maker)
	if !mfl.LeavesPast(call, hostSyncs(f, mfl, copySource(f, call)), true) {
		return
	}
	name := f.Text(maker.ChildByFieldName("name"))
	for _, c := range f.CallsAt(name+"(", 0, len(f.Src)) {
		if f.Callee(c) != name {
			continue
		}
		if obj := assignedPlace(f, c); obj != nil && obj.Type() == "identifier" {
			if n := attrAfter(f, c, f.Text(obj)+"."+attr); n != nil {
				line, _ := f.LineCol(int(call.StartByte()))
				checkPlaceReadsAt(p, c, line, n, f.Text(n)+", "+what+" "+name+"() returns", 3)
			}
		}
	}
}

// attrAfter is the first attribute node spelling dotted after n in n's
// scope, or nil.
func attrAfter(f *pycheck.File, n *pycheck.Node, dotted string) *pycheck.Node {
	scope := f.Scope(n)
	for _, off := range f.Find(dotted, int(n.EndByte()), int(scope.EndByte())) {
		if end := off + len(dotted); end < len(f.Src) && pycheck.IsIdentByte(f.Src[end]) || off > 0 && pycheck.IsIdentByte(f.Src[off-1]) {
			continue
		}
		a := f.NodeAt(off, off+len(dotted))
		if a != nil && a.Type() == "attribute" && int(a.StartByte()) == off && int(a.EndByte()) == off+len(dotted) && same(f.Scope(a), scope) {
			return a
		}
	}
	return nil
}

// appendedTo is the list place e is appended to (`outs.append(e)`), or nil.
func appendedTo(f *pycheck.File, e *pycheck.Node) *pycheck.Node {
	args := e.Parent()
	if args == nil || args.Type() != "argument_list" || len(pycheck.PositionalArgs(args.Parent())) != 1 || args.NamedChildCount() != 1 {
		return nil
	}
	call := args.Parent()
	if pycheck.LastName(f.Callee(call)) != "append" {
		return nil
	}
	if lst := pycheck.Unparen(receiver(call)); lst != nil && pycheck.IsPlace(lst) {
		return lst
	}
	return nil
}

// checkPlaceReads reports the first host read of place that the value
// the copy made by call puts there reaches, along some path of the
// function's control flow with no synchronisation on it: later in the
// function, in a finally clause, or in the next pass of a loop.
func checkPlaceReads(p *pycheck.Pass, call, place *pycheck.Node, what string) {
	line, _ := p.File.LineCol(int(call.StartByte()))
	checkPlaceReadsAt(p, call, line, place, what, 3)
	checkOtherMethodReads(p, call, line, place, what)
}

// checkOtherMethodReads follows a copy kept in self (`self.pending =
// t.to("cpu", non_blocking=True)`) into the class's other methods: a
// method that reads self.pending before any synchronisation on some path
// from its entry reads the copy, unless the method that made it waits
// after the copy (a synchronising call that runs whenever its statement
// does, on every path from the copy out of that method).
func checkOtherMethodReads(p *pycheck.Pass, call *pycheck.Node, line int, place *pycheck.Node, what string) {
	f := p.File
	place = pycheck.Unparen(place)
	if place.Type() != "attribute" || f.Text(place.ChildByFieldName("object")) != "self" {
		return
	}
	maker := f.Scope(call)
	cls := pycheck.Ancestor(maker, "class_definition")
	if maker.Type() != "function_definition" || cls == nil || !same(f.Scope(maker), f.Scope(cls)) && !same(pycheck.Ancestor(maker, "class_definition", "function_definition"), cls) {
		return
	}
	// The maker waits for the copy when every path out of it after the
	// copy (its end, an early return, the loop that makes it ending)
	// passes a synchronisation.
	mfl := f.Flow(maker)
	if !mfl.LeavesPast(call, hostSyncs(f, mfl, copySource(f, call)), true) {
		return
	}
	body := cls.ChildByFieldName("body")
	if body == nil {
		return
	}
	// self.arr = self.buf.numpy(), anywhere in the class: self.arr shares
	// the buffer's memory, and reading it reads the copy.
	var views []*pycheck.Node
	for _, off := range f.Find(f.Text(place)+".numpy()", int(cls.StartByte()), int(cls.EndByte())) {
		if n := f.NodeAt(off, off+len(f.Text(place))); n != nil {
			if v, view := numpyView(f, n); v != nil && view.Type() == "attribute" && f.Text(view.ChildByFieldName("object")) == "self" {
				views = append(views, view)
			}
		}
	}
	for _, d := range body.NamedChildren() {
		if d.Type() == "decorated_definition" {
			d = d.ChildByFieldName("definition")
		}
		if d == nil || d.Type() != "function_definition" || same(d, maker) || f.Text(d.ChildByFieldName("name")) == "__init__" {
			continue
		}
		fl := f.Flow(d)
		uses := fl.EntryUses(place, hostSyncs(f, fl), true)
		for _, v := range views {
			uses = append(uses, fl.EntryUses(v, hostSyncs(f, fl), true)...)
		}
		sortNodes(uses)
		for _, use := range uses {
			n, how := hostRead(f, use)
			if n == nil {
				n, how = elementRead(f, use)
			}
			if n != nil {
				p.Report(n, fmt.Sprintf("%s reads %s (line %d, in %s()), before any synchronize()", how, what, line, f.Text(maker.ChildByFieldName("name"))))
				break
			}
		}
	}
}

// guardedSyncs are the conditions of the if statements whose body calls
// synchronize() (`if overlap: torch.cuda.synchronize()`): every path
// passes the condition, and the wait is taken on the paths it selects.
func guardedSyncs(f *pycheck.File, fl *pycheck.Flow) []*pycheck.Node {
	var out []*pycheck.Node
	for _, c := range fl.Calls() {
		if pycheck.LastName(f.Model().QualifiedCallee(c)) != "synchronize" {
			continue
		}
		if st := pycheck.Ancestor(c, "if_statement", "function_definition"); st != nil && st.Type() == "if_statement" && pycheck.Within(c, st.ChildByFieldName("consequence")) {
			out = append(out, st.ChildByFieldName("condition"))
		}
	}
	return out
}

// checkPlaceReadsAt is checkPlaceReads for a copy made on line, followed
// through up to depth numpy views of it.
func checkPlaceReadsAt(p *pycheck.Pass, call *pycheck.Node, line int, place *pycheck.Node, what string, depth int) {
	f := p.File
	fl := f.Flow(f.Scope(call))
	// The value enters place where it is assigned (after the copy's
	// statement); a copy_ fills it at the call.
	at := call
	if d := assignedPlace(f, call); d != nil {
		at = d
	} else if pycheck.IsDef(place) && pycheck.Within(call, pycheck.Statement(place)) {
		at = place // a, b = f(): the unpacking target
	}
	syncs := hostSyncs(f, fl, copySource(f, call))
	if !same(throughConditional(call), call) {
		// `host = t.to("cpu", non_blocking=True) if overlap else t.cpu()`:
		// the copy is made on one path only, and a synchronize under a
		// condition after it (`if overlap: torch.cuda.synchronize()`) is
		// taken to be the wait of that path: its condition blocks.
		syncs = append(syncs, guardedSyncs(f, fl)...)
	}
	uses := fl.UsesAfter(at, place, syncs, true)
	sortNodes(uses)
	// place holds a list or dict of copies (made in a comprehension or
	// appended to it), not a copy: iterating it reads nothing yet.
	container := call.Type() != "call" && f.Model().PropertyRead(call) == nil || appendedTo(f, upParen(call)) != nil
	for _, use := range uses {
		// arr = t.numpy() shares t's memory and reads nothing yet: the
		// reads of arr are the reads of the copy.
		if v, view := numpyView(f, use); v != nil {
			if depth > 0 {
				checkPlaceReadsAt(p, v, line, view, what, depth-1)
			}
			continue
		}
		// A dict of copies is read through its elements (host["logits"]);
		// the dict itself is only looked up.
		// Iterating it (`for k, v in host.items()`) reads the elements in
		// the loop.
		iterated := call.Type() == "dictionary_comprehension" && len(elementReads(f, use)) > 0
		if call.Type() == "dictionary_comprehension" && !iterated {
			el := upParen(use).Parent()
			if el == nil || el.Type() != "subscript" || !same(el.ChildByFieldName("value"), upParen(use)) || pycheck.IsDef(el) {
				continue
			}
			use = el
		}
		var n *pycheck.Node
		var how string
		if !iterated {
			n, how = hostRead(f, use)
		}
		if n == nil && !container {
			n, how = iterationRead(f, use)
		}
		if n == nil {
			n, how = elementRead(f, use)
		}
		if n != nil {
			where := ""
			if use.StartByte() < call.StartByte() {
				where = " in the loop's next pass"
			}
			subject := what
			if t := f.Text(use); iterated {
				subject = fmt.Sprintf("an element of %s, %s", t, what)
			} else if call.Type() == "dictionary_comprehension" {
				subject = fmt.Sprintf("%s, an element of %s", t, what)
			} else if t != f.Text(place) {
				subject = fmt.Sprintf("%s, the same tensor as %s", t, what)
			}
			p.Report(n, fmt.Sprintf("%s reads %s (line %d)%s, before any synchronize()", how, subject, line, where))
			return
		}
	}
}

// numpyView: n.numpy() whose result is bound to a place (`arr =
// t.numpy()`); the call and that place, or nils.
func numpyView(f *pycheck.File, n *pycheck.Node) (*pycheck.Node, *pycheck.Node) {
	m, call := methodCallOn(f, n)
	if m != "numpy" || call == nil || len(pycheck.PositionalArgs(call)) != 0 {
		return nil, nil
	}
	if place := assignedPlace(f, call); place != nil && pycheck.IsPlace(place) {
		return call, place
	}
	return nil, nil
}

// elementRead: place is iterated (`for h in place`, a comprehension over
// it, `for k, v in place.items()`) and an element is read on the host
// inside.
func elementRead(f *pycheck.File, use *pycheck.Node) (*pycheck.Node, string) {
	for _, id := range elementReads(f, use) {
		if n, how := hostRead(f, id); n != nil {
			return n, how
		}
	}
	return nil, ""
}

// hostRead classifies a use of a host tensor that reads its data: a
// method (other than handing it on), indexing, arithmetic or a comparison,
// or a builtin or numpy function of it.
func hostRead(f *pycheck.File, n *pycheck.Node) (*pycheck.Node, string) {
	n = upParen(n)
	p := n.Parent()
	if p == nil {
		return nil, ""
	}
	switch p.Type() {
	case "attribute":
		if m, call := methodCallOn(f, n); call != nil && (hostReads[m] || !passOn[m] && !isInplaceMethod(m)) {
			return call, "." + m + "()"
		}
	case "subscript":
		if v := p.ChildByFieldName("value"); same(v, n) {
			if g := p.Parent(); g != nil && (g.Type() == "assignment" || g.Type() == "augmented_assignment") && same(g.ChildByFieldName("left"), p) {
				return nil, ""
			}
			// buf[:n].copy_(src), buf[i].zero_(): a write into part of it.
			if m, call := methodCallOn(f, p); call != nil && (m == "copy_" || isInplaceMethod(m)) {
				return nil, ""
			}
			return p, "indexing"
		}
	case "comparison_operator":
		// x is None / x is not None asks about the name, not the data.
		if isNoneTest(p) {
			return nil, ""
		}
		return p, "a comparison"
	case "binary_operator":
		return p, f.Text(p.ChildByFieldName("operator"))
	case "argument_list":
		call := p.Parent()
		if call != nil && call.Type() == "call" && hostReadFuncs[f.Callee(call)] {
			return call, f.Callee(call) + "()"
		}
	}
	return nil, ""
}

// iterationRead: n, a host tensor (not a list of them), is iterated:
// `for v in host`, a comprehension over it, zip(labels, host). Each pass
// reads an element.
func iterationRead(f *pycheck.File, n *pycheck.Node) (*pycheck.Node, string) {
	n = upParen(n)
	p := n.Parent()
	if p == nil {
		return nil, ""
	}
	switch p.Type() {
	case "for_statement", "for_in_clause":
		if same(p.ChildByFieldName("right"), n) {
			return p, "iteration"
		}
	case "argument_list":
		call := p.Parent()
		if call != nil && call.Type() == "call" && iterFuncs[f.Callee(call)] {
			return call, f.Callee(call) + "()"
		}
	}
	return nil, ""
}

// isNoneTest: a comparison `x is None` or `x is not None`.
func isNoneTest(cmp *pycheck.Node) bool {
	is, none := false, false
	for _, c := range cmp.Children() {
		switch c.Type() {
		case "is", "is not":
			is = true
		case "none":
			none = true
		}
	}
	return is && none
}

// copySource is the device tensor a non_blocking copy made by call reads
// (`src` of `src.to("cpu", non_blocking=True)` or `dst.copy_(src, ...)`),
// when it is a name and the copy runs on the current stream; otherwise
// nil. A blocking read of a value computed from it waits for the copy.
func copySource(f *pycheck.File, call *pycheck.Node) *pycheck.Node {
	if call == nil || call.Type() != "call" || f.ContextOf(call)&pycheck.CtxSideStream != 0 {
		return nil
	}
	var src *pycheck.Node
	switch pycheck.LastName(f.Callee(call)) {
	case "to", "cpu":
		src = receiver(call)
	case "copy_":
		if args := pycheck.PositionalArgs(call); len(args) > 0 {
			src = args[0]
		}
	}
	if src = pycheck.Unparen(src); src != nil && src.Type() == "identifier" {
		return src
	}
	return nil
}
