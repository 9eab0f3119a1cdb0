package rules

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pylint"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD109: in-place write to the output of an op whose backward reads that
// output.
var CD109 = &pylint.Rule{
	Code:     "CD109",
	Name:     "inplace-on-saved-output",
	Severity: report.Warning,
	Anchors:  []string{"sigmoid(", "tanh(", "exp(", "softmax(", "relu(", "sqrt("},
	// gradsInPlay needs one of these in the function.
	AlsoAnchors: []string{"def forward", "loss", "train", "requires_grad", ".backward(", "autograd.grad("},
	Doc: pylint.Doc{
		Title:   "In-place write to an output that autograd saved for backward",
		Summary: "The result of sigmoid, tanh, exp, softmax, log_softmax, relu, sqrt or rsqrt is modified in place (masked or slice assignment, `+=`, `clamp_`, another in-place method) while gradients are enabled.",
		Why: `These operations save their own output to compute the gradient. An in-place write
bumps the tensor's version counter, and backward() then fails with "one of the
variables needed for gradient computation has been modified by an inplace operation:
[...], which is output 0 of SigmoidBackward0, is at version 1; expected version 0".`,
		Example: `y = torch.sigmoid(x)
y[y > 0.9] = 0
y.sum().backward()      # RuntimeError`,
		Fix: `Write out of place: y = y.masked_fill(mask, 0), y = torch.where(mask, 0, y),
y = y + 1, y = y.clamp(...); or clone first (y = torch.sigmoid(x).clone()). Under
torch.no_grad() the write is fine.`,
		References: []string{
			"testdata/gpu/scenarios/s22_inplace_autograd.py and testdata/gpu/logs/h100/s22_inplace_autograd.plain.log (\"modified by an inplace operation ... output 0 of SigmoidBackward0\")",
			"https://docs.pytorch.org/docs/stable/notes/autograd.html#in-place-operations-with-autograd (in-place ops on saved tensors are detected by version counters and raise)",
		},
	},
	Check: checkCD109,
}

var savesOutput = map[string]bool{"sigmoid": true, "tanh": true, "exp": true, "softmax": true, "log_softmax": true, "relu": true,
	"sqrt": true, "rsqrt": true}

func checkCD109(p *pylint.Pass) {
	f := p.File
	seen := map[uint32]bool{}
	for name := range savesOutput {
		for _, call := range f.CallsAt(name+"(", 0, len(f.Src)) {
			callee := f.Callee(call)
			if pylint.LastName(callee) != name || seen[call.StartByte()] {
				continue
			}
			seen[call.StartByte()] = true
			// torch.sigmoid(x), F.relu(x), x.sigmoid(); not math.exp or np.exp.
			if strings.HasPrefix(callee, "math.") || strings.HasPrefix(callee, "np.") || strings.HasPrefix(callee, "numpy.") || callee == name {
				continue
			}
			if kw := f.Keyword(call, "inplace"); f.IsTrue(kw) {
				continue
			}
			out := assignedName(call)
			if out == nil || f.ContextOf(call)&pylint.CtxNoGrad != 0 {
				continue
			}
			scope := f.Scope(call)
			if !gradsInPlay(f, scope) {
				continue
			}
			for _, use := range usesAfter(f, scope, f.Text(out), int(pylint.Statement(call).EndByte())) {
				n, what := mutation(f, use)
				if n == nil {
					continue
				}
				if f.ContextOf(n)&pylint.CtxNoGrad != 0 {
					break
				}
				line, _ := f.LineCol(int(call.StartByte()))
				p.Report(n, fmt.Sprintf("%s modifies %s in place, but %s (line %d) saved it for backward: backward() will raise \"modified by an inplace operation\"",
					what, f.Text(out), name, line))
				break
			}
		}
	}
}

// gradsInPlay: the function is a forward() or a loss/training step, or its
// code asks for gradients. Elsewhere (schedulers, pre- and post-processing)
// tensors rarely require grad and the write is harmless.
func gradsInPlay(f *pylint.File, scope *pylint.Node) bool {
	if scope.Type() == "function_definition" {
		name := f.Text(scope.ChildByFieldName("name"))
		if name == "forward" || strings.Contains(name, "loss") || strings.Contains(name, "train") {
			return true
		}
	}
	t := f.Src[scope.StartByte():scope.EndByte()]
	for _, s := range []string{"requires_grad=True", ".backward(", "requires_grad_(", "autograd.grad("} {
		if bytes.Contains(t, []byte(s)) {
			return true
		}
	}
	return false
}
