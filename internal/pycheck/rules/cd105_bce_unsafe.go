package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD105: binary_cross_entropy under autocast, or on values that are not
// probabilities.
var CD105 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD105",
		Name:     "unsafe-binary-cross-entropy",
		Kind:     report.KindLint,
		Severity: report.Error,
		Title:    "binary_cross_entropy under autocast or on logits",
		Summary:  "`F.binary_cross_entropy`/`nn.BCELoss` is called inside an autocast region (PyTorch raises) or on values that are not probabilities, such as raw logits (a device-side assert on CUDA).",
		Sections: []report.DocSection{
			{Title: "Why", Body: `Autocast refuses binary_cross_entropy: "torch.nn.functional.binary_cross_entropy and
torch.nn.BCELoss are unsafe to autocast", because its log of float16 inputs loses too
much. Outside autocast, inputs outside [0, 1] trip a device-side assert on CUDA
("Assertion input_val >= zero && input_val <= one failed"), which is reported
asynchronously and kills the CUDA context.`},
			{Title: "Example", Body: `logits = model(x)
loss = F.binary_cross_entropy(logits, target)   # logits are not in [0, 1]`},
			{Title: "Fix", Body: `Feed the logits to F.binary_cross_entropy_with_logits (or nn.BCEWithLogitsLoss):
it fuses the sigmoid, is numerically stable and is safe under autocast.`},
		},
		References: []string{
			"testdata/gpu/scenarios/s04_bce_range.py and testdata/gpu/logs/h100/s04_bce_range.plain.log (logits passed to binary_cross_entropy: device-side assert, cudaErrorAssert)",
			"https://docs.pytorch.org/docs/stable/amp.html#prefer-binary-cross-entropy-with-logits-over-binary-cross-entropy (unsafe to autocast; autocast raises an error)",
		},
	},
	Anchors: []string{"binary_cross_entropy(", "BCELoss("},
	Check:   checkCD105,
}

func checkCD105(p *pycheck.Pass) {
	f := p.File
	for _, call := range f.CallsAt("binary_cross_entropy(", 0, len(f.Src)) {
		if f.ContextOf(call)&pycheck.CtxAutocast != 0 {
			p.Report(call, "binary_cross_entropy inside an autocast region raises \"unsafe to autocast\"",
				"compute the loss with F.binary_cross_entropy_with_logits on the logits")
			continue
		}
		if at := calledUnderAutocast(f, f.Scope(call)); at != nil {
			p.Report(call, fmt.Sprintf("binary_cross_entropy runs inside an autocast region (its function is called under autocast at line %d), which raises \"unsafe to autocast\"", line(f, at)),
				"compute the loss with F.binary_cross_entropy_with_logits on the logits")
			continue
		}
		args := pycheck.PositionalArgs(call)
		if len(args) == 0 {
			continue
		}
		if why := notProbabilities(f, args[0]); why != "" {
			p.Report(call, fmt.Sprintf("binary_cross_entropy on %s, not probabilities: values outside [0, 1] trip a device-side assert", why),
				"use F.binary_cross_entropy_with_logits on the logits (or apply torch.sigmoid first)")
		}
	}
	for _, ctor := range f.CallsAt("BCELoss(", 0, len(f.Src)) {
		if pycheck.LastName(f.Callee(ctor)) != "BCELoss" {
			continue
		}
		// nn.BCELoss()(x, y) called on the spot.
		if pr := ctor.Parent(); pr != nil && pr.Type() == "call" && same(pr.ChildByFieldName("function"), ctor) {
			if f.ContextOf(pr)&pycheck.CtxAutocast != 0 {
				p.Report(pr, "nn.BCELoss inside an autocast region raises \"unsafe to autocast\"", "use nn.BCEWithLogitsLoss on the logits")
			}
			continue
		}
		target := bceTarget(f, ctor)
		if target == "" {
			continue
		}
		for _, use := range f.CallsAt(target+"(", 0, len(f.Src)) {
			if f.Callee(use) != target {
				continue
			}
			if f.ContextOf(use)&pycheck.CtxAutocast != 0 {
				line, _ := f.LineCol(int(ctor.StartByte()))
				p.Report(use, fmt.Sprintf("%s (nn.BCELoss, line %d) is called inside an autocast region, which raises \"unsafe to autocast\"", target, line),
					"use nn.BCEWithLogitsLoss on the logits")
			}
		}
	}
}

// bceTarget is what an nn.BCELoss() is stored in: `crit` or `self.crit`.
func bceTarget(f *pycheck.File, ctor *pycheck.Node) string {
	p := ctor.Parent()
	if p == nil || p.Type() != "assignment" || !same(p.ChildByFieldName("right"), ctor) {
		return ""
	}
	l := p.ChildByFieldName("left")
	if l == nil || (l.Type() != "identifier" && l.Type() != "attribute") {
		return ""
	}
	return f.Text(l)
}

// notProbabilities names why an argument is evidently not in [0, 1], or "".
// Unknown values are given the benefit of the doubt.
func notProbabilities(f *pycheck.File, arg *pycheck.Node) string {
	arg = pycheck.Unparen(arg)
	t := strings.ToLower(f.Text(arg))
	if probLike(t) {
		return ""
	}
	if arg.Type() != "identifier" {
		if strings.Contains(t, "logit") {
			return f.Text(arg) + ", raw logits"
		}
		return ""
	}
	name := f.Text(arg)
	rhs := reachingValue(f, arg)
	if rhs != nil {
		rt := strings.ToLower(f.Text(rhs))
		if probLike(rt) {
			return ""
		}
		if strings.Contains(rt, "randn") || strings.Contains(rt, "logit") {
			return name + ", which holds unbounded values"
		}
	}
	if strings.Contains(strings.ToLower(name), "logit") {
		return name + ", raw logits"
	}
	return ""
}

func probLike(t string) bool {
	for _, w := range []string{"sigmoid", "softmax", "prob", "clamp", "clip", "rand(", "rand_like", "sigm", "hardtanh"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// calledUnderAutocast is a call, inside an autocast region, of the
// function that is scope, or nil.
func calledUnderAutocast(f *pycheck.File, scope *pycheck.Node) *pycheck.Node {
	if scope.Type() != "function_definition" {
		return nil
	}
	name := f.Text(scope.ChildByFieldName("name"))
	for _, c := range f.CallsAt(name+"(", 0, len(f.Src)) {
		if callee := f.Callee(c); (callee == name || callee == "self."+name) && f.ContextOf(c)&pycheck.CtxAutocast != 0 {
			return c
		}
	}
	return nil
}
