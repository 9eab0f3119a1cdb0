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
		Summary:  "A tensor converted to float16 by hand (`.half()`, `.to(torch.float16)`) is summed, raised to a power, exponentiated, normed or reduced outside autocast; float16 overflows to inf above 65504.",
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
	"cumsum": true, "cumprod": true, "square": true, "matmul": true, "mm": true, "bmm": true}

func checkCD106(p *pycheck.Pass) {
	f := p.File
	var convs []*pycheck.Node
	convs = append(convs, f.CallsAt(".half(", 0, len(f.Src))...)
	for _, needle := range []string{"float16", "torch.half", "HalfTensor"} {
		for _, off := range f.Find(needle, 0, len(f.Src)) {
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
				a := pycheck.Ancestor(e, "assignment", "block", "module")
				if a == nil || a.Type() != "assignment" || !same(pycheck.Unparen(a.ChildByFieldName("right")), e) {
					continue
				}
				if name := assignedName(e); name != nil {
					for _, use := range usesAfter(f, name) {
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
			if (m == "to" || m == "type") && receiver(call) != nil && len(f.Callee(call)) > 0 {
				convs = append(convs, call)
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
		if n, what := overflowUse(f, c); n != nil {
			p.Report(n, fmt.Sprintf("%s on a tensor converted to float16 (%s) outside autocast can overflow to inf", what, shorten(f.Compact(c))))
			continue
		}
		name := assignedName(c)
		if name == nil {
			// self.x16 = x.half() in one method, self.x16.exp() in another.
			if pl := assignedPlace(f, c); pl != nil && pl.Type() == "attribute" && strings.HasPrefix(f.Text(pl), "self.") {
				if cls := pycheck.Ancestor(pl, "class_definition"); cls != nil {
					line, _ := f.LineCol(int(c.StartByte()))
					for _, use := range placeOccurrences(f, nil, pl, int(cls.StartByte()), int(cls.EndByte())) {
						if placeRebound(use) || f.ContextOf(use)&pycheck.CtxAutocast != 0 {
							continue
						}
						// A matmul accumulates in float32 on the GPU; only
						// reductions and powers of a stored half copy count.
						if n, what := overflowUse(f, use); n != nil && !strings.Contains(what, "matmul") && !strings.Contains(what, "mm()") {
							p.Report(n, fmt.Sprintf("%s on %s, converted to float16 at line %d, outside autocast can overflow to inf", what, f.Text(pl), line))
							break
						}
					}
				}
			}
			continue
		}
		for _, use := range usesAfter(f, name) {
			if f.ContextOf(use)&pycheck.CtxAutocast != 0 {
				continue
			}
			if n, what := overflowUse(f, use); n != nil {
				line, _ := f.LineCol(int(c.StartByte()))
				p.Report(n, fmt.Sprintf("%s on %s, converted to float16 at line %d, outside autocast can overflow to inf", what, f.Text(name), line))
				break
			}
		}
	}
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
			if op == "@" {
				return p, "@ (matmul)"
			}
			return nil, ""
		case "attribute":
			if m, call := methodCallOn(f, cur); call != nil && overflowMethods[m] && !wideDtype(f, call) {
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
