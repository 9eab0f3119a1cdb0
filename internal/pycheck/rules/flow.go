// Package rules holds cudadoctor's lint rules, one file per rule, and the
// explicit registry that lists them.
package rules

import (
	"sort"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
)

// The light data flow the rules share: which name an expression is bound
// to, where that name is used next within the same function, where it is
// rebound, and where the host synchronises with the GPU.

// assignedName returns the identifier an expression is assigned to
// (`x = expr`, through parentheses), or nil.
func assignedName(n *pycheck.Node) *pycheck.Node {
	cur := n
	for p := cur.Parent(); p != nil && p.Type() == "parenthesized_expression"; p = cur.Parent() {
		cur = p
	}
	p := cur.Parent()
	if p == nil || p.Type() != "assignment" {
		return nil
	}
	if r := p.ChildByFieldName("right"); r == nil || r.StartByte() != cur.StartByte() || r.EndByte() != cur.EndByte() {
		return nil
	}
	if l := p.ChildByFieldName("left"); l != nil && l.Type() == "identifier" {
		return l
	}
	return nil
}

// isRebinding reports whether identifier id is the target of a plain
// assignment (`id = ...`), which ends the life of the previous value.
func isRebinding(id *pycheck.Node) bool {
	p := id.Parent()
	if p == nil {
		return false
	}
	switch p.Type() {
	case "assignment":
		l := p.ChildByFieldName("left")
		return l != nil && l.StartByte() == id.StartByte() && l.EndByte() == id.EndByte()
	case "for_statement":
		l := p.ChildByFieldName("left")
		return l != nil && l.StartByte() == id.StartByte()
	}
	return false
}

// usesAfter lists, in source order, the uses of the place def binds that
// the value bound there reaches along the function's control flow before
// the place is bound again (uses in nested functions are not among them:
// they run whenever they are called).
func usesAfter(f *pycheck.File, def *pycheck.Node) []*pycheck.Node {
	uses := f.Flow(f.Scope(def)).UsesAfter(def, def, nil, false)
	sortNodes(uses)
	return uses
}

// methodCallOn returns the method name and call node when id is the object
// of a method call (`id.name(...)`).
func methodCallOn(f *pycheck.File, id *pycheck.Node) (string, *pycheck.Node) {
	p := id.Parent()
	if p == nil || p.Type() != "attribute" || p.ChildByFieldName("object").StartByte() != id.StartByte() {
		return "", nil
	}
	if id.EndByte() != p.ChildByFieldName("object").EndByte() {
		return "", nil
	}
	g := p.Parent()
	if g == nil || g.Type() != "call" || g.ChildByFieldName("function").StartByte() != p.StartByte() {
		return "", nil
	}
	return f.Text(p.ChildByFieldName("attribute")), g
}

// mutation classifies a use of id that writes its storage in place:
// `id.fill_(...)`, `id[...] = v`, `id += v`. It returns the node to report
// and a description, or nil.
func mutation(f *pycheck.File, id *pycheck.Node) (*pycheck.Node, string) {
	if m, call := methodCallOn(f, id); call != nil && isInplaceMethod(m) {
		return call, m + "()"
	}
	p := id.Parent()
	if p == nil {
		return nil, ""
	}
	switch p.Type() {
	case "augmented_assignment":
		if l := p.ChildByFieldName("left"); l != nil && l.StartByte() == id.StartByte() && l.EndByte() == id.EndByte() {
			return p, f.Text(p.ChildByFieldName("operator"))
		}
	case "subscript":
		if v := p.ChildByFieldName("value"); v == nil || v.StartByte() != id.StartByte() || v.EndByte() != id.EndByte() {
			return nil, ""
		}
		g := p.Parent()
		if g != nil && (g.Type() == "assignment" || g.Type() == "augmented_assignment") {
			if l := g.ChildByFieldName("left"); l != nil && l.StartByte() == p.StartByte() {
				return g, "slice assignment"
			}
		}
		// id[i].fill_(v) writes a view of id's storage.
		if m, call := methodCallOn(f, p); call != nil && isInplaceMethod(m) {
			return call, "[...]." + m + "()"
		}
	}
	return nil, ""
}

// notInplace are trailing-underscore methods that do not write the data.
var notInplace = map[string]bool{"requires_grad_": true, "share_memory_": true, "retain_grad_": true, "record_stream_": true}

func isInplaceMethod(m string) bool {
	return strings.HasSuffix(m, "_") && !strings.HasSuffix(m, "__") && !strings.HasPrefix(m, "_") && !notInplace[m]
}

// enclosingLoop is the innermost for/while loop around n within scope.
func enclosingLoop(n, scope *pycheck.Node) *pycheck.Node {
	l := pycheck.Ancestor(n, "for_statement", "while_statement", "function_definition")
	if l == nil || l.Type() == "function_definition" || !pycheck.Within(l, scope) {
		return nil
	}
	return l
}

// stringValue is the content of a plain string literal, or "" with ok=false.
func stringValue(f *pycheck.File, n *pycheck.Node) (string, bool) {
	if n == nil || n.Type() != "string" {
		return "", false
	}
	t := f.Text(n)
	if strings.ContainsAny(t[:1], "fFbB") {
		return "", false
	}
	t = strings.TrimLeft(t, "rRuU")
	if len(t) < 2 {
		return "", false
	}
	q := t[:1]
	if strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, "'''") {
		q = t[:3]
	}
	if !strings.HasSuffix(t, q) || len(t) < 2*len(q) {
		return "", false
	}
	return t[len(q) : len(t)-len(q)], true
}

// nonBlockingCopy reports whether the keyword at off is `non_blocking=True`
// and returns its call.
func nonBlockingCall(f *pycheck.File, off int) *pycheck.Node {
	n := f.NodeAt(off, off+len("non_blocking"))
	if n == nil || n.Type() != "identifier" {
		return nil
	}
	kw := n.Parent()
	if kw == nil || kw.Type() != "keyword_argument" || !f.IsTrue(kw.ChildByFieldName("value")) {
		return nil
	}
	args := kw.Parent()
	if args == nil || args.Type() != "argument_list" {
		return nil
	}
	call := args.Parent()
	if call == nil || call.Type() != "call" || call.ChildByFieldName("function").Type() != "attribute" {
		return nil
	}
	return call
}

// copyDirection is "d2h", "h2d" or "" for a `.to/.cuda/.cpu` call.
func copyDirection(f *pycheck.File, call *pycheck.Node) string {
	switch pycheck.LastName(f.Callee(call)) {
	case "cpu":
		return "d2h"
	case "cuda":
		return "h2d"
	case "to":
		args := f.Compact(call.ChildByFieldName("arguments"))
		if strings.Contains(args, `"cpu"`) || strings.Contains(args, `'cpu'`) {
			return "d2h"
		}
		return "h2d"
	}
	return ""
}

// receiver is the object a method is called on.
func receiver(call *pycheck.Node) *pycheck.Node {
	fn := call.ChildByFieldName("function")
	if fn == nil || fn.Type() != "attribute" {
		return nil
	}
	return fn.ChildByFieldName("object")
}

// upParen climbs out of parentheses around n.
func upParen(n *pycheck.Node) *pycheck.Node {
	for p := n.Parent(); p != nil && p.Type() == "parenthesized_expression"; p = n.Parent() {
		n = p
	}
	return n
}

// reachingValue is the value a name holds at use: the right side of the
// assignment of it that reaches use along the control flow (of several,
// the last in the source), or nil. A copy of another name (`x = y`, `x, z
// = y, w`) is followed to the value that name holds there.
func reachingValue(f *pycheck.File, use *pycheck.Node) *pycheck.Node {
	if use == nil || use.Type() != "identifier" {
		return nil
	}
	var val *pycheck.Node
	for range 3 {
		var rhs *pycheck.Node
		for _, d := range f.Flow(f.Scope(use)).ReachingDefs(use, use) {
			if v := defValue(d); v != nil && (rhs == nil || v.StartByte() > rhs.StartByte()) {
				rhs = v
			}
		}
		if rhs == nil {
			return val
		}
		val = rhs
		if v := pycheck.Unparen(rhs); v.Type() != "identifier" || f.Text(v) == f.Text(use) {
			return val
		}
		use = pycheck.Unparen(rhs)
	}
	return val
}

func same(a, b *pycheck.Node) bool {
	return a != nil && b != nil && a.StartByte() == b.StartByte() && a.EndByte() == b.EndByte() && a.Type() == b.Type()
}

func sortNodes(ns []*pycheck.Node) {
	sort.Slice(ns, func(i, j int) bool { return ns[i].StartByte() < ns[j].StartByte() })
}

// assignedPlace is the place an expression is assigned to (`p = expr`,
// or positionally `p, q = expr, other`), or nil.
func assignedPlace(f *pycheck.File, n *pycheck.Node) *pycheck.Node {
	return pycheck.CopyTarget(n)
}

// placeRebound reports whether n is the target of a plain assignment.
func placeRebound(n *pycheck.Node) bool {
	if n.Type() == "identifier" {
		return isRebinding(n)
	}
	p := n.Parent()
	return p != nil && p.Type() == "assignment" && same(p.ChildByFieldName("left"), n)
}

// placeOccurrences lists the nodes spelling place in [start, end) within scope.
func placeOccurrences(f *pycheck.File, scope, place *pycheck.Node, start, end int) []*pycheck.Node {
	if place.Type() == "identifier" {
		var out []*pycheck.Node
		for _, id := range f.Names(f.Text(place), start, end) {
			if same(f.Scope(id), scope) {
				out = append(out, id)
			}
		}
		return out
	}
	text := f.Text(place)
	var out []*pycheck.Node
	for _, off := range f.Find(text, start, end) {
		n := f.NodeAt(off, off+len(text))
		if n == nil || n.Type() != place.Type() || int(n.StartByte()) != off || int(n.EndByte()) != off+len(text) {
			continue
		}
		if scope != nil && !same(f.Scope(n), scope) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// hostSyncs lists the calls of a graph's scope that make the host wait
// for the GPU whenever their statement runs: synchronize() (device, stream
// or event), a function of this file or the project that synchronises, or
// a name bound to a synchronising method. They are the blockers of "read
// before synchronising" questions.
func hostSyncs(f *pycheck.File, fl *pycheck.Flow) []*pycheck.Node {
	m := f.Model()
	var out []*pycheck.Node
	for _, c := range fl.Calls() {
		if f.IsTrue(f.Keyword(c, "non_blocking")) || !fl.Certain(c) {
			continue
		}
		syncs := pycheck.LastName(f.Callee(c)) == "synchronize"
		if !syncs {
			if s := m.Summary(c); s != nil && s.Syncs {
				syncs = true
			} else if fn := c.ChildByFieldName("function"); fn != nil && fn.Type() == "identifier" {
				syncs = m.CallSyncs(c)
			}
		}
		if syncs {
			out = append(out, c)
		}
	}
	return out
}

// defValue is the value a definition binds (see pycheck.BoundValue).
func defValue(def *pycheck.Node) *pycheck.Node { return pycheck.BoundValue(def) }
