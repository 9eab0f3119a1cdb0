// Package rules holds cudadoctor's lint rules, one file per rule, and the
// explicit registry that lists them.
package rules

import (
	"slices"
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
	for p := cur.Parent(); p != nil && (p.Type() == "parenthesized_expression" || conditionalBranch(p, cur)); p = cur.Parent() {
		cur = p
	}
	p := cur.Parent()
	// (h := x.half()): a walrus binds its value to the name.
	if p != nil && p.Type() == "named_expression" && same(p.ChildByFieldName("value"), cur) {
		return p.ChildByFieldName("name")
	}
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

// conditionalBranch: n is a value of the conditional expression p (`a if
// c else b`), not its condition: what p is bound to holds n on one path.
func conditionalBranch(p, n *pycheck.Node) bool {
	if p.Type() != "conditional_expression" || p.NamedChildCount() != 3 {
		return false
	}
	return same(p.NamedChild(0), n) || same(p.NamedChild(2), n)
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

// nonBlockingCalls are the method calls of the file that pass
// non_blocking=True: spelt as a keyword, or held in a mapping spelt in the
// file and unpacked into the call (`x.to(**opts)` with `opts =
// dict(device="cpu", non_blocking=True)`).
func nonBlockingCalls(f *pycheck.File) []*pycheck.Node {
	var out []*pycheck.Node
	for _, off := range f.Find("non_blocking", 0, len(f.Src)) {
		if call := nonBlockingCall(f, off); call != nil {
			out = append(out, call)
		}
	}
	for _, off := range f.Find("**", 0, len(f.Src)) {
		n := f.NodeAt(off, off+2)
		if n == nil || n.Type() != "dictionary_splat" || int(n.StartByte()) != off {
			continue
		}
		args := n.Parent()
		if args == nil || args.Type() != "argument_list" {
			continue
		}
		call := args.Parent()
		if call == nil || call.Type() != "call" || call.ChildByFieldName("function").Type() != "attribute" {
			continue
		}
		if kw := f.Keyword(call, "non_blocking"); f.IsTrue(kw) && !pycheck.Within(kw, call) {
			out = append(out, call)
		}
	}
	return out
}

// copyDirection is "d2h", "h2d" or "" for a `.to/.cuda/.cpu` call.
func copyDirection(f *pycheck.File, call *pycheck.Node) string {
	switch pycheck.LastName(f.Callee(call)) {
	case "cpu":
		return "d2h"
	case "cuda":
		return "h2d"
	case "to":
		if pycheck.ToCPU(f, call) {
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
	return pycheck.CopyTarget(throughConditional(n))
}

// throughConditional is the conditional expression n is a value of (`n
// if c else m`, through parentheses and nested conditionals), whose
// target holds n on one path; n itself otherwise.
func throughConditional(n *pycheck.Node) *pycheck.Node {
	for {
		c := upParen(n)
		p := c.Parent()
		if p == nil || !conditionalBranch(p, c) {
			return n
		}
		n = p
	}
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
// or event), a function of this file or the project that synchronises, a
// name bound to a synchronising method, and the query() of a loop that
// spins until an event or stream is done (`while not ev.query(): ...`).
// With device places (names the rule knows hold GPU tensors, e.g. the
// source of a device-to-host copy), a blocking read of a value computed
// from one of them (`.item()`, `.tolist()`, `.cpu()`, `float(...)`) also
// waits: it drains the current stream, and the copy queued on it before.
// They are the blockers of "read before synchronising" questions.
func hostSyncs(f *pycheck.File, fl *pycheck.Flow, device ...*pycheck.Node) []*pycheck.Node {
	// The answer depends on the device places only through their names
	// (deviceNames): a function of many copies of one tensor asks once.
	var names []string
	for _, d := range device {
		if d != nil && d.Type() == "identifier" {
			names = append(names, f.Text(d))
		}
	}
	slices.Sort(names)
	return fl.Remember("hostSyncs\x00"+strings.Join(names, "\x00"), func() []*pycheck.Node {
		return scanHostSyncs(f, fl, device)
	})
}

func scanHostSyncs(f *pycheck.File, fl *pycheck.Flow, device []*pycheck.Node) []*pycheck.Node {
	m := f.Model()
	dev := deviceNames(f, fl, device)
	var out []*pycheck.Node
	for _, c := range fl.Calls() {
		if f.IsTrue(f.Keyword(c, "non_blocking")) || !fl.Certain(c) && !spinsUntilDone(f, c) {
			continue
		}
		// The qualified name: `from torch.cuda import synchronize as sync`.
		last := pycheck.LastName(m.QualifiedCallee(c))
		syncs := last == "synchronize" || spinsUntilDone(f, c)
		if !syncs {
			if s := m.Summary(c); s != nil && s.Syncs {
				syncs = true
			} else if fn := c.ChildByFieldName("function"); fn != nil && fn.Type() == "identifier" {
				syncs = m.CallSyncs(c) || len(dev) > 0 && blockingScalar[f.Text(fn)] && mentionsAny(f, c.ChildByFieldName("arguments"), dev)
			} else if len(dev) > 0 && blockingRead[last] {
				syncs = mentionsAny(f, receiver(c), dev)
			}
		}
		if syncs {
			out = append(out, c)
		}
	}
	// A with block whose manager waits in __exit__: its fall-through exit.
	for _, c := range fl.Calls() {
		if w := managedBy(c); w != nil && m.ExitSyncs(w) {
			out = append(out, w)
		}
	}
	sortNodes(out)
	return out
}

// managedBy is the with statement whose context manager a call makes
// (`with Offload():`, `with Offload() as o:`), or nil.
func managedBy(call *pycheck.Node) *pycheck.Node {
	n := upParen(call).Parent()
	if n != nil && n.Type() == "as_pattern" {
		n = n.Parent()
	}
	if n == nil || n.Type() != "with_item" {
		return nil
	}
	if cl := n.Parent(); cl != nil && cl.Type() == "with_clause" {
		if w := cl.Parent(); w != nil && w.Type() == "with_statement" {
			return w
		}
	}
	return nil
}

// blockingRead are the methods that copy a tensor's data to the host and
// wait for it; blockingScalar the builtins that do so through __float__,
// __int__ and __bool__.
var (
	blockingRead   = map[string]bool{"item": true, "tolist": true, "cpu": true}
	blockingScalar = map[string]bool{"float": true, "int": true, "bool": true}
)

// spinsUntilDone reports whether call is the query() of an event or
// stream in the condition of a loop that runs until it is true (`while
// not done.query():`): past the loop the work recorded there is finished.
func spinsUntilDone(f *pycheck.File, call *pycheck.Node) bool {
	if pycheck.LastName(f.Callee(call)) != "query" || len(pycheck.PositionalArgs(call)) != 0 {
		return false
	}
	not := upParen(call).Parent()
	if not == nil || not.Type() != "not_operator" {
		return false
	}
	w := upParen(not).Parent()
	return w != nil && w.Type() == "while_statement" && same(pycheck.Unparen(w.ChildByFieldName("condition")), not)
}

// deviceNames are the names of the scope that hold the values of the
// device places or values computed from them (`ids = logits.argmax(-1)`,
// `loss = model(x).mean()`), three assignments deep. A name that is ever
// bound to a non_blocking copy, or to a host copy, is left out: reading
// it is what the rules look for, not a wait.
func deviceNames(f *pycheck.File, fl *pycheck.Flow, device []*pycheck.Node) map[string]bool {
	if len(device) == 0 {
		return nil
	}
	dev := map[string]bool{}
	for _, d := range device {
		if d != nil && d.Type() == "identifier" {
			dev[f.Text(d)] = true
		}
	}
	if len(dev) == 0 {
		return nil
	}
	scope := fl.Scope()
	hostBound := map[string]bool{}
	type binding struct{ name, rhs *pycheck.Node }
	var bindings []binding
	for _, a := range placeAssignments(f, scope) {
		l, r := a.ChildByFieldName("left"), a.ChildByFieldName("right")
		if l == nil || r == nil || l.Type() != "identifier" {
			continue
		}
		if t := f.Compact(r); strings.Contains(t, "non_blocking=True") || strings.Contains(t, ".cpu(") || strings.Contains(t, "numpy(") ||
			strings.Contains(t, `"cpu"`) || strings.Contains(t, `'cpu'`) {
			hostBound[f.Text(l)] = true
			continue
		}
		bindings = append(bindings, binding{l, r})
	}
	for range 3 {
		grew := false
		for _, b := range bindings {
			n := f.Text(b.name)
			if !dev[n] && mentionsAny(f, b.rhs, dev) {
				dev[n], grew = true, true
			}
		}
		if !grew {
			break
		}
	}
	for n := range hostBound {
		delete(dev, n)
	}
	return dev
}

// placeAssignments are the plain assignments that run in the scope (not
// in nested functions).
func placeAssignments(f *pycheck.File, scope *pycheck.Node) []*pycheck.Node {
	var out []*pycheck.Node
	seen := map[int]bool{}
	fl := f.Flow(scope)
	for _, off := range f.Find("=", int(scope.StartByte()), int(scope.EndByte())) {
		n := f.NodeAt(off, off+1)
		for n != nil && n.Type() != "assignment" && n.Type() != "expression_statement" && n.Type() != "block" {
			n = n.Parent()
		}
		if n != nil && n.Type() == "assignment" && !seen[n.Index()] && fl.Contains(n) {
			seen[n.Index()] = true
			out = append(out, n)
		}
	}
	return out
}

// mentionsAny reports whether expression e names any of names.
func mentionsAny(f *pycheck.File, e *pycheck.Node, names map[string]bool) bool {
	if e == nil {
		return false
	}
	for n := range names {
		if len(f.Names(n, int(e.StartByte()), int(e.EndByte()))) > 0 {
			return true
		}
	}
	return false
}

// defValue is the value a definition binds (see pycheck.BoundValue).
func defValue(def *pycheck.Node) *pycheck.Node { return pycheck.BoundValue(def) }

// callersOfReturn: when v is the whole value of a return statement of a
// function of this file (or the body of a lambda bound to a name), the
// calls in this file that reach that function (by its name, or as a method
// on self), so a helper's result is followed into the value its caller
// holds; of a property, its reads (`self.w16` with `@property def
// w16(self)`); when v is what a generator yields (or the i-th element of
// the tuple it yields), the targets of the loops over its calls.
func callersOfReturn(f *pycheck.File, v *pycheck.Node) []*pycheck.Node {
	r := upParen(v).Parent()
	elem := -1
	if r != nil && r.Type() == "expression_list" && r.Parent() != nil && r.Parent().Type() == "yield" {
		for i, e := range r.NamedChildren() {
			if same(e, upParen(v)) {
				elem = i
			}
		}
		r = r.Parent()
	}
	if r == nil || r.Type() != "return_statement" && r.Type() != "yield" && r.Type() != "lambda" {
		return nil
	}
	fn := r
	if r.Type() != "lambda" {
		fn = f.Scope(r)
	} else if !same(r.ChildByFieldName("body"), upParen(v)) {
		return nil
	}
	m := f.Model()
	var name string
	switch {
	case fn.Type() == "function_definition":
		name = f.Text(fn.ChildByFieldName("name"))
	case fn.Type() == "lambda" && fn.Parent() != nil && fn.Parent().Type() == "assignment":
		name = pycheck.LastName(f.Text(fn.Parent().ChildByFieldName("left")))
	default:
		return nil
	}
	var out []*pycheck.Node
	for _, c := range f.CallsAt(name+"(", 0, len(f.Src)) {
		s := m.Summary(c)
		if s == nil || !same(s.Node, fn) {
			continue
		}
		if r.Type() == "yield" {
			out = append(out, m.IterTargets(c, elem)...)
		} else if elem < 0 {
			out = append(out, c)
		}
	}
	for _, n := range m.PropertyReads(0, len(f.Src)) {
		if s := m.PropertyRead(n); same(s.Node, fn) && r.Type() == "return_statement" {
			out = append(out, n)
		}
	}
	return out
}

// elementReads are the reads of the elements of the container a name use
// is iterated as: the loop target of `for c in use` or of a comprehension
// over it, or the value target of `for k, v in use.items()`, read in the
// loop or comprehension body.
func elementReads(f *pycheck.File, use *pycheck.Node) []*pycheck.Node {
	it := upParen(use)
	items := false
	if m, c := methodCallOn(f, it); c != nil && (m == "items" || m == "values") {
		items = m == "items"
		it = upParen(c)
	}
	clause := it.Parent()
	if clause == nil || clause.Type() != "for_in_clause" && clause.Type() != "for_statement" || !same(clause.ChildByFieldName("right"), it) {
		return nil
	}
	target := clause.ChildByFieldName("left")
	if items {
		if target == nil || target.Type() != "pattern_list" && target.Type() != "tuple_pattern" || target.NamedChildCount() != 2 {
			return nil
		}
		target = target.NamedChild(1)
	}
	if target == nil || target.Type() != "identifier" {
		return nil
	}
	body := clause.Parent() // the comprehension
	if clause.Type() == "for_statement" {
		body = clause.ChildByFieldName("body")
	}
	if body == nil {
		return nil
	}
	var out []*pycheck.Node
	for _, id := range f.Names(f.Text(target), int(body.StartByte()), int(body.EndByte())) {
		if !pycheck.Within(id, clause) || clause.Type() == "for_statement" {
			out = append(out, id)
		}
	}
	return out
}

// partialCalls: when call is functools.partial(F, ...) of a method named
// one of methods (partial(torch.Tensor.to, dtype=torch.float16)) bound to
// a name or an attribute of self, the calls of that name in the file,
// each a call of F with the partial's arguments.
func partialCalls(f *pycheck.File, call *pycheck.Node, methods ...string) []*pycheck.Node {
	m := f.Model()
	args := pycheck.PositionalArgs(call)
	if len(args) == 0 || m.QualifiedCallee(call) != "functools.partial" {
		return nil
	}
	w := pycheck.LastName(m.Qualified(args[0]))
	found := false
	for _, name := range methods {
		found = found || w == name
	}
	a := upParen(call).Parent()
	if !found || a == nil || a.Type() != "assignment" || upParen(call).FieldName() != "right" {
		return nil
	}
	name, method, ok := pycheck.WrapperName(f, a)
	if !ok {
		return nil
	}
	spelt := name
	if method {
		spelt = "self." + name
	}
	var out []*pycheck.Node
	for _, c := range f.CallsAt(name+"(", 0, len(f.Src)) {
		if f.Text(c.ChildByFieldName("function")) == spelt {
			out = append(out, c)
		}
	}
	return out
}
