package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD113: hard-coded CUDA device indices other than 0.
var CD113 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD113",
		Name:     "hardcoded-cuda-index",
		Kind:     report.KindLint,
		Severity: report.Warning,
		Title:    "Hard-coded CUDA device index",
		Summary:  "A device index above 0 is written into the code (`\"cuda:3\"`, `.cuda(1)`, `torch.device(\"cuda\", 1)` or `torch.device(type=\"cuda\", index=1)`, `torch.cuda.set_device(2)`); it fails on machines with fewer visible GPUs. Not reported where only enough GPUs run it (pytest parameters, a skip decorator on the GPU count, an `if` on `device_count()`), nor for a device value a test hands to the code under test without placing anything on it.",
		Sections: []report.DocSection{
			{Title: "Why", Body: `Device indices count the GPUs visible to the process (after CUDA_VISIBLE_DEVICES). A
literal index above 0 fails with "CUDA error: invalid device ordinal" on any machine
or job with fewer GPUs, and in distributed jobs it puts every rank on the same GPU.
Index 0 is left alone: it exists whenever a GPU is visible.`},
			{Title: "Example", Body: `x = torch.zeros(8, device="cuda:3")`},
			{Title: "Fix", Body: `Take the index from the launcher or configuration (LOCAL_RANK under torchrun:
torch.device("cuda", int(os.environ["LOCAL_RANK"]))), select GPUs with
CUDA_VISIBLE_DEVICES, or use "cuda" (the current device).`},
		},
		References: []string{
			"testdata/gpu/scenarios/s13_invalid_ordinal.py and testdata/gpu/logs/h100/s13_invalid_ordinal.plain.log (device=\"cuda:3\" on a one-GPU H100 machine: invalid device ordinal)",
			"https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-semantics (device indices are relative to the visible devices)",
		},
	},
	Anchors: []string{"cuda:", ".cuda(", "set_device(", `device("cuda",`, `device('cuda',`, "index="},
	Check:   checkCD113,
}

func checkCD113(p *pycheck.Pass) {
	f := p.File
	for _, q := range []string{`"cuda:`, `'cuda:`} {
		for _, off := range f.Find(q, 0, len(f.Src)) {
			n := f.NodeAt(off, off+len(q))
			for n != nil && n.Type() != "string" {
				if t := n.Type(); t != "string_content" && t != "string_start" {
					n = nil
					break
				}
				n = n.Parent()
			}
			if n == nil {
				continue
			}
			v, ok := stringValue(f, n)
			if !ok {
				continue
			}
			idx, err := strconv.Atoi(strings.TrimPrefix(v, "cuda:"))
			if err != nil || idx < 1 {
				continue
			}
			// Docstrings and bare strings are documentation, not device choices.
			if par := n.Parent(); par == nil || par.Type() == "expression_statement" || guarded(f, n) {
				continue
			}
			p.Report(n, fmt.Sprintf("hard-coded device %q fails with \"invalid device ordinal\" where fewer than %d GPUs are visible", v, idx+1))
		}
	}
	for _, call := range f.CallsAt("device(", 0, len(f.Src)) {
		// torch.device("cuda", 1): the index as its own argument.
		args := pycheck.PositionalArgs(call)
		// torch.device(type="cuda", index=1) spells both as keywords.
		for i, kw := range []string{"type", "index"} {
			if v := f.Keyword(call, kw); v != nil && len(args) == i {
				args = append(args, v)
			}
		}
		if len(args) != 2 || args[1].Type() != "integer" || f.Model().QualifiedCallee(call) != "torch.device" {
			continue
		}
		if v, ok := stringValue(f, args[0]); !ok || v != "cuda" {
			continue
		}
		if idx, err := strconv.Atoi(f.Text(args[1])); err == nil && idx >= 1 && !guarded(f, call) {
			p.Report(call, fmt.Sprintf("hard-coded device index %d fails with \"invalid device ordinal\" where fewer than %d GPUs are visible", idx, idx+1))
		}
	}
	for _, needle := range []string{".cuda(", "set_device("} {
		for _, call := range f.CallsAt(needle, 0, len(f.Src)) {
			args := pycheck.PositionalArgs(call)
			// x.cuda(device=2) spells the index as a keyword.
			if kw := f.Keyword(call, "device"); len(args) == 0 && kw != nil {
				args = []*pycheck.Node{kw}
			}
			if len(args) != 1 || args[0].Type() != "integer" {
				continue
			}
			if needle == "set_device(" && !strings.Contains(f.Callee(call), "cuda") {
				continue
			}
			idx, err := strconv.Atoi(f.Text(args[0]))
			if err != nil || idx < 1 || guarded(f, call) {
				continue
			}
			p.Report(call, fmt.Sprintf("hard-coded device index %d fails with \"invalid device ordinal\" where fewer than %d GPUs are visible", idx, idx+1))
		}
	}
}

// guarded: the index is test data or runs only where enough GPUs exist:
// pytest parameters, a RunIf/skipif decorator, or an if on device_count().
func guarded(f *pycheck.File, n *pycheck.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "call":
			if c := f.Callee(p); strings.Contains(c, "parametrize") || strings.HasSuffix(c, "param") {
				return true
			}
		case "decorator":
			return true
		case "assert_statement", "comparison_operator":
			// A device string compared or asserted is data (a parser's
			// expected output), not a device the program opens.
			return true
		case "if_statement":
			if strings.Contains(f.Text(p.ChildByFieldName("condition")), "device_count") {
				return true
			}
		case "function_definition":
			// In a test, a device value that is not placed on directly is
			// data for the code under test (often mocked): nothing opens it.
			if strings.HasPrefix(f.Text(p.ChildByFieldName("name")), "test") && !placesOn(f, n) {
				return true
			}
			if dd := p.Parent(); dd != nil && dd.Type() == "decorated_definition" {
				t := f.Text(dd)[:p.StartByte()-dd.StartByte()]
				if containsAny(t, []string{"min_cuda_gpus", "device_count", "skipif", "min_gpus"}) {
					return true
				}
			}
		}
	}
	return false
}

// placesOn: the device value n is used where it is given: the argument of
// .to()/.cuda()/set_device(), or a device= keyword of a call.
func placesOn(f *pycheck.File, n *pycheck.Node) bool {
	if n.Type() == "call" {
		switch pycheck.LastName(f.Callee(n)) {
		case "cuda", "set_device":
			return true
		}
	}
	v := upParen(n)
	p := v.Parent()
	if p != nil && p.Type() == "keyword_argument" {
		return f.Text(p.ChildByFieldName("name")) == "device" && pycheck.Ancestor(p, "call") != nil
	}
	if p == nil || p.Type() != "argument_list" {
		return false
	}
	switch pycheck.LastName(f.Callee(p.Parent())) {
	case "to", "cuda", "set_device":
		return true
	case "device":
		return placesOn(f, p.Parent()) // torch.device("cuda:1"): where that goes
	}
	return false
}
