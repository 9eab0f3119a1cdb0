package pycheck

import (
	"sort"
	"strings"
)

// Model is what a file means, built once and shared by every rule: which
// qualified name each imported or aliased name stands for, and a summary of
// every function the file defines (does it wait for the GPU, directly or
// through what it calls; does it run CUDA work; does it return a
// non_blocking device-to-host copy).
type Model struct {
	f *File
	// path, key and isPackage name the module for the project: key is the
	// dotted name the path stands for (pkg/utils.py: pkg.utils).
	path      string
	key       string
	isPackage bool
	proj      *Project
	inProject bool // summarised in the project's first phase
	// firstPhase: the rules run before the project is linked; imported
	// summaries are not there yet and local ones may still gain flags, so
	// every answer is recorded for Project.changed to check.
	firstPhase bool
	asked      []asked
	askedSeen  map[asked]bool
	aliases    map[string]string // local name -> qualified name
	// syncNames are names bound to a bound method that waits for the GPU.
	syncNames map[string]bool
	// fns are the file's functions and methods by name; a name defined
	// twice keeps the summary that is true of either (a sync anywhere).
	// Built on first use: most files only need the imports.
	fns  map[string]*FuncSummary
	defs []*Node
	// classes are the file's classes by name (the first of a name).
	classes map[string]*Node
	// wraps are the assignments that bind a name (or an attribute of
	// self) to a lambda or to functools.partial(...): calls of the name
	// are calls of what it wraps.
	wraps []*Node
	// flows are the control-flow graphs built so far, by scope node.
	flows map[int32]*Flow
}

// FuncSummary is what a function does, as far as the rules care.
type FuncSummary struct {
	Name string
	Node *Node
	// Syncs: the function waits for the GPU (.item(), .cpu(), .tolist(),
	// synchronize(), ...) itself or through a function of this file it calls.
	Syncs bool
	// RunsCUDA: it moves data to the GPU or names CUDA, or calls a
	// function of this file that does.
	RunsCUDA bool
	// ReturnsNonBlockingD2H: it returns the result of a non_blocking copy to
	// the CPU (directly or through a local name).
	ReturnsNonBlockingD2H bool
	// NonBlockingD2HElems: it returns a tuple (`return a, b`), and bit i is
	// set when element i is such an unfinished copy; a caller that unpacks
	// it (`x, y = f()`) holds the copy in the i-th target.
	NonBlockingD2HElems uint32
	// ReturnsCPUTensor: it returns a tensor a factory made without
	// device= (torch.ones(n, n).tril()), so it lives on the CPU.
	ReturnsCPUTensor bool
	// Method: defined in a class body, so obj.name() may reach it (or a
	// lambda kept in an attribute of self: self.name = lambda ...).
	Method bool
	// Generator: the function yields; what the summary says it returns
	// (a non_blocking copy, a CPU tensor) is what it yields, the elements
	// a loop over its call holds (IterTargets).
	Generator bool
	// Property: a method decorated with @property (or cached_property):
	// reading self.name runs it; classAt is where its class starts (the
	// tree may be released, the offset stays).
	Property bool
	classAt  uint32
	// calls are the file's own functions it calls by name; ext the
	// qualified names (imports resolved) of what it calls through an
	// import; retCalls the callees whose result it returns.
	calls    []string
	ext      []string
	retCalls []string
	// nbReturn: it returns a non_blocking copy, complete unless one of
	// nbGuards (called between copy and return) synchronises.
	nbReturn bool
	nbElems  uint32
	nbGuards []callRef
}

// commonMethods are method names too widely shared (by tensors, modules,
// optimisers) for obj.name() to be taken as the file's own method.
var commonMethods = map[string]bool{"to": true, "cpu": true, "cuda": true, "item": true, "forward": true, "step": true,
	"backward": true, "__call__": true, "__init__": true, "run": true, "update": true, "get": true, "load": true,
	"save": true, "train": true, "eval": true, "sum": true, "mean": true, "numpy": true, "tolist": true, "wait": true}

// Model builds the file's model on first use.
func (f *File) Model() *Model {
	if f.model == nil {
		f.model = buildModel(f)
	}
	return f.model
}

// SyncCalls are method and function names whose call makes the host wait
// for the GPU.
var SyncCalls = map[string]bool{"item": true, "tolist": true, "numpy": true, "cpu": true, "synchronize": true,
	"elapsed_time": true, "wait": true, "all_reduce": true, "barrier": true}

func buildModel(f *File) *Model {
	m := &Model{f: f, aliases: map[string]string{}, syncNames: map[string]bool{}, classes: map[string]*Node{}, path: f.Path, key: moduleKey(f.Path),
		proj: f.project}
	m.isPackage = isPackageInit(f.Path)
	t := f.Tree
	var defs, assigns []*Node
	for i := range t.nodes {
		if i&0xffff == 0xffff && f.cancelled() {
			break
		}
		n := &t.nodes[i]
		switch n.Type() {
		case "import_statement":
			for _, c := range n.ChildrenByFieldName("name") {
				switch c.Type() {
				case "dotted_name":
					// import a.b binds a, which names the package a.
					first := strings.SplitN(f.Text(c), ".", 2)[0]
					m.aliases[first] = first
				case "aliased_import":
					m.aliases[f.Text(c.ChildByFieldName("alias"))] = f.Compact(c.ChildByFieldName("name"))
				}
			}
		case "import_from_statement":
			mod := f.Compact(n.ChildByFieldName("module_name"))
			for _, c := range n.ChildrenByFieldName("name") {
				switch c.Type() {
				case "dotted_name":
					m.aliases[f.Text(c)] = joinModule(mod, f.Compact(c))
				case "aliased_import":
					m.aliases[f.Text(c.ChildByFieldName("alias"))] = joinModule(mod, f.Compact(c.ChildByFieldName("name")))
				}
			}
		case "function_definition":
			defs = append(defs, n)
		case "class_definition":
			if cn := f.Text(n.ChildByFieldName("name")); m.classes[cn] == nil {
				m.classes[cn] = n
			}
		case "assignment":
			assigns = append(assigns, n)
			if r := Unparen(n.ChildByFieldName("right")); r != nil && (r.Type() == "lambda" || r.Type() == "call" && LastName(f.Callee(r)) == "partial") {
				m.wraps = append(m.wraps, n)
			}
		}
	}
	// name = some.imported.thing makes name an alias (clock =
	// time.perf_counter), when the right side resolves through an import.
	for _, a := range assigns {
		l, r := a.ChildByFieldName("left"), a.ChildByFieldName("right")
		// sync = getattr(torch, device).synchronize: calling sync() waits.
		if l != nil && r != nil && l.Type() == "identifier" && r.Type() == "attribute" && SyncCalls[f.Text(r.ChildByFieldName("attribute"))] {
			m.syncNames[f.Text(l)] = true
		}
		if l == nil || r == nil || l.Type() != "identifier" || (r.Type() != "attribute" && r.Type() != "identifier") {
			continue
		}
		if q := m.Qualified(r); q != f.Compact(r) {
			if _, taken := m.aliases[f.Text(l)]; !taken {
				m.aliases[f.Text(l)] = q
			}
		}
	}
	m.defs = defs
	return m
}

// joinModule names what `from mod import name` binds; `from . import x`
// has the module ".".
func joinModule(mod, name string) string {
	if strings.HasSuffix(mod, ".") {
		return mod + name
	}
	return mod + "." + name
}

// funcs summarises the file's functions on first use. In a project the
// first phase summarises every file and links them; a file parsed again
// for its rules takes those summaries over.
func (m *Model) funcs() map[string]*FuncSummary {
	if m.fns != nil {
		return m.fns
	}
	if m.proj != nil && !m.firstPhase {
		if prior := m.proj.byPath[m.path]; prior != nil && prior != m && prior.fns != nil {
			m.fns = prior.fns
			return m.fns
		}
	}
	m.fns = map[string]*FuncSummary{}
	f := m.f
	for _, d := range m.defs {
		s := &FuncSummary{Name: f.Text(d.ChildByFieldName("name")), Node: d}
		owner := Ancestor(d, "class_definition", "function_definition")
		s.Method = owner != nil && owner.Type() == "class_definition"
		s.Property = s.Method && isProperty(f, d)
		if s.Method {
			s.classAt = owner.start
		}
		m.summarise(s)
		if old := m.fns[s.Name]; old != nil {
			old.Syncs = old.Syncs || s.Syncs
			old.RunsCUDA = old.RunsCUDA || s.RunsCUDA
			old.nbReturn = old.nbReturn || s.nbReturn
			old.nbElems |= s.nbElems
			old.nbGuards = append(old.nbGuards, s.nbGuards...)
			old.ReturnsCPUTensor = old.ReturnsCPUTensor || s.ReturnsCPUTensor
			old.Method = old.Method && s.Method
			old.Property = old.Property && s.Property
			old.calls = append(old.calls, s.calls...)
			old.ext = append(old.ext, s.ext...)
			old.retCalls = append(old.retCalls, s.retCalls...)
			continue
		}
		m.fns[s.Name] = s
	}
	m.wrappers()
	// What a function does through its callees: iterate to a fixed point
	// (each round can only set flags, so it ends).
	for changed := true; changed; {
		changed = false
		for _, s := range m.fns {
			for _, c := range s.calls {
				callee := m.fns[c]
				if callee == nil || callee == s {
					continue
				}
				if callee.Syncs && !s.Syncs {
					s.Syncs, changed = true, true
				}
				if callee.RunsCUDA && !s.RunsCUDA {
					s.RunsCUDA, changed = true, true
				}
			}
		}
	}
	// Within the file alone; in a project, linking settles it once every
	// file's Syncs is known.
	if m.inProject {
		return m.fns
	}
	m.settle(func(r callRef) *FuncSummary {
		if r.ext {
			return nil
		}
		return m.fns[r.name]
	})
	return m.fns
}

// settle decides ReturnsNonBlockingD2H once Syncs is known everywhere: a
// function returns an unfinished copy when it returns one with no
// synchronising call between, or returns what such a function returns.
func (m *Model) settle(resolve func(callRef) *FuncSummary) {
	found := false
	for _, s := range m.fns {
		if !s.nbReturn && s.nbElems == 0 || s.ReturnsNonBlockingD2H || s.NonBlockingD2HElems != 0 {
			continue
		}
		synced := false
		for _, g := range s.nbGuards {
			if t := resolve(g); t != nil && t.Syncs {
				synced = true
				break
			}
		}
		if !synced {
			s.ReturnsNonBlockingD2H = s.nbReturn
			s.NonBlockingD2HElems = s.nbElems
			found = true
		}
	}
	if !found {
		return
	}
	// return helper(x) within the file: what the helper returns.
	for changed := true; changed; {
		changed = false
		for _, s := range m.fns {
			for _, c := range s.retCalls {
				if t := m.fns[c]; t != nil && t != s && s.inherit(t) {
					changed = true
				}
			}
		}
	}
}

// inherit: s returns what t returns (`return t(x)`); it reports whether
// s learned something.
func (s *FuncSummary) inherit(t *FuncSummary) bool {
	changed := false
	if t.ReturnsNonBlockingD2H && !s.ReturnsNonBlockingD2H {
		s.ReturnsNonBlockingD2H, changed = true, true
	}
	if e := s.NonBlockingD2HElems | t.NonBlockingD2HElems; e != s.NonBlockingD2HElems {
		s.NonBlockingD2HElems, changed = e, true
	}
	// return gen(x): the caller gets the generator.
	if changed && t.Generator {
		s.Generator = true
	}
	return changed
}

// summarise reads one function's own body (nested functions included: a
// closure defined and called there runs as part of it).
func (m *Model) summarise(s *FuncSummary) {
	f := m.f
	d := s.Node
	t := f.Tree
	end := d.Index() + 1
	for end < len(t.nodes) && t.nodes[end].start < d.end {
		end++
	}
	for i := d.Index() + 1; i < end; i++ {
		if i&0x3fff == 0x3fff && f.cancelled() {
			return
		}
		n := &t.nodes[i]
		switch n.Type() {
		case "call":
			fn := n.ChildByFieldName("function")
			if fn == nil {
				continue
			}
			callee := LastName(f.Compact(fn))
			if SyncCalls[callee] && fn.Type() == "attribute" {
				s.Syncs = true
			}
			// .to(device, non_blocking=True) only makes sense for a copy
			// to or from the GPU.
			if callee == "cuda" || callee == "to" && (strings.Contains(f.Text(n.ChildByFieldName("arguments")), "cuda") ||
				f.IsTrue(f.Keyword(n, "non_blocking"))) {
				s.RunsCUDA = true
			}
			switch {
			case m.viaImport(fn):
				s.ext = append(s.ext, m.Qualified(fn))
			case fn.Type() == "identifier" || fn.Type() == "attribute" && f.Text(fn.ChildByFieldName("object")) == "self":
				s.calls = append(s.calls, callee)
			}
		case "return_statement":
			if r := n.NamedChild(0); r != nil {
				m.returned(s, r)
			}
		case "yield":
			// yield v: what a loop over the generator holds; yield from
			// hands on another iterable's elements, unknown here.
			if !same(Ancestor(n, "function_definition", "lambda"), d) {
				continue
			}
			s.Generator = true
			if r := n.NamedChild(0); r != nil && f.Text(n.Child(1)) != "from" {
				m.returned(s, r)
			}
		}
	}
	// lambda t: t.to("cpu", non_blocking=True) returns its body.
	if d.Type() == "lambda" {
		if r := d.ChildByFieldName("body"); r != nil {
			m.returned(s, r)
		}
	}
}

// returned notes in s what the function hands back in r, the value of
// one of its returns (or yields, or a lambda's body).
func (m *Model) returned(s *FuncSummary, r *Node) {
	f, d := m.f, s.Node
	if nb, guards := m.isNonBlockingD2H(r, d); nb {
		s.nbReturn = true
		s.nbGuards = append(s.nbGuards, guards...)
	}
	// return a, b: each element on its own.
	if t := Unparen(r); t.Type() == "expression_list" || t.Type() == "tuple" {
		for i, e := range t.NamedChildren() {
			if i >= 32 {
				break
			}
			if nb, guards := m.isNonBlockingD2H(e, d); nb {
				s.nbElems |= 1 << i
				s.nbGuards = append(s.nbGuards, guards...)
			}
		}
	}
	if m.CPUValue(r, d) {
		s.ReturnsCPUTensor = true
	}
	// return helper(x): what the helper returns, this returns.
	if r.Type() == "call" {
		if fn := r.ChildByFieldName("function"); m.viaImport(fn) {
			s.retCalls = append(s.retCalls, m.Qualified(fn))
		} else if fn != nil && fn.Type() == "identifier" {
			s.retCalls = append(s.retCalls, f.Text(fn))
		}
	}
}

// wrappers summarises the names bound to a lambda (`to_cpu = lambda t:
// t.to("cpu", non_blocking=True)`, `self.init = lambda b: torch.zeros(b)`)
// or to functools.partial of a function of the file or of a tensor
// method (`to_host = partial(torch.Tensor.to, device="cpu",
// non_blocking=True)`): a call of the name is a call of what it wraps. A
// name the file defines with def keeps its def.
func (m *Model) wrappers() {
	f := m.f
	for _, a := range m.wraps {
		r := Unparen(a.ChildByFieldName("right"))
		name, method, ok := WrapperName(f, a)
		if !ok || r == nil || m.fns[name] != nil {
			continue
		}
		s := &FuncSummary{Name: name, Node: r, Method: method}
		if cls := Ancestor(a, "class_definition"); method && cls != nil {
			s.classAt = cls.start
		}
		if r.Type() == "lambda" {
			m.summarise(s)
			m.fns[name] = s
			continue
		}
		args := PositionalArgs(r)
		if len(args) == 0 || m.Qualified(r.ChildByFieldName("function")) != "functools.partial" {
			continue
		}
		w := Unparen(args[0])
		if w.Type() == "identifier" {
			if t := m.fns[f.Text(w)]; t != nil {
				m.fns[name] = t
			}
			continue
		}
		// partial(torch.Tensor.to, device="cpu", non_blocking=True): the
		// keywords the partial binds make the call a copy.
		switch LastName(m.Qualified(w)) {
		case "to", "cpu":
			if f.IsTrue(f.Keyword(r, "non_blocking")) && (LastName(f.Text(w)) == "cpu" || ToCPU(f, r)) {
				s.nbReturn, s.RunsCUDA = true, true
				m.fns[name] = s
			}
		}
	}
}

// WrapperName is the name an assignment binds a callable to, as the
// summaries know it: a plain name (`to_cpu = lambda t: ...`), or an
// attribute of self (`self.init = partial(torch.zeros, 4)`, method true).
// Other targets (a subscript, another object's attribute) are no name.
func WrapperName(f *File, a *Node) (name string, method, ok bool) {
	switch l := Unparen(a.ChildByFieldName("left")); {
	case l == nil:
	case l.Type() == "identifier":
		return f.Text(l), false, true
	case l.Type() == "attribute" && f.Text(l.ChildByFieldName("object")) == "self":
		return f.Text(l.ChildByFieldName("attribute")), true, true
	}
	return "", false, false
}

// viaImport reports whether a callee's first name was imported or
// aliased (u.to_host with `import pkg.utils as u`; to_host with `from
// .utils import to_host`).
func (m *Model) viaImport(fn *Node) bool {
	root := fn
	for root != nil && root.Type() == "attribute" {
		root = root.ChildByFieldName("object")
	}
	if root == nil || root.Type() != "identifier" {
		return false
	}
	_, ok := m.aliases[m.f.Text(root)]
	return ok
}

// CPUFactories are torch functions that allocate on the default device,
// the CPU, unless given device= (from_numpy takes none: its tensor shares
// the array's host memory).
var CPUFactories = map[string]bool{"zeros": true, "ones": true, "randn": true, "rand": true, "arange": true, "empty": true,
	"full": true, "eye": true, "linspace": true, "randint": true, "randperm": true, "from_numpy": true}

// KeepsDevice are tensor methods whose result stays on the receiver's
// device: dtype and shape changes, and in-place arithmetic, which writes
// into the receiver (torch.randn(n).mul_(std) is still on the CPU).
var KeepsDevice = map[string]bool{"bool": true, "float": true, "long": true, "int": true, "half": true, "unsqueeze": true,
	"view": true, "reshape": true, "expand": true, "t": true, "transpose": true, "repeat": true, "triu": true, "tril": true,
	"mul_": true, "add_": true, "sub_": true, "div_": true, "clamp_": true, "fill_": true, "normal_": true, "uniform_": true,
	"zero_": true, "logical_not": true, "exp_": true, "pow_": true, "bernoulli_": true, "random_": true, "exponential_": true, "log_normal_": true, "geometric_": true, "cauchy_": true}

// SameDeviceFuncs are torch functions whose result is on their tensor
// arguments' device (or that fail when those differ): one CPU operand
// makes a CPU result.
var SameDeviceFuncs = map[string]bool{"torch.triu": true, "torch.tril": true, "torch.diag": true, "torch.diag_embed": true,
	"torch.flip": true, "torch.sin": true, "torch.cos": true, "torch.exp": true, "torch.log": true, "torch.sqrt": true,
	"torch.cat": true, "torch.stack": true, "torch.outer": true, "torch.meshgrid": true,
	"torch.nn.utils.rnn.pad_sequence": true, "torch.einsum": true, "torch.pow": true}

// CPUValue reports whether e, in the function or module scope, is a
// tensor a torch factory made on the CPU (torch.<factory>(...) without
// device=), possibly through methods that keep the device
// (torch.ones(n, n).tril().bool()), or a value computed from one within
// scope: a name last assigned such a value, arithmetic with it, a
// same-device torch function of it (torch.cat([torch.sin(pos * freq),
// ...]) with pos = torch.arange(n)).
func (m *Model) CPUValue(e *Node, scope *Node) bool {
	return m.cpuValue(e, scope, 12)
}

func (m *Model) cpuValue(e *Node, scope *Node, depth int) bool {
	if depth == 0 {
		return false
	}
	e = Unparen(e)
	if e == nil {
		return false
	}
	f := m.f
	switch e.Type() {
	case "identifier":
		if scope == nil {
			return false
		}
		var rhs *Node
		for _, id := range f.Names(f.Text(e), int(scope.StartByte()), int(e.StartByte())) {
			if p := id.Parent(); p != nil && p.Type() == "assignment" && p.ChildByFieldName("left") == id {
				rhs = p.ChildByFieldName("right")
			}
		}
		return rhs != nil && m.cpuValue(rhs, scope, depth-1)
	case "binary_operator":
		switch f.Text(e.ChildByFieldName("operator")) {
		case "+", "-", "*", "/", "@", "**", "//", "%":
			return m.cpuValue(e.ChildByFieldName("left"), scope, depth-1) || m.cpuValue(e.ChildByFieldName("right"), scope, depth-1)
		}
		return false
	case "subscript":
		// t[:, None]: indexing keeps the device.
		return m.cpuValue(e.ChildByFieldName("value"), scope, depth-1)
	case "list", "tuple":
		for _, el := range e.NamedChildren() {
			if m.cpuValue(el, scope, depth-1) {
				return true
			}
		}
		return false
	case "call":
	default:
		return false
	}
	fn := e.ChildByFieldName("function")
	if fn == nil || fn.Type() != "attribute" {
		return false
	}
	q := m.Qualified(fn)
	if name, ok := strings.CutPrefix(q, "torch."); ok && CPUFactories[name] {
		return !f.MayPassKeyword(e, "device")
	}
	if SameDeviceFuncs[q] {
		for _, a := range PositionalArgs(e) {
			if m.cpuValue(a, scope, depth-1) {
				return true
			}
		}
		return false
	}
	return KeepsDevice[f.Text(fn.ChildByFieldName("attribute"))] && m.cpuValue(fn.ChildByFieldName("object"), scope, depth-1)
}

// release lets go of the syntax tree once the summaries are made, for a
// file kept in the project only for what it exports.
func (m *Model) release() {
	for _, s := range m.fns {
		s.Node = nil
	}
	m.f, m.defs, m.flows, m.classes, m.askedSeen = nil, nil, nil, nil, nil
}

// isNonBlockingD2H: e is a non_blocking copy to the CPU, or a name in scope
// assigned one. guards are the functions called between the copy and the
// return: if one of them waits for the GPU, the copy is complete (known
// once every summary is in; see settle).
func (m *Model) isNonBlockingD2H(e *Node, scope *Node) (bool, []callRef) {
	f := m.f
	for e != nil && e.Type() == "parenthesized_expression" && e.NamedChildCount() == 1 {
		e = e.NamedChild(0)
	}
	if e == nil {
		return false, nil
	}
	var guards []callRef
	// A returned name is followed to the value assigned to it, and a copy
	// of another name (`out = host`) to that name's value.
	for hop := 0; hop < 3 && e.Type() == "identifier"; hop++ {
		var rhs *Node
		for _, id := range f.Names(f.Text(e), int(scope.StartByte()), int(e.StartByte())) {
			if p := id.Parent(); p != nil && p.Type() == "assignment" && p.ChildByFieldName("left") == id {
				rhs = p.ChildByFieldName("right")
			}
		}
		if rhs == nil {
			return false, nil
		}
		// A synchronize between the copy and the return completes it.
		if len(f.CallsAt("synchronize(", int(rhs.EndByte()), int(e.StartByte()))) > 0 {
			return false, nil
		}
		for _, c := range f.Calls(int(rhs.EndByte()), int(e.StartByte())) {
			if r, ok := m.callRef(c); ok {
				guards = append(guards, r)
			}
		}
		e = Unparen(rhs)
	}
	if e.Type() == "conditional_expression" {
		// t.to("cpu", non_blocking=True) if pinned else t.cpu(): one path
		// returns an unfinished copy.
		for _, c := range e.NamedChildren() {
			if IsNonBlockingD2H(f, c) {
				return true, guards
			}
		}
	}
	return IsNonBlockingD2H(f, e), guards
}

// callRef names what a call reaches, for summaries: a function of this
// file by name, or a project function through an import.
type callRef struct {
	name string
	ext  bool
}

func (m *Model) callRef(c *Node) (callRef, bool) {
	fn := c.ChildByFieldName("function")
	switch {
	case fn == nil:
	case m.viaImport(fn):
		return callRef{m.Qualified(fn), true}, true
	case fn.Type() == "identifier":
		return callRef{m.f.Text(fn), false}, true
	case fn.Type() == "attribute" && m.f.Text(fn.ChildByFieldName("object")) == "self":
		return callRef{m.f.Text(fn.ChildByFieldName("attribute")), false}, true
	}
	return callRef{}, false
}

// IsNonBlockingD2H: call is `x.cpu(non_blocking=True)` or
// `x.to("cpu", non_blocking=True)`.
func IsNonBlockingD2H(f *File, call *Node) bool {
	if call.Type() != "call" {
		return false
	}
	kw := f.Keyword(call, "non_blocking")
	if !f.IsTrue(kw) {
		return false
	}
	switch LastName(f.Callee(call)) {
	case "cpu":
		return true
	case "to":
		return ToCPU(f, call)
	}
	return false
}

// ToCPU: a .to() call's target is the CPU: "cpu" spelled in its
// arguments, or a device name every assignment of which in the file binds
// the CPU (cpu = torch.device("cpu"); x.to(cpu)).
func ToCPU(f *File, call *Node) bool {
	a := f.Compact(call.ChildByFieldName("arguments"))
	if strings.Contains(a, `"cpu"`) || strings.Contains(a, `'cpu'`) {
		return true
	}
	dev := f.Keyword(call, "device")
	// x.to(**opts) with opts = dict(device="cpu", ...).
	if t := f.Compact(dev); t == `"cpu"` || t == `'cpu'` {
		return true
	}
	if args := PositionalArgs(call); dev == nil && len(args) > 0 {
		dev = args[0]
	}
	if dev = Unparen(dev); dev == nil || dev.Type() != "identifier" {
		return false
	}
	if fn := Ancestor(call, "function_definition"); fn != nil && cpuDefault(f, fn, f.Text(dev)) {
		return true
	}
	// name is assigned in the file, and every assignment binds the CPU
	// device.
	return f.boundTo("cpu", f.Text(dev), func(v *Node) bool {
		t := f.Compact(v)
		return t == `"cpu"` || t == `'cpu'` || strings.HasSuffix(t, `device("cpu")`) || strings.HasSuffix(t, `device('cpu')`)
	})
}

// cpuDefault: name is a parameter of fn that defaults to the CPU
// (`def add(self, value, device="cpu")`) and fn does not rebind it: the
// copy goes to the host unless a caller says otherwise.
func cpuDefault(f *File, fn *Node, name string) bool {
	ps := fn.ChildByFieldName("parameters")
	body := fn.ChildByFieldName("body")
	if ps == nil || body == nil {
		return false
	}
	found := false
	for _, p := range ps.NamedChildren() {
		if (p.Type() == "default_parameter" || p.Type() == "typed_default_parameter") && f.Text(p.ChildByFieldName("name")) == name {
			t := f.Compact(p.ChildByFieldName("value"))
			found = t == `"cpu"` || t == `'cpu'`
		}
	}
	if !found {
		return false
	}
	for _, id := range f.Names(name, int(body.StartByte()), int(body.EndByte())) {
		if p := id.Parent(); p != nil && (p.Type() == "assignment" || p.Type() == "augmented_assignment") && same(p.ChildByFieldName("left"), id) {
			return false
		}
	}
	return true
}

// boundTo is boundOnlyTo(f, name, ok), remembered per file under the
// question's name: ToCPU and IsTrue ask it once per call, and each answer
// reads every assignment of the name in the file, which may hold
// thousands of x.to(device, non_blocking=flag) calls.
func (f *File) boundTo(question, name string, ok func(v *Node) bool) bool {
	k := question + "\x00" + name
	if v, seen := f.bound[k]; seen {
		return v
	}
	v := boundOnlyTo(f, name, ok)
	if f.bound == nil {
		f.bound = map[string]bool{}
	}
	f.bound[k] = v
	return v
}

// boundOnlyTo: name is assigned in the file, and every value assigned to
// it satisfies ok.
func boundOnlyTo(f *File, name string, ok func(v *Node) bool) bool {
	bound := 0
	for _, id := range f.Names(name, 0, len(f.Src)) {
		p := id.Parent()
		if p == nil {
			continue
		}
		switch p.Type() {
		case "pattern_list", "tuple_pattern", "list_pattern", "parameters", "default_parameter", "typed_parameter", "typed_default_parameter":
			// bound to something else somewhere: unpacked or a parameter.
			return false
		case "augmented_assignment", "for_statement":
			if same(p.ChildByFieldName("left"), id) {
				return false
			}
		}
		if p.Type() != "assignment" || !same(p.ChildByFieldName("left"), id) {
			continue
		}
		if v := Unparen(p.ChildByFieldName("right")); v == nil || !ok(v) {
			return false
		}
		bound++
	}
	return bound > 0
}

// Qualified is the dotted name an expression stands for, with its first
// part resolved through the file's imports and aliases: with `from
// torch.cuda import amp`, `amp.autocast` is `torch.cuda.amp.autocast`.
// Anything that is not a dotted name comes back as its compact text.
func (m *Model) Qualified(n *Node) string {
	if n == nil {
		return ""
	}
	switch n.Type() {
	case "identifier":
		name := m.f.Text(n)
		if q, ok := m.aliases[name]; ok {
			return q
		}
		return name
	case "attribute":
		obj := n.ChildByFieldName("object")
		if obj != nil && (obj.Type() == "identifier" || obj.Type() == "attribute") {
			return m.Qualified(obj) + "." + m.f.Text(n.ChildByFieldName("attribute"))
		}
	}
	return m.f.Compact(n)
}

// QualifiedCallee is the qualified name of a call's function.
func (m *Model) QualifiedCallee(call *Node) string {
	if call == nil || call.Type() != "call" {
		return ""
	}
	return m.Qualified(call.ChildByFieldName("function"))
}

// Alias is the qualified name a bare name was imported or aliased as.
func (m *Model) Alias(name string) (string, bool) {
	q, ok := m.aliases[name]
	return q, ok
}

// LocalNames lists the bare names the file imported or aliased as one of
// qualified (`from torch import sigmoid as gate` gives gate for
// torch.sigmoid), sorted so that findings come in a stable order.
func (m *Model) LocalNames(qualified ...string) []string {
	var out []string
	for local, q := range m.aliases {
		for _, want := range qualified {
			if q == want && local != want {
				out = append(out, local)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// Summary is the summary of the function a call reaches, when it is a
// plain name or a method on self defined in this file.
func (m *Model) Summary(call *Node) *FuncSummary {
	fn := call.ChildByFieldName("function")
	if fn == nil {
		return nil
	}
	s := m.summary(fn)
	m.record(s, fn)
	return s
}

// PropertyRead is the summary of the method an attribute of self reads
// when the class defines it as a property (`self.host` with `@property
// def host(self)`, or functools.cached_property): the read runs it as a
// call would. Nil for anything else, an assignment to it included.
func (m *Model) PropertyRead(attr *Node) *FuncSummary {
	if attr == nil || attr.Type() != "attribute" || m.f.Text(attr.ChildByFieldName("object")) != "self" {
		return nil
	}
	p := attr.Parent()
	if p == nil || p.Type() == "call" && same(p.ChildByFieldName("function"), attr) ||
		(p.Type() == "assignment" || p.Type() == "augmented_assignment") && attr.FieldName() == "left" {
		return nil
	}
	s := m.funcs()[m.f.Text(attr.ChildByFieldName("attribute"))]
	// The property of the class the read is in (two classes may share a
	// name for a property of one and a plain attribute of the other).
	if cls := Ancestor(attr, "class_definition"); s == nil || !s.Property || cls == nil || cls.start != s.classAt {
		return nil
	}
	m.record(s, attr)
	return s
}

// PropertyReads lists the reads of self's properties in [start, end).
func (m *Model) PropertyReads(start, end int) []*Node {
	var out []*Node
	for name, s := range m.funcs() {
		if !s.Property {
			continue
		}
		for _, off := range m.f.Find("self."+name, start, end) {
			if n := m.f.NodeAt(off, off+len("self."+name)); n != nil && m.PropertyRead(n) != nil {
				out = append(out, n)
			}
		}
	}
	sortByStart(out)
	return out
}

// isProperty: a function definition decorated with @property or
// @functools.cached_property.
func isProperty(f *File, d *Node) bool {
	dd := d.Parent()
	if dd == nil || dd.Type() != "decorated_definition" {
		return false
	}
	for _, dec := range dd.NamedChildren() {
		if dec.Type() != "decorator" {
			continue
		}
		switch strings.TrimPrefix(f.Compact(dec), "@") {
		case "property", "cached_property", "functools.cached_property":
			return true
		}
	}
	return false
}

// record notes, in the first phase, the answer a rule got for the callee
// fn, for the project to check once it is linked.
func (m *Model) record(s *FuncSummary, fn *Node) {
	if m.firstPhase {
		a := asked{local: s, flags: s.flags()}
		if m.viaImport(fn) {
			a.imported = m.Qualified(fn)
		}
		// Many calls ask the same question; the project compares each
		// distinct answer once.
		if !m.askedSeen[a] {
			if m.askedSeen == nil {
				m.askedSeen = map[asked]bool{}
			}
			m.askedSeen[a] = true
			m.asked = append(m.asked, a)
		}
	}
}

func (m *Model) summary(fn *Node) *FuncSummary {
	switch fn.Type() {
	case "identifier":
		if s := m.funcs()[m.f.Text(fn)]; s != nil {
			return s
		}
		return m.importedSummary(fn)
	case "attribute":
		name := m.f.Text(fn.ChildByFieldName("attribute"))
		if m.f.Text(fn.ChildByFieldName("object")) == "self" {
			return m.funcs()[name]
		}
		// u.to_host(x) with `import pkg.utils as u`.
		if s := m.importedSummary(fn); s != nil {
			return s
		}
		// obj.name(): a method this file defines under a name not shared
		// with tensors, modules or optimisers.
		if s := m.funcs()[name]; s != nil && s.Method && !commonMethods[name] && !strings.HasPrefix(name, "__") {
			return s
		}
	}
	return nil
}

// asked is one summary question a rule asked in the first phase: the
// answer it got (the local summary, or none) and, for a call through an
// import, the qualified name that may reach a project function.
type asked struct {
	local    *FuncSummary
	imported string
	flags    uint8
}

// flags packs what rules read of a summary; no summary reads as none set.
func (s *FuncSummary) flags() uint8 {
	if s == nil {
		return 0
	}
	var b uint8
	for i, on := range []bool{s.Syncs, s.RunsCUDA, s.ReturnsNonBlockingD2H, s.ReturnsCPUTensor, s.Method, s.NonBlockingD2HElems != 0, s.Generator} {
		if on {
			b |= 1 << i
		}
	}
	return b
}

// CallsImported reports whether a call's callee was imported (so a
// summary of it, if any, is another module's).
func (m *Model) CallsImported(call *Node) bool {
	return m.viaImport(call.ChildByFieldName("function"))
}

// CallSyncs reports whether a call waits for the GPU: a synchronising
// method (.item(), .synchronize(), ...), a name bound to one, or a function
// of this file whose summary synchronises.
func (m *Model) CallSyncs(call *Node) bool {
	fn := call.ChildByFieldName("function")
	if fn == nil {
		return false
	}
	if s := m.Summary(call); s != nil {
		return s.Syncs
	}
	if fn.Type() == "identifier" {
		return m.syncNames[m.f.Text(fn)]
	}
	return fn.Type() == "attribute" && SyncCalls[m.f.Text(fn.ChildByFieldName("attribute"))]
}

// Calls lists the call nodes inside [start, end) in source order.
func (f *File) Calls(start, end int) []*Node {
	t := f.Tree
	var out []*Node
	i := sort.Search(len(t.nodes), func(i int) bool { return int(t.nodes[i].start) >= start })
	for k := 0; i < len(t.nodes) && int(t.nodes[i].start) < end; i, k = i+1, k+1 {
		if k&0x3fff == 0 && f.cancelled() {
			return nil
		}
		n := &t.nodes[i]
		if int(n.start) >= start && int(n.end) <= end && n.Type() == "call" {
			out = append(out, n)
		}
	}
	return out
}

// IterTargets are the places a loop over call binds to what it iterates
// (`for host in batches(...)`, also a comprehension's for clause): the
// loop target, or with elem >= 0 the elem-th place of an unpacking target
// (`for name, w in pairs(...)`); none for another target.
func (m *Model) IterTargets(call *Node, elem int) []*Node {
	c := call
	for p := c.Parent(); p != nil && p.Type() == "parenthesized_expression"; p = c.Parent() {
		c = p
	}
	clause := c.Parent()
	if clause == nil || clause.Type() != "for_statement" && clause.Type() != "for_in_clause" || !same(clause.ChildByFieldName("right"), c) {
		return nil
	}
	t := Unparen(clause.ChildByFieldName("left"))
	if t == nil {
		return nil
	}
	if elem >= 0 {
		if t.Type() != "pattern_list" && t.Type() != "tuple_pattern" && t.Type() != "list_pattern" {
			return nil
		}
		els := t.NamedChildren()
		if elem >= len(els) {
			return nil
		}
		for _, e := range els[:elem+1] {
			if e.Type() == "list_splat_pattern" {
				return nil
			}
		}
		t = Unparen(els[elem])
	}
	if !IsPlace(t) {
		return nil
	}
	return []*Node{t}
}
