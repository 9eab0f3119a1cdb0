package pycheck

import (
	"bytes"
	"context"
	"sort"
	"strings"
	"sync"
)

// File is one parsed Python source. Rules find their candidates by scanning
// Src for anchor text (fast, in Go) and then ask the tree about those few
// places, instead of visiting every node through cgo.
type File struct {
	Path string
	Src  []byte
	Root *Node
	Tree *Tree

	lineStarts []int // see lines
	// bound memoizes boundOnlyTo's answers (see boundTo).
	bound map[string]bool
	// mappings remembers mappingBinding's answer per scope and name: a
	// file may unpack one **kwargs into thousands of calls.
	mappings map[mappingKey]*Node
	names    map[string][]int32 // see nameIndex
	model    *Model
	project  *Project
	// ctx is the run's context: the searches rules make over the whole
	// file look at it now and then and come back empty once it is
	// cancelled, so Ctrl-C stops a very large file within one rule.
	ctx context.Context
}

// cancelled reports whether the run was cancelled.
func (f *File) cancelled() bool { return f.ctx != nil && f.ctx.Err() != nil }

func newFile(path string, src []byte, tree *Tree) *File {
	f := &File{Path: path, Src: src, Tree: tree}
	if tree != nil {
		f.Root = tree.Root()
	}
	return f
}

// lines returns the offsets at which lines start, found on first use:
// most files are never asked for a line (no finding, no suppression).
func (f *File) lines() []int {
	if f.lineStarts != nil {
		return f.lineStarts
	}
	src := f.Src
	ls := make([]int, 1, 1+bytes.Count(src, []byte{'\n'}))
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		ls = append(ls, i)
	}
	f.lineStarts = ls
	return ls
}

// LineCol returns the 1-based line and (byte) column of a byte offset.
func (f *File) LineCol(off int) (int, int) {
	ls := f.lines()
	row := sort.Search(len(ls), func(i int) bool { return ls[i] > off }) - 1
	if row < 0 {
		row = 0
	}
	return row + 1, off - ls[row] + 1
}

// Line returns the text of a 1-based line without its newline.
func (f *File) Line(line int) string {
	ls := f.lines()
	if line < 1 || line > len(ls) {
		return ""
	}
	start := ls[line-1]
	end := len(f.Src)
	if line < len(ls) {
		end = ls[line] - 1
	}
	return strings.TrimRight(string(f.Src[start:end]), "\r")
}

// Text is the source of a node.
func (f *File) Text(n *Node) string {
	if n == nil {
		return ""
	}
	return string(f.Src[n.StartByte():n.EndByte()])
}

// NodeAt is the smallest named node covering [start, end).
func (f *File) NodeAt(start, end int) *Node {
	return f.Tree.descendantAt(uint32(start), uint32(end), true)
}

// Find returns the offsets of every occurrence of s in [start, end).
func (f *File) Find(s string, start, end int) []int {
	var out []int
	if end > len(f.Src) {
		end = len(f.Src)
	}
	if s == "" || f.cancelled() {
		return nil // a MISSING node's name: nothing to look for
	}
	needle := []byte(s)
	for k := 0; start < end; k++ {
		if k&1023 == 1023 && f.cancelled() {
			return nil
		}
		i := bytes.Index(f.Src[start:end], needle)
		if i < 0 {
			break
		}
		out = append(out, start+i)
		start += i + len(needle)
	}
	return out
}

// IsIdentByte: b can be part of a Python identifier (any non-ASCII byte
// may be).
func IsIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// Names returns the identifier nodes spelling name in [start, end): code
// only, never the same letters inside a string, a comment or a longer name.
func (f *File) Names(name string, start, end int) []*Node {
	if f.Tree == nil || f.cancelled() {
		return nil
	}
	all := f.nameIndex()[name]
	// The index is in source order: the range is a slice of it.
	i := sort.Search(len(all), func(i int) bool { return int(f.Tree.nodes[all[i]].start) >= start })
	var out []*Node
	for _, k := range all[i:] {
		n := &f.Tree.nodes[k]
		if int(n.end) > end {
			break
		}
		out = append(out, n)
	}
	return out
}

// nameIndex lists every identifier node by its text, in source order,
// built on first use. Rules ask for the names of a scope once per call
// site; scanning the source for each (y1 also finds y10, y100, ...) made
// a function of n distinct names cost n times its length.
func (f *File) nameIndex() map[string][]int32 {
	if f.names != nil {
		return f.names
	}
	f.names = map[string][]int32{}
	t := f.Tree
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.nkids == 0 && n.Type() == "identifier" && int(n.end) <= len(f.Src) {
			k := string(f.Src[n.start:n.end])
			f.names[k] = append(f.names[k], int32(i))
		}
	}
	return f.names
}

// CallsAt returns the call nodes whose callee ends with the text at each
// occurrence of needle (e.g. "synchronize(" finds x.synchronize() calls), in
// code only.
func (f *File) CallsAt(needle string, start, end int) []*Node {
	var out []*Node
	for _, off := range f.Find(needle, start, end) {
		n := f.NodeAt(off, off+len(needle)-1)
		for n != nil && n.Type() != "call" {
			t := n.Type()
			if t != "identifier" && t != "attribute" {
				n = nil
				break
			}
			n = n.Parent()
		}
		if n != nil && int(n.ChildByFieldName("function").EndByte()) == off+len(needle)-1 {
			out = append(out, n)
		}
	}
	return out
}

// Ancestor is the nearest proper ancestor of n of one of the given types.
func Ancestor(n *Node, types ...string) *Node {
	for p := n.Parent(); p != nil; p = p.Parent() {
		t := p.Type()
		for _, want := range types {
			if t == want {
				return p
			}
		}
	}
	return nil
}

// Scope is the function or lambda (or, at top level, the module) whose body
// holds n.
func (f *File) Scope(n *Node) *Node {
	if s := n.scope; s >= 0 {
		return n.t.node(s)
	}
	return f.Root
}

// Loop is the innermost for/while loop around n in its function, or nil.
func (f *File) Loop(n *Node) *Node { return n.t.node(n.loop) }

// Within reports whether n lies inside outer.
func Within(n, outer *Node) bool {
	return n.StartByte() >= outer.StartByte() && n.EndByte() <= outer.EndByte()
}

// Statement is the simple or compound statement that contains n directly in a
// block (or at module level).
func Statement(n *Node) *Node { return n.t.node(n.stmt) }

// Callee is the dotted text of a call's function ("torch.cuda.synchronize").
func (f *File) Callee(call *Node) string {
	if call == nil || call.Type() != "call" {
		return ""
	}
	return f.Text(call.ChildByFieldName("function"))
}

// LastName is the part after the last dot of a dotted name.
func LastName(dotted string) string {
	if i := strings.LastIndexByte(dotted, '.'); i >= 0 {
		return dotted[i+1:]
	}
	return dotted
}

// Keyword returns the value node of keyword argument name in a call.
func (f *File) Keyword(call *Node, name string) *Node {
	args := call.ChildByFieldName("arguments")
	if args == nil {
		return nil
	}
	splat := false
	for i := 0; i < int(args.NamedChildCount()); i++ {
		a := args.NamedChild(i)
		if a.Type() == "keyword_argument" && f.Text(a.ChildByFieldName("name")) == name {
			return a.ChildByFieldName("value")
		}
		splat = splat || a.Type() == "dictionary_splat"
	}
	if !splat {
		return nil
	}
	// x.to(**opts) with opts = dict(device="cpu", non_blocking=True) or
	// {"device": "cpu", ...}: the key the mapping spells.
	for i := 0; i < int(args.NamedChildCount()); i++ {
		if a := args.NamedChild(i); a.Type() == "dictionary_splat" {
			if keys, known := f.SplatKeywords(a); known && keys[name] != nil {
				return keys[name]
			}
		}
	}
	return nil
}

// MayPassKeyword reports whether a call may pass keyword argument name:
// it names it, or unpacks a mapping into the keywords (`**factory_kwargs`)
// that may hold it: one whose keys are not known, or a mapping spelt in
// the file that has the key (`opts = dict(dtype=x.dtype)` has no device).
func (f *File) MayPassKeyword(call *Node, name string) bool {
	if f.Keyword(call, name) != nil {
		return true
	}
	args := call.ChildByFieldName("arguments")
	if args == nil {
		return false
	}
	for i := 0; i < int(args.NamedChildCount()); i++ {
		if a := args.NamedChild(i); a.Type() == "dictionary_splat" {
			if _, known := f.SplatKeywords(a); !known {
				return true
			}
		}
	}
	return false
}

// SplatKeywords are the keywords a `**mapping` argument passes, by name
// (to the value node), when the mapping is spelt out: a dict display
// (`**{"device": "cpu"}`, string keys only) or `dict(k=v, ...)`, inline
// or bound to a name whose one binding in its function (else in the
// module) is such a mapping made before the call and never added to
// (`opts["device"] = dev`, `opts.update(...)`). known is false for any
// other mapping, whose keys cannot be read.
func (f *File) SplatKeywords(splat *Node) (keys map[string]*Node, known bool) {
	v := Unparen(splat.NamedChild(0))
	if v != nil && v.Type() == "identifier" {
		v = f.mappingBinding(v)
	}
	if v == nil {
		return nil, false
	}
	keys = map[string]*Node{}
	switch v.Type() {
	case "dictionary":
		for _, pr := range v.NamedChildren() {
			if pr.Type() == "comment" {
				continue
			}
			k := pr.ChildByFieldName("key")
			if pr.Type() != "pair" || k == nil || k.Type() != "string" {
				return nil, false
			}
			t := f.Text(k)
			if len(t) < 2 || strings.ContainsAny(t[:1], "fFbBrRuU") {
				return nil, false
			}
			keys[t[1:len(t)-1]] = pr.ChildByFieldName("value")
		}
		return keys, true
	case "call":
		if f.Text(v.ChildByFieldName("function")) != "dict" {
			return nil, false
		}
		args := v.ChildByFieldName("arguments")
		if args == nil || args.Type() != "argument_list" {
			return nil, false
		}
		for _, a := range args.NamedChildren() {
			switch a.Type() {
			case "comment":
			case "keyword_argument":
				keys[f.Text(a.ChildByFieldName("name"))] = a.ChildByFieldName("value")
			default:
				return nil, false
			}
		}
		return keys, true
	}
	return nil, false
}

// mappingBinding is the value a name unpacked with ** is bound to: its
// only binding in the enclosing function before use (or, with none there,
// its only binding in the file at module level), when nothing writes into
// it (a subscript assignment, update(), setdefault()); else nil.
func (f *File) mappingBinding(use *Node) *Node {
	scope := f.Scope(use)
	k := mappingKey{int32(scope.Index()), f.Text(use)}
	v, seen := f.mappings[k]
	if !seen {
		v = f.mappingIn(scope, k.name)
		if f.mappings == nil {
			f.mappings = map[mappingKey]*Node{}
		}
		f.mappings[k] = v
	}
	// Bound in the use's own function only after the use (a loop's next
	// pass may see it): not known.
	if v != nil && v.StartByte() > use.StartByte() && same(f.Scope(v), scope) {
		return nil
	}
	return v
}

type mappingKey struct {
	scope int32
	name  string
}

func (f *File) mappingIn(scope *Node, name string) *Node {
	var val *Node
	for round := 0; round < 2; round++ {
		count := 0
		for _, id := range f.Names(name, int(scope.StartByte()), int(scope.EndByte())) {
			if !same(f.Scope(id), scope) {
				continue
			}
			p := id.Parent()
			if p == nil {
				continue
			}
			switch {
			case p.Type() == "assignment" && same(p.ChildByFieldName("left"), id):
				count++
				val = Unparen(p.ChildByFieldName("right"))
			case p.Type() == "subscript" && same(p.ChildByFieldName("value"), id) && assignedTo(p):
				return nil
			case p.Type() == "attribute" && same(p.ChildByFieldName("object"), id):
				switch f.Text(p.ChildByFieldName("attribute")) {
				case "update", "setdefault", "pop", "__setitem__":
					return nil
				}
			case IsDef(id) || strings.HasSuffix(p.Type(), "parameter") || p.Type() == "parameters" || p.Type() == "global_statement" || p.Type() == "nonlocal_statement":
				// a parameter, a loop target, an unpacked name: unknown.
				return nil
			}
		}
		if count > 1 {
			return nil
		}
		if count == 1 || scope.Type() == "module" {
			return val
		}
		scope = f.Root
	}
	return nil
}

// PositionalArgs returns a call's positional arguments.
func PositionalArgs(call *Node) []*Node {
	args := call.ChildByFieldName("arguments")
	if args != nil && args.Type() == "generator_expression" {
		// f(x for x in xs): the generator is the one argument.
		return []*Node{args}
	}
	if args == nil || args.Type() != "argument_list" {
		return nil
	}
	var out []*Node
	for i := 0; i < int(args.NamedChildCount()); i++ {
		a := args.NamedChild(i)
		switch a.Type() {
		case "keyword_argument", "list_splat", "dictionary_splat", "comment":
			continue
		}
		out = append(out, a)
	}
	return out
}

// Context is what a region of code runs under.
type Context uint8

const (
	CtxAutocast     Context = 1 << iota // inside an enabled torch.autocast region
	CtxNoGrad                           // gradients off: no_grad, inference_mode
	CtxGraphCapture                     // inside torch.cuda.graph capture
	CtxSideStream                       // inside a with ...stream(...) block: work queued on a side stream
)

// ContextOf reports the contexts enclosing n within its function: the with
// statements around it, then the function's decorators. A with outside the
// function does not count: the function may be called from anywhere.
func (f *File) ContextOf(n *Node) Context { return n.ctx }

// precompute fills, in one pre-order pass (parents come before children),
// what each node's rules would otherwise climb the tree to learn.
func (f *File) precompute() {
	t := f.Tree
	n := len(t.nodes)
	dp := depthPool.Get().(*[]int32)
	if cap(*dp) < n {
		*dp = make([]int32, n+n/4)
	}
	depth := (*dp)[:n]
	if n < largeTree {
		// A large file's scratch is left to the collector rather than
		// held for the rest of the run.
		defer depthPool.Put(dp)
	}
	for i := range t.nodes {
		if i&0xffff == 0xffff && f.cancelled() {
			return // the run stops; what is left is never read
		}
		nd := &t.nodes[i]
		p := nd.parent
		if p < 0 {
			nd.scope, nd.loop, nd.stmt, nd.ctx = -1, -1, int32(i), 0
			depth[i] = 0
			continue
		}
		depth[i] = depth[p] + 1
		if int(depth[i]) > t.MaxDepth {
			t.MaxDepth = int(depth[i])
		}
		pn := &t.nodes[p]
		pk := pn.kind()
		nd.scope, nd.loop, nd.ctx = pn.scope, pn.loop, pn.ctx
		if pk&(kindFunc|kindLambda) != 0 {
			nd.scope = p
		}
		switch {
		case pk&kindLoop != 0:
			nd.loop = p
		case pk&kindFunc != 0:
			nd.loop = -1
		}
		if pk&kindBlock != 0 {
			nd.stmt = int32(i)
		} else {
			nd.stmt = pn.stmt
		}
		switch {
		case pk&kindWith != 0:
			if nd.FieldName() == "body" {
				for _, item := range withItems(pn) {
					nd.ctx = f.applyWithItem(nd.ctx, pn, item)
				}
			}
		case pk&kindFunc != 0:
			nd.ctx = 0
			if dd := pn.Parent(); dd != nil && dd.kind()&kindDecorated != 0 {
				for _, d := range dd.NamedChildren() {
					if d.Type() == "decorator" {
						nd.ctx = applyContext(nd.ctx, f.Text(d))
					}
				}
			}
		case pk&kindClass != 0:
			nd.ctx = 0
		}
	}
}

var depthPool = sync.Pool{New: func() any { return new([]int32) }}

// applyContext lets a context manager or decorator decide its kind of
// context; applied outermost first, so the innermost decides.
func applyContext(ctx Context, text string) Context {
	c, on := classifyContext(text)
	if c == 0 {
		return ctx
	}
	ctx &^= c
	if on {
		ctx |= c
	}
	return ctx
}

// applyWithItem applies one item of a with statement. A context manager
// kept in a variable (`ctx = torch.autocast(...)` ... `with ctx:`) is
// judged by the value last bound to the name in the same function before
// the with; a choice between two managers (`torch.autocast(...) if amp
// else nullcontext()`) turns a context on where either may, but turns
// gradients off only where both do, since a region that may run with
// gradients must be checked as one that does.
func (f *File) applyWithItem(ctx Context, w, item *Node) Context {
	v := Unparen(item.ChildByFieldName("value"))
	if v == nil || v.Type() != "identifier" {
		return applyContext(ctx, f.Text(item))
	}
	rhs := f.boundBefore(v, w)
	if rhs == nil {
		return ctx
	}
	if rhs.Type() != "conditional_expression" || rhs.NamedChildCount() < 3 {
		return applyContext(ctx, f.Text(rhs))
	}
	a, onA := classifyContext(f.Text(rhs.NamedChild(0)))
	b, onB := classifyContext(f.Text(rhs.NamedChild(2)))
	switch {
	case a == CtxNoGrad || b == CtxNoGrad:
		if a == b && onA && onB {
			ctx |= CtxNoGrad
		}
		return ctx
	case a != 0 && onA:
		return ctx | a
	case b != 0 && onB:
		return ctx | b
	}
	return ctx
}

// boundBefore is the value last assigned to the name n (`n = value`) in
// n's function before the statement at, or nil.
func (f *File) boundBefore(n, at *Node) *Node {
	scope := n.t.node(n.scope)
	start := 0
	if scope != nil {
		start = int(scope.StartByte())
	}
	var val *Node
	for _, id := range f.Names(f.Text(n), start, int(at.StartByte())) {
		a := id.Parent()
		if a == nil || a.Type() != "assignment" || !same(a.ChildByFieldName("left"), id) || id.scope != n.scope {
			continue
		}
		val = Unparen(a.ChildByFieldName("right"))
	}
	return val
}

func withItems(w *Node) []*Node {
	var out []*Node
	for i := 0; i < int(w.NamedChildCount()); i++ {
		c := w.NamedChild(i)
		if c.Type() != "with_clause" {
			continue
		}
		for j := 0; j < int(c.NamedChildCount()); j++ {
			if it := c.NamedChild(j); it.Type() == "with_item" {
				out = append(out, it)
			}
		}
	}
	return out
}

// classifyContext recognises a context manager or decorator by its text.
func classifyContext(t string) (Context, bool) {
	compact := strings.Join(strings.Fields(t), "")
	switch {
	case strings.Contains(compact, "autocast("):
		return CtxAutocast, !strings.Contains(compact, "enabled=False")
	case strings.Contains(compact, "no_grad(") || strings.Contains(compact, "inference_mode("):
		return CtxNoGrad, !strings.Contains(compact, "inference_mode(False") && !strings.Contains(compact, "mode=False")
	case strings.Contains(compact, "enable_grad("):
		return CtxNoGrad, false
	case strings.Contains(compact, "set_grad_enabled(False"):
		return CtxNoGrad, true
	case strings.Contains(compact, "cuda.graph(") || strings.Contains(compact, "cuda.graphs.graph("):
		return CtxGraphCapture, true
	case strings.Contains(compact, "stream("):
		return CtxSideStream, true
	}
	return 0, false
}

// IsTrue reports whether a node is the literal True, or a name every
// assignment of which in the file binds True (a flag constant:
// ASYNC = True; x.to("cpu", non_blocking=ASYNC)). A name never assigned
// in the file, a parameter for one, may be anything and is not True.
func (f *File) IsTrue(n *Node) bool {
	n = Unparen(n)
	if n == nil {
		return false
	}
	if n.Type() == "true" {
		return true
	}
	if n.Type() != "identifier" {
		return false
	}
	return f.boundTo("true", f.Text(n), func(v *Node) bool { return v.Type() == "true" })
}

// compact strips all whitespace, for matching call text.
func compact(s string) string { return strings.Join(strings.Fields(s), "") }

// Compact strips all whitespace from a node's text. The usual text, ASCII,
// is copied once, without the fields compact splits it into; other text
// goes through compact, for its Unicode spaces.
func (f *File) Compact(n *Node) string {
	if n == nil {
		return ""
	}
	b := f.Src[n.StartByte():n.EndByte()]
	spaces := 0
	for _, c := range b {
		switch {
		case c >= 0x80:
			return compact(string(b))
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			spaces++
		}
	}
	if spaces == 0 {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) - spaces)
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' {
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
