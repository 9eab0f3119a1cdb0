package rules

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD109: in-place write to the output of an op whose backward reads that
// output.
var CD109 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD109",
		Name:     "inplace-on-saved-output",
		Kind:     report.KindLint,
		Severity: report.Warning,
		Title:    "In-place write to an output that autograd saved for backward",
		Summary:  "The result of sigmoid, tanh, exp, softmax, log_softmax, relu, sqrt or rsqrt is modified in place (masked or slice assignment, `+=`, `clamp_`, another in-place method) while gradients are enabled.",
		Sections: []report.DocSection{
			{Title: "Why", Body: `These operations save their own output to compute the gradient. An in-place write
bumps the tensor's version counter, and backward() then fails with "one of the
variables needed for gradient computation has been modified by an inplace operation:
[...], which is output 0 of SigmoidBackward0, is at version 1; expected version 0".`},
			{Title: "Example", Body: `y = torch.sigmoid(x)
y[y > 0.9] = 0
y.sum().backward()      # RuntimeError`},
			{Title: "Fix", Body: `Write out of place: y = y.masked_fill(mask, 0), y = torch.where(mask, 0, y),
y = y + 1, y = y.clamp(...); or clone first (y = torch.sigmoid(x).clone()). Under
torch.no_grad() the write is fine.`},
		},
		References: []string{
			"testdata/gpu/scenarios/s22_inplace_autograd.py and testdata/gpu/logs/h100/s22_inplace_autograd.plain.log (\"modified by an inplace operation ... output 0 of SigmoidBackward0\")",
			"https://docs.pytorch.org/docs/stable/notes/autograd.html#in-place-operations-with-autograd (in-place ops on saved tensors are detected by version counters and raise)",
		},
	},
	// "import sigmoid as ...": the function under another name.
	Anchors: []string{"sigmoid(", "tanh(", "exp(", "softmax(", "relu(", "sqrt(", "Sigmoid(", "Tanh(", "Softmax(", "ReLU(",
		"sigmoid as ", "tanh as ", "exp as ", "softmax as ", "relu as ", "sqrt as "},
	// gradsInPlay needs one of these in the function.
	AlsoAnchors: []string{"def forward", "loss", "train", "requires_grad", ".backward(", "autograd.grad("},
	Check:       checkCD109,
}

var savesOutput = map[string]bool{"sigmoid": true, "tanh": true, "exp": true, "softmax": true, "log_softmax": true, "relu": true,
	"sqrt": true, "rsqrt": true}

// savesOutputModules are the nn layers whose backward reads their output.
var savesOutputModules = map[string]string{"Sigmoid": "sigmoid", "Tanh": "tanh", "Softmax": "softmax", "LogSoftmax": "log_softmax", "ReLU": "relu"}

func checkCD109(p *pycheck.Pass) {
	f := p.File
	seen := map[uint32]bool{}
	for name := range savesOutput {
		for _, call := range f.CallsAt(name+"(", 0, len(f.Src)) {
			callee := f.Callee(call)
			if pycheck.LastName(callee) != name || seen[call.StartByte()] {
				continue
			}
			seen[call.StartByte()] = true
			if strings.HasPrefix(callee, "math.") || strings.HasPrefix(callee, "np.") || strings.HasPrefix(callee, "numpy.") || callee == name {
				continue
			}
			if kw := f.Keyword(call, "inplace"); f.IsTrue(kw) {
				continue
			}
			checkSavedOutput(p, call, name)
		}
		// Imported under its own or another name: from torch import sigmoid as gate.
		for _, local := range f.Model().LocalNames("torch."+name, "torch.nn.functional."+name) {
			for _, call := range f.CallsAt(local+"(", 0, len(f.Src)) {
				if f.Callee(call) == local && !seen[call.StartByte()] {
					seen[call.StartByte()] = true
					checkSavedOutput(p, call, name)
				}
			}
		}
	}
	// Module forms: self.act = nn.Sigmoid() ... out = self.act(h)
	for cls, fn := range savesOutputModules {
		for _, ctor := range f.CallsAt(cls+"(", 0, len(f.Src)) {
			if q := f.Model().QualifiedCallee(ctor); q != "torch.nn."+cls && q != "nn."+cls || f.IsTrue(f.Keyword(ctor, "inplace")) {
				continue
			}
			target := assignedPlace(f, ctor)
			if target == nil || target.Type() != "attribute" {
				continue
			}
			cl := pycheck.Ancestor(ctor, "class_definition")
			if cl == nil {
				continue
			}
			for _, call := range f.CallsAt(f.Text(target)+"(", int(cl.StartByte()), int(cl.EndByte())) {
				if f.Callee(call) == f.Text(target) && !seen[call.StartByte()] {
					seen[call.StartByte()] = true
					checkSavedOutput(p, call, fn)
				}
			}
		}
	}
}

func checkSavedOutput(p *pycheck.Pass, call *pycheck.Node, name string) {
	f := p.File
	out := assignedPlace(f, call)
	if out == nil || f.ContextOf(call)&pycheck.CtxNoGrad != 0 {
		return
	}
	// sigmoid(x.detach()): no graph, nothing saved.
	if args := pycheck.PositionalArgs(call); len(args) > 0 && strings.HasSuffix(f.Compact(args[0]), ".detach()") ||
		strings.HasSuffix(f.Compact(receiver(call)), ".detach()") {
		return
	}
	scope := f.Scope(call)
	if !gradsInPlay(f, scope) && !calledWithGrads(f, scope) {
		return
	}
	for _, use := range usesAfter(f, out) {
		n, what := mutation(f, use)
		if n == nil {
			continue
		}
		if f.ContextOf(n)&pycheck.CtxNoGrad != 0 {
			break
		}
		line, _ := f.LineCol(int(call.StartByte()))
		p.Report(n, fmt.Sprintf("%s modifies %s in place, but %s (line %d) saved it for backward: backward() will raise \"modified by an inplace operation\"",
			what, f.Text(out), name, line))
		break
	}
}

// calledWithGrads: a function of this file called from forward, a loss
// or a training step, by their names (a whole main() that also trains
// calls helpers that never see gradients).
func calledWithGrads(f *pycheck.File, scope *pycheck.Node) bool {
	if scope.Type() != "function_definition" {
		return false
	}
	name := f.Text(scope.ChildByFieldName("name"))
	for _, c := range f.CallsAt(name+"(", 0, len(f.Src)) {
		callee := f.Callee(c)
		if callee != name && callee != "self."+name {
			continue
		}
		if caller := f.Scope(c); caller.Type() == "function_definition" {
			cn := f.Text(caller.ChildByFieldName("name"))
			if cn == "forward" || strings.Contains(cn, "loss") || strings.Contains(cn, "train") {
				return true
			}
		}
	}
	return false
}

func gradsInPlay(f *pycheck.File, scope *pycheck.Node) bool {
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
