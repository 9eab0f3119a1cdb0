package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD104: the torch.cuda.amp spellings deprecated in PyTorch 2.4.
var CD104 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD104",
		Name:     "deprecated-cuda-amp",
		Kind:     report.KindLint,
		Severity: report.Warning,
		Title:    "Deprecated torch.cuda.amp API",
		Summary:  "`torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler`, `torch.cuda.amp.custom_fwd` and `custom_bwd` are deprecated since PyTorch 2.4 and warn on every use.",
		Sections: []report.DocSection{
			{Title: "Why", Body: `Since 2.4 each call emits "FutureWarning: torch.cuda.amp.autocast(args...) is
deprecated. Please use torch.amp.autocast('cuda', args...) instead." (and the same for
GradScaler). The old names are thin wrappers kept for compatibility and are slated for
removal; the device-generic torch.amp API is the supported one.`},
			{Title: "Example", Body: `from torch.cuda.amp import autocast, GradScaler
scaler = GradScaler()
with autocast(dtype=torch.float16): ...`},
			{Title: "Fix", Body: `Use the device-generic API: torch.amp.autocast("cuda", dtype=...),
torch.amp.GradScaler("cuda"), torch.amp.custom_fwd(device_type="cuda") and
torch.amp.custom_bwd(device_type="cuda").`},
		},
		References: []string{
			"testdata/gpu/logs/h100/s19_seed_amp_masked.plain.log (torch 2.11: \"FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.\")",
			"https://docs.pytorch.org/docs/stable/amp.html (torch.cuda.amp.autocast(args...) is deprecated; use torch.amp.autocast(\"cuda\", args...))",
		},
	},
	Anchors: []string{"cuda.amp", "cuda import amp"},
	Check:   checkCD104,
}

var deprecatedAmp = map[string]string{
	"autocast":   `torch.amp.autocast("cuda", ...)`,
	"GradScaler": `torch.amp.GradScaler("cuda", ...)`,
	"custom_fwd": `torch.amp.custom_fwd(device_type="cuda")`,
	"custom_bwd": `torch.amp.custom_bwd(device_type="cuda")`,
}

func checkCD104(p *pycheck.Pass) {
	f := p.File
	seen := map[uint32]bool{}
	for _, off := range f.Find("cuda.amp", 0, len(f.Src)) {
		n := f.NodeAt(off, off+len("cuda.amp"))
		if n == nil {
			continue
		}
		if imp := pycheck.Ancestor(n, "import_from_statement"); imp != nil && !seen[imp.StartByte()] {
			seen[imp.StartByte()] = true
			if f.Text(imp.ChildByFieldName("module_name")) != "torch.cuda.amp" || inExceptFallback(f, imp) {
				continue
			}
			var names []string
			for i := 0; i < int(imp.NamedChildCount()); i++ {
				c := imp.NamedChild(i)
				if same(c, imp.ChildByFieldName("module_name")) {
					continue
				}
				nm := f.Text(c)
				if c.Type() == "aliased_import" {
					nm = f.Text(c.ChildByFieldName("name"))
				}
				if _, ok := deprecatedAmp[nm]; ok {
					names = append(names, nm)
				}
			}
			if len(names) > 0 {
				var fixes []string
				for _, nm := range names {
					fixes = append(fixes, deprecatedAmp[nm])
				}
				p.Report(imp, fmt.Sprintf("torch.cuda.amp.%s is deprecated since PyTorch 2.4 (FutureWarning on every use)", strings.Join(names, ", ")),
					"use "+strings.Join(fixes, ", "))
			}
			continue
		}
		// Dotted use: torch.cuda.amp.autocast(...)
		a := n
		for a != nil && a.Type() != "attribute" {
			a = a.Parent()
		}
		for a != nil && a.Type() == "attribute" && !strings.HasSuffix(f.Text(a.ChildByFieldName("object")), "cuda.amp") {
			a = a.Parent()
		}
		if a == nil || a.Type() != "attribute" || seen[a.StartByte()] || inExceptFallback(f, a) {
			continue
		}
		seen[a.StartByte()] = true
		nm := f.Text(a.ChildByFieldName("attribute"))
		if fix, ok := deprecatedAmp[nm]; ok {
			p.Report(a, fmt.Sprintf("%s is deprecated since PyTorch 2.4 (FutureWarning on every use)", f.Text(a)), "use "+fix)
		}
	}
	// The module under another name: `from torch.cuda import amp` (or
	// `import torch.cuda.amp as amp`), then amp.autocast(...).
	m := f.Model()
	for _, off := range f.Find("amp.", 0, len(f.Src)) {
		n := f.NodeAt(off, off+len("amp"))
		if n == nil || n.Type() != "identifier" {
			continue
		}
		a := n.Parent()
		if a == nil || a.Type() != "attribute" || a.ChildByFieldName("object") != n || seen[a.StartByte()] {
			continue
		}
		if q, ok := m.Alias(f.Text(n)); !ok || q != "torch.cuda.amp" || inExceptFallback(f, a) {
			continue
		}
		seen[a.StartByte()] = true
		nm := f.Text(a.ChildByFieldName("attribute"))
		if fix, ok := deprecatedAmp[nm]; ok {
			p.Report(a, fmt.Sprintf("%s is torch.cuda.amp.%s, deprecated since PyTorch 2.4 (FutureWarning on every use)", f.Text(a), nm), "use "+fix)
		}
	}
}

// inExceptFallback: code in an `except ImportError`/`AttributeError`
// handler only runs on old PyTorch, where the old name is the right one.
func inExceptFallback(f *pycheck.File, n *pycheck.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "except_clause":
			return true
		case "conditional_expression":
			// new_api if TORCH_GE_2_4 else torch.cuda.amp.X: the old name
			// only runs on old PyTorch.
			t := f.Text(p)
			if strings.Contains(t, "torch.amp.") || strings.Contains(strings.ToLower(t), "version") || strings.Contains(t, "_TORCH_") {
				return true
			}
		case "if_statement", "elif_clause":
			if c := p.ChildByFieldName("condition"); c != nil && strings.Contains(strings.ToLower(f.Text(c)), "version") {
				return true
			}
		case "function_definition", "class_definition":
			return false
		}
	}
	return false
}
