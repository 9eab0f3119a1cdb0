package rules

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD110: host synchronisation inside CUDA graph capture.
var CD110 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD110",
		Name:     "sync-in-graph-capture",
		Kind:     report.KindLint,
		Severity: report.Error,
		Title:    "Host synchronisation inside CUDA graph capture",
		Summary:  "Inside `with torch.cuda.graph(...)`, code calls `.item()`, `.cpu()`, `.tolist()`, `.numpy()`, `torch.cuda.synchronize()` or prints a tensor: each waits for the GPU, which capture forbids. Helpers that do so, in this file or imported from another module of the project, are found through their summaries.",
		Sections: []report.DocSection{
			{Title: "Why", Body: `During stream capture kernels are recorded, not run, so nothing can wait for their
results. A synchronising call invalidates the capture: CUDA reports
cudaErrorStreamCaptureInvalidated ("operation not permitted when stream is capturing")
and the graph is lost.`},
			{Title: "Example", Body: `with torch.cuda.graph(g):
    y = x * 2
    if y.sum().item() > 0:      # reads a result during capture
        y = y + 1`},
			{Title: "Fix", Body: `Keep data-dependent control flow and host reads out of the captured region: capture
only tensor operations (use torch.where for conditionals) and read results after
g.replay() and a synchronisation.`},
		},
		References: []string{
			"testdata/gpu/scenarios/s16_graph_capture.py and testdata/gpu/logs/h100/s16_graph_capture.plain.log (cudaErrorStreamCaptureInvalidated at the .item() inside capture)",
			"https://docs.pytorch.org/docs/stable/notes/cuda.html#constraints (capture must not synchronise: no .item(), no torch.cuda.synchronize())",
		},
	},
	Anchors: []string{"graph(", "capture_begin("},
	Check:   checkCD110,
}

// captureSyncs are calls that wait for the GPU (or, like nonzero, read a
// result's size on the host) and so cannot be captured.
var captureSyncs = []string{".item(", ".cpu(", ".tolist(", ".numpy(", "synchronize(", "print(", "nonzero(", "masked_select(", ".unique("}

func checkCD110(p *pycheck.Pass) {
	f := p.File
	m := f.Model()
	done := map[uint32]bool{}
	type region struct {
		at         *pycheck.Node // the with statement or capture_begin call
		start, end int
	}
	var regions []region
	for _, off := range f.Find("graph(", 0, len(f.Src)) {
		n := f.NodeAt(off, off+len("graph"))
		if n == nil {
			continue
		}
		w := pycheck.Ancestor(n, "with_statement")
		if w == nil || done[w.StartByte()] {
			continue
		}
		body := w.ChildByFieldName("body")
		if body == nil || pycheck.Within(n, body) {
			continue
		}
		done[w.StartByte()] = true
		inner := f.NodeAt(int(body.StartByte()), int(body.StartByte())+1)
		capture := inner != nil && f.ContextOf(inner)&pycheck.CtxGraphCapture != 0
		if call := pycheck.Ancestor(n, "call"); !capture && call != nil {
			// from torch.cuda import graph as cuda_graph
			switch m.QualifiedCallee(call) {
			case "torch.cuda.graph", "torch.cuda.graphs.graph":
				capture = true
			}
		}
		if capture {
			regions = append(regions, region{w, int(body.StartByte()), int(body.EndByte())})
		}
	}
	// with capture: where capture = torch.cuda.graph(g) was bound before.
	for _, off := range f.Find("with", 0, len(f.Src)) {
		w := f.NodeAt(off, off+len("with"))
		if w != nil && w.Type() != "with_statement" {
			w = w.Parent()
		}
		if w == nil || w.Type() != "with_statement" || int(w.StartByte()) != off || done[w.StartByte()] {
			continue
		}
		body := w.ChildByFieldName("body")
		if body == nil {
			continue
		}
		if inner := f.NodeAt(int(body.StartByte()), int(body.StartByte())+1); inner != nil && f.ContextOf(inner)&pycheck.CtxGraphCapture != 0 {
			done[w.StartByte()] = true
			regions = append(regions, region{w, int(body.StartByte()), int(body.EndByte())})
		}
	}
	// g.capture_begin() ... g.capture_end() in one function.
	for _, b := range f.CallsAt("capture_begin(", 0, len(f.Src)) {
		scope := f.Scope(b)
		obj := f.Text(receiver(b))
		for _, e := range f.CallsAt("capture_end(", int(b.EndByte()), int(scope.EndByte())) {
			if f.Text(receiver(e)) == obj && same(f.Scope(e), scope) {
				regions = append(regions, region{b, int(pycheck.Statement(b).EndByte()), int(e.StartByte())})
				break
			}
		}
	}
	for _, r := range regions {
		var hits []*pycheck.Node
		seen := map[uint32]bool{}
		add := func(c *pycheck.Node) {
			if !seen[c.StartByte()] {
				seen[c.StartByte()] = true
				hits = append(hits, c)
			}
		}
		for _, needle := range captureSyncs {
			for _, c := range f.CallsAt(needle, r.start, r.end) {
				if !sameFn(c, r.at) {
					continue
				}
				if needle == "print(" && !printsNonLiteral(f, c) {
					continue
				}
				add(c)
			}
		}
		for _, c := range f.Calls(r.start, r.end) {
			if !sameFn(c, r.at) {
				continue
			}
			// A helper of this file that waits for the GPU.
			if s := m.Summary(c); s != nil && s.Syncs {
				add(c)
				continue
			}
			// float(loss), int(n), bool(flag) of a tensor computed in the capture.
			switch f.Callee(c) {
			case "float", "int", "bool":
				if args := pycheck.PositionalArgs(c); len(args) == 1 && capturedValue(f, args[0], r.start) {
					add(c)
				}
			}
		}
		// if/while on a tensor's value: Python asks the GPU for it.
		for _, kw := range []string{"if ", "while "} {
			for _, off := range f.Find(kw, r.start, r.end) {
				st := f.NodeAt(off, off+len(kw)-1)
				if st == nil || (st.Type() != "if_statement" && st.Type() != "while_statement") || int(st.StartByte()) != off || !sameFn(st, r.at) {
					continue
				}
				cond := st.ChildByFieldName("condition")
				if cond == nil {
					continue
				}
				for _, c := range f.Calls(int(cond.StartByte()), int(cond.EndByte())) {
					if last := pycheck.LastName(f.Callee(c)); (last == "any" || last == "all") && receiver(c) != nil {
						add(cond)
						break
					}
				}
			}
		}
		sortNodes(hits)
		for _, c := range hits {
			what := shorten(f.Callee(c)) + "()"
			if c.Type() != "call" {
				what = "a condition on a tensor's value (" + shorten(f.Compact(c)) + ")"
			}
			p.Report(c, fmt.Sprintf("%s inside torch.cuda.graph capture synchronises with the GPU and invalidates the capture (cudaErrorStreamCaptureInvalidated)", what))
		}
	}
}

// capturedValue: n is a name assigned a call's result after offset start
// (a tensor computed inside the capture).
func capturedValue(f *pycheck.File, n *pycheck.Node, start int) bool {
	n = pycheck.Unparen(n)
	// int(out.gt(0).sum()): a method chain on a captured tensor.
	for n.Type() == "call" || n.Type() == "subscript" {
		if n.Type() == "subscript" {
			n = pycheck.Unparen(n.ChildByFieldName("value"))
			continue
		}
		fn := n.ChildByFieldName("function")
		if fn == nil || fn.Type() != "attribute" {
			return false
		}
		n = pycheck.Unparen(fn.ChildByFieldName("object"))
	}
	if n.Type() != "identifier" {
		return false
	}
	rhs := reachingValue(f, n)
	return rhs != nil && int(rhs.StartByte()) >= start && rhs.Type() == "call"
}

func sameFn(a, b *pycheck.Node) bool {
	fa, fb := pycheck.Ancestor(a, "function_definition"), pycheck.Ancestor(b, "function_definition")
	if fa == nil || fb == nil {
		return fa == nil && fb == nil
	}
	return same(fa, fb)
}

// printsNonLiteral: print() with an argument that is not a plain string.
func printsNonLiteral(f *pycheck.File, call *pycheck.Node) bool {
	if f.Callee(call) != "print" {
		return false
	}
	for _, a := range pycheck.PositionalArgs(call) {
		if _, ok := stringValue(f, a); !ok {
			return true
		}
	}
	return false
}
