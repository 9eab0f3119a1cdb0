package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD107: a loss (a tensor with an autograd graph) kept across training-loop
// iterations.
var CD107 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD107",
		Name:     "loss-kept-across-iterations",
		Kind:     report.KindLint,
		Severity: report.Warning,
		Title:    "Loss accumulated across iterations with its autograd graph",
		Summary:  "Inside a training loop a loss (or a tensor that `.backward()` is called on, alone or as a term of a sum, `(recon + kl).backward()`, or that a framework backpropagates, `fabric.backward(loss)`; a model output's `out.loss` or `out[\"loss\"]` included, and the output record itself when its loss element is backpropagated, `out[\"loss\"].backward(); records.append(out)`, unless that element is replaced by a number or a detached tensor first; the loss element of a tuple a step function of the file returns after backpropagating it, `loss, logs = step(...)`; also through methods autograd records, `loss.clone()`; or a criterion's result, `self.crit(out, y)`, `F.cross_entropy(out, y)`, in a loop over batches of data) is appended to a list (alone or inside a record: `history.append((step, loss))`, `log.append({\"loss\": loss})`; a list kept in a dict, `logs.setdefault(\"train\", []).append(loss)`, or handed in by the caller; also through a name the bound method is kept in, `record = losses.append; record(loss)`, or `record = functools.partial(list.append, losses)`, or a lambda that appends what it is given, `record = lambda v: losses.append(v)`), extended into one (`history.extend(parts)`, `history.extend(p for p in parts)` where backward() ran on a value made of `parts`) or added to a running total that outlives the iteration (`total += loss`, `total = total + loss`, also one of several sums in a tuple assignment, `total, n = total + loss, n + len(y)`, a slot of a dict read with a default, `stats[\"loss\"] = stats.get(\"loss\", 0.0) + loss`, or a per-key total, `totals[phase] += loss`, also of the entries of a dict of losses whose total entry was backpropagated, summed in a loop over its keys inside the training loop, `for k in losses: totals[k] += losses[k]`, a decayed average `ema = 0.98 * ema + 0.02 * loss`, a name a function the file calls in a loop declares `nonlocal` or `global`, `total += train_step(...)` (or `total += await train_step(...)`) where the step function of the file returns the loss it backpropagated), or yielded by a generator of the file after its backward() and the generator's values kept by the caller (`list(steps(...))`, `history.extend(steps(...))`), or handed to a method of a class of the file that keeps it in the object (`meter.update(loss)` with `self.sum += val * n`) or to a plain function of the file that appends it to a list it is also given (`record(log, loss)`), without `.item()` or `.detach()`; a step method a framework calls once per batch counts as the loop's body (a LightningModule's `training_step`, a transformers-style `Trainer` subclass's `training_step` or `compute_loss`), so a loss kept there in `self` (also summed per key, `self.totals[\"aux\"] += out.aux_loss`) or appended to a list bound outside the method is reported. A value returned by a method of the file whose every `return` detaches it (`return loss.detach()`, as Trainer-style step methods do) carries no graph. A list stacked or summed after the loop (`torch.stack(losses).mean()`) is taken as kept for one backward later, unless the loop already backpropagated its elements. Not reported where nothing grows: a total reset inside the loop (`total = 0` after each optimiser step), a module's `forward()`, or a loop over a bounded collection already in memory (a dict's `.items()`, the chunks of one tensor, a literal list) that neither backpropagates nor steps an optimiser.",
		Sections: []report.DocSection{
			{Title: "Why", Body: `A loss that requires grad holds its whole autograd graph, and with it the
activations saved for backward. Storing it (history.append(loss)) or summing it into a
variable created before the loop (total += loss) keeps every iteration's graph alive:
memory grows each step until CUDA runs out of memory, far from the line at fault.`},
			{Title: "Example", Body: `history = []
for step in range(steps):
    loss = model(x).pow(2).mean()
    history.append(loss)`},
			{Title: "Fix", Body: `Store plain numbers or detached tensors: history.append(loss.item()) or
total += loss.detach() (or float(loss)).`},
		},
		References: []string{
			"testdata/gpu/scenarios/s28_leak_oom.py and testdata/gpu/logs/h100/s28_leak_oom.plain.log (allocated memory grows every step until torch.OutOfMemoryError)",
			"testdata/gpu/scenarios/s33_memory_snapshot.py and testdata/gpu/artifacts/s33_memory_snapshot.pickle (the snapshot at OOM: memory held by every step's graph)",
			"https://docs.pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory (don't accumulate history across your training loop: total_loss += loss)",
		},
	},
	// "yield": a generator that yields the losses it backpropagated;
	// ".append" also stands for a bound append (record = losses.append).
	Anchors: []string{".append", "+", ".add_(", ".extend(", "yield", ".insert(", ".appendleft(", "heappush", "insort(", "] =", "]="},
	// The accumulated value must be a loss or something back-propagated.
	AlsoAnchors: []string{"loss", "backward("},
	Check:       checkCD107,
}

func checkCD107(p *pycheck.Pass) {
	f := p.File
	var keepers []keeper
	for _, call := range f.CallsAt(".append(", 0, len(f.Src)) {
		args := pycheck.PositionalArgs(call)
		if len(args) != 1 {
			continue
		}
		// history.append((step, loss)), log.append({"loss": loss}): a
		// record holds each of its elements.
		for _, el := range recordElements(args[0]) {
			checkAccumulation(p, call, receiver(call), el, "append")
		}
		if k, ok := keeperAt(f, receiver(call), args[0], "append"); ok {
			keepers = append(keepers, k)
		}
	}
	// record = losses.append; record(loss): the bound method called by
	// the name it is bound to (also through functools.partial:
	// record = partial(list.append, losses)).
	for _, off := range f.Find(".append", 0, len(f.Src)) {
		attr := f.NodeAt(off, off+len(".append"))
		if attr != nil && attr.Type() == "identifier" {
			attr = attr.Parent()
		}
		if attr == nil || attr.Type() != "attribute" || int(attr.EndByte()) != off+len(".append") {
			continue
		}
		bound, list := boundAppend(f, attr)
		name := assignedName(bound)
		if name == nil {
			continue
		}
		for _, call := range f.CallsAt(f.Text(name)+"(", 0, len(f.Src)) {
			fn := call.ChildByFieldName("function")
			args := pycheck.PositionalArgs(call)
			if fn == nil || fn.Type() != "identifier" || f.Text(fn) != f.Text(name) || len(args) != 1 || !same(reachingValue(f, fn), bound) {
				continue
			}
			for _, el := range recordElements(args[0]) {
				checkAccumulation(p, call, list, el, "append")
			}
		}
	}
	for _, off := range f.Find("+=", 0, len(f.Src)) {
		n := f.NodeAt(off, off+2)
		if n == nil || n.Type() != "augmented_assignment" {
			continue
		}
		// history += [loss]: an append written as a list's +=.
		if r := pycheck.Unparen(n.ChildByFieldName("right")); r != nil && (r.Type() == "list" || r.Type() == "tuple") && r.NamedChildCount() == 1 {
			checkAccumulation(p, n, n.ChildByFieldName("left"), r.NamedChild(0), "append")
			continue
		}
		checkAccumulation(p, n, n.ChildByFieldName("left"), n.ChildByFieldName("right"), "+=")
		if k, ok := keeperAt(f, n.ChildByFieldName("left"), n.ChildByFieldName("right"), "+="); ok {
			keepers = append(keepers, k)
		}
	}
	// total.add_(loss): += as a method; log.extend([loss]): an append.
	for _, m := range []string{"add_", "extend"} {
		for _, call := range f.CallsAt("."+m+"(", 0, len(f.Src)) {
			args := pycheck.PositionalArgs(call)
			if len(args) != 1 {
				continue
			}
			if m == "add_" {
				checkAccumulation(p, call, receiver(call), args[0], "+=")
				continue
			}
			if v := pycheck.Unparen(args[0]); v != nil && (v.Type() == "list" || v.Type() == "tuple") && v.NamedChildCount() == 1 {
				checkAccumulation(p, call, receiver(call), v.NamedChild(0), "append")
			} else if v = elementsOf(f, v); v != nil {
				checkAccumulation(p, call, receiver(call), v, "extend")
			}
		}
	}
	// meter.update(loss): a method of the file's class that keeps what it
	// is given in self accumulates it for the caller.
	for _, k := range keepers {
		if k.into >= 0 {
			// record(log, loss): the plain function appends loss to log.
			for _, call := range f.CallsAt(k.method+"(", 0, len(f.Src)) {
				callee := call.ChildByFieldName("function")
				args := pycheck.PositionalArgs(call)
				if callee == nil || callee.Type() != "identifier" || f.Text(callee) != k.method || k.into >= len(args) {
					continue
				}
				arg := f.Keyword(call, k.param)
				if arg == nil && k.index < len(args) {
					arg = args[k.index]
				}
				if arg != nil {
					checkAccumulation(p, call, args[k.into], arg, "call "+k.method)
				}
			}
			continue
		}
		for _, call := range f.CallsAt("."+k.method+"(", 0, len(f.Src)) {
			recv := pycheck.Unparen(receiver(call))
			if recv == nil || recv.Type() != "identifier" || !instanceOf(f, f.Model(), recv, k.class) {
				continue
			}
			arg := f.Keyword(call, k.param)
			if args := pycheck.PositionalArgs(call); arg == nil && k.index < len(args) {
				arg = args[k.index]
			}
			if arg != nil {
				checkAccumulation(p, call, recv, arg, k.method+"()")
			}
		}
	}
	// hist.insert(0, loss), window.appendleft(loss): appends at another
	// end; heapq.heappush(worst, (loss, step)), bisect.insort(xs, loss):
	// a container kept in order, given as the first argument.
	for _, m := range []string{"insert", "appendleft"} {
		for _, call := range f.CallsAt("."+m+"(", 0, len(f.Src)) {
			args := pycheck.PositionalArgs(call)
			if want := map[string]int{"insert": 2, "appendleft": 1}[m]; len(args) != want {
				continue
			}
			for _, el := range recordElements(args[len(args)-1]) {
				checkAccumulation(p, call, receiver(call), el, "append")
			}
		}
	}
	for _, fn := range []string{"heappush(", "heappushpop(", "insort("} {
		for _, call := range f.CallsAt(fn, 0, len(f.Src)) {
			q := f.Model().QualifiedCallee(call)
			args := pycheck.PositionalArgs(call)
			if len(args) != 2 || q != "heapq."+strings.TrimSuffix(fn, "(") && q != "bisect."+strings.TrimSuffix(fn, "(") {
				continue
			}
			for _, el := range recordElements(args[1]) {
				checkAccumulation(p, call, args[0], el, "call "+q)
			}
		}
	}
	// losses[i] = loss: a slot per step of a container made before the
	// loop (a constant key, stats["last"] = loss, holds one step's graph).
	for _, needle := range []string{"] =", "]="} {
		for _, off := range f.Find(needle, 0, len(f.Src)) {
			if needle == "]=" && off+2 < len(f.Src) && f.Src[off+2] == '=' {
				continue
			}
			a := pycheck.Ancestor(f.NodeAt(off, off+1), "assignment")
			if a == nil {
				continue
			}
			l := pycheck.Unparen(a.ChildByFieldName("left"))
			if l == nil || l.Type() != "subscript" || int(l.EndByte()) != off+1 || constantIndex(l) {
				continue
			}
			checkAccumulation(p, a, l, a.ChildByFieldName("right"), "store")
		}
	}
	// list(steps(...)): a generator of the file that yields each loss it
	// backpropagated, every value kept by the caller.
	checkYieldedLosses(p)
	// total = total + loss (or loss + total): += written out.
	for _, off := range f.Find("+", 0, len(f.Src)) {
		if off+1 < len(f.Src) && f.Src[off+1] == '=' {
			continue
		}
		n := f.NodeAt(off, off+1)
		if n == nil || n.Type() != "binary_operator" || f.Text(n.ChildByFieldName("operator")) != "+" {
			continue
		}
		a := n.Parent()
		// total, seen = total + loss, seen + n: the sum's own target.
		pos := -1
		if a != nil && a.Type() == "expression_list" {
			for i, e := range a.NamedChildren() {
				if same(e, n) {
					pos = i
				}
			}
			a = a.Parent()
		}
		if a == nil || a.Type() != "assignment" || pos < 0 && !same(a.ChildByFieldName("right"), n) {
			continue
		}
		left := a.ChildByFieldName("left")
		if pos >= 0 {
			if left = pycheck.Unparen(left); left == nil || left.Type() != "pattern_list" && left.Type() != "tuple_pattern" ||
				int(left.NamedChildCount()) != int(pycheck.Unparen(a.ChildByFieldName("right")).NamedChildCount()) {
				continue
			}
			left = left.NamedChild(pos)
		}
		if left == nil || !pycheck.IsPlace(left) {
			continue
		}
		l, r := pycheck.Unparen(n.ChildByFieldName("left")), pycheck.Unparen(n.ChildByFieldName("right"))
		switch {
		case l != nil && carries(f, l, left) != nil:
			checkAccumulation(p, a, carries(f, l, left), r, "+")
		case r != nil && carries(f, r, left) != nil:
			checkAccumulation(p, a, carries(f, r, left), l, "+")
		}
	}
}

// constantIndex: the subscript's key is a literal (stats["last"], xs[0]),
// the same slot every step.
func constantIndex(sub *pycheck.Node) bool {
	for _, k := range sub.NamedChildren()[1:] {
		switch pycheck.Unparen(k).Type() {
		case "string", "integer", "float", "true", "false", "none", "unary_operator":
		default:
			return false
		}
	}
	return true
}

// isParameter: name is a parameter of the function fn.
func isParameter(f *pycheck.File, fn *pycheck.Node, name string) bool {
	if fn == nil || fn.Type() != "function_definition" {
		return false
	}
	ps := fn.ChildByFieldName("parameters")
	return ps != nil && len(f.Names(name, int(ps.StartByte()), int(ps.EndByte()))) > 0
}

// carries is the occurrence of the accumulator acc that side of a sum
// carries on: acc itself, or acc scaled by a number or a name (the decayed
// average of `ema = 0.98 * ema + 0.02 * loss`); nil otherwise.
func carries(f *pycheck.File, side, acc *pycheck.Node) *pycheck.Node {
	if f.Compact(side) == f.Compact(acc) {
		return side
	}
	// stats["loss"] = stats.get("loss", 0.0) + loss: the slot read with a
	// default for its first step.
	if side.Type() == "call" && acc.Type() == "subscript" && pycheck.LastName(f.Callee(side)) == "get" {
		keys := acc.NamedChildren()[1:]
		if args := pycheck.PositionalArgs(side); len(keys) == 1 && len(args) == 2 &&
			f.Compact(receiver(side)) == f.Compact(acc.ChildByFieldName("value")) && f.Compact(args[0]) == f.Compact(keys[0]) {
			return acc
		}
	}
	if side.Type() != "binary_operator" {
		return nil
	}
	if op := f.Text(side.ChildByFieldName("operator")); op != "*" && op != "/" {
		return nil
	}
	l, r := pycheck.Unparen(side.ChildByFieldName("left")), pycheck.Unparen(side.ChildByFieldName("right"))
	for _, pair := range [][2]*pycheck.Node{{l, r}, {r, l}} {
		a, k := pair[0], pair[1]
		if a == nil || k == nil || f.Compact(a) != f.Compact(acc) {
			continue
		}
		switch k.Type() {
		case "integer", "float", "identifier", "attribute":
			return a
		}
	}
	return nil
}

func checkAccumulation(p *pycheck.Pass, at, target, value *pycheck.Node, how string) {
	f := p.File
	if target == nil || value == nil {
		return
	}
	scope := f.Scope(at)
	loop := enclosingLoop(at, scope)
	// for key in losses: totals[key] += losses[key]: a loop over the
	// parts of one step, inside the loop that steps, is part of its
	// iteration; the training loop is the one around it.
	if loop != nil && !stepsOrBackprops(f, loop) {
		if outer := enclosingLoop(loop, scope); outer != nil && stepsOrBackprops(f, outer) {
			loop = outer
		}
	}
	step := false
	// outer: the target is a name of an enclosing scope (`nonlocal total`,
	// `global total`), which outlives every call of this function.
	outer := false
	if loop == nil {
		// A step method a framework calls once per batch is the body of
		// the framework's loop: what it keeps in self, or in a name bound
		// outside it, outlives the step. So is a function the file calls
		// in a loop, for the names it declares nonlocal or global.
		if loop = frameworkStep(f, scope); loop == nil {
			if t := pycheck.Unparen(target); t != nil && t.Type() == "identifier" && declaredOuter(f, scope, f.Text(t)) && calledInLoop(f, scope) {
				loop, outer = scope, true
			} else {
				return
			}
		}
		step = true
	}
	// A module's forward() computes one step: what it sums or collects
	// over its inputs is returned to be backpropagated by the caller.
	if fn := pycheck.Ancestor(at, "function_definition"); fn != nil && f.Text(fn.ChildByFieldName("name")) == "forward" {
		return
	}
	// The accumulated expression must carry the loss itself, not a number
	// taken from it.
	vt := f.Compact(value)
	for _, safe := range []string{".item()", ".detach()", "float(", ".tolist()", ".data", "int(", "len("} {
		if strings.Contains(vt, safe) {
			return
		}
	}
	loss := lossIdentifier(f, pycheck.Unparen(value))
	var name string
	// total += train_step(...): a function of the file that returns the
	// loss it backpropagated, graph and all.
	returned := false
	if loss == nil {
		c := pycheck.Unparen(value)
		// total += await step(...): the coroutine's result.
		if c != nil && c.Type() == "await" && c.NamedChildCount() == 1 {
			c = pycheck.Unparen(c.NamedChild(0))
		}
		if c == nil || c.Type() != "call" || f.ContextOf(c)&pycheck.CtxNoGrad != 0 || returnsBackpropagated(f, c) == "" && !(criterionCall(f, c) && dataLoop(f, loop)) {
			return
		}
		name, returned = shorten(f.Text(c)), true
	} else {
		name = f.Text(loss)
	}
	// The target must outlive the iteration: bound before the loop or an
	// attribute (self.history).
	tt := f.Text(target)
	// The accumulator outlives the loop: a name assigned before it, an
	// attribute, or an element of one (running["loss"], log["train"]).
	base := target
	for {
		// losses[i] = loss: the store's own key may vary (a slot a step);
		// totals[phase] += loss: so may the key of a sum kept per key.
		if base.Type() == "subscript" && (pycheck.IsPlace(base) || (how == "store" || how == "+=") && same(base, target)) {
			base = pycheck.Unparen(base.ChildByFieldName("value"))
			continue
		}
		// logs.setdefault("train", []): the list kept in logs.
		if r := receiver(base); base.Type() == "call" && r != nil && pycheck.LastName(f.Callee(base)) == "setdefault" {
			base = pycheck.Unparen(r)
			continue
		}
		break
	}
	fl := f.Flow(scope)
	if base.Type() == "identifier" && outer {
		// bound by the enclosing scope, not by a call of this one.
	} else if base.Type() == "identifier" && step {
		// A step method's own local starts afresh each step; a module's
		// list (`LOSSES.append(loss)`) does not.
		if len(fl.Defs(base)) != 0 || how != "append" && how != "extend" {
			return
		}
	} else if base.Type() == "identifier" {
		// Some assignment from before the loop reaches the accumulation.
		// A lambda's free name (`lambda v: history.append(v)`) is looked
		// up where the lambda is called.
		use := base
		if lam := pycheck.Ancestor(base, "lambda", "function_definition"); lam != nil && lam.Type() == "lambda" && !pycheck.Within(at, lam) {
			use = at
		}
		outside := false
		defs := fl.ReachingDefs(use, base)
		for _, d := range defs {
			if !pycheck.Within(d, loop) {
				outside = true
			}
		}
		// A parameter (hist.append(loss) with hist given by the caller)
		// is the caller's container: it outlives the loop.
		if len(defs) == 0 && isParameter(f, scope, f.Text(base)) {
			outside = true
		}
		if !outside {
			return
		}
	} else if base.Type() != "attribute" {
		return
	}
	// Reset inside the loop (total = 0 after each optimiser step): at most
	// the iterations between two resets are chained, memory does not grow.
	if resetInLoop(f, fl, loop, at, base) {
		return
	}
	// The loss must be computed in this loop iteration, with gradients on:
	// every assignment of it that reaches here is in the loop body, and on
	// some path it is not made a number or detached first.
	body := loop.ChildByFieldName("body")
	if body == nil {
		return
	}
	graph := returned
	if !returned {
		// out["loss"]: the element is as fresh as the output it is read from.
		bound := loss
		if loss.Type() == "subscript" {
			bound = pycheck.Unparen(loss.ChildByFieldName("value"))
		}
		for _, d := range fl.ReachingDefs(bound, bound) {
			rhs := defValue(d)
			// loss, logs = step(...): the element of what a step function
			// of the file returns after backpropagating it.
			if c, i := unpackedCall(d); rhs == nil && c != nil && pycheck.Within(c, body) && f.ContextOf(c)&pycheck.CtxNoGrad == 0 {
				if returnsBackpropagatedAt(f, c, i) != "" {
					graph, returned = true, true
					continue
				}
				// rec, kld = model(x) with (rec + kld).backward() below:
				// an element of some call's result, kept only when the
				// loop backpropagates it.
				if backpropagatedIn(f, fl, name, body) {
					graph = true
					continue
				}
			}
			if rhs == nil || !pycheck.Within(rhs, body) || f.ContextOf(rhs)&pycheck.CtxNoGrad != 0 {
				return
			}
			if !containsAny(f.Compact(rhs), graphFree) && !returnsGraphFree(f, pycheck.Unparen(rhs)) {
				graph = true
			}
		}
	}
	if !graph {
		return
	}
	backpropagated := returned || backpropagatedIn(f, fl, name, body)
	// loss[key] of a dict of losses whose total entry is backpropagated.
	if !backpropagated && loss != nil && loss.Type() == "subscript" && lossEntry(f, loss) {
		backpropagated = backpropagatedIn(f, fl, holderOf(f, loss), body)
	}
	if loss != nil && loss.Type() == "identifier" && lossSlotDetached(f, name, body) {
		return
	}
	if !strings.Contains(strings.ToLower(name), "loss") && !backpropagated {
		return
	}
	// Into an element of a dict or list (logs, per-name totals) only what
	// this loop backpropagates is known to carry a graph: per-item loss
	// lists are often summed and backpropagated by the caller.
	// A sum kept per key in self by a framework's step method
	// (self.totals["z_loss"] += z_loss in compute_loss) is no such list:
	// the framework backpropagates only what the step returns.
	if target != base && !backpropagated && !(step && !outer && how == "+=" && base.Type() == "attribute") {
		return
	}
	// A loop over a bounded collection held in memory (a dict's items, the
	// chunks of one tensor, a literal list) that steps no optimiser runs
	// once over its parts: it is no training loop, nothing grows.
	if boundedLoop(f, loop, 3) && !stepsOrBackprops(f, loop) {
		return
	}
	// Accumulated on purpose: a backward() outside the loop runs after the
	// accumulation (gradient accumulation, several losses combined).
	for _, c := range f.CallsAt("backward(", int(scope.StartByte()), int(scope.EndByte())) {
		if !pycheck.Within(c, loop) && fl.Contains(c) && fl.Reaches(at, c, nil, false) {
			return
		}
	}
	// The list is combined after the loop (torch.stack(losses).mean()), or
	// a loop over the parts of one input (range, chunks, layers) that
	// steps no optimiser returns the total (a loss function summing over
	// chunks): the graphs are kept to be used, backpropagated once by the
	// caller.
	// A value backpropagated in the loop has had its backward: the list
	// stacked after it (torch.stack(history)) is a log, not a loss to come.
	if target.Type() == "identifier" && !backpropagated {
		parts := partsLoop(f, loop)
		from := at
		if at.Type() == "assignment" {
			from = at.ChildByFieldName("left") // total = total + loss: the new total
		}
		for _, use := range fl.UsesAfter(from, target, nil, false) {
			if pycheck.Within(use, loop) {
				continue
			}
			if parts && pycheck.Statement(use).Type() == "return_statement" {
				return
			}
			if c := pycheck.Ancestor(use, "call"); c != nil {
				switch f.Callee(c) {
				case "torch.stack", "torch.cat", "sum", "torch.sum", "torch.mean":
					return
				}
			}
		}
	}
	msg := fmt.Sprintf("%s.append(%s) keeps the autograd graph of every iteration alive", tt, name)
	switch how {
	case "append":
	case "extend":
		msg = fmt.Sprintf("%s.extend(...) keeps the autograd graph of every iteration alive through the elements of %s", tt, name)
	case "+=":
		msg = fmt.Sprintf("%s += %s chains the autograd graph of every iteration into %s", tt, name, tt)
	case "+":
		msg = fmt.Sprintf("%s = %s chains the autograd graph of every iteration into %s", tt, shorten(f.Text(at.ChildByFieldName("right"))), tt)
	case "store":
		msg = fmt.Sprintf("%s = %s keeps the autograd graph of every iteration alive in its own slot", tt, name)
	case "call " + strings.TrimPrefix(how, "call "):
		msg = fmt.Sprintf("%s(...) appends %s to %s, keeping the autograd graph of every iteration alive", strings.TrimPrefix(how, "call "), name, tt)
	default: // a keeper method
		msg = fmt.Sprintf("%s.%s keeps %s in the object, and with it the autograd graph of every iteration", tt, strings.TrimSuffix(how, "()")+"("+name+")", name)
	}
	p.Report(at, msg+"; memory grows until CUDA runs out", fmt.Sprintf("accumulate %s.item() (or %s.detach()) instead", name, name))
}

// backpropagatedIn: backward() is called in body on name or on a value
// made from it by tensor methods and joins (torch.stack(parts).mean(),
// sum(terms)), directly or through a name bound to such a value first. A
// name handed to some other call as an argument is not counted: the
// call's result need not carry it.
func backpropagatedIn(f *pycheck.File, fl *pycheck.Flow, name string, body *pycheck.Node) bool {
	// fabric.backward(loss), accelerator.backward(loss): a framework
	// backpropagates its argument.
	for _, c := range f.CallsAt(".backward(", int(body.StartByte()), int(body.EndByte())) {
		if args := pycheck.PositionalArgs(c); len(args) > 0 && receiverNotTensor(f, c) {
			if r := madeOf(f, args[0]); r != nil && f.Text(r) == name {
				return true
			}
		}
	}
	for _, c := range f.CallsAt(".backward(", int(body.StartByte()), int(body.EndByte())) {
		// loss["total"].backward(): an entry of the dict name is.
		if rc := pycheck.Unparen(receiver(c)); rc != nil && rc.Type() == "subscript" && holderOf(f, rc) == name {
			return true
		}
		// (recon + kl).backward(): each term is backpropagated.
		for _, t := range sumTerms(f, receiver(c)) {
			if r := madeOf(f, t); r != nil && (f.Text(r) == name || holderOf(f, r) == name) {
				return true
			}
		}
		r := madeOf(f, receiver(c))
		if r == nil {
			continue
		}
		// out["loss"].backward(): out holds the backpropagated loss.
		if holderOf(f, r) == name {
			return true
		}
		if fl.Contains(c) {
			for _, d := range fl.ReachingDefs(r, r) {
				if v := madeOf(f, defValue(d)); v != nil && f.Text(v) == name {
					return true
				}
			}
		}
	}
	return false
}

// receiverNotTensor: the receiver of a backward(x) call is a framework
// object by its name (fabric, accelerator, self.fabric, engine), not the
// tensor whose backward takes x as its gradient.
func receiverNotTensor(f *pycheck.File, c *pycheck.Node) bool {
	r := pycheck.Unparen(receiver(c))
	if r == nil || r.Type() != "identifier" && r.Type() != "attribute" {
		return false
	}
	n := strings.ToLower(pycheck.LastName(f.Text(r)))
	for _, w := range []string{"fabric", "accelerator", "engine", "strategy", "trainer"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// holderOf is the name whose loss element or attribute r reads
// (`out` of out["loss"] or out.loss), or "".
func holderOf(f *pycheck.File, r *pycheck.Node) string {
	var base *pycheck.Node
	switch r.Type() {
	case "subscript":
		base = r.ChildByFieldName("value")
	case "attribute":
		base = r.ChildByFieldName("object")
	}
	if base = pycheck.Unparen(base); base != nil && base.Type() == "identifier" {
		return f.Text(base)
	}
	return ""
}

// lossSlotDetached: in body the loss element of the record name is
// replaced by a number or a detached tensor (`out["loss"] =
// out["loss"].detach()`), so the record keeps no graph.
func lossSlotDetached(f *pycheck.File, name string, body *pycheck.Node) bool {
	for _, id := range f.Names(name, int(body.StartByte()), int(body.EndByte())) {
		el := id.Parent()
		if el == nil || (el.Type() != "subscript" || !same(el.ChildByFieldName("value"), id)) && (el.Type() != "attribute" || !same(el.ChildByFieldName("object"), id)) || !lossAttribute(f, el) {
			continue
		}
		if a := el.Parent(); a != nil && a.Type() == "assignment" && same(a.ChildByFieldName("left"), el) && containsAny(f.Compact(a.ChildByFieldName("right")), graphFree) {
			return true
		}
	}
	return false
}

// madeOf is the name a value is made from by method calls on it and by
// joining or summing it (torch.stack(x).mean(): x), or nil.
func madeOf(f *pycheck.File, e *pycheck.Node) *pycheck.Node {
	for range 8 {
		e = pycheck.Unparen(e)
		if e == nil {
			return nil
		}
		switch e.Type() {
		case "identifier":
			return e
		case "attribute", "subscript":
			if lossAttribute(f, e) {
				return e
			}
			return nil
		case "call":
			if callee := f.Callee(e); joinFuncs[callee] || reduceFuncs[callee] {
				args := pycheck.PositionalArgs(e)
				if len(args) == 0 {
					return nil
				}
				e = args[0]
				continue
			}
			if e = receiver(e); e == nil {
				return nil
			}
		default:
			return nil
		}
	}
	return nil
}

// reduceFuncs sum or average a sequence or tensor of losses into one.
var reduceFuncs = map[string]bool{"sum": true, "torch.sum": true, "torch.mean": true}

// elementsOf is the name whose elements an extend() argument adds: the
// name itself, or the name a generator or comprehension yields the
// elements of unchanged (`p for p in parts`).
func elementsOf(f *pycheck.File, v *pycheck.Node) *pycheck.Node {
	if v == nil {
		return nil
	}
	switch v.Type() {
	case "identifier":
		return v
	case "generator_expression", "list_comprehension":
		body := pycheck.Unparen(v.ChildByFieldName("body"))
		if body == nil || body.Type() != "identifier" || v.NamedChildCount() != 2 {
			return nil
		}
		clause := v.NamedChild(1)
		if clause.Type() != "for_in_clause" || f.Text(clause.ChildByFieldName("left")) != f.Text(body) {
			return nil
		}
		if r := pycheck.Unparen(clause.ChildByFieldName("right")); r != nil && r.Type() == "identifier" {
			return r
		}
	}
	return nil
}

// returnsBackpropagated is the name of the loss a function of this file
// returns as it is after calling backward() on it (no .item() or
// .detach()), or "" when the call reaches no such function.
func returnsBackpropagated(f *pycheck.File, call *pycheck.Node) string {
	return returnsBackpropagatedAt(f, call, -1)
}

// returnsBackpropagatedAt is returnsBackpropagated for element i of the
// tuple the function returns (`return loss, logs`), the whole value when
// i is -1.
func returnsBackpropagatedAt(f *pycheck.File, call *pycheck.Node, i int) string {
	fn, rets := localReturns(f, call)
	for _, r := range rets {
		v := pycheck.Unparen(r.NamedChild(0))
		if i >= 0 {
			if v == nil || v.Type() != "expression_list" && v.Type() != "tuple" || i >= int(v.NamedChildCount()) {
				continue
			}
			v = pycheck.Unparen(v.NamedChild(i))
		}
		if v == nil || v.Type() != "identifier" {
			continue
		}
		name := f.Text(v)
		if len(f.CallsAt(name+".backward(", int(fn.StartByte()), int(r.StartByte()))) > 0 {
			return name
		}
	}
	return ""
}

// recordElements are the values a record literal appended as one item
// keeps: the elements of a tuple or list, the values of a dict; any other
// value is its own record.
func recordElements(v *pycheck.Node) []*pycheck.Node {
	u := pycheck.Unparen(v)
	if u == nil {
		return nil
	}
	switch u.Type() {
	case "tuple", "list":
		return u.NamedChildren()
	case "dictionary":
		var vals []*pycheck.Node
		for _, pair := range u.NamedChildren() {
			if pair.Type() == "pair" {
				vals = append(vals, pair.ChildByFieldName("value"))
			}
		}
		return vals
	}
	return []*pycheck.Node{v}
}

// lossIdentifier is the place an accumulated expression is made of:
// `loss`, `loss * n`, `loss / k`, or a loss attribute of a local result
// (`out.loss`, as a transformers model output carries it).
func lossIdentifier(f *pycheck.File, v *pycheck.Node) *pycheck.Node {
	switch v.Type() {
	case "identifier":
		return v
	case "attribute":
		if lossAttribute(f, v) {
			return v
		}
		return nil
	case "subscript":
		// outputs["loss"]: a model output returned as a dict; losses[key]:
		// an entry of a dict of losses, under a key that varies.
		if lossAttribute(f, v) || lossEntry(f, v) {
			return v
		}
		return nil
	case "call":
		// loss.clone(), loss.mean(), loss.float(): autograd records these,
		// the result keeps the graph.
		if r := receiver(v); r != nil && graphKeeping[pycheck.LastName(f.Callee(v))] {
			return lossIdentifier(f, pycheck.Unparen(r))
		}
		return nil
	case "binary_operator":
		for _, side := range []string{"left", "right"} {
			if s := pycheck.Unparen(v.ChildByFieldName(side)); s != nil && s.Type() == "identifier" && strings.Contains(strings.ToLower(f.Text(s)), "loss") {
				return s
			}
		}
	}
	return nil
}

// partsLoop: a for loop over the parts of one input (`range(0, n,
// chunk)`, `x.chunk(k)`, `x.split(n)`, a model's layers) whose body neither
// backpropagates nor steps an optimiser.
func partsLoop(f *pycheck.File, loop *pycheck.Node) bool {
	if loop.Type() != "for_statement" {
		return false
	}
	it := f.Compact(loop.ChildByFieldName("right"))
	if !strings.HasPrefix(it, "range(") && !containsAny(it, []string{".chunk(", ".split(", "layers", "blocks"}) {
		return false
	}
	return !stepsOrBackprops(f, loop)
}

// stepsOrBackprops: the loop's body calls backward() or steps an optimiser
// (or has no body to tell).
func stepsOrBackprops(f *pycheck.File, loop *pycheck.Node) bool {
	body := loop.ChildByFieldName("body")
	return body == nil || len(f.CallsAt("backward(", int(body.StartByte()), int(body.EndByte()))) != 0 ||
		len(f.CallsAt(".step(", int(body.StartByte()), int(body.EndByte()))) != 0
}

// boundedLoop: a for loop over a collection already in memory whose size
// the data does not set: a mapping's items()/values()/keys(), the parts
// of one tensor (chunk, split, tensor_split, unbind), a list or tuple
// literal; through zip/enumerate/reversed and names bound to one of these.
func boundedLoop(f *pycheck.File, loop *pycheck.Node, depth int) bool {
	if loop.Type() != "for_statement" {
		return false
	}
	return boundedIterable(f, pycheck.Unparen(loop.ChildByFieldName("right")), depth)
}

func boundedIterable(f *pycheck.File, it *pycheck.Node, depth int) bool {
	if it == nil || depth < 0 {
		return false
	}
	switch it.Type() {
	case "list", "tuple":
		return true
	case "identifier":
		v := reachingValue(f, it)
		return v != nil && boundedIterable(f, pycheck.Unparen(v), depth-1)
	case "call":
		switch name := pycheck.LastName(f.Callee(it)); name {
		case "items", "values", "keys", "chunk", "split", "tensor_split", "unbind":
			return receiver(it) != nil
		case "zip", "enumerate", "reversed":
			args := pycheck.PositionalArgs(it)
			if name == "zip" {
				// zip stops at the shortest: one bounded argument bounds it.
				for _, a := range args {
					if boundedIterable(f, pycheck.Unparen(a), depth-1) {
						return true
					}
				}
				return false
			}
			return len(args) > 0 && boundedIterable(f, pycheck.Unparen(args[0]), depth-1)
		}
	}
	return false
}

// resetInLoop: inside the loop the accumulator is bound afresh (`total =
// 0`, `self.total = 0`) by an assignment other than the accumulation, one
// whose value does not read the accumulator.
func resetInLoop(f *pycheck.File, fl *pycheck.Flow, loop, at, base *pycheck.Node) bool {
	name := f.Compact(base)
	fresh := func(v *pycheck.Node) bool {
		return v != nil && !pycheck.Within(v, at) && !strings.Contains(f.Compact(v), name)
	}
	if base.Type() == "identifier" {
		for _, d := range fl.ReachingDefs(base, base) {
			if pycheck.Within(d, loop) && fresh(defValue(d)) {
				return true
			}
		}
		return false
	}
	for _, n := range placeOccurrences(f, nil, base, int(loop.StartByte()), int(loop.EndByte())) {
		if placeRebound(n) && fresh(n.Parent().ChildByFieldName("right")) {
			return true
		}
	}
	return false
}

// graphFree are spellings that turn a tensor into a number or a tensor
// without autograd history.
var graphFree = []string{".item()", ".detach()", "float(", ".tolist()", ".cpu().numpy()", "torch.tensor(", ".data"}

// returnsGraphFree reports whether call reaches a function of this file
// (`self.training_step(batch)`, `step(batch)`) every return of which hands
// back a number or a detached tensor (`return loss.detach()`), as
// Trainer-style step methods do after calling backward themselves.
func returnsGraphFree(f *pycheck.File, call *pycheck.Node) bool {
	if call == nil || call.Type() != "call" {
		return false
	}
	_, rets := localReturns(f, call)
	for _, r := range rets {
		v := r.NamedChild(0)
		if v == nil || !containsAny(f.Compact(v), graphFree) {
			return false
		}
	}
	return len(rets) > 0
}

// localReturns returns the function of this file that call reaches and
// its own return statements (not those of functions nested in it); nil
// when the call reaches no function of the file.
func localReturns(f *pycheck.File, call *pycheck.Node) (*pycheck.Node, []*pycheck.Node) {
	s := f.Model().Summary(call)
	if s == nil || s.Node == nil || s.Node.Tree() != f.Tree || s.Node.Type() != "function_definition" {
		return nil, nil
	}
	fn := s.Node
	var out []*pycheck.Node
	for _, off := range f.Find("return", int(fn.StartByte()), int(fn.EndByte())) {
		r := f.NodeAt(off, off+len("return"))
		for r != nil && r.Type() != "return_statement" && r.Type() != "block" {
			r = r.Parent()
		}
		if r == nil || r.Type() != "return_statement" || int(r.StartByte()) != off || !same(f.Scope(r), fn) {
			continue
		}
		out = append(out, r)
	}
	return fn, out
}

// checkYieldedLosses reports the calls that keep every value of a
// generator of the file which yields, in a loop, a loss it has called
// backward() on (`yield loss`, without .item() or .detach()): list(gen),
// tuple(gen), history.extend(gen).
func checkYieldedLosses(p *pycheck.Pass) {
	f := p.File
	for _, off := range f.Find("yield", 0, len(f.Src)) {
		y := f.NodeAt(off, off+5)
		if y == nil || y.Type() != "yield" || y.NamedChildCount() != 1 {
			continue
		}
		v := pycheck.Unparen(y.NamedChild(0))
		gen := f.Scope(y)
		if v == nil || v.Type() != "identifier" || gen == nil || gen.Type() != "function_definition" {
			continue
		}
		loop := enclosingLoop(y, gen)
		if loop == nil || loop.ChildByFieldName("body") == nil || !backpropagatedIn(f, f.Flow(gen), f.Text(v), loop.ChildByFieldName("body")) {
			continue
		}
		name := f.Text(gen.ChildByFieldName("name"))
		for _, id := range f.Names(name, 0, len(f.Src)) {
			c := id.Parent()
			if c == nil || c.Type() != "call" || !same(c.ChildByFieldName("function"), id) {
				continue
			}
			a := upParen(c).Parent()
			if a == nil || a.Type() != "argument_list" || a.NamedChildCount() != 1 {
				continue
			}
			keep := a.Parent()
			switch pycheck.LastName(f.Callee(keep)) {
			case "list", "tuple", "extend":
				p.Report(keep, fmt.Sprintf("%s keeps every %s that %s() yields after its backward(), and with them the autograd graph of every iteration; memory grows until CUDA runs out", shorten(f.Text(keep)), f.Text(v), name),
					fmt.Sprintf("yield %s.item() (or %s.detach()) instead", f.Text(v), f.Text(v)))
			}
		}
	}
}

// declaredOuter: fn declares name nonlocal or global.
func declaredOuter(f *pycheck.File, fn *pycheck.Node, name string) bool {
	if fn == nil || fn.Type() != "function_definition" {
		return false
	}
	for _, id := range f.Names(name, int(fn.StartByte()), int(fn.EndByte())) {
		if p := id.Parent(); p != nil && (p.Type() == "nonlocal_statement" || p.Type() == "global_statement") && same(f.Scope(id), fn) {
			return true
		}
	}
	return false
}

// calledInLoop: the function fn is called by its name inside a loop of
// the file (`for x, y in loader: step(x, y)`).
func calledInLoop(f *pycheck.File, fn *pycheck.Node) bool {
	name := f.Text(fn.ChildByFieldName("name"))
	for _, id := range f.Names(name, 0, len(f.Src)) {
		c := id.Parent()
		if c == nil || c.Type() != "call" || !same(c.ChildByFieldName("function"), id) {
			continue
		}
		if enclosingLoop(c, f.Scope(c)) != nil {
			return true
		}
	}
	return false
}

// frameworkStep returns scope when it is a step method a training
// framework calls once per batch with gradients on: a LightningModule's
// training_step, or a transformers-style Trainer subclass's training_step
// or compute_loss (`class T(Trainer)`, `Seq2SeqTrainer`, `SFTTrainer`).
// It runs as the body of the framework's training loop.
func frameworkStep(f *pycheck.File, scope *pycheck.Node) *pycheck.Node {
	if scope == nil || scope.Type() != "function_definition" {
		return nil
	}
	name := f.Text(scope.ChildByFieldName("name"))
	if name != "training_step" && name != "compute_loss" {
		return nil
	}
	cls := pycheck.Ancestor(scope, "class_definition")
	if cls == nil || !same(pycheck.Ancestor(scope, "class_definition", "function_definition"), cls) {
		return nil
	}
	bases := cls.ChildByFieldName("superclasses")
	if bases == nil {
		return nil
	}
	m := f.Model()
	for _, b := range bases.NamedChildren() {
		if b.Type() != "identifier" && b.Type() != "attribute" {
			continue
		}
		base := pycheck.LastName(m.Qualified(b))
		switch {
		case strings.HasSuffix(base, "LightningModule"):
			if name == "training_step" {
				return scope
			}
		case strings.HasSuffix(base, "Trainer"):
			return scope
		}
	}
	return nil
}

// keeper is a function of the file that keeps one of its parameters
// across calls: a method that keeps it in self (`def update(self, val,
// n=1): self.sum += val * n`, `self.values.append(v)`), or a plain
// function that appends it to a list it is given (`def record(log,
// value): log.append(value)`), the list then at index `into` of a call.
type keeper struct {
	class, method, param string
	index                int // among the positional arguments of a call on an instance, or of a plain call
	into                 int // the plain function's list parameter; -1 for a method
}

// keeperAt: target (an attribute of self, or a list parameter of a plain
// function when how is "append") accumulates value, made of a parameter
// of the function it is in.
func keeperAt(f *pycheck.File, target, value *pycheck.Node, how string) (keeper, bool) {
	target = pycheck.Unparen(target)
	for target != nil && target.Type() == "subscript" {
		target = pycheck.Unparen(target.ChildByFieldName("value"))
	}
	if target == nil || value == nil {
		return keeper{}, false
	}
	fn := f.Scope(target)
	if fn == nil || fn.Type() != "function_definition" {
		return keeper{}, false
	}
	cls := pycheck.Ancestor(fn, "class_definition")
	method := cls != nil && same(pycheck.Ancestor(fn, "class_definition", "function_definition"), cls)
	switch {
	case method && target.Type() == "attribute" && f.Text(target.ChildByFieldName("object")) == "self":
	case !method && how == "append" && target.Type() == "identifier" && pycheck.Ancestor(fn, "function_definition") == nil:
	default:
		return keeper{}, false
	}
	// The value is the parameter, or it scaled (`val * n`, `v / k`).
	var ids []string
	v := pycheck.Unparen(value)
	switch v.Type() {
	case "identifier":
		ids = append(ids, f.Text(v))
	case "binary_operator":
		if op := f.Text(v.ChildByFieldName("operator")); op == "*" || op == "/" {
			for _, side := range []string{"left", "right"} {
				if s := pycheck.Unparen(v.ChildByFieldName(side)); s != nil && s.Type() == "identifier" {
					ids = append(ids, f.Text(s))
				}
			}
		}
	}
	params := fn.ChildByFieldName("parameters")
	if len(ids) == 0 || params == nil {
		return keeper{}, false
	}
	k := keeper{method: f.Text(fn.ChildByFieldName("name")), into: -1}
	first := 0 // self
	if method {
		k.class, first = f.Text(cls.ChildByFieldName("name")), 1
	}
	found := false
	for i, prm := range params.NamedChildren() {
		name := prm
		if prm.Type() != "identifier" {
			name = prm.ChildByFieldName("name")
			if name == nil && prm.NamedChildCount() > 0 {
				name = prm.NamedChild(0)
			}
		}
		if name == nil || name.Type() != "identifier" {
			break
		}
		if i < first {
			continue
		}
		if !method && f.Text(name) == f.Text(target) {
			k.into = i
		}
		for _, id := range ids {
			if !found && f.Text(name) == id {
				k.param, k.index, found = id, i-first, true
			}
		}
	}
	if !found || !method && (k.into < 0 || k.into == k.index) {
		return keeper{}, false
	}
	return k, true
}

// lossAttribute: a loss field of a local value, `out.loss` (not an
// attribute of self, which outlives the step on its own).
func lossAttribute(f *pycheck.File, a *pycheck.Node) bool {
	if a.Type() == "subscript" {
		// out["loss"]: a string key naming a loss.
		obj, key := pycheck.Unparen(a.ChildByFieldName("value")), pycheck.Unparen(a.ChildByFieldName("subscript"))
		return obj != nil && obj.Type() == "identifier" && f.Text(obj) != "self" && key != nil && key.Type() == "string" &&
			strings.Contains(strings.ToLower(f.Text(key)), "loss")
	}
	obj := pycheck.Unparen(a.ChildByFieldName("object"))
	return obj != nil && obj.Type() == "identifier" && f.Text(obj) != "self" &&
		strings.Contains(strings.ToLower(f.Text(a.ChildByFieldName("attribute"))), "loss")
}

// lossEntry: a[k] with a a name of losses and k no constant
// (`loss[key]` in a loop over the keys of a dict of losses).
func lossEntry(f *pycheck.File, a *pycheck.Node) bool {
	obj, key := pycheck.Unparen(a.ChildByFieldName("value")), pycheck.Unparen(a.ChildByFieldName("subscript"))
	return obj != nil && obj.Type() == "identifier" && strings.Contains(strings.ToLower(f.Text(obj)), "loss") &&
		key != nil && (key.Type() == "identifier" || key.Type() == "attribute")
}

// graphKeeping are tensor methods whose result autograd connects to the
// receiver's graph.
var graphKeeping = map[string]bool{"clone": true, "mean": true, "sum": true, "float": true, "double": true, "squeeze": true,
	"view": true, "reshape": true, "unsqueeze": true, "abs": true}

// sumTerms are the terms of a sum (`recon + kl`, `a + b + c`), or e alone.
func sumTerms(f *pycheck.File, e *pycheck.Node) []*pycheck.Node {
	e = pycheck.Unparen(e)
	if e == nil {
		return nil
	}
	if e.Type() == "binary_operator" && f.Text(e.ChildByFieldName("operator")) == "+" {
		return append(sumTerms(f, e.ChildByFieldName("left")), sumTerms(f, e.ChildByFieldName("right"))...)
	}
	return []*pycheck.Node{e}
}

// unpackedCall: def is the i-th name of a tuple target bound to a call's
// result (`loss, logs = step(...)`); the call and i, or nil.
func unpackedCall(def *pycheck.Node) (*pycheck.Node, int) {
	p := upParen(def).Parent()
	if p == nil || p.Type() != "pattern_list" && p.Type() != "tuple_pattern" {
		return nil, 0
	}
	a := upParen(p).Parent()
	if a == nil || a.Type() != "assignment" || !same(a.ChildByFieldName("left"), upParen(p)) {
		return nil, 0
	}
	c := pycheck.Unparen(a.ChildByFieldName("right"))
	if c == nil || c.Type() != "call" {
		return nil, 0
	}
	for i, n := range p.NamedChildren() {
		if same(n, upParen(def)) {
			return c, i
		}
	}
	return nil, 0
}

// criterionCall: the call computes a loss with its graph, a criterion by
// its name (`self.crit(out, y)`, `loss_fn(out, y)`, `criterion(...)`) or
// one of torch.nn.functional's losses (`F.cross_entropy(out, y)`).
func criterionCall(f *pycheck.File, c *pycheck.Node) bool {
	callee := c.ChildByFieldName("function")
	if callee == nil || callee.Type() != "identifier" && callee.Type() != "attribute" {
		return false
	}
	// A criterion compares a prediction with a target; build_loss(cfg)
	// makes a criterion instead.
	if len(pycheck.PositionalArgs(c)) < 2 {
		return false
	}
	last := strings.ToLower(pycheck.LastName(f.Text(callee)))
	for _, maker := range []string{"build", "get", "make", "create", "init"} {
		if strings.HasPrefix(last, maker) {
			return false
		}
	}
	if strings.Contains(last, "loss") || strings.HasPrefix(last, "crit") {
		return true
	}
	q := f.Model().QualifiedCallee(c)
	return strings.HasPrefix(q, "torch.nn.functional.") && (strings.Contains(q, "cross_entropy") || strings.HasSuffix(q, "_loss"))
}

// dataLoop: a for loop over batches of data (`for x, y in loader`,
// `enumerate(tqdm(self.val_dataloader))`), not over the parts of one
// input (levels, heads, chunks) whose losses a loss function sums on
// purpose to backpropagate once.
func dataLoop(f *pycheck.File, loop *pycheck.Node) bool {
	if loop == nil || loop.Type() != "for_statement" || partsLoop(f, loop) || boundedLoop(f, loop, 3) {
		return false
	}
	it := strings.ToLower(f.Compact(loop.ChildByFieldName("right")))
	return containsAny(it, []string{"loader", "data", "batches"})
}

// boundAppend: the value that, bound to a name, appends the one argument
// of each call of the name to a list, for the append attribute attr in
// it: attr itself (`losses.append`) or functools.partial of the unbound
// method with the list (`partial(list.append, losses)`); and the list.
// attr and its object otherwise.
func boundAppend(f *pycheck.File, attr *pycheck.Node) (bound, list *pycheck.Node) {
	list = attr.ChildByFieldName("object")
	c := upParen(attr).Parent()
	// record = lambda v: history.append(v): the lambda appends what it is
	// given.
	if c != nil && c.Type() == "call" && same(c.ChildByFieldName("function"), upParen(attr)) {
		if lam := upParen(c).Parent(); lam != nil && lam.Type() == "lambda" && same(lam.ChildByFieldName("body"), upParen(c)) {
			args, params := pycheck.PositionalArgs(c), lam.ChildByFieldName("parameters")
			if len(args) == 1 && params != nil && params.NamedChildCount() == 1 && f.Text(pycheck.Unparen(args[0])) == f.Text(params.NamedChild(0)) {
				return lam, list
			}
		}
		return attr, list
	}
	if c == nil || c.Type() != "argument_list" || f.Text(attr) != "list.append" {
		return attr, list
	}
	call := c.Parent()
	if args := pycheck.PositionalArgs(call); f.Model().QualifiedCallee(call) == "functools.partial" && len(args) == 2 && same(args[0], upParen(attr)) {
		return call, args[1]
	}
	return attr, list
}
