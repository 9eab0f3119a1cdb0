package pycheck

import "strings"

// Flow is the control-flow graph of one function (or of a module's top
// level), built on first use and shared by every rule that asks about that
// scope. Its pieces are simple statements and the headers of compound ones
// (an if or while condition, a for loop's iterable and its target, a with
// clause, an except clause); edges follow branches, loops (with their else),
// with (its body left through __exit__: a raise on to the handlers around
// it, or past it for a manager that suppresses), try/except/else/finally,
// match, and early return, raise, break and continue.
//
// Two choices keep the answers useful for linting rather than proving:
//   - a for or while loop runs its body at least once (a loop that copies,
//     times or synchronises is written to do so), and `while True` leaves
//     only by break;
//   - any statement of a try body may raise into the handlers (and the
//     finally clause), except one that holds a blocker of the question
//     asked (a synchronising call, a rebinding): that statement is taken to
//     complete, so `copy; synchronize()` in a try is not read as skipping the
//     synchronize by raising in it.
//
// The else branch of a condition that tests for CUDA (`if
// torch.cuda.is_available():`, `if device.type == "cuda":`) is marked, so
// that a question asked as on a machine with a GPU leaves it out.
type Flow struct {
	f      *File
	scope  *Node
	pieces []flowPiece
	// at maps the tree node a piece stands for (a statement or a header)
	// to it; a loop's header maps to its repeating piece.
	at    map[int32]int32
	entry int32
	exit  int32
	calls []*Node
	preds [][]flowPred
	// memo holds the answers of Remember: Occurrences, Defs and the uses
	// of a place by its spelling, and rules' questions about the scope.
	// Rules ask them once per call site, and a function with thousands of
	// calls on one name would otherwise rescan the scope for each.
	memo map[string][]*Node
	// locs memoizes locate; idx the points of the node lists the graph
	// hands out (Occurrences, Defs, Remember), by the list's backing
	// array, which the memo keeps alive so no other list can take its
	// address. Rules ask a flow question per call site, each about the
	// same lists: building their points every time made a scope of n
	// calls cost n*n.
	locs map[*Node]located
	idx  map[listID]points
}

type located struct {
	id  int32
	pos uint32
	ok  bool
}

type listID struct {
	first *(*Node)
	n     int
}

func idOf(ns []*Node) listID {
	if len(ns) == 0 {
		return listID{}
	}
	return listID{&ns[0], len(ns)}
}

// own marks a list as handed out by the graph: its points may be
// memoized.
func (fl *Flow) own(ns []*Node) []*Node {
	ns = ns[:len(ns):len(ns)] // an append by a caller copies
	if len(ns) > 0 {
		if fl.idx == nil {
			fl.idx = map[listID]points{}
		}
		if _, ok := fl.idx[idOf(ns)]; !ok {
			fl.idx[idOf(ns)] = nil // known, not built yet
		}
	}
	return ns
}

// Remember returns compute's answer for key, computing it once per graph.
// Rules ask some questions of a whole scope (its synchronising calls) once
// per call site; when the answer depends only on the scope and key, asking
// again must not cost a pass over the scope. The slice is shared.
func (fl *Flow) Remember(key string, compute func() []*Node) []*Node {
	if out, ok := fl.memo[key]; ok {
		return out
	}
	out := fl.own(compute())
	if fl.memo == nil {
		fl.memo = map[string][]*Node{}
	}
	fl.memo[key] = out
	return out
}

// placeKey names a place by what Occurrences matches on: its node type and
// its text.
func (fl *Flow) placeKey(place *Node) string {
	return place.Type() + "\x00" + fl.f.Text(place)
}

type flowPiece struct {
	key  int32 // tree node index the piece stands for; -1 for a join
	succ []flowEdge
	// raises are the handler entries an exception raised in this piece
	// reaches.
	raises []int32
}

type flowEdge struct {
	to    int32
	noGPU bool // the else of a CUDA check: taken only without a GPU
}

// Flow is the control-flow graph of scope (a function_definition, a lambda
// or the module), built on first use.
func (f *File) Flow(scope *Node) *Flow {
	if scope == nil {
		scope = f.Root
	}
	m := f.Model()
	if m.flows == nil {
		m.flows = map[int32]*Flow{}
	}
	k := int32(scope.Index())
	if fl := m.flows[k]; fl != nil {
		return fl
	}
	fl := buildFlow(f, scope)
	m.flows[k] = fl
	return fl
}

// Scope is the function or module the graph is of.
func (fl *Flow) Scope() *Node { return fl.scope }

type pend struct {
	from  int32
	noGPU bool
}

type loopCtx struct {
	head  int32
	after int32
	tries int // len(b.tries) when the loop began
}

type tryCtx struct {
	handlers []int32 // handler entries (and the finally entry)
	finally  int32   // -1 without finally
	// jumps are the targets a return, break or continue inside the try
	// body or its handlers leaves to through the finally clause.
	jumps     []int32
	jumpDepth []int // the depth argument of each jump
	body      bool  // building the try body (not a handler or else)
}

type flowBuilder struct {
	fl    *Flow
	f     *File
	loops []loopCtx
	tries []*tryCtx
}

func buildFlow(f *File, scope *Node) *Flow {
	fl := &Flow{f: f, scope: scope, at: map[int32]int32{}}
	b := &flowBuilder{fl: fl, f: f}
	fl.entry = b.piece(nil)
	fl.exit = b.piece(nil)
	var body *Node
	switch scope.Type() {
	case "function_definition":
		body = scope.ChildByFieldName("body")
	case "lambda":
		// A lambda is one expression: one piece.
		p := b.piece(scope.ChildByFieldName("body"))
		b.connect([]pend{{from: fl.entry}}, p)
		b.connect([]pend{{from: p}}, fl.exit)
		return fl
	default:
		body = scope
	}
	exits := []pend{{from: fl.entry}}
	if body != nil {
		exits = b.block(body, exits)
	}
	b.connect(exits, fl.exit)
	return fl
}

// piece adds a piece for tree node n (nil: a join).
func (b *flowBuilder) piece(n *Node) int32 {
	key := int32(-1)
	if n != nil {
		key = int32(n.Index())
	}
	id := int32(len(b.fl.pieces))
	b.fl.pieces = append(b.fl.pieces, flowPiece{key: key})
	if n != nil {
		b.fl.at[key] = id
	}
	// A piece made while building a try body may raise into its handlers.
	for i := len(b.tries) - 1; i >= 0; i-- {
		if b.tries[i].body {
			b.fl.pieces[id].raises = append(b.fl.pieces[id].raises, b.tries[i].handlers...)
			break
		}
	}
	return id
}

func (b *flowBuilder) connect(from []pend, to int32) {
	for _, p := range from {
		b.fl.pieces[p.from].succ = append(b.fl.pieces[p.from].succ, flowEdge{to: to, noGPU: p.noGPU})
	}
}

// block builds the statements of a block (or module) in order and returns
// the pending fall-through edges out of it.
func (b *flowBuilder) block(blk *Node, in []pend) []pend {
	cur := in
	for _, s := range blk.NamedChildren() {
		if s.Type() == "comment" {
			continue
		}
		cur = b.stmt(s, cur)
	}
	return cur
}

func (b *flowBuilder) stmt(s *Node, in []pend) []pend {
	f := b.f
	switch s.Type() {
	case "if_statement":
		return b.ifStmt(s, in)
	case "for_statement":
		return b.loop(s, s.ChildByFieldName("right"), s.ChildByFieldName("left"), in)
	case "while_statement":
		return b.loop(s, nil, s.ChildByFieldName("condition"), in)
	case "with_statement":
		return b.withStmt(s, in)
	case "try_statement":
		return b.tryStmt(s, in)
	case "match_statement":
		p := b.piece(s.ChildByFieldName("subject"))
		b.connect(in, p)
		out := []pend{{from: p}} // no case matched
		prev := []pend{{from: p}}
		if body := s.ChildByFieldName("body"); body != nil {
			for _, c := range body.NamedChildren() {
				if c.Type() != "case_clause" {
					continue
				}
				cp := b.piece(c.NamedChild(0))
				b.connect(prev, cp)
				prev = []pend{{from: cp}}
				if cons := c.ChildByFieldName("consequence"); cons != nil {
					out = append(out, b.block(cons, []pend{{from: cp}})...)
				}
			}
		}
		return append(out, prev...)
	case "decorated_definition", "function_definition", "class_definition":
		p := b.piece(s)
		b.connect(in, p)
		return []pend{{from: p}}
	case "return_statement":
		p := b.piece(s)
		b.connect(in, p)
		b.jump(p, b.fl.exit, 0)
		return nil
	case "raise_statement":
		p := b.piece(s)
		b.connect(in, p)
		if len(b.fl.pieces[p].raises) == 0 {
			b.jump(p, b.fl.exit, 0)
		}
		return nil
	case "break_statement", "continue_statement":
		p := b.piece(s)
		b.connect(in, p)
		if len(b.loops) == 0 {
			return nil
		}
		l := b.loops[len(b.loops)-1]
		to := l.after
		if s.Type() == "continue_statement" {
			to = l.head
		}
		b.jump(p, to, l.tries)
		return nil
	}
	p := b.piece(s)
	b.connect(in, p)
	// sys.exit(...), os._exit(...) end the function's flow like a raise.
	if s.Type() == "expression_statement" {
		if c := s.NamedChild(0); c != nil && c.Type() == "call" {
			switch f.Compact(c.ChildByFieldName("function")) {
			case "sys.exit", "exit", "os._exit", "quit":
				b.jump(p, b.fl.exit, 0)
				return nil
			}
		}
	}
	return []pend{{from: p}}
}

// withStmt builds a with statement. Its body is left through the
// context managers' __exit__ in three ways, each a join of its own so
// that no path crosses from one to another: falling through, raising
// (on to the handlers around the with, or past it when a manager
// suppresses the exception: contextlib.suppress, pytest.raises), and
// return, break or continue (on to their targets, through any finally
// around).
func (b *flowBuilder) withStmt(s *Node, in []pend) []pend {
	var clause *Node
	for _, c := range s.NamedChildren() {
		if c.Type() == "with_clause" {
			clause = c
		}
	}
	cur := in
	if clause != nil {
		p := b.piece(clause)
		b.connect(cur, p)
		cur = []pend{{from: p}}
	}
	body := s.ChildByFieldName("body")
	if body == nil {
		return cur
	}
	// Made before the with's own context is entered, the raising exit
	// raises into the handlers around the with.
	suppress := clause != nil && b.suppresses(clause)
	raised := b.piece(nil)
	if suppress {
		b.fl.pieces[raised].raises = nil
	} else if len(b.fl.pieces[raised].raises) == 0 {
		b.jump(raised, b.fl.exit, 0) // no handler: out of the function
	}
	jumped := b.piece(nil)
	t := &tryCtx{handlers: []int32{raised}, finally: jumped, body: true}
	b.tries = append(b.tries, t)
	cur = b.block(body, cur)
	b.tries = b.tries[:len(b.tries)-1]
	for i, j := range t.jumps {
		b.jump(jumped, j, t.jumpDepth[i])
	}
	// The fall-through exit is the with statement's own piece: a manager
	// whose __exit__ waits for the GPU waits there (Model.ExitSyncs).
	out := b.piece(s)
	b.connect(cur, out)
	after := []pend{{from: out}}
	if suppress {
		after = append(after, pend{from: raised})
	}
	return after
}

// suppresses reports whether a with clause holds a context manager that
// swallows the exceptions raised in its body.
func (b *flowBuilder) suppresses(clause *Node) bool {
	m := b.f.Model()
	for _, it := range clause.NamedChildren() {
		v := it.NamedChild(0)
		if v != nil && v.Type() == "as_pattern" {
			v = v.NamedChild(0)
		}
		switch m.QualifiedCallee(Unparen(v)) {
		case "contextlib.suppress", "pytest.raises":
			return true
		}
	}
	return false
}

// jump leaves piece p for target, through the finally clause of every try
// entered since depth tries (the innermost first).
func (b *flowBuilder) jump(p, target int32, depth int) {
	for i := len(b.tries) - 1; i >= depth; i-- {
		if t := b.tries[i]; t.finally >= 0 {
			b.connect([]pend{{from: p}}, t.finally)
			t.jumps = append(t.jumps, target)
			t.jumpDepth = append(t.jumpDepth, depth)
			return
		}
	}
	b.connect([]pend{{from: p}}, target)
}

// cudaCheck reports whether a condition tests for a GPU being there.
func cudaCheck(f *File, cond *Node) bool {
	t := f.Text(cond)
	return strings.Contains(t, "is_available") && !strings.Contains(t, "not ") ||
		strings.Contains(t, "cuda") && !strings.Contains(t, "not") && !strings.Contains(t, "!=")
}

func (b *flowBuilder) ifStmt(s *Node, in []pend) []pend {
	cond := b.piece(s.ChildByFieldName("condition"))
	b.connect(in, cond)
	noGPU := cudaCheck(b.f, s.ChildByFieldName("condition"))
	var out []pend
	if c := s.ChildByFieldName("consequence"); c != nil {
		out = append(out, b.block(c, []pend{{from: cond}})...)
	}
	falseEdge := []pend{{from: cond, noGPU: noGPU}}
	for _, alt := range s.ChildrenByFieldName("alternative") {
		switch alt.Type() {
		case "elif_clause":
			ec := b.piece(alt.ChildByFieldName("condition"))
			b.connect(falseEdge, ec)
			if c := alt.ChildByFieldName("consequence"); c != nil {
				out = append(out, b.block(c, []pend{{from: ec}})...)
			}
			falseEdge = []pend{{from: ec, noGPU: cudaCheck(b.f, alt.ChildByFieldName("condition"))}}
		case "else_clause":
			if body := alt.ChildByFieldName("body"); body != nil {
				out = append(out, b.block(body, falseEdge)...)
				falseEdge = nil
			}
		}
	}
	return append(out, falseEdge...)
}

// loop builds a for loop (iter and target set) or a while loop (head is
// its condition). The first pass always enters the body; later passes come
// back to the head, which may leave.
func (b *flowBuilder) loop(s, iter, head *Node, in []pend) []pend {
	cur := in
	if iter != nil {
		p := b.piece(iter)
		b.connect(cur, p)
		cur = []pend{{from: p}}
	}
	// first stands for the head on the first pass: same node, so the same
	// blockers, but it always goes on into the body.
	first := b.piece(nil)
	b.fl.pieces[first].key = int32(head.Index())
	b.connect(cur, first)
	h := b.piece(head)
	after := b.piece(nil)
	b.loops = append(b.loops, loopCtx{head: h, after: after, tries: len(b.tries)})
	bodyIn := []pend{{from: first}, {from: h}}
	var exits []pend
	if body := s.ChildByFieldName("body"); body != nil {
		exits = b.block(body, bodyIn)
	} else {
		exits = bodyIn
	}
	b.loops = b.loops[:len(b.loops)-1]
	b.connect(exits, h)
	// while True: leaves only by break.
	leave := []pend{{from: h}}
	if s.Type() == "while_statement" {
		switch b.f.Text(head) {
		case "True", "1":
			leave = nil
		}
	}
	if alt := s.ChildByFieldName("alternative"); alt != nil {
		if body := alt.ChildByFieldName("body"); body != nil {
			leave = b.block(body, leave)
		}
	}
	b.connect(leave, after)
	return []pend{{from: after}}
}

func (b *flowBuilder) tryStmt(s *Node, in []pend) []pend {
	t := &tryCtx{finally: -1}
	var handlers []*Node
	var elseBody, finallyBody, body *Node
	for _, c := range s.NamedChildren() {
		switch c.Type() {
		case "block":
			body = c
		case "except_clause", "except_group_clause":
			handlers = append(handlers, c)
		case "else_clause":
			elseBody = c.ChildByFieldName("body")
		case "finally_clause":
			for _, fc := range c.NamedChildren() {
				if fc.Type() == "block" {
					finallyBody = fc
				}
			}
		}
	}
	// Handler entries exist before the body is built, so the body's pieces
	// can raise into them.
	hp := make([]int32, len(handlers))
	for i, h := range handlers {
		var header *Node
		for _, c := range h.NamedChildren() {
			if c.Type() != "block" && c.Type() != "comment" {
				header = c
				break
			}
		}
		hp[i] = b.piece(header)
	}
	if finallyBody != nil {
		t.finally = b.piece(nil)
	}
	t.handlers = append(t.handlers, hp...)
	if t.finally >= 0 {
		t.handlers = append(t.handlers, t.finally)
	}
	b.tries = append(b.tries, t)
	t.body = true
	entry := b.piece(nil) // raising before the first statement completes
	b.connect(in, entry)
	out := []pend{{from: entry}}
	if body != nil {
		out = b.block(body, out)
	}
	t.body = false
	if elseBody != nil {
		out = b.block(elseBody, out)
	}
	for i, h := range handlers {
		for _, c := range h.NamedChildren() {
			if c.Type() == "block" {
				out = append(out, b.block(c, []pend{{from: hp[i]}})...)
			}
		}
	}
	b.tries = b.tries[:len(b.tries)-1]
	if t.finally < 0 {
		return out
	}
	b.connect(out, t.finally)
	fout := []pend{{from: t.finally}}
	if finallyBody != nil {
		fout = b.block(finallyBody, fout)
	}
	// A return, break or continue that went through the finally clause
	// goes on from its end; so does an exception nobody handled.
	for _, j := range t.jumps {
		b.connect(fout, j)
	}
	outer := b.fl.exit
	for i := len(b.tries) - 1; i >= 0; i-- {
		if b.tries[i].body {
			outer = b.tries[i].handlers[0]
			break
		}
	}
	b.connect(fout, outer)
	return fout
}

// Contains reports whether n runs in this graph's scope (not in a nested
// function, lambda or class method).
func (fl *Flow) Contains(n *Node) bool {
	_, _, ok := fl.locate(n)
	return ok
}

// locate finds the piece n runs in and its position there: its start (a
// call's end), or for the target of an assignment (`x = ...`, `x += ...`, `with ... as x`)
// the end of the piece, since the target is bound after the right side.
func (fl *Flow) locate(n *Node) (int32, uint32, bool) {
	if l, ok := fl.locs[n]; ok {
		return l.id, l.pos, l.ok
	}
	id, pos, ok := fl.locateOnce(n)
	if fl.locs == nil {
		fl.locs = map[*Node]located{}
	}
	fl.locs[n] = located{id, pos, ok}
	return id, pos, ok
}

func (fl *Flow) locateOnce(n *Node) (int32, uint32, bool) {
	if n == nil || !fl.runsHere(n) && !(n.t == fl.scope.t && n.Index() == fl.scope.Index()) {
		return 0, 0, false
	}
	pos := n.start
	// A call takes effect when it returns, after its callee and arguments:
	// x.sum().item() waits after x.sum() has run.
	if n.Type() == "call" {
		pos = n.end
	}
	for c := n; c != nil; c = c.Parent() {
		if id, ok := fl.at[int32(c.Index())]; ok {
			return id, pos, true
		}
		if p := c.Parent(); p != nil {
			switch p.Type() {
			case "assignment", "augmented_assignment":
				if c.FieldName() == "left" {
					pos = p.end
				}
			case "as_pattern_target", "named_expression":
				if p.Type() == "as_pattern_target" || c.FieldName() == "name" {
					pos = p.Parent().end
				}
			}
		}
		if c == fl.scope {
			break
		}
	}
	return 0, 0, false
}

// runsHere reports whether n runs in the graph's scope: its own scope is
// it, or a lambda handed to a call that runs it before returning
// (`sorted(xs, key=lambda i: t[i].item())`), in the graph's scope.
func (fl *Flow) runsHere(n *Node) bool {
	sc := fl.f.Scope(n)
	for i := 0; i < 4 && !same(sc, fl.scope); i++ {
		call := eagerCall(fl.f, sc)
		if call == nil {
			return false
		}
		sc = fl.f.Scope(call)
	}
	return same(sc, fl.scope)
}

// eagerCallers call a function argument before they return.
var eagerCallers = map[string]bool{"sorted": true, "sort": true, "min": true, "max": true}

// eagerCall is the call a lambda is an argument of (positionally or as
// key=), when that call runs it before returning; nil otherwise.
func eagerCall(f *File, lam *Node) *Node {
	if lam == nil || lam.Type() != "lambda" {
		return nil
	}
	a := lam.Parent()
	if a != nil && a.Type() == "keyword_argument" {
		a = a.Parent()
	}
	if a == nil || a.Type() != "argument_list" {
		return nil
	}
	call := a.Parent()
	if call == nil || call.Type() != "call" || !eagerCallers[LastName(f.Callee(call))] {
		return nil
	}
	return call
}

// bindsParam reports whether an eager lambda between n and the graph's
// scope takes a parameter named name (its uses are not the scope's).
func (fl *Flow) bindsParam(n *Node, name string) bool {
	for sc := fl.f.Scope(n); sc != nil && !same(sc, fl.scope) && sc.Type() == "lambda"; sc = fl.f.Scope(sc) {
		if ps := sc.ChildByFieldName("parameters"); ps != nil && len(fl.f.Names(name, int(ps.StartByte()), int(ps.EndByte()))) > 0 {
			return true
		}
	}
	return false
}

func same(a, b *Node) bool { return a != nil && b != nil && a.t == b.t && a.Index() == b.Index() }

// Certain reports whether n runs whenever the statement holding it runs:
// not in one arm of a conditional expression, the right side of `and` or
// `or`, a comprehension's body or a lambda.
func (fl *Flow) Certain(n *Node) bool {
	for c := n; c != nil; c = c.Parent() {
		if _, ok := fl.at[int32(c.Index())]; ok {
			return true
		}
		p := c.Parent()
		if p == nil {
			return true
		}
		switch p.Type() {
		case "conditional_expression":
			// a if cond else b: only cond always runs.
			if kids := p.NamedChildren(); len(kids) < 2 || !same(kids[1], c) {
				return false
			}
		case "boolean_operator":
			if c.FieldName() == "right" {
				return false
			}
		case "lambda", "list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression":
			return false
		}
	}
	return true
}

// points groups the points of a node list by the node key of their
// piece; each keeps the node's index in the list.
type points map[int32][]searchTarget

// points are the points of ns, memoized when the graph handed ns out.
func (fl *Flow) points(ns []*Node) points {
	id := idOf(ns)
	pts, owned := fl.idx[id]
	if pts != nil {
		return pts
	}
	pts = points{}
	for i, n := range ns {
		if id, pos, ok := fl.locate(n); ok {
			k := fl.pieces[id].key
			pts[k] = append(pts[k], searchTarget{k, pos, i})
		}
	}
	if owned {
		fl.idx[id] = pts
	}
	return pts
}

// marks are the points of blocker lists, asked together.
type marks []points

func (fl *Flow) marks(lists ...[]*Node) marks {
	var m marks
	for _, ns := range lists {
		if len(ns) > 0 {
			m = append(m, fl.points(ns))
		}
	}
	return m
}

// first is the earliest mark in piece key at or after pos (inclusive
// false: strictly after), or ok=false.
func (m marks) first(key int32, after uint32, strict bool) (uint32, bool) {
	best, ok := uint32(0), false
	for _, pts := range m {
		for _, p := range pts[key] {
			if (p.pos > after || !strict && p.pos == after) && (!ok || p.pos < best) {
				best, ok = p.pos, true
			}
		}
	}
	return best, ok
}

// any reports whether piece key holds a mark.
func (m marks) any(key int32) bool {
	for _, pts := range m {
		if len(pts[key]) > 0 {
			return true
		}
	}
	return false
}

// search walks forward from point `from` and reports which targets some
// path reaches without passing a blocker. onGPU leaves out the else of a
// CUDA check.
func (fl *Flow) search(from *Node, targets []*Node, blockers marks, onGPU bool) []bool {
	found := make([]bool, len(targets))
	start, spos, ok := fl.locate(from)
	if !ok {
		return found
	}
	fl.walk(start, spos, true, fl.points(targets), blockers, found, onGPU)
	return found
}

// EntryUses lists the uses of place that some path from the scope's
// entry reaches before place is rebound there and without passing any
// of blockers: the uses that read the value place held when the function
// was called (`self.pending` set by another method).
func (fl *Flow) EntryUses(place *Node, blockers []*Node, onGPU bool) []*Node {
	occ := fl.Occurrences(place)
	found := make([]bool, len(occ))
	fl.walk(fl.entry, 0, false, fl.points(occ), fl.marks(fl.Defs(place), blockers), found, onGPU)
	var out []*Node
	for i, ok := range found {
		if ok && !IsDef(occ[i]) {
			out = append(out, occ[i])
		}
	}
	return out
}

type searchTarget struct {
	key int32
	pos uint32
	i   int
}

// walk is search's forward walk from position spos of piece start.
// It returns the pieces it reached; with targets, it stops once all are
// found, so only a walk without targets (LeavesPast) reads that.
func (fl *Flow) walk(start int32, spos uint32, strict bool, byKey points, block marks, found []bool, onGPU bool) []bool {
	// enter visits a piece from pos on (after it when strict); it returns
	// whether the walk goes on past it.
	// left counts the targets not found yet: once none is left, walking
	// on learns nothing (a scope of n copies each read once would
	// otherwise be walked to its end n times).
	left := len(found)
	enter := func(id int32, pos uint32, strict bool) bool {
		p := &fl.pieces[id]
		if p.key < 0 {
			return true
		}
		// A target where a blocker starts (`y.numpy()` read and waited
		// for in one call) is reached: it runs before the wait is over.
		stop, blocked := block.first(p.key, pos, strict)
		for _, t := range byKey[p.key] {
			if (t.pos > pos || !strict && t.pos == pos) && (!blocked || t.pos <= stop) && !found[t.i] {
				found[t.i] = true
				left--
			}
		}
		return !blocked
	}
	seen := make([]bool, len(fl.pieces))
	var stack []int32
	push := func(id int32) {
		if !seen[id] {
			seen[id] = true
			stack = append(stack, id)
		}
	}
	next := func(id int32) {
		for _, e := range fl.pieces[id].succ {
			if !(onGPU && e.noGPU) {
				push(e.to)
			}
		}
		for _, h := range fl.pieces[id].raises {
			push(h)
		}
	}
	// The statement at the start is taken to complete (raising in it, the
	// value asked about would not have been made).
	if enter(start, spos, strict) {
		for _, e := range fl.pieces[start].succ {
			if !(onGPU && e.noGPU) {
				push(e.to)
			}
		}
	}
	for len(stack) > 0 && (len(found) == 0 || left > 0) {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p := &fl.pieces[id]
		if p.key >= 0 && block.any(p.key) {
			// A piece with a blocker is taken to complete: it does not
			// raise, and the walk ends at its blocker.
			enter(id, 0, false)
			continue
		}
		enter(id, 0, false)
		next(id)
	}
	return seen
}

// Reaches reports whether some path runs from `from` (just after it) to
// `to` without passing any of blockers.
func (fl *Flow) Reaches(from, to *Node, blockers []*Node, onGPU bool) bool {
	return fl.search(from, []*Node{to}, fl.marks(blockers), onGPU)[0]
}

// LeavesPast reports whether some path runs from `from` (just after it)
// out of the scope (its end, a return, or a raise no handler of the
// scope catches) without passing any of blockers.
func (fl *Flow) LeavesPast(from *Node, blockers []*Node, onGPU bool) bool {
	start, spos, ok := fl.locate(from)
	if !ok {
		return false
	}
	return fl.walk(start, spos, true, nil, fl.marks(blockers), nil, onGPU)[fl.exit]
}

// EveryPathPasses reports whether every path from `from` to `to` passes
// one of blockers (also when no path reaches `to` at all).
func (fl *Flow) EveryPathPasses(from, to *Node, blockers []*Node, onGPU bool) bool {
	return !fl.Reaches(from, to, blockers, onGPU)
}

// IsPlace reports whether n names a place a value lives in: a name, an
// attribute chain on one (`self.staging`), or a constant-key element of
// such a place (`stats["loss"]`, `bufs[0]`).
func IsPlace(n *Node) bool {
	n = Unparen(n)
	if n == nil {
		return false
	}
	switch n.Type() {
	case "identifier":
		return true
	case "attribute":
		return IsPlace(n.ChildByFieldName("object"))
	case "subscript":
		k := n.ChildByFieldName("subscript")
		if k == nil || (k.Type() != "string" && k.Type() != "integer") {
			return false
		}
		return IsPlace(n.ChildByFieldName("value"))
	}
	return false
}

// Unparen strips the parentheses around an expression.
func Unparen(n *Node) *Node {
	for n != nil && n.Type() == "parenthesized_expression" && n.NamedChildCount() == 1 {
		n = n.NamedChild(0)
	}
	return n
}

// IsDef reports whether the place n is (re)bound here, ending the life of
// its previous value: the target of a plain assignment (also in a tuple),
// of a for loop, of `with ... as`, of `:=`, or deleted.
func IsDef(n *Node) bool {
	c := n
	for p := c.Parent(); p != nil; c, p = p, p.Parent() {
		switch p.Type() {
		case "pattern_list", "tuple_pattern", "list_pattern", "parenthesized_expression", "expression_list", "tuple", "list":
			continue
		case "assignment", "for_statement":
			return c.FieldName() == "left"
		case "as_pattern_target", "delete_statement":
			return true
		case "named_expression":
			return c.FieldName() == "name"
		}
		return false
	}
	return false
}

// Occurrences lists the nodes in the graph's scope that spell place, in
// source order. The slice is shared: callers must not change it.
func (fl *Flow) Occurrences(place *Node) []*Node {
	return fl.Remember("occ\x00"+fl.placeKey(place), func() []*Node { return fl.occurrences(place) })
}

func (fl *Flow) occurrences(place *Node) []*Node {
	f := fl.f
	var out []*Node
	start, end := int(fl.scope.start), int(fl.scope.end)
	if place.Type() == "identifier" {
		for _, id := range f.Names(f.Text(place), start, end) {
			if fl.Contains(id) && !fl.bindsParam(id, f.Text(place)) {
				out = append(out, id)
			}
		}
		return out
	}
	text := f.Text(place)
	for _, off := range f.Find(text, start, end) {
		n := f.NodeAt(off, off+len(text))
		if n == nil || n.Type() != place.Type() || int(n.start) != off || int(n.end) != off+len(text) {
			continue
		}
		if fl.Contains(n) {
			out = append(out, n)
		}
	}
	return out
}

// Defs lists where place, or a place it is part of (`d` for `d["loss"]`,
// `self.a` for `self.a.b`), is rebound in the graph's scope. The slice is
// shared: callers must not change it.
func (fl *Flow) Defs(place *Node) []*Node {
	return fl.Remember("defs\x00"+fl.placeKey(Unparen(place)), func() []*Node { return fl.defsOf(place) })
}

func (fl *Flow) defsOf(place *Node) []*Node {
	var out []*Node
	for p := Unparen(place); p != nil; {
		for _, n := range fl.Occurrences(p) {
			if IsDef(n) {
				out = append(out, n)
			}
		}
		switch p.Type() {
		case "attribute":
			p = Unparen(p.ChildByFieldName("object"))
		case "subscript":
			p = Unparen(p.ChildByFieldName("value"))
		default:
			p = nil
		}
	}
	return out
}

// UsesAfter lists the uses of place that some path from `at` reaches
// before place is rebound and without passing any of blockers: the uses
// the value place holds at `at` may flow to. onGPU leaves out the else of
// a CUDA check.
//
// The value is followed into the places copied from it (`prev = cur`, `a,
// b = x, y`; see CopyTarget): the uses of a copy made after `at`, from the
// copy on, and, when `at` does not rebind place, the uses after `at` of a
// copy made before it, or of the place place was copied from, that still
// holds the value there. A chain of copies is followed aliasDepth deep.
func (fl *Flow) UsesAfter(at, place *Node, blockers []*Node, onGPU bool) []*Node {
	out := fl.usesAfter(at, place, blockers, onGPU, aliasDepth)
	if len(out) < 2 {
		return out
	}
	sortByStart(out)
	uniq := out[:1]
	for _, n := range out[1:] {
		if !same(n, uniq[len(uniq)-1]) {
			uniq = append(uniq, n)
		}
	}
	return uniq
}

// aliasDepth bounds the chain of copies (`b = a`, `c = b`) a use question
// follows.
const aliasDepth = 3

func (fl *Flow) usesAfter(at, place *Node, blockers []*Node, onGPU bool, depth int) []*Node {
	uses := fl.uses(place)
	if len(uses) == 0 || len(uses) == 1 && same(uses[0], at) {
		return nil
	}
	defs := fl.Defs(place)
	var out []*Node
	for i, ok := range fl.search(at, uses, fl.marks(defs, blockers), onGPU) {
		if ok && !same(uses[i], at) {
			out = append(out, uses[i])
		}
	}
	if depth == 0 {
		return out
	}
	text := fl.f.Text(place)
	direct := len(out)
	for _, u := range out[:direct] {
		if q := CopyTarget(u); q != nil && fl.f.Text(q) != text {
			out = append(out, fl.usesAfter(q, q, blockers, onGPU, depth-1)...)
		}
	}
	// A copy made before `at` holds the value there when neither it nor
	// place was rebound since; `at` rebinding place puts a new value there
	// that the copy does not share.
	if at.Type() == place.Type() && fl.f.Text(at) == text && IsDef(at) {
		return out
	}
	for _, u := range fl.copiedUses(place) {
		q := CopyTarget(u)
		if same(u, at) || fl.f.Text(q) == text {
			continue
		}
		if fl.Reaches(q, at, append(fl.Defs(q), defs...), onGPU) {
			out = append(out, fl.usesAfter(at, q, blockers, onGPU, depth-1)...)
		}
	}
	// So does the place place was copied from (`buf = pinned`), while it
	// is not rebound.
	copied := false
	for _, d := range defs {
		if v := Unparen(BoundValue(d)); v != nil && IsPlace(v) {
			copied = true
			break
		}
	}
	if !copied {
		return out
	}
	for _, d := range fl.ReachingDefs(at, place) {
		v := Unparen(BoundValue(d))
		if v == nil || !IsPlace(v) || fl.f.Text(v) == text {
			continue
		}
		if fl.Reaches(d, at, fl.Defs(v), onGPU) {
			out = append(out, fl.usesAfter(at, v, blockers, onGPU, depth-1)...)
		}
	}
	return out
}

// uses are the occurrences of place that read it (not its definitions),
// in source order; shared.
func (fl *Flow) uses(place *Node) []*Node {
	return fl.Remember("uses\x00"+fl.placeKey(place), func() []*Node {
		var out []*Node
		for _, n := range fl.Occurrences(place) {
			if !IsDef(n) {
				out = append(out, n)
			}
		}
		return out
	})
}

// copiedUses are the uses of place copied into another place (see
// CopyTarget); shared.
func (fl *Flow) copiedUses(place *Node) []*Node {
	return fl.Remember("copied\x00"+fl.placeKey(place), func() []*Node {
		var out []*Node
		for _, n := range fl.uses(place) {
			if CopyTarget(n) != nil {
				out = append(out, n)
			}
		}
		return out
	})
}

// outermostParens is n, or the outermost parentheses around it: what an
// assignment sees of `(x)`.
func outermostParens(n *Node) *Node {
	for p := n.Parent(); p != nil && p.Type() == "parenthesized_expression"; p = n.Parent() {
		n = p
	}
	return n
}

// CopyTarget is the place a use of a place is copied into, so that both
// name the same object: the target of `q = use` or of a walrus `(q :=
// use)`, or in a tuple assignment (`q, r = use, other`) the target at the
// use's position; nil otherwise.
func CopyTarget(use *Node) *Node {
	c := outermostParens(use)
	p := c.Parent()
	if p == nil {
		return nil
	}
	var left *Node
	switch p.Type() {
	case "assignment":
		if c.FieldName() == "right" {
			left = Unparen(p.ChildByFieldName("left"))
		}
	case "named_expression":
		// if (host := use).numel(): the walrus binds its name.
		if c.FieldName() == "value" {
			left = p.ChildByFieldName("name")
		}
	case "expression_list", "tuple":
		if ls, rs := assignedPairs(p); ls != nil {
			for i, r := range rs {
				if same(r, c) {
					left = Unparen(ls[i])
				}
			}
		}
	}
	if left == nil || !IsPlace(left) {
		return nil
	}
	return left
}

// BoundValue is the value a definition binds: the right side of the plain
// assignment whose target it is, or in a tuple assignment (`a, b = x, y`)
// the element at its position; nil otherwise (a for target, a call's
// tuple unpacked, `with ... as`).
func BoundValue(def *Node) *Node {
	c := outermostParens(def)
	p := c.Parent()
	if p == nil {
		return nil
	}
	if p.Type() == "assignment" {
		if c.FieldName() == "left" {
			return p.ChildByFieldName("right")
		}
		return nil
	}
	// (loss := crit(out, y)).backward(): the walrus binds its value.
	if p.Type() == "named_expression" {
		if c.FieldName() == "name" {
			return p.ChildByFieldName("value")
		}
		return nil
	}
	switch p.Type() {
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list":
	default:
		return nil
	}
	g := p
	if q := g.Parent(); q != nil && q.Type() == "parenthesized_expression" {
		g = q
	}
	a := g.Parent()
	if a == nil || a.Type() != "assignment" || g.FieldName() != "left" {
		return nil
	}
	r := Unparen(a.ChildByFieldName("right"))
	if r == nil || (r.Type() != "expression_list" && r.Type() != "tuple") {
		return nil
	}
	ls, rs := assignedPairs(r)
	for i, l := range ls {
		if same(Unparen(l), Unparen(def)) {
			return rs[i]
		}
	}
	return nil
}

// assignedPairs: rhs is the tuple right side of an assignment whose left
// side is a tuple of as many targets; the targets and the values, in
// order (nil, nil otherwise).
func assignedPairs(rhs *Node) (lefts, rights []*Node) {
	a := rhs
	if g := a.Parent(); g != nil && g.Type() == "parenthesized_expression" {
		a = g
	}
	g := a.Parent()
	if g == nil || g.Type() != "assignment" || a.FieldName() != "right" {
		return nil, nil
	}
	l := Unparen(g.ChildByFieldName("left"))
	if l == nil {
		return nil, nil
	}
	switch l.Type() {
	case "pattern_list", "tuple_pattern", "list_pattern", "expression_list", "tuple", "list":
	default:
		return nil, nil
	}
	ls, rs := l.NamedChildren(), rhs.NamedChildren()
	if len(ls) != len(rs) {
		return nil, nil
	}
	return ls, rs
}

// ReachingDefs lists the definitions of place (targets of its
// assignments, see IsDef) that reach `use` along some path without
// another definition between. One backward walk: each path stops at the
// last definition it meets.
func (fl *Flow) ReachingDefs(use, place *Node) []*Node {
	start, upos, ok := fl.locate(use)
	if !ok {
		return nil
	}
	defs := fl.Defs(place)
	byKey := fl.points(defs)
	if len(byKey) == 0 {
		return nil
	}
	var out []*Node
	seen := make([]bool, len(fl.pieces))
	picked := map[*Node]bool{}
	// last takes the latest definition in piece id before pos (any, when
	// whole); it reports whether there was one.
	last := func(id int32, pos uint32, whole bool) bool {
		k := fl.pieces[id].key
		if k < 0 {
			return false
		}
		best := -1
		for i, d := range byKey[k] {
			if (whole || d.pos < pos) && (best < 0 || d.pos > byKey[k][best].pos) {
				best = i
			}
		}
		if best < 0 {
			return false
		}
		if n := defs[byKey[k][best].i]; !picked[n] {
			picked[n] = true
			out = append(out, n)
		}
		return true
	}
	preds := fl.predecessors()
	var stack []int32
	push := func(id int32) {
		for _, p := range preds[id] {
			// A piece raises into a handler only when it defines nothing
			// here (a definition is taken to complete).
			if p.raise && len(byKey[fl.pieces[p.from].key]) > 0 && fl.pieces[p.from].key >= 0 {
				continue
			}
			if !seen[p.from] {
				seen[p.from] = true
				stack = append(stack, p.from)
			}
		}
	}
	if !last(start, upos, false) {
		push(start)
	}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !last(id, 0, true) {
			push(id)
		}
	}
	sortByStart(out)
	return out
}

type flowPred struct {
	from  int32
	raise bool
}

// predecessors inverts the edges (raises included), once.
func (fl *Flow) predecessors() [][]flowPred {
	if fl.preds == nil {
		fl.preds = make([][]flowPred, len(fl.pieces))
		for i, p := range fl.pieces {
			for _, e := range p.succ {
				fl.preds[e.to] = append(fl.preds[e.to], flowPred{from: int32(i)})
			}
			for _, h := range p.raises {
				fl.preds[h] = append(fl.preds[h], flowPred{from: int32(i), raise: true})
			}
		}
	}
	return fl.preds
}

func sortByStart(ns []*Node) {
	for i := 1; i < len(ns); i++ {
		for j := i; j > 0 && ns[j].start < ns[j-1].start; j-- {
			ns[j], ns[j-1] = ns[j-1], ns[j]
		}
	}
}

// Calls lists the calls that run in the graph's scope (not in nested
// functions), in source order; made once.
func (fl *Flow) Calls() []*Node {
	if fl.calls == nil {
		fl.calls = []*Node{}
		for _, c := range fl.f.Calls(int(fl.scope.start), int(fl.scope.end)) {
			if fl.Contains(c) {
				fl.calls = append(fl.calls, c)
			}
		}
	}
	return fl.calls
}

// ClosureUsesAfter lists the reads of a name inside the functions and
// lambdas nested in the graph's scope that do not bind it themselves (its
// free uses: the closure reads the enclosing function's variable), where
// the nested definition is reached from at with no rebinding of the name
// between: the value at holds is the one the closure captures. When the
// closure runs is not known; a question of what the value is (its dtype,
// its device) may ask it, one of when it is read may not.
func (fl *Flow) ClosureUsesAfter(at, place *Node) []*Node {
	if place.Type() != "identifier" {
		return nil
	}
	free := fl.freeUses(place)
	if len(free) == 0 {
		return nil
	}
	anchors := make([]*Node, len(free))
	for i, u := range free {
		anchors[i] = fl.nestedDef(u)
	}
	var out []*Node
	for i, ok := range fl.search(at, anchors, fl.marks(fl.Defs(place)), false) {
		if ok {
			out = append(out, free[i])
		}
	}
	return out
}

// freeUses are the reads of the identifier place in functions nested in
// the scope that bind no name of that spelling (a parameter, an
// assignment, a loop target); shared.
func (fl *Flow) freeUses(place *Node) []*Node {
	name := fl.f.Text(place)
	return fl.Remember("free\x00"+name, func() []*Node {
		f := fl.f
		var out []*Node
		binds := map[int32]bool{}
		var reads []*Node
		for _, n := range f.Names(name, int(fl.scope.StartByte()), int(fl.scope.EndByte())) {
			sc := f.Scope(n)
			if same(sc, fl.scope) {
				continue
			}
			p := n.Parent()
			if IsDef(n) || p != nil && (p.Type() == "parameters" || p.Type() == "lambda_parameters" || strings.HasSuffix(p.Type(), "parameter") && same(p.ChildByFieldName("name"), n) || p.Type() == "global_statement" || p.Type() == "nonlocal_statement") {
				binds[int32(sc.Index())] = true
				continue
			}
			if p != nil && (p.Type() == "attribute" && !same(p.ChildByFieldName("object"), n) || p.Type() == "keyword_argument" && same(p.ChildByFieldName("name"), n)) {
				continue
			}
			reads = append(reads, n)
		}
		for _, n := range reads {
			bound := false
			for sc := f.Scope(n); sc != nil && !same(sc, fl.scope) && sc.Type() != "module"; sc = f.Scope(sc) {
				if binds[int32(sc.Index())] {
					bound = true
					break
				}
			}
			if !bound && fl.nestedDef(n) != nil {
				out = append(out, n)
			}
		}
		return out
	})
}

// nestedDef is the definition, a statement of the graph's scope, of the
// outermost function or lambda around n that is nested in the scope.
func (fl *Flow) nestedDef(n *Node) *Node {
	var outer *Node
	for sc := fl.f.Scope(n); sc != nil && !same(sc, fl.scope); sc = fl.f.Scope(sc) {
		if sc.Type() == "module" {
			return nil
		}
		outer = sc
	}
	if outer == nil {
		return nil
	}
	return outer
}
