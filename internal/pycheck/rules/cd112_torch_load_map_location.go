package rules

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD112: torch.load without map_location.
var CD112 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:   "CD112",
		Name: "torch-load-without-map-location",
		Kind: report.KindLint,
		// Info: on real code most loads read a checkpoint the same program wrote,
		// or one saved from the CPU; the rule cannot see where a file came from.
		Severity: report.Info,
		Title:    "torch.load without map_location",
		Summary:  "`torch.load` is called without `map_location`, so tensors come back on the device they were saved from.",
		Sections: []report.DocSection{
			{Title: "Why", Body: `A checkpoint saved from cuda:1 restores its tensors to cuda:1. On a machine without a
GPU torch.load raises "Attempting to deserialize object on a CUDA device but
torch.cuda.is_available() is False"; on one with fewer GPUs it fails with an invalid
device ordinal; in multi-process jobs every rank loads onto the saving rank's GPU.`},
			{Title: "Example", Body: `state = torch.load("ckpt.pt")`},
			{Title: "Fix", Body: `Say where tensors should go: torch.load(path, map_location="cpu") and then
model.load_state_dict(state) / .to(device), or map_location=device.`},
		},
		References: []string{
			"https://docs.pytorch.org/docs/stable/generated/torch.load.html (storages are restored to the device they were saved from unless map_location is given)",
			"testdata/gpu/scenarios/s13_invalid_ordinal.py and testdata/gpu/logs/h100/s13_invalid_ordinal.plain.log (a device index the machine does not have: invalid device ordinal)",
		},
	},
	Anchors: []string{"torch.load(", "load("},
	// torch.load under another name needs an import that renames it.
	AlsoAnchors: []string{"torch.load(", "import torch as", "from torch import load"},
	Check:       checkCD112,
}

func checkCD112(p *pycheck.Pass) {
	f := p.File
	for _, call := range f.CallsAt("load(", 0, len(f.Src)) {
		// torch.load, th.load (import torch as th), load (from torch import load)
		if callee := f.Callee(call); callee != "torch.load" && (pycheck.LastName(callee) != "load" || f.Model().QualifiedCallee(call) != "torch.load") {
			continue
		}
		if f.Keyword(call, "map_location") != nil || len(pycheck.PositionalArgs(call)) >= 2 {
			continue
		}
		if args := call.ChildByFieldName("arguments"); args != nil && (contains(f.Text(args), "**")) {
			continue
		}
		if savedHere(f, call) {
			continue
		}
		p.Report(call, "torch.load without map_location restores tensors to the device they were saved from; it fails on machines without that GPU",
			`pass map_location="cpu" (or the target device)`)
	}
}

// savedHere: the function that loads also saves with torch.save (a test or
// a resume path reloading what it wrote on this machine), or the load sits
// under a check that a GPU is there.
func savedHere(f *pycheck.File, call *pycheck.Node) bool {
	scope := f.Scope(call)
	if len(f.CallsAt("torch.save(", int(scope.StartByte()), int(scope.EndByte()))) > 0 {
		return true
	}
	for p := call.Parent(); p != nil && p != scope; p = p.Parent() {
		if p.Type() == "if_statement" && strings.Contains(f.Text(p.ChildByFieldName("condition")), "is_available") {
			return true
		}
	}
	return false
}
