package pylint

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
	f       *File
	aliases map[string]string // local name -> qualified name
	// syncNames are names bound to a bound method that waits for the GPU.
	syncNames map[string]bool
	// fns are the file's functions and methods by name; a name defined
	// twice keeps the summary that is true of either (a sync anywhere).
	// Built on first use: most files only need the imports.
	fns  map[string]*FuncSummary
	defs []*Node
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
	// Method: defined in a class body, so obj.name() may reach it.
	Method bool
	calls  []string
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
	m := &Model{f: f, aliases: map[string]string{}, syncNames: map[string]bool{}}
	t := f.Tree
	var defs, assigns []*Node
	for i := range t.nodes {
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
					m.aliases[f.Text(c)] = mod + "." + f.Compact(c)
				case "aliased_import":
					m.aliases[f.Text(c.ChildByFieldName("alias"))] = mod + "." + f.Compact(c.ChildByFieldName("name"))
				}
			}
		case "function_definition":
			defs = append(defs, n)
		case "assignment":
			assigns = append(assigns, n)
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

// funcs summarises the file's functions on first use.
func (m *Model) funcs() map[string]*FuncSummary {
	if m.fns != nil {
		return m.fns
	}
	m.fns = map[string]*FuncSummary{}
	f := m.f
	for _, d := range m.defs {
		s := &FuncSummary{Name: f.Text(d.ChildByFieldName("name")), Node: d}
		owner := Ancestor(d, "class_definition", "function_definition")
		s.Method = owner != nil && owner.Type() == "class_definition"
		m.summarise(s)
		if old := m.fns[s.Name]; old != nil {
			old.Syncs = old.Syncs || s.Syncs
			old.RunsCUDA = old.RunsCUDA || s.RunsCUDA
			old.ReturnsNonBlockingD2H = old.ReturnsNonBlockingD2H || s.ReturnsNonBlockingD2H
			old.Method = old.Method && s.Method
			old.calls = append(old.calls, s.calls...)
			continue
		}
		m.fns[s.Name] = s
	}
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
	return m.fns
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
			if callee == "cuda" || callee == "to" && strings.Contains(f.Text(n.ChildByFieldName("arguments")), "cuda") {
				s.RunsCUDA = true
			}
			if fn.Type() == "identifier" || fn.Type() == "attribute" && f.Text(fn.ChildByFieldName("object")) == "self" {
				s.calls = append(s.calls, callee)
			}
		case "return_statement":
			if r := n.NamedChild(0); r != nil && m.isNonBlockingD2H(r, d) {
				s.ReturnsNonBlockingD2H = true
			}
		}
	}
}

// isNonBlockingD2H: e is a non_blocking copy to the CPU, or a name in scope
// assigned one.
func (m *Model) isNonBlockingD2H(e *Node, scope *Node) bool {
	f := m.f
	for e != nil && e.Type() == "parenthesized_expression" && e.NamedChildCount() == 1 {
		e = e.NamedChild(0)
	}
	if e == nil {
		return false
	}
	if e.Type() == "identifier" {
		var rhs *Node
		for _, id := range f.Names(f.Text(e), int(scope.StartByte()), int(e.StartByte())) {
			if p := id.Parent(); p != nil && p.Type() == "assignment" && p.ChildByFieldName("left") == id {
				rhs = p.ChildByFieldName("right")
			}
		}
		if rhs == nil {
			return false
		}
		// A synchronize between the copy and the return completes it.
		if len(f.CallsAt("synchronize(", int(rhs.EndByte()), int(e.StartByte()))) > 0 {
			return false
		}
		e = rhs
	}
	return IsNonBlockingD2H(f, e)
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
		a := f.Compact(call.ChildByFieldName("arguments"))
		return strings.Contains(a, `"cpu"`) || strings.Contains(a, `'cpu'`)
	}
	return false
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

// Summary is the summary of the function a call reaches, when it is a
// plain name or a method on self defined in this file.
func (m *Model) Summary(call *Node) *FuncSummary {
	fn := call.ChildByFieldName("function")
	if fn == nil {
		return nil
	}
	switch fn.Type() {
	case "identifier":
		return m.funcs()[m.f.Text(fn)]
	case "attribute":
		name := m.f.Text(fn.ChildByFieldName("attribute"))
		if m.f.Text(fn.ChildByFieldName("object")) == "self" {
			return m.funcs()[name]
		}
		// obj.name(): a method this file defines under a name not shared
		// with tensors, modules or optimisers.
		if s := m.funcs()[name]; s != nil && s.Method && !commonMethods[name] && !strings.HasPrefix(name, "__") {
			return s
		}
	}
	return nil
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
	for ; i < len(t.nodes) && int(t.nodes[i].start) < end; i++ {
		n := &t.nodes[i]
		if int(n.start) >= start && int(n.end) <= end && n.Type() == "call" {
			out = append(out, n)
		}
	}
	return out
}
