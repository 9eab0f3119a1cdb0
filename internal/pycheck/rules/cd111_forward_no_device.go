package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD111: tensors created in forward() on the default (CPU) device and mixed
// with the module's inputs.
var CD111 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD111",
		Name:     "forward-tensor-without-device",
		Kind:     report.KindLint,
		Severity: report.Warning,
		Title:    "Tensor created in forward() without device= and combined with the inputs",
		Summary:  "Inside an `nn.Module.forward` (or a LightningModule's `training_step`/`validation_step`/`test_step`/`predict_step`, which get batches already on the device, or a plain function of the file or a method of the module that a forward() calls, `self.scan(u, delta)`), `torch.zeros/ones/arange/randn/full/eye/linspace/randint/tensor/as_tensor(...)`, `torch.normal(..., size=...)` or a legacy typed constructor (`torch.LongTensor(data)`, always the CPU) is called without `device=` (nor a `**kwargs` mapping that may hold it, as in `**factory_kwargs`; a mapping spelt in the file, `opts = dict(dtype=x.dtype)` or `{\"dtype\": x.dtype}`, holds only its keys; `torch.tensor`/`as_tensor` only of data that evidently holds several numbers: a list literal, `list(...)`, a name or attribute of self bound to one), or `torch.from_numpy(...)` (always host memory), and the result, or what is made of it on the CPU (a method that keeps the device, in-place arithmetic and fills such as `.mul_(std)` and `.bernoulli_(p)`, arithmetic with a Python number (`1 + eps`, `2 * math.pi * t`) or with the factory's own size (`torch.arange(m) / m`), a power (`10000 ** (pos / dim)`), `torch.pow` and `torch.einsum` of CPU tensors, a list comprehension of such tensors, `torch.meshgrid`, `pad_sequence`, a tuple target it is unpacked into), is combined with other tensors (arithmetic, `torch.cat`, `matmul`, `index_select` and other indexing with it, or its own method reading it with a GPU index or mask, `alpha.gather(0, target)`, ...; `torch.outer` and other pairwise products only with a buffer or parameter of the module or an input of forward, as rotary tables do: two CPU tensors may be combined on the CPU; arithmetic with the factory's own size, `torch.arange(dim) / dim`, is not a combination): it lives on the CPU while the inputs live on the GPU. A helper that returns such a tensor (a lambda bound to a name or kept in self included, `self.init_state = lambda b: torch.zeros(1, b, h)`; `return torch.triu(torch.ones(n, n), 1)`, or a value computed from one: `return torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], -1)` with `pos = torch.arange(n)`), in this file or imported from another module of the project, counts as the factory, and so does a `@property` of the module returning one that forward() reads (`x * self.ramp`); so does handing the tensor to one of the model's layers, positionally or by keyword (`self.attn(x, x, x, attn_mask=mask)`), also an element of a layer list, through the loop over it (`for blk in self.blocks: x = blk(x, mask=mask)`), or an instance of a module class of this file (not when the call passes `device=`, which tells the layer where to compute), and so does an in-place combination on another tensor, `bias.masked_fill_(mask, v)`; a method of such a layer that returns a tensor made without device= counts as the factory (`self.cell.init_hidden(b)`). A tensor made without device= in `__init__` and kept in a plain attribute (neither a registered buffer nor a Parameter: `self.proj = torch.randn(d, d)`) (also what a helper of the file returns) is reported where it is made when forward() combines it with the inputs (`x @ self.proj.T`) or indexes it with them (`self.table[i, j]`): the module's `.to()`/`.cuda()` moves only parameters and buffers (not when forward() moves it, or the class overrides `_apply`, `to` or `cuda`).",
		Sections: []report.DocSection{
			{Title: "Why", Body: `Factory functions allocate on the default device, the CPU, whatever device the module
and its inputs are on. The first operation that mixes the two fails with "Expected all
tensors to be on the same device, but got mat1 is on cpu, different from other tensors
on cuda:0". The module works in CPU tests and breaks as soon as it runs on the GPU.`},
			{Title: "Example", Body: `def forward(self, x):
    pos = torch.arange(x.shape[1])
    return x + self.emb(pos)`},
			{Title: "Fix", Body: `Create tensors where the inputs are: torch.arange(n, device=x.device),
torch.zeros_like(x), x.new_zeros(shape); or register constants as buffers
(self.register_buffer) so .to()/.cuda() moves them with the module.`},
		},
		References: []string{
			"testdata/gpu/scenarios/s07_device_mismatch.py and testdata/gpu/logs/h100/s07_device_mismatch.plain.log (\"Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0\")",
			"https://docs.pytorch.org/docs/stable/notes/cuda.html#best-practices (device-agnostic code: create tensors with device= or *_like / new_* methods)",
		},
	},
	Anchors: []string{"def forward", "def training_step", "def validation_step", "def test_step", "def predict_step"},
	Check:   checkCD111,
}

// dataFactories copy Python or numpy data into a new tensor on the
// default device; only data that evidently holds several numbers makes
// more than a 0-dim tensor PyTorch lets combine with CUDA tensors.
// (as_tensor returns a tensor argument as it is, on its own device.)
// The legacy typed constructors (torch.LongTensor(data)) always make a
// CPU tensor.
var dataFactories = map[string]bool{"tensor": true, "as_tensor": true, "asarray": true,
	"LongTensor": true, "IntTensor": true, "FloatTensor": true, "DoubleTensor": true, "BoolTensor": true, "ByteTensor": true}

// sizedFactories make a CPU tensor only in their form with size=
// (torch.normal(0.0, std, size=shape)); given tensors, they follow them.
var sizedFactories = map[string]bool{"normal": true}

// combiners are functions whose tensor arguments must share a device.
var combiners = map[string]bool{"cat": true, "stack": true, "where": true, "matmul": true, "bmm": true, "mm": true, "einsum": true,
	"add": true, "mul": true, "sub": true, "div": true, "maximum": true, "minimum": true, "masked_fill": true, "gather": true, "bucketize": true,
	// An index tensor must be on the indexed tensor's device.
	"index_select": true, "take_along_dim": true, "index_add": true, "index_copy": true, "scatter": true, "scatter_add": true}

// sameTensorRoot: a and b are views, method results or comparisons of
// the same name (mask.float() and mask == 1); unlike CD106's rootName,
// a dtype change (float()) keeps the root: the device is what matters.
func sameTensorRoot(f *pycheck.File, a, b *pycheck.Node) bool {
	ra, rb := tensorRoot(a), tensorRoot(b)
	return ra != nil && rb != nil && f.Text(ra) == f.Text(rb)
}

func tensorRoot(e *pycheck.Node) *pycheck.Node {
	for depth := 0; e != nil && depth < 8; depth++ {
		switch e = pycheck.Unparen(e); e.Type() {
		case "identifier":
			return e
		case "call":
			e = receiver(e)
		case "subscript":
			e = e.ChildByFieldName("value")
		case "comparison_operator":
			e = e.NamedChild(0)
		default:
			return nil
		}
	}
	return nil
}

// inputRooted: e is an input of its function or the module's own
// tensor, or a view or method result of one (target.view(-1)).
func inputRooted(f *pycheck.File, e *pycheck.Node) bool {
	for e != nil {
		switch e.Type() {
		case "call":
			e = receiver(e)
		case "subscript":
			e = e.ChildByFieldName("value")
		case "attribute", "identifier":
			return moduleOrInput(f, e)
		default:
			return false
		}
		e = pycheck.Unparen(e)
	}
	return false
}

// indexArgOf are the tensor methods that read their receiver with an
// index or mask tensor, and that argument's position.
var indexArgOf = map[string]int{"gather": 1, "index_select": 1, "take_along_dim": 0, "masked_fill": 0, "masked_select": 0}

// pairCombiners combine two tensors that must share a device; positional
// tables are often built from two CPU tensors with them, so they count
// only with an operand that is the module's own (a buffer or parameter in
// self) or the forward's input.
var pairCombiners = map[string]bool{"outer": true, "ger": true, "kron": true, "dot": true, "inner": true, "cdist": true, "atan2": true, "hypot": true}

func checkCD111(p *pycheck.Pass) {
	f := p.File
	// Only a file that spells partial( may keep a factory in self.
	partials := len(f.Find("partial(", 0, len(f.Src))) > 0
	for _, fn := range deviceEntries(f) {
		start, end := int(fn.StartByte()), int(fn.EndByte())
		var m *pycheck.Model
		var modules map[string]bool
		reported := map[uint32]bool{}
		makers := f.Calls(start, end)
		// self.table with `@property def table(self)` making the tensor.
		if len(f.Find("property", 0, len(f.Src))) > 0 {
			makers = append(makers, f.Model().PropertyReads(start, end)...)
		}
		for _, call := range makers {
			var what, remedy string
			if call.Type() == "attribute" {
				if m == nil {
					m = f.Model()
					modules = submodules(f, pycheck.Ancestor(fn, "class_definition"))
				}
				s := m.PropertyRead(call)
				if s == nil || !s.ReturnsCPUTensor || !same(f.Scope(call), fn) {
					continue
				}
				what = "the property " + s.Name + ", which returns a tensor made without device=,"
				remedy = fmt.Sprintf("register the tensor as a buffer in __init__, or let %s take the device", s.Name)
			} else {
				// A cheap look at the called name before resolving it.
				callee := call.ChildByFieldName("function")
				if callee == nil {
					continue
				}
				if callee.Type() == "attribute" {
					callee = callee.ChildByFieldName("attribute")
				}
				if callee == nil || callee.Type() != "identifier" {
					continue
				}
				if m == nil {
					m = f.Model()
					modules = submodules(f, pycheck.Ancestor(fn, "class_definition"))
				}
				// what names the maker: torch.zeros(), a name bound to it or to `functools.partial(torch.zeros, dtype=...)` without device, also kept in self
				// (make = torch.zeros), or a helper (of this file or imported
				// from the project) that returns such a tensor.
				if fac, bound, ok := factoryCalled(f, m, call, callee, partials); ok {
					if !same(f.Scope(call), fn) || f.MayPassKeyword(call, "device") || bound != nil && f.MayPassKeyword(bound, "device") {
						continue
					}
					if dataFactories[fac] && !severalNumbers(f, call) || sizedFactories[fac] && f.Keyword(call, "size") == nil || scalarShape(f, call) {
						continue
					}
					what = "torch." + fac + "() without device="
					remedy = fmt.Sprintf("pass device=<input>.device to torch.%s (or use a *_like / new_* method)", fac)
					if strings.HasSuffix(fac, "Tensor") {
						what = "the legacy constructor torch." + fac + "(), which always allocates on the CPU,"
						remedy = fmt.Sprintf("use torch.tensor(..., dtype=..., device=<input>.device) instead of torch.%s", fac)
					}
					if fac == "from_numpy" {
						what = "torch.from_numpy(), which shares the array's host memory,"
						remedy = "move the tensor with .to(<input>.device), or register it as a buffer in __init__"
					}
				} else if s := m.Summary(call); s != nil && s.ReturnsCPUTensor && !s.Generator && (!s.Method || onSelf(f, call) || onOwnLayer(f, m, call, s)) && same(f.Scope(call), fn) {
					what = s.Name + "(), which returns a tensor made without device=,"
					remedy = fmt.Sprintf("let %s() take the device and create the tensor there, or move its result with .to(<input>.device)", s.Name)
				} else {
					continue
				}
			}
			val := cpuDerived(f, call, false)
			if moved(f, val) || reported[val.StartByte()] {
				continue
			}
			if n := combinedUse(f, val, modules); n != nil && !sizeOperand(f, call, n) {
				reported[val.StartByte()] = true
				p.Report(call, fmt.Sprintf("%s creates a CPU tensor that is combined with the inputs at line %d: a device mismatch on the GPU", what, line(f, n)),
					remedy)
				continue
			}
			// The names the tensor is bound to, and those bound to what is
			// derived from it on the CPU (masks = [torch.ones(n) ...];
			// mask = pad_sequence(masks)), a few bindings deep.
			names := assignedNames(val)
			list := val.Type() == "list_comprehension"
			for hop := 0; hop < 3 && len(names) > 0; hop++ {
				var next []*pycheck.Node
				nextList := false
				for _, name := range names {
					for _, use := range usesAfter(f, name) {
						// torch.cat(masks) of a list made only of CPU tensors
						// joins them on the CPU: a derivation, not a mix.
						if d := cpuDerived(f, use, list); list && !same(d, cpuDerived(f, use, false)) {
							next = append(next, assignedNames(d)...)
							continue
						}
						// b.to(x.device) moves a copy; b itself moves only where the
						// copy is bound to it again, which ends the uses above.
						if m, c := methodCallOn(f, use); c != nil && movesDevice(f, m, c) {
							continue
						}
						n := combinedUse(f, use, modules)
						if n != nil && !sizeOperand(f, call, n) {
							reported[val.StartByte()] = true
							p.Report(call, fmt.Sprintf("%s creates %s on the CPU; it is combined with other tensors at line %d: a device mismatch on the GPU", what, f.Text(name), line(f, n)),
								remedy)
							goto nextCall
						}
						d := cpuDerived(f, use, false)
						if n != nil && same(d, use) {
							// j / m with torch.arange(m): arithmetic with the
							// factory's own size is a CPU value made of it.
							d = cpuDerived(f, n, false)
						}
						if !same(d, use) && !moved(f, d) {
							// x * (1 + eps): what is made of it is combined in place.
							if n := combinedUse(f, d, modules); n != nil && !sizeOperand(f, call, n) {
								reported[val.StartByte()] = true
								p.Report(call, fmt.Sprintf("%s creates %s on the CPU; it is combined with other tensors at line %d: a device mismatch on the GPU", what, f.Text(name), line(f, n)),
									remedy)
								goto nextCall
							}
							next = append(next, assignedNames(d)...)
							nextList = nextList || d.Type() == "list_comprehension"
						}
					}
				}
				names, list = next, nextList
			}
		nextCall:
		}
		if fn.Type() == "function_definition" && pycheck.Ancestor(fn, "class_definition", "function_definition") != nil {
			if m == nil {
				m = f.Model()
				modules = submodules(f, pycheck.Ancestor(fn, "class_definition"))
			}
			plainAttrTensors(p, fn, m, modules, reported)
		}
	}
}

// plainAttrTensors reports a tensor made without device= in __init__ and
// kept in a plain attribute of self (neither a registered buffer nor a
// Parameter) that the method fn combines with other tensors: the
// module's .to()/.cuda() moves only its parameters and buffers, so the
// attribute stays on the CPU. A class that overrides _apply, to or cuda
// may move it by hand.
func plainAttrTensors(p *pycheck.Pass, fn *pycheck.Node, m *pycheck.Model, modules map[string]bool, reported map[uint32]bool) {
	f := p.File
	cls := pycheck.Ancestor(fn, "class_definition")
	if cls == nil || !same(pycheck.Ancestor(fn, "class_definition", "function_definition"), cls) {
		return
	}
	cs, ce := int(cls.StartByte()), int(cls.EndByte())
	if len(f.Find("def _apply(", cs, ce)) > 0 || len(f.Find("def to(", cs, ce)) > 0 || len(f.Find("def cuda(", cs, ce)) > 0 {
		return
	}
	// Each attribute is judged once per method: a forward() may read the
	// same attribute many times.
	skip := map[string]bool{}
	for _, off := range f.Find("self.", int(fn.StartByte()), int(fn.EndByte())) {
		n := f.NodeAt(off, off+len("self"))
		if n == nil || n.Type() != "identifier" {
			continue
		}
		a := n.Parent()
		if a == nil || a.Type() != "attribute" || !same(a.ChildByFieldName("object"), n) || placeRebound(a) || !same(f.Scope(a), fn) || skip[f.Text(a)] {
			continue
		}
		vals := m.AttrValues(a)
		if len(vals) != 1 {
			continue
		}
		v := pycheck.Unparen(vals[0])
		init := pycheck.Ancestor(v, "function_definition")
		if v == nil || reported[v.StartByte()] || init == nil || f.Text(init.ChildByFieldName("name")) != "__init__" || !same(pycheck.Ancestor(init, "class_definition"), cls) {
			skip[f.Text(a)] = true
			continue
		}
		name := f.Text(a.ChildByFieldName("attribute"))
		if len(f.Find(`"`+name+`"`, cs, ce)) > 0 || len(f.Find(`'`+name+`'`, cs, ce)) > 0 || !m.CPUValue(v, init) && !cpuHelperCall(f, m, v) {
			// register_buffer("b", self.b) or setattr(self, "b", ...) may
			// make it a buffer.
			skip[f.Text(a)] = true
			continue
		}
		if moved(f, a) {
			continue
		}
		u := combinedUse(f, a, modules)
		if u == nil {
			u = indexedByInput(f, a)
		}
		if u != nil {
			reported[v.StartByte()] = true
			p.Report(v, fmt.Sprintf("self.%s is a tensor made without device= in __init__ and kept as a plain attribute, which the module's .to()/.cuda() does not move; it is combined with the inputs at line %d: a device mismatch on the GPU", name, line(f, u)),
				fmt.Sprintf(`register it as a buffer (self.register_buffer("%s", ...)) so it moves with the module`, name))
		}
	}
}

// cpuDerived is the outermost expression around n that holds n's CPU
// tensor, or what is made of it on the same device: torch.triu(n, 1),
// n.bool(), a list comprehension of n, torch.meshgrid(n, m),
// pad_sequence(n). Functions that combine (torch.cat) are uses, not
// derivations, except of a list made only of CPU tensors (list: n is
// one, torch.cat([torch.full(...) for ...]) and torch.cat(labels) with
// labels such a list).
func cpuDerived(f *pycheck.File, n *pycheck.Node, list bool) *pycheck.Node {
	val := n
	for {
		up := upParen(val)
		pr := up.Parent()
		if pr != nil && pr.Type() == "argument_list" {
			if outer := pr.Parent(); outer != nil && outer.Type() == "call" {
				q := f.Model().QualifiedCallee(outer)
				last := pycheck.LastName(q)
				if pycheck.SameDeviceFuncs[q] && !combiners[last] && !pairCombiners[last] {
					val, list = outer, false
					continue
				}
				if args := pycheck.PositionalArgs(outer); list && pycheck.SameDeviceFuncs[q] && len(args) == 1 && same(pycheck.Unparen(args[0]), up) {
					val, list = outer, false
					continue
				}
			}
		}
		if pr != nil && pr.Type() == "list_comprehension" && same(pr.ChildByFieldName("body"), up) {
			val, list = pr, true
			continue
		}
		// 1 + eps, eps * 0.5, -eps: arithmetic with a Python number stays
		// on the CPU.
		// A power stays on the CPU too: 10000 ** (pos / dim), sigma ** j
		// (a tensor base on the GPU would fail there, not be combined).
		if pr != nil && !list && (pr.Type() == "unary_operator" || pr.Type() == "binary_operator" && (numberOperand(f, pr, up) || f.Text(pr.ChildByFieldName("operator")) == "**")) {
			val = pr
			continue
		}
		// torch.rand(n) >= p: a comparison with a number is a mask on the
		// same device (with a CUDA tensor it fails right there).
		if pr != nil && !list && pr.Type() == "comparison_operator" && pr.NamedChildCount() == 2 {
			val = pr
			continue
		}
		if mname, c := methodCallOn(f, up); c != nil && (pycheck.KeepsDevice[mname] || (mname == "to" || mname == "type") && !movesDevice(f, mname, c)) {
			val, list = c, false
			continue
		}
		return val
	}
}

// numberOperand: the other operand of the binary operator op than x is a
// number: a literal, a constant of math or numpy (2 * np.pi), or
// arithmetic of those.
func numberOperand(f *pycheck.File, op, x *pycheck.Node) bool {
	for _, side := range []string{"left", "right"} {
		o := op.ChildByFieldName(side)
		if o == nil || same(o, x) {
			continue
		}
		return numberExpr(f, o, 4)
	}
	return false
}

// mathConstants are the numbers math and numpy name.
var mathConstants = map[string]bool{"math.pi": true, "math.e": true, "math.tau": true, "numpy.pi": true, "numpy.e": true}

func numberExpr(f *pycheck.File, e *pycheck.Node, depth int) bool {
	e = pycheck.Unparen(e)
	if e == nil || depth < 0 {
		return false
	}
	switch e.Type() {
	case "integer", "float":
		return true
	case "attribute":
		return mathConstants[f.Model().Qualified(e)]
	case "unary_operator":
		return numberExpr(f, e.ChildByFieldName("argument"), depth-1)
	case "binary_operator":
		return numberExpr(f, e.ChildByFieldName("left"), depth-1) && numberExpr(f, e.ChildByFieldName("right"), depth-1)
	case "call":
		// grid.max().item(), float(scale): a Python number.
		callee := e.ChildByFieldName("function")
		args := e.ChildByFieldName("arguments")
		if callee != nil && callee.Type() == "attribute" && f.Text(callee.ChildByFieldName("attribute")) == "item" && args != nil && args.NamedChildCount() == 0 {
			return true
		}
		return callee != nil && callee.Type() == "identifier" && (f.Text(callee) == "float" || f.Text(callee) == "int")
	case "identifier":
		// scale = 0.5 in the function, or minus_inf = -10000.0 at the
		// top of the module (every binding of it there a number).
		if v := reachingValue(f, e); v != nil {
			return numberExpr(f, v, depth-1)
		}
		if len(f.Flow(f.Scope(e)).ReachingDefs(e, e)) != 0 {
			return false
		}
		found := false
		for _, n := range f.Names(f.Text(e), 0, len(f.Src)) {
			a := n.Parent()
			if a == nil || a.Type() != "assignment" || !same(a.ChildByFieldName("left"), n) || f.Scope(a).Type() != "module" {
				continue
			}
			if r := a.ChildByFieldName("right"); r == nil || r.Type() == "identifier" || !numberExpr(f, r, 2) {
				return false
			}
			found = true
		}
		return found
	}
	return false
}

// assignedNames are the names an assignment binds val to: the name, or
// each name of a tuple target (ys, xs = torch.meshgrid(...)).
func assignedNames(val *pycheck.Node) []*pycheck.Node {
	if n := assignedName(val); n != nil {
		return []*pycheck.Node{n}
	}
	a := upParen(val).Parent()
	if a == nil || a.Type() != "assignment" || !same(a.ChildByFieldName("right"), upParen(val)) {
		return nil
	}
	l := a.ChildByFieldName("left")
	if l == nil || l.Type() != "pattern_list" && l.Type() != "tuple_pattern" {
		return nil
	}
	var out []*pycheck.Node
	for _, n := range l.NamedChildren() {
		if n.Type() == "identifier" {
			out = append(out, n)
		}
	}
	return out
}

// lightningSteps are the LightningModule methods Lightning calls with
// each batch already moved to the module's device.
var lightningSteps = map[string]bool{"training_step": true, "validation_step": true, "test_step": true, "predict_step": true}

// deviceEntries are the functions of the file that run on the module's
// device: the forward() of a class, the step methods of a
// LightningModule, and the plain functions of the file a forward() calls
// (`return causal_attention(q, k, v)`), which compute with its inputs.
func deviceEntries(f *pycheck.File) []*pycheck.Node {
	var out []*pycheck.Node
	seen := map[uint32]bool{}
	add := func(fn *pycheck.Node) {
		if !seen[fn.StartByte()] {
			seen[fn.StartByte()] = true
			out = append(out, fn)
		}
	}
	for _, needle := range []string{"def forward", "_step"} {
		for _, off := range f.Find(needle, 0, len(f.Src)) {
			fn := f.NodeAt(off, off+len(needle))
			if fn != nil && fn.Type() != "function_definition" {
				fn = pycheck.Ancestor(fn, "function_definition")
			}
			if fn == nil || fn.ChildByFieldName("name") == nil || !pycheck.Within(f.NodeAt(off, off+len(needle)), fn.ChildByFieldName("name")) && needle == "_step" {
				continue
			}
			name := f.Text(fn.ChildByFieldName("name"))
			cls := pycheck.Ancestor(fn, "class_definition")
			if cls == nil || !same(pycheck.Ancestor(fn, "class_definition", "function_definition"), cls) {
				continue
			}
			switch {
			case name == "forward" && needle == "def forward":
			case lightningSteps[name] && lightningModule(f, cls):
			default:
				continue
			}
			add(fn)
			if name != "forward" {
				continue
			}
			m := f.Model()
			for _, call := range f.Calls(int(fn.StartByte()), int(fn.EndByte())) {
				callee := call.ChildByFieldName("function")
				if callee == nil || !same(f.Scope(call), fn) {
					continue
				}
				// A method of the module that forward() calls on self
				// (self.scan(u, delta)) computes with its inputs too; one
				// hop, so each method is entered at most once per caller.
				method := callee.Type() == "attribute" && onSelf(f, call)
				if callee.Type() != "identifier" && !method {
					continue
				}
				s := m.Summary(call)
				if s == nil || s.Method != method || s.Node == nil || s.Node.Tree() != f.Tree || s.Node.Type() != "function_definition" {
					continue
				}
				if owner := pycheck.Ancestor(s.Node, "class_definition", "function_definition"); method && !same(owner, cls) || !method && owner != nil {
					continue
				}
				add(s.Node)
			}
		}
	}
	return out
}

// lightningModule: the class derives from a LightningModule by name.
func lightningModule(f *pycheck.File, cls *pycheck.Node) bool {
	bases := cls.ChildByFieldName("superclasses")
	if bases == nil {
		return false
	}
	for _, b := range bases.NamedChildren() {
		if (b.Type() == "identifier" || b.Type() == "attribute") && strings.HasSuffix(pycheck.LastName(f.Model().Qualified(b)), "LightningModule") {
			return true
		}
	}
	return false
}

// sizeOperand: the combination is arithmetic with a name the factory call
// took as its size (`torch.arange(dim) / dim`), a Python number.
func sizeOperand(f *pycheck.File, call, n *pycheck.Node) bool {
	if n.Type() != "binary_operator" {
		return false
	}
	for _, side := range []string{"left", "right"} {
		o := pycheck.Unparen(n.ChildByFieldName(side))
		if o == nil || o.Type() != "identifier" && o.Type() != "attribute" {
			continue
		}
		for _, a := range pycheck.PositionalArgs(call) {
			if f.Compact(a) == f.Compact(o) {
				return true
			}
		}
	}
	return false
}

// isFactory are the torch functions that make a tensor on the default
// device unless told otherwise.
var isFactory = func() map[string]bool {
	m := map[string]bool{}
	for f := range pycheck.CPUFactories {
		m[f] = true
	}
	for f := range dataFactories {
		m[f] = true
	}
	for f := range sizedFactories {
		m[f] = true
	}
	return m
}()

// reducesInPlace are reductions whose result stays on the tensor's device.
var reducesInPlace = map[string]bool{"sum": true, "mean": true, "cumsum": true, "prod": true, "clone": true, "contiguous": true,
	"flatten": true, "squeeze": true, "permute": true}

// submodules are the attributes a class assigns nn.* layers to in its
// methods (self.lstm = nn.LSTM(...)): their weights live with the model.
func submodules(f *pycheck.File, cls *pycheck.Node) map[string]bool {
	out := map[string]bool{}
	if cls == nil {
		return out
	}
	m := f.Model()
	for _, off := range f.Find("self.", int(cls.StartByte()), int(cls.EndByte())) {
		n := f.NodeAt(off, off+len("self"))
		if n == nil || n.Type() != "identifier" {
			continue
		}
		a := n.Parent()
		if a == nil || a.Type() != "attribute" || !placeRebound(a) {
			continue
		}
		rhs := pycheck.Unparen(a.Parent().ChildByFieldName("right"))
		if rhs == nil || rhs.Type() != "call" {
			continue
		}
		if q := m.QualifiedCallee(rhs); strings.HasPrefix(q, "torch.nn.") || strings.HasPrefix(q, "nn.") {
			out[f.Text(a)] = true
		} else if c := localClass(f, rhs); c != nil && len(f.Find("def forward(", int(c.StartByte()), int(c.EndByte()))) > 0 {
			// self.cell = ConvLSTMCell(...): a module class of this file.
			out[f.Text(a)] = true
		}
	}
	return out
}

func line(f *pycheck.File, n *pycheck.Node) int {
	l, _ := f.LineCol(int(n.StartByte()))
	return l
}

// severalNumbers: the data torch.tensor(data) copies evidently holds more
// than one number (torch.tensor(1.0) is a 0-dim CPU tensor, which PyTorch
// lets combine with CUDA tensors): a list or tuple literal or
// comprehension, list(...)/tuple(...), or a name or attribute of self
// bound only to such values (self.channels = list(channels)). Any other
// name or expression is usually a Python scalar, or for as_tensor a
// tensor already on its device.
func severalNumbers(f *pycheck.File, call *pycheck.Node) bool {
	args := pycheck.PositionalArgs(call)
	if len(args) == 0 {
		return false
	}
	return listValue(f, pycheck.Unparen(args[0]), 2)
}

func listValue(f *pycheck.File, e *pycheck.Node, depth int) bool {
	if e == nil || depth < 0 {
		return false
	}
	switch e.Type() {
	case "list", "tuple", "list_comprehension":
		return true
	case "call":
		c := f.Callee(e)
		return c == "list" || c == "tuple"
	case "identifier":
		defs := f.Flow(f.Scope(e)).ReachingDefs(e, e)
		for _, d := range defs {
			if !listValue(f, pycheck.Unparen(defValue(d)), depth-1) {
				return false
			}
		}
		return len(defs) > 0
	case "attribute":
		if f.Text(e.ChildByFieldName("object")) != "self" {
			return false
		}
		vals := f.Model().AttrValues(e)
		for _, v := range vals {
			if !listValue(f, pycheck.Unparen(v), depth-1) {
				return false
			}
		}
		return len(vals) > 0
	}
	return false
}

// factoryCalled is the torch factory a call makes its tensor with:
// torch.zeros(...), zeros(...) imported from torch, or a local name the
// factory reaches the call in (make = torch.zeros; make(n)), or a name or
// (where the file spells partial(: partials) an attribute of self bound
// to functools.partial of it, returned as bound, whose keywords the call
// passes too.
func factoryCalled(f *pycheck.File, m *pycheck.Model, call, name *pycheck.Node, partials bool) (fac string, bound *pycheck.Node, ok bool) {
	var q string
	fn := call.ChildByFieldName("function")
	var v *pycheck.Node
	if isFactory[f.Text(name)] {
		q = m.QualifiedCallee(call)
	}
	switch {
	case strings.HasPrefix(q, "torch."):
	case fn != nil && fn.Type() == "identifier":
		v = reachingValue(f, fn)
	case partials && fn != nil && fn.Type() == "attribute" && f.Text(fn.ChildByFieldName("object")) == "self":
		// self.zeros = functools.partial(torch.zeros, dtype=...) in __init__.
		if vs := m.AttrValues(fn); len(vs) == 1 {
			v = pycheck.Unparen(vs[0])
		}
	}
	if v != nil && v.Type() == "attribute" && fn.Type() == "identifier" {
		q = m.Qualified(v)
	}
	// make = functools.partial(torch.zeros, dtype=torch.float32): a call of
	// make is a call of the factory with the partial's keywords too.
	if v != nil && v.Type() == "call" && m.QualifiedCallee(v) == "functools.partial" {
		if args := pycheck.PositionalArgs(v); len(args) > 0 {
			q, bound = m.Qualified(pycheck.Unparen(args[0])), v
		}
	}
	fac = strings.TrimPrefix(q, "torch.")
	return fac, bound, fac != q && isFactory[fac]
}

// moved: the factory result is moved right away (.to(...), .cuda(), .type_as(...)).
func moved(f *pycheck.File, call *pycheck.Node) bool {
	m, c := methodCallOn(f, upParen(call))
	return c != nil && movesDevice(f, m, c)
}

// movesDevice: the method call m (c) may put its receiver on another
// device; .to(x.dtype) or .to(torch.float16) changes only the dtype.
func movesDevice(f *pycheck.File, m string, c *pycheck.Node) bool {
	switch m {
	case "cuda", "type_as":
		return true
	case "type":
		// .type(torch.float32) keeps the device, .type(torch.FloatTensor)
		// puts the tensor on the CPU, .type(x.type()) follows x.
		args := pycheck.PositionalArgs(c)
		return len(args) == 0 || !namesDtype(f, pycheck.Unparen(args[0])) && !cpuTensorType(f, pycheck.Unparen(args[0]))
	case "to":
		if f.Keyword(c, "device") != nil {
			return true
		}
		args := pycheck.PositionalArgs(c)
		return len(args) == 0 || !namesDtype(f, pycheck.Unparen(args[0]))
	}
	return false
}

// cpuTensorType: e names a CPU tensor type, torch.FloatTensor or the
// string 'torch.FloatTensor' (the CUDA ones are torch.cuda.*).
func cpuTensorType(f *pycheck.File, e *pycheck.Node) bool {
	if e == nil {
		return false
	}
	var q string
	switch e.Type() {
	case "attribute":
		q = f.Model().Qualified(e)
	case "string":
		q = strings.Trim(f.Text(e), `'"`)
	default:
		return false
	}
	fac := strings.TrimPrefix(q, "torch.")
	return fac != q && !strings.Contains(fac, ".") && strings.HasSuffix(fac, "Tensor") && dataFactories[fac]
}

// namesDtype: e spells a dtype (torch.float16, x.dtype, self.dtype).
func namesDtype(f *pycheck.File, e *pycheck.Node) bool {
	if e == nil || e.Type() != "attribute" {
		return false
	}
	last := pycheck.LastName(f.Text(e))
	if last == "dtype" {
		return true
	}
	q := f.Model().Qualified(e)
	return strings.HasPrefix(q, "torch.") && (strings.Contains(last, "float") || strings.Contains(last, "int") || last == "half" || last == "double" || last == "bool" || last == "long")
}

// combinedUse is the expression that mixes n with other tensors, or nil.
func combinedUse(f *pycheck.File, n *pycheck.Node, modules map[string]bool) *pycheck.Node {
	cur := upParen(n)
	// mask.unsqueeze(-1), mask.sum(1): a method that keeps the device
	// leaves the value on the CPU.
	for {
		mname, c := methodCallOn(f, cur)
		if c == nil || !pycheck.KeepsDevice[mname] && !reducesInPlace[mname] {
			break
		}
		cur = upParen(c)
	}
	// Indexing and views keep the device: pos[None], w.T are still on the CPU.
	for p := cur.Parent(); p != nil; p = cur.Parent() {
		if p.Type() == "subscript" && same(p.ChildByFieldName("value"), cur) ||
			p.Type() == "attribute" && same(p.ChildByFieldName("object"), cur) && viewAttrs[f.Text(p.ChildByFieldName("attribute"))] && !isCallee(p) {
			cur = upParen(p)
			continue
		}
		break
	}
	p := cur.Parent()
	if p == nil {
		return nil
	}
	switch p.Type() {
	case "attribute":
		// alpha.gather(0, target): the index a CPU tensor is read with
		// must be on its device; a tensor index that is not a CPU value
		// is a mix.
		if call := p.Parent(); call != nil && call.Type() == "call" && same(call.ChildByFieldName("function"), p) && same(p.ChildByFieldName("object"), cur) {
			if pos, ok := indexArgOf[f.Text(p.ChildByFieldName("attribute"))]; ok {
				if args := pycheck.PositionalArgs(call); pos < len(args) {
					if a := pycheck.Unparen(args[pos]); a != nil && inputRooted(f, a) && !f.Model().CPUValue(a, f.Scope(call)) {
						return call
					}
				}
			}
		}
	case "binary_operator":
		switch f.Text(p.ChildByFieldName("operator")) {
		case "+", "-", "*", "/", "@", "//", "%":
			other := p.ChildByFieldName("left")
			if same(other, cur) {
				other = p.ChildByFieldName("right")
			}
			if o := pycheck.Unparen(other); o != nil && numberExpr(f, o, 4) {
				return nil
			}
			// t * freqs with freqs = torch.arange(...) too: both on the CPU.
			if f.Model().CPUValue(other, f.Scope(p)) {
				return nil
			}
			return p
		}
	case "argument_list", "list", "tuple":
		call := pycheck.Ancestor(cur, "call")
		if call == nil {
			return nil
		}
		callee := f.Callee(call)
		// mask.masked_fill(mask == 1, v): the receiver made of the same
		// CPU tensor is on the CPU too.
		if combiners[pycheck.LastName(callee)] && (strings.HasPrefix(callee, "torch.") || receiver(call) != nil && !sameTensorRoot(f, receiver(call), cur)) {
			return call
		}
		// bias.masked_fill_(mask, v): the in-place form, unless the
		// receiver is a CPU tensor too.
		if r := receiver(call); r != nil && combiners[strings.TrimSuffix(pycheck.LastName(callee), "_")] && strings.HasSuffix(callee, "_") && !f.Model().CPUValue(r, f.Scope(call)) {
			return call
		}
		if pairCombiners[pycheck.LastName(callee)] && strings.HasPrefix(callee, "torch.") {
			for _, a := range pycheck.PositionalArgs(call) {
				if a = pycheck.Unparen(a); !same(a, cur) && moduleOrInput(f, a) {
					return call
				}
			}
		}
		// self.lstm(x, (h0, c0)), self.pos(positions): a layer of the model.
		if layerCall(f, call, modules) || functionalOp(f, call) {
			return call
		}
	case "keyword_argument":
		// self.attn(x, x, x, attn_mask=mask): a layer of the model;
		// F.cross_entropy(logits, y, weight=w): a functional op.
		if args := p.Parent(); args != nil && args.Type() == "argument_list" && same(p.ChildByFieldName("value"), cur) {
			if call := args.Parent(); call != nil && call.Type() == "call" && (layerCall(f, call, modules) || functionalOp(f, call)) {
				return call
			}
		}

	}
	return nil
}

// viewAttrs are tensor attributes that view the tensor on its device.
var viewAttrs = map[string]bool{"T": true, "mT": true, "H": true, "mH": true, "data": true, "real": true, "imag": true}

// isCallee: n is the function a call calls.
func isCallee(n *pycheck.Node) bool {
	p := n.Parent()
	return p != nil && p.Type() == "call" && same(p.ChildByFieldName("function"), n)
}

// layerCall: the call runs one of the model's layers: self.lstm(...),
// an element of a layer list, self.blocks[i](...), or the name a loop
// over one binds (for layer in self.layers: / enumerate(self.layers)).
func layerCall(f *pycheck.File, call *pycheck.Node, modules map[string]bool) bool {
	fn := call.ChildByFieldName("function")
	// self.rope(ids, device=x.device): a layer told where to compute
	// moves what it is given there.
	if fn == nil || f.Keyword(call, "device") != nil {
		return false
	}
	if modules[f.Text(fn)] {
		return true
	}
	switch fn.Type() {
	case "subscript":
		return modules[f.Text(fn.ChildByFieldName("value"))]
	case "identifier":
		for _, d := range f.Flow(f.Scope(fn)).ReachingDefs(fn, fn) {
			loop := pycheck.Ancestor(d, "for_statement")
			if loop == nil || !pycheck.Within(d, loop.ChildByFieldName("left")) {
				continue
			}
			it := pycheck.Unparen(loop.ChildByFieldName("right"))
			if it != nil && it.Type() == "call" && f.Callee(it) == "enumerate" {
				if args := pycheck.PositionalArgs(it); len(args) > 0 {
					it = pycheck.Unparen(args[0])
				}
			}
			if it != nil && modules[f.Text(it)] {
				return true
			}
		}
	}
	return false
}

// functionalOp: a torch.nn.functional op given the forward's input or
// the module's own tensors beside the one asked about: the layers'
// functional forms compute with all their tensor arguments on one device.
func functionalOp(f *pycheck.File, call *pycheck.Node) bool {
	if !strings.HasPrefix(f.Model().QualifiedCallee(call), "torch.nn.functional.") {
		return false
	}
	args := call.ChildByFieldName("arguments")
	if args == nil {
		return false
	}
	for _, a := range args.NamedChildren() {
		if a.Type() == "keyword_argument" {
			a = a.ChildByFieldName("value")
		}
		if a = pycheck.Unparen(a); a != nil && (a.Type() == "identifier" || a.Type() == "attribute") && !factoryMade(f, a) {
			return true
		}
		// F.mse_loss(self.model(x, t), noise): the output of a layer of
		// the module is on its device.
		if a != nil && a.Type() == "call" && onSelf(f, a) && a.ChildByFieldName("function").Type() == "attribute" {
			return true
		}
	}
	return false
}

// factoryMade: the name a holds a tensor made by a torch factory here.
func factoryMade(f *pycheck.File, a *pycheck.Node) bool {
	if a.Type() != "identifier" {
		return false
	}
	for _, d := range f.Flow(f.Scope(a)).ReachingDefs(a, a) {
		if v := pycheck.Unparen(defValue(d)); v != nil && v.Type() == "call" && isFactory[strings.TrimPrefix(f.Model().QualifiedCallee(v), "torch.")] {
			return true
		}
	}
	return false
}

// scalarShape: a size of () or [] makes a 0-dim tensor, which combines with
// CUDA tensors without error.
func scalarShape(f *pycheck.File, call *pycheck.Node) bool {
	if sz := f.Keyword(call, "size"); sz != nil {
		t := f.Compact(sz)
		return t == "()" || t == "[]"
	}
	for _, a := range pycheck.PositionalArgs(call) {
		if t := f.Compact(a); t == "()" || t == "[]" {
			return true
		}
	}
	return false
}

// onSelf: a method call on self (`self.causal_mask(n)`), which reaches
// the class's own method, a @staticmethod helper among them.
func onSelf(f *pycheck.File, call *pycheck.Node) bool {
	r := receiver(call)
	return r != nil && r.Type() == "identifier" && f.Text(r) == "self"
}

// cpuHelperCall: v calls a plain function of the file (or a method of
// self) that returns a tensor made without device=.
func cpuHelperCall(f *pycheck.File, m *pycheck.Model, v *pycheck.Node) bool {
	if v.Type() != "call" {
		return false
	}
	s := m.Summary(v)
	return s != nil && s.ReturnsCPUTensor && !s.Generator && (!s.Method || onSelf(f, v))
}

// indexedByInput: a is indexed with an input of the function it is read
// in (`self.table[i, j]` with i a parameter of forward): a CPU tensor
// indexed with CUDA indices fails.
func indexedByInput(f *pycheck.File, a *pycheck.Node) *pycheck.Node {
	p := upParen(a).Parent()
	if p == nil || p.Type() != "subscript" || !same(p.ChildByFieldName("value"), upParen(a)) || pycheck.IsDef(p) {
		return nil
	}
	for _, id := range p.NamedChildren() {
		if same(id, upParen(a)) {
			continue
		}
		if id = pycheck.Unparen(id); id != nil && id.Type() == "identifier" && moduleOrInput(f, id) {
			return p
		}
	}
	return nil
}

// onOwnLayer: a method call on a layer of self that is an instance of a
// class of this file (`self.cell.init_hidden(b)` with `self.cell =
// ConvLSTMCell(...)`) whose method s is.
func onOwnLayer(f *pycheck.File, m *pycheck.Model, call *pycheck.Node, s *pycheck.FuncSummary) bool {
	r := pycheck.Unparen(receiver(call))
	if r == nil || r.Type() != "attribute" || f.Text(r.ChildByFieldName("object")) != "self" || s.Node == nil || s.Node.Tree() != f.Tree {
		return false
	}
	owner := pycheck.Ancestor(s.Node, "class_definition")
	vals := m.AttrValues(r)
	if owner == nil || len(vals) != 1 {
		return false
	}
	v := pycheck.Unparen(vals[0])
	return v != nil && v.Type() == "call" && same(localClass(f, v), owner)
}

// localClass is the class of this file a call constructs (`Cell(...)`),
// or nil: the model's class of that name.
func localClass(f *pycheck.File, call *pycheck.Node) *pycheck.Node {
	fn := call.ChildByFieldName("function")
	if fn == nil || fn.Type() != "identifier" {
		return nil
	}
	return f.Model().Class(f.Text(fn))
}

// moduleOrInput: e is an attribute of self (a buffer or parameter of the
// module) or a parameter of the function it is in (an input).
func moduleOrInput(f *pycheck.File, e *pycheck.Node) bool {
	switch e.Type() {
	case "attribute":
		return f.Text(e.ChildByFieldName("object")) == "self"
	case "identifier":
		fn := f.Scope(e)
		if fn.Type() != "function_definition" {
			return false
		}
		for _, d := range f.Flow(fn).ReachingDefs(e, e) {
			if pycheck.Ancestor(d, "parameters") == nil {
				return false
			}
		}
		ps := fn.ChildByFieldName("parameters")
		return ps != nil && len(f.Names(f.Text(e), int(ps.StartByte()), int(ps.EndByte()))) > 0
	}
	return false
}
