package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD106: overflow-prone reductions on tensors converted to float16 by hand,
// outside autocast.
var CD106 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD106",
		Name:     "fp16-overflow-reduction",
		Kind:     report.KindLint,
		Severity: report.Warning,
		Title:    "Overflow-prone reduction on a manually converted float16 tensor",
		Summary:  "A tensor converted to float16 by hand (`.half()`, `.to(torch.float16)`, `.to(self.dtype)` with an attribute holding float16: a field default, a constructor's argument, a parameter's default; `.to(dtype)` with a parameter of the function defaulting to float16, or with a name one value of a conditional expression binds to float16 (`dtype = torch.float16 if fp16 else torch.float32`); `.type_as(w)` or `.to(w)` with `w` a float16 copy; a tensor a torch factory makes with `dtype=torch.float16`, `torch.ones_like(x, dtype=torch.half)` and the other `*_like` factories included; a numpy float16 array made a tensor, `torch.from_numpy(a.astype(np.float16))`; a matrix product computed in a float16 CUDA autocast block (float16 is CUDA autocast's default dtype) and used after it; also the result of a helper of the file that returns such a copy (a lambda bound to a name included, and `functools.partial(torch.Tensor.to, dtype=torch.float16)`; what a generator yields, in the loop over it: `for c in half_chunks(x)`; a nested function reading the float16 name of its enclosing function, `def norm(): return h.norm()`; or of a `@property` returning one, read as `self.w16`), float16 copies joined with `torch.stack`/`torch.cat`, and the elements of a list or dict comprehension of float16 copies read in a loop or another comprehension, `{k: v.pow(2).sum() for k, v in halves.items()}`; a move to the GPU, `.cuda()`, keeps the dtype; the output of a module converted by hand, `net = net.half()` then `y = net(x)`, is float16 too) is summed, raised to a power, exponentiated, normed or reduced outside autocast, directly or after arithmetic that keeps it float16 (a scale, a product with itself or another float16 operand, a difference with a statistic of the same value, `x - x.mean(1)` also through a name bound to it, a matmul of float16 operands, a transpose); float16 overflows to inf above 65504. A matmul itself is not flagged: cuBLAS accumulates float16 products in float32; nor is a sum that only seeds a backward pass, `y.sum().backward()`, whose gradient is ones whatever its value.",
		Sections: []report.DocSection{
			{Title: "Why", Body: `float16's largest finite value is 65504. A sum, power, exp, norm or variance of
ordinary activations exceeds it quickly and silently becomes inf (then NaN in the
loss). Under torch.autocast the same operations run in float32 (they are on autocast's
float32 list), which is why code that was fine under autocast overflows after a manual
.half().`},
			{Title: "Example", Body: `x = torch.full((4096,), 300.0, device="cuda")
s = (x.half() ** 2).sum()      # inf`},
			{Title: "Fix", Body: `Reduce in float32: call .float() before the reduction (or pass dtype=torch.float32
to sum/mean/norm), or let torch.autocast pick per-operation precision instead of
converting by hand.`},
		},
		References: []string{
			"testdata/gpu/scenarios/s20_fp16_overflow.py and testdata/gpu/logs/h100/s20_fp16_overflow.plain.log (H100: the manual .half() sum is inf, the same sum under autocast is finite and float32)",
			"https://docs.pytorch.org/docs/stable/amp.html#cuda-ops-that-can-autocast-to-float32 (pow, exp, sum, norm, ... run in float32 under autocast)",
		},
	},
	Anchors: []string{".half(", "float16", "torch.half", "HalfTensor"},
	Check:   checkCD106,
}

var overflowMethods = map[string]bool{"sum": true, "prod": true, "pow": true, "exp": true, "norm": true, "var": true, "std": true,
	"cumsum": true, "cumprod": true, "square": true, "vector_norm": true, "matrix_norm": true}

func checkCD106(p *pycheck.Pass) {
	f := p.File
	var convs, products []*pycheck.Node
	convs = append(convs, f.CallsAt(".half(", 0, len(f.Src))...)
	for _, needle := range []string{"float16", "torch.half", "HalfTensor"} {
		for _, off := range f.Find(needle, 0, len(f.Src)) {
			// torch.bfloat16 has float32's exponent range: not a float16.
			if off > 0 && pycheck.IsIdentByte(f.Src[off-1]) {
				continue
			}
			n := f.NodeAt(off, off+len(needle))
			if n == nil {
				continue
			}
			call := pycheck.Ancestor(n, "call")
			if call == nil {
				// dtype = torch.float16 ... x.to(dtype)
				e := n
				if pa := n.Parent(); pa != nil && pa.Type() == "attribute" {
					e = pa
				}
				// def energy(x, dtype=torch.float16): x.to(dtype) converts
				// to float16 whenever the caller keeps the default.
				var name *pycheck.Node
				if pa := e.Parent(); pa != nil && (pa.Type() == "default_parameter" || pa.Type() == "typed_default_parameter") && same(pa.ChildByFieldName("value"), e) {
					name = pa.ChildByFieldName("name")
				} else if a := pycheck.Ancestor(e, "assignment", "block", "module"); a != nil && a.Type() == "assignment" && same(pycheck.Unparen(a.ChildByFieldName("right")), pycheck.Unparen(throughConditional(e))) {
					// dtype = torch.float16 if args.fp16 else torch.float32:
					// float16 on one path.
					name = assignedName(e)
				}
				if name != nil {
					uses := usesAfter(f, name)
					if fn := pycheck.Ancestor(name, "function_definition"); fn != nil && name.Parent().Type() != "assignment" {
						uses = paramUses(f, fn, name)
					}
					for _, use := range uses {
						if c := pycheck.Ancestor(use, "call"); c != nil && receiver(c) != nil {
							if m := pycheck.LastName(f.Callee(c)); m == "to" || m == "type" {
								convs = append(convs, c)
							}
						}
					}
				}
				continue
			}
			m := pycheck.LastName(f.Callee(call))
			// torch.set_default_dtype(torch.float16): the floating
			// factories after it make float16 tensors.
			if m == "set_default_dtype" && f.Model().QualifiedCallee(call) == "torch.set_default_dtype" {
				convs = append(convs, defaultDtypeFactories(f, call)...)
				continue
			}
			// to_half = partial(torch.Tensor.to, dtype=torch.float16): each
			// call of the name converts.
			if m == "partial" {
				convs = append(convs, partialCalls(f, call, "to", "type")...)
				continue
			}
			if (m == "to" || m == "type") && receiver(call) != nil && len(f.Callee(call)) > 0 {
				convs = append(convs, call)
				continue
			}
			// torch.zeros(n, dtype=torch.float16), torch.ones_like(x,
			// dtype=torch.half): made float16.
			if d := f.Keyword(call, "dtype"); d != nil && pycheck.Within(n, d) && (isFactory[m] || likeFactories[m]) && strings.HasPrefix(f.Model().QualifiedCallee(call), "torch.") {
				convs = append(convs, call)
				continue
			}
			// torch.from_numpy(a.astype(np.float16)): a numpy float16
			// array becomes a float16 tensor.
			if m == "astype" {
				if outer := dataOf(f, call); outer != nil {
					convs = append(convs, outer)
				}
				continue
			}
		}
	}
	// Matrix products computed in an autocast block that runs in float16
	// (CUDA's default autocast dtype) are float16 after it.
	for _, call := range f.CallsAt("autocast(", 0, len(f.Src)) {
		if pycheck.LastName(f.Model().QualifiedCallee(call)) == "autocast" {
			products = append(products, autocastProducts(f, call)...)
		}
	}
	// x.to(self.dtype): an attribute that holds float16 (set from a
	// parameter defaulting to it, a dataclass field, a constructor's
	// argument).
	for _, needle := range []string{".to(", ".type(", ".type_as("} {
		for _, c := range f.CallsAt(needle, 0, len(f.Src)) {
			arg := f.Keyword(c, "dtype")
			if args := pycheck.PositionalArgs(c); arg == nil && len(args) > 0 {
				arg = args[0]
			}
			if arg = pycheck.Unparen(arg); arg == nil {
				continue
			}
			// from torch import float16 as f16 ... x.to(f16)
			if arg.Type() == "identifier" {
				if q := f.Model().Qualified(arg); q == "torch.float16" || q == "torch.half" {
					convs = append(convs, c)
				} else if v := reachingValue(f, arg); v != nil && v.Type() == "call" && halfConversion(f, v) {
					// x.type_as(w), x.to(w) with w = y.half(): w's dtype.
					convs = append(convs, c)
				}
				continue
			}
			if arg.Type() != "attribute" {
				continue
			}
			// x.to(w.dtype) with w = v.half(): the dtype of a float16 tensor.
			if obj := pycheck.Unparen(arg.ChildByFieldName("object")); obj != nil && obj.Type() == "identifier" && f.Text(arg.ChildByFieldName("attribute")) == "dtype" {
				if v := reachingValue(f, obj); v != nil && v.Type() == "call" && halfConversion(f, v) {
					convs = append(convs, c)
					continue
				}
			}
			for _, v := range f.Model().AttrValues(arg) {
				if namesFloat16(f.Compact(v)) || strings.Contains(f.Compact(v), "torch.half") {
					convs = append(convs, c)
					break
				}
			}
		}
	}
	seen := map[uint32]bool{}
	for _, c := range convs {
		if seen[c.StartByte()] {
			continue
		}
		seen[c.StartByte()] = true
		if pycheck.LastName(f.Callee(c)) == "half" && len(pycheck.PositionalArgs(c)) > 0 {
			continue
		}
		if f.ContextOf(c)&pycheck.CtxAutocast != 0 {
			continue
		}
		reportHalf(p, c, c, 1)
	}
	for _, c := range products {
		reportHalf(p, c, c, 1)
	}
}

// reportHalf reports the first overflow-prone reduction outside autocast
// of the float16 value conv stands for (the conversion c itself, or a call
// of a helper returning it), following a helper's result into its callers
// depth calls deep.
func reportHalf(p *pycheck.Pass, c, conv *pycheck.Node, depth int) {
	f := p.File
	// The value stays float16 through arithmetic with scalars and
	// other float16 operands ((q.half() @ k.half().T) * scale).
	v := halfValue(f, conv)
	if n, what := overflowUse(f, v); n != nil {
		p.Report(n, fmt.Sprintf("%s on a tensor converted to float16 (%s) outside autocast can overflow to inf", what, shorten(f.Compact(c))))
		return
	}
	if depth > 0 {
		// return t.to(torch.float16): the helper's callers hold float16.
		for _, site := range callersOfReturn(f, v) {
			if f.ContextOf(site)&pycheck.CtxAutocast != 0 {
				continue
			}
			// for c in half_chunks(x): the loop target holds what the
			// generator yields.
			if pycheck.IsDef(site) {
				if n, what := halfNameUse(f, site, 2); n != nil {
					line, _ := f.LineCol(int(c.StartByte()))
					p.Report(n, fmt.Sprintf("%s on %s, converted to float16 at line %d, outside autocast can overflow to inf", what, f.Text(site), line))
					return
				}
				continue
			}
			reportHalf(p, c, site, depth-1)
		}
	}
	name := assignedName(v)
	if name == nil {
		// self.x16 = x.half() in one method, self.x16.exp() in another.
		if pl := assignedPlace(f, conv); pl != nil {
			line, _ := f.LineCol(int(c.StartByte()))
			for _, use := range f.Model().AttrReads(pl) {
				if f.ContextOf(use)&pycheck.CtxAutocast != 0 {
					continue
				}
				if n, what := overflowUse(f, use); n != nil {
					p.Report(n, fmt.Sprintf("%s on %s, converted to float16 at line %d, outside autocast can overflow to inf", what, f.Text(pl), line))
					break
				}
			}
		}
		return
	}
	if n, what := halfNameUse(f, name, 2); n != nil {
		line, _ := f.LineCol(int(c.StartByte()))
		p.Report(n, fmt.Sprintf("%s on %s, converted to float16 at line %d, outside autocast can overflow to inf", what, f.Text(name), line))
	}
}

// halfNameUse is the first overflow-prone reduction outside autocast of
// the float16 value a name holds, directly or after arithmetic that keeps
// it float16 and is bound to another name (`s = h * 4.0; s.pow(2)`),
// followed depth names deep.
func halfNameUse(f *pycheck.File, name *pycheck.Node, depth int) (*pycheck.Node, string) {
	// A nested function reading the name holds the same float16 value.
	uses := append(usesAfter(f, name), f.Flow(f.Scope(name)).ClosureUsesAfter(name, name)...)
	for _, use := range uses {
		if f.ContextOf(use)&pycheck.CtxAutocast != 0 {
			continue
		}
		// for c in halves: / {k: v.sum() for k, v in halves.items()}: each
		// element of a container of float16 tensors.
		for _, el := range elementReads(f, use) {
			if n, what := overflowUse(f, halfValue(f, el)); n != nil && f.ContextOf(el)&pycheck.CtxAutocast == 0 {
				return n, what
			}
		}
		v := halfValue(f, use)
		if n, what := overflowUse(f, v); n != nil {
			return n, what
		}
		if next := assignedName(v); depth > 0 && next != nil && f.Text(next) != f.Text(name) {
			if n, what := halfNameUse(f, next, depth-1); n != nil {
				return n, what
			}
		}
	}
	return nil, ""
}

// overflowUse follows a float16 value up through parentheses and powers to
// the first overflow-prone reduction applied to it.
func overflowUse(f *pycheck.File, n *pycheck.Node) (*pycheck.Node, string) {
	cur := n
	for {
		p := cur.Parent()
		if p == nil {
			return nil, ""
		}
		switch p.Type() {
		case "parenthesized_expression":
			cur = p
			continue
		case "binary_operator":
			op := f.Text(p.ChildByFieldName("operator"))
			if op == "**" && same(p.ChildByFieldName("left"), cur) {
				return p, "** (power)"
			}
			return nil, ""
		case "attribute":
			if m, call := methodCallOn(f, cur); call != nil && overflowMethods[m] && !wideDtype(f, call) && !(seedSums[m] && seedsBackward(f, call)) {
				return call, "." + m + "()"
			}
			return nil, ""
		case "argument_list":
			call := p.Parent()
			callee := f.Callee(call)
			if (strings.HasPrefix(callee, "torch.") || strings.HasPrefix(callee, "F.")) && overflowMethods[pycheck.LastName(callee)] && !wideDtype(f, call) {
				return call, callee + "()"
			}
			return nil, ""
		default:
			return nil, ""
		}
	}
}

// seedSums are reductions whose gradient does not depend on their value.
var seedSums = map[string]bool{"sum": true, "mean": true}

// seedsBackward: the value n only seeds a backward pass: it is summed
// (.sum(), sum(... for ...), +, one branch of a conditional) into the
// receiver of .backward(), and never read. The gradient of a sum is ones
// whatever its value, so an overflow there is harmless
// (`y.sum().backward()` to time a layer's backward).
func seedsBackward(f *pycheck.File, n *pycheck.Node) bool {
	cur := n
	for range 8 {
		cur = upParen(cur)
		p := cur.Parent()
		if p == nil {
			return false
		}
		if m, call := methodCallOn(f, cur); call != nil {
			if m == "backward" {
				return true
			}
			if !seedSums[m] {
				return false
			}
			cur = call
			continue
		}
		switch p.Type() {
		case "generator_expression":
			if !same(p.ChildByFieldName("body"), cur) {
				return false
			}
			cur = p
			if a := p.Parent(); a != nil && a.Type() == "call" && f.Callee(a) == "sum" {
				cur = a // sum(yi.sum() for yi in y)
			}
		case "argument_list":
			call := p.Parent()
			if args := pycheck.PositionalArgs(call); len(args) == 0 || !same(upParen(args[0]), cur) || f.Callee(call) != "sum" && f.Callee(call) != "torch.sum" {
				return false
			}
			cur = call
		case "conditional_expression":
			cur = p
		case "binary_operator":
			if op := f.Text(p.ChildByFieldName("operator")); op != "+" && op != "-" {
				return false
			}
			cur = p
		default:
			return false
		}
	}
	return false
}

// halfValue climbs from a float16 value through the arithmetic that keeps
// it float16: with a number, a scalar by its name (`scale`, `self.temperature`),
// a math function's result, or another float16 conversion; a matrix product
// of float16 operands is float16 too (cuBLAS accumulates it in float32, so
// the product itself is no overflow-prone reduction). It returns the
// outermost such expression.
func halfValue(f *pycheck.File, n *pycheck.Node) *pycheck.Node {
	cur := n
	for {
		p := cur.Parent()
		if p == nil {
			return cur
		}
		switch p.Type() {
		case "parenthesized_expression":
			cur = p
			continue
		case "binary_operator":
			switch f.Text(p.ChildByFieldName("operator")) {
			case "*", "/", "+", "-", "@":
			default:
				return cur
			}
			other := p.ChildByFieldName("left")
			if same(other, cur) {
				other = p.ChildByFieldName("right")
			}
			// x * x: the other operand is the same float16 value; x - u with
			// u = x.mean(1): a statistic of it, float16 as well.
			if f.Compact(pycheck.Unparen(other)) != f.Compact(pycheck.Unparen(cur)) && !keepsHalf(f, pycheck.Unparen(other)) && !sameRoot(f, other, cur) {
				return cur
			}
			cur = p
			continue
		case "attribute":
			// .transpose(), .view(), .contiguous() ... keep the dtype, and
			// so does a move to another device (.cuda(), .to("cuda")).
			if m, call := methodCallOn(f, cur); call != nil && (shapeMethods[m] || m == "cuda" || m == "to" && !changesDtype(f, call)) {
				cur = call
				continue
			}
		case "call":
			// model = model.half(); model(x): a module converted to float16
			// computes in float16 (a tensor is never called).
			if same(p.ChildByFieldName("function"), cur) {
				cur = p
				continue
			}
		case "list", "tuple":
			// [a.half(), b.half()]: a container of float16 tensors ...
			cur = p
			continue
		case "list_comprehension", "generator_expression":
			// ... or [c.half() for c in chunks] ...
			if same(p.ChildByFieldName("body"), cur) {
				cur = p
				continue
			}
		case "pair":
			// ... or {k: v.half() for k, v in feats.items()} ...
			if dc := p.Parent(); dc != nil && dc.Type() == "dictionary_comprehension" && same(p.ChildByFieldName("value"), cur) && same(dc.ChildByFieldName("body"), p) {
				cur = dc
				continue
			}
		case "argument_list":
			// ... joined into one float16 tensor.
			if args := pycheck.PositionalArgs(p.Parent()); len(args) > 0 && same(args[0], cur) && joinFuncs[f.Callee(p.Parent())] {
				cur = p.Parent()
				continue
			}
		}
		return cur
	}
}

// sameRoot: b is computed from the name a is (x.mean(1), x.max(-1).values,
// or a name bound to such a value), so it has a's dtype.
func sameRoot(f *pycheck.File, b, a *pycheck.Node) bool {
	ra := rootName(f, a)
	if ra == "" {
		return false
	}
	b = pycheck.Unparen(b)
	if b != nil && b.Type() == "identifier" && f.Text(b) != ra {
		b = reachingValue(f, b)
	}
	if b == nil || b.Type() == "identifier" {
		return false
	}
	return rootName(f, b) == ra
}

// widening methods change a tensor's dtype.
var widening = map[string]bool{"float": true, "double": true, "to": true, "type": true, "type_as": true}

// rootName is the name at the root of a chain of method calls,
// attributes and indexing (`x` of x.mean(1).values), or "".
func rootName(f *pycheck.File, n *pycheck.Node) string {
	for range 8 {
		n = pycheck.Unparen(n)
		if n == nil {
			return ""
		}
		switch n.Type() {
		case "identifier":
			return f.Text(n)
		case "attribute":
			n = n.ChildByFieldName("object")
		case "subscript":
			n = n.ChildByFieldName("value")
		case "call":
			fn := n.ChildByFieldName("function")
			// x.float().mean(): another dtype.
			if fn == nil || fn.Type() != "attribute" || widening[f.Text(fn.ChildByFieldName("attribute"))] {
				return ""
			}
			n = fn.ChildByFieldName("object")
		default:
			return ""
		}
	}
	return ""
}

// shapeMethods return a view or a reshaped copy of the same dtype.
var shapeMethods = map[string]bool{"transpose": true, "t": true, "view": true, "reshape": true, "permute": true,
	"contiguous": true, "flatten": true, "squeeze": true, "unsqueeze": true}

// joinFuncs join a sequence of tensors into one of their dtype.
var joinFuncs = map[string]bool{"torch.stack": true, "torch.cat": true, "torch.concat": true, "torch.vstack": true, "torch.hstack": true}

// scalarNames are the names code gives Python numbers it scales a tensor by.
var scalarNames = map[string]bool{"scale": true, "scaling": true, "temperature": true, "temp": true, "tau": true,
	"eps": true, "alpha": true, "beta": true, "gamma": true, "factor": true, "inv_scale": true, "softmax_scale": true}

// keepsHalf: an operand that leaves a float16 tensor float16 in arithmetic.
func keepsHalf(f *pycheck.File, n *pycheck.Node) bool {
	if n == nil {
		return false
	}
	switch n.Type() {
	case "integer", "float":
		return true
	case "identifier", "attribute":
		// w with w = v.half(): float16 with float16 stays float16.
		if v := reachingValue(f, n); n.Type() == "identifier" && v != nil && v.Type() == "call" && halfConversion(f, v) {
			return true
		}
		return scalarNames[pycheck.LastName(f.Text(n))]
	case "call":
		if strings.HasPrefix(f.Callee(n), "math.") {
			return true
		}
	}
	t := f.Compact(n)
	return strings.Contains(t, ".half()") || namesFloat16(t)
}

// floatFactories make floating-point tensors of the default dtype when
// given no dtype=.
var floatFactories = map[string]bool{"randn": true, "rand": true, "zeros": true, "ones": true, "empty": true, "full": true,
	"linspace": true, "logspace": true}

// defaultDtypeFactories are the floating factory calls without dtype= that
// run after set (a torch.set_default_dtype call to float16) in its scope:
// the module's statements below it, or, for a call that is a statement of
// a function's body (not under a branch), the rest of that function.
func defaultDtypeFactories(f *pycheck.File, set *pycheck.Node) []*pycheck.Node {
	st := pycheck.Statement(set)
	if st == nil || st.Parent() == nil {
		return nil
	}
	scope := f.Scope(set)
	if blk := st.Parent(); blk.Type() != "module" && !(blk.Type() == "block" && same(blk.Parent(), scope)) {
		return nil
	}
	var out []*pycheck.Node
	start, end := int(st.EndByte()), int(scope.EndByte())
	if st.Parent().Type() == "module" {
		end = len(f.Src)
	}
	for _, c := range f.Calls(start, end) {
		q := f.Model().QualifiedCallee(c)
		fac := strings.TrimPrefix(q, "torch.")
		if fac != q && floatFactories[fac] && !f.MayPassKeyword(c, "dtype") {
			out = append(out, c)
		}
	}
	return out
}

// halfConversion: call converts its receiver to float16 (`.half()`,
// `.to(torch.float16)`, `.type(torch.half)`).
func halfConversion(f *pycheck.File, call *pycheck.Node) bool {
	switch pycheck.LastName(f.Callee(call)) {
	case "half":
		return receiver(call) != nil && len(pycheck.PositionalArgs(call)) == 0
	case "to", "type":
		a := f.Compact(call.ChildByFieldName("arguments"))
		return namesFloat16(a) || strings.Contains(a, "torch.half")
	}
	return false
}

// namesFloat16: the text names float16 as a word of its own (bfloat16,
// which has float32's exponent range, does not count).
func namesFloat16(t string) bool {
	for i := strings.Index(t, "float16"); i >= 0; {
		if i == 0 || !pycheck.IsIdentByte(t[i-1]) {
			return true
		}
		j := strings.Index(t[i+1:], "float16")
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// wideDtype: the reduction accumulates in a wider type (sum(dtype=torch.float32)),
// which is CD106's own fix.
func wideDtype(f *pycheck.File, call *pycheck.Node) bool {
	d := f.Keyword(call, "dtype")
	if d == nil {
		return false
	}
	t := f.Compact(d)
	return strings.Contains(t, "float32") || strings.Contains(t, "float64") || strings.HasSuffix(t, ".float") || strings.HasSuffix(t, ".double")
}

// autocastProducts are the matrix products (`q @ k.T`, torch.matmul,
// mm, bmm, einsum, F.linear) assigned to a name inside the enabled
// autocast `with` block whose context manager is call, when the block
// runs on CUDA in float16 (not bfloat16, not the CPU's autocast): autocast
// computes them in float16, and they stay float16 after the block.
func autocastProducts(f *pycheck.File, call *pycheck.Node) []*pycheck.Node {
	item := call.Parent()
	if item == nil || item.Type() != "with_item" {
		return nil
	}
	w := pycheck.Ancestor(item, "with_statement")
	if w == nil {
		return nil
	}
	if t := f.Compact(call); strings.Contains(t, "bfloat16") || strings.Contains(t, "enabled=False") || strings.Contains(t, "\"cpu\"") || strings.Contains(t, "'cpu'") {
		return nil
	}
	// torch.autocast(device_type) runs in float16 on CUDA unless dtype=
	// says otherwise; torch.cuda.amp.autocast() is CUDA's.
	if d := f.Keyword(call, "dtype"); d != nil && !namesFloat16(f.Compact(d)) && !strings.Contains(f.Compact(d), "torch.half") {
		return nil
	}
	if q := f.Model().QualifiedCallee(call); q != "torch.cuda.amp.autocast" && !strings.Contains(f.Compact(call), "cuda") {
		return nil
	}
	body := w.ChildByFieldName("body")
	if body == nil {
		return nil
	}
	var out []*pycheck.Node
	for _, st := range body.NamedChildren() {
		if st.Type() != "expression_statement" || st.NamedChildCount() != 1 || st.NamedChild(0).Type() != "assignment" {
			continue
		}
		r := pycheck.Unparen(st.NamedChild(0).ChildByFieldName("right"))
		if r == nil || assignedName(r) == nil {
			continue
		}
		switch {
		case r.Type() == "binary_operator" && f.Text(r.ChildByFieldName("operator")) == "@":
		case r.Type() == "call" && matmulFuncs[f.Model().QualifiedCallee(r)]:
		default:
			continue
		}
		out = append(out, r)
	}
	return out
}

// matmulFuncs autocast runs in float16 on CUDA.
var matmulFuncs = map[string]bool{"torch.matmul": true, "torch.mm": true, "torch.bmm": true, "torch.einsum": true,
	"torch.nn.functional.linear": true, "torch.baddbmm": true, "torch.addmm": true}

// paramUses are the reads in fn's body of its parameter name that no
// assignment in the body can have rebound.
func paramUses(f *pycheck.File, fn, name *pycheck.Node) []*pycheck.Node {
	body := fn.ChildByFieldName("body")
	if body == nil {
		return nil
	}
	fl := f.Flow(fn)
	var out []*pycheck.Node
	for _, id := range f.Names(f.Text(name), int(body.StartByte()), int(body.EndByte())) {
		if !same(f.Scope(id), fn) || !fl.Contains(id) {
			continue
		}
		if len(fl.ReachingDefs(id, id)) == 0 {
			out = append(out, id)
		}
	}
	return out
}

// likeFactories make a tensor shaped like their argument, in the dtype
// given.
var likeFactories = map[string]bool{"zeros_like": true, "ones_like": true, "full_like": true, "empty_like": true,
	"rand_like": true, "randn_like": true}

// dataOf: call (arr.astype(...)) is the data a torch function makes a
// tensor of, in that data's dtype (torch.from_numpy(arr.astype(...)),
// torch.as_tensor, torch.tensor without dtype=); that function's call.
func dataOf(f *pycheck.File, call *pycheck.Node) *pycheck.Node {
	args := upParen(call).Parent()
	if args == nil || args.Type() != "argument_list" {
		return nil
	}
	outer := args.Parent()
	if outer == nil || outer.Type() != "call" || f.Keyword(outer, "dtype") != nil {
		return nil
	}
	if pa := pycheck.PositionalArgs(outer); len(pa) == 0 || !same(pycheck.Unparen(pa[0]), call) {
		return nil
	}
	switch f.Model().QualifiedCallee(outer) {
	case "torch.from_numpy", "torch.as_tensor", "torch.tensor", "torch.asarray":
		return outer
	}
	return nil
}

// changesDtype: a .to() call that names a dtype (x.to(torch.float32),
// x.to("cuda", dtype=...)), not only a device.
func changesDtype(f *pycheck.File, call *pycheck.Node) bool {
	if f.Keyword(call, "dtype") != nil {
		return true
	}
	for _, a := range pycheck.PositionalArgs(call) {
		a = pycheck.Unparen(a)
		if a.Type() == "string" {
			continue
		}
		if a.Type() == "attribute" && pycheck.LastName(f.Text(a)) == "device" {
			continue
		}
		return true
	}
	return false
}
