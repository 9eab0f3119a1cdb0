package rules

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/pylint"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD110: host synchronisation inside CUDA graph capture.
var CD110 = &pylint.Rule{
	Code:     "CD110",
	Name:     "sync-in-graph-capture",
	Severity: report.Error,
	Anchors:  []string{"graph("},
	Doc: pylint.Doc{
		Title:   "Host synchronisation inside CUDA graph capture",
		Summary: "Inside `with torch.cuda.graph(...)`, code calls `.item()`, `.cpu()`, `.tolist()`, `.numpy()`, `torch.cuda.synchronize()` or prints a tensor: each waits for the GPU, which capture forbids.",
		Why: `During stream capture kernels are recorded, not run, so nothing can wait for their
results. A synchronising call invalidates the capture: CUDA reports
cudaErrorStreamCaptureInvalidated ("operation not permitted when stream is capturing")
and the graph is lost.`,
		Example: `with torch.cuda.graph(g):
    y = x * 2
    if y.sum().item() > 0:      # reads a result during capture
        y = y + 1`,
		Fix: `Keep data-dependent control flow and host reads out of the captured region: capture
only tensor operations (use torch.where for conditionals) and read results after
g.replay() and a synchronisation.`,
		References: []string{
			"testdata/gpu/scenarios/s16_graph_capture.py and testdata/gpu/logs/h100/s16_graph_capture.plain.log (cudaErrorStreamCaptureInvalidated at the .item() inside capture)",
			"https://docs.pytorch.org/docs/stable/notes/cuda.html#constraints (capture must not synchronise: no .item(), no torch.cuda.synchronize())",
		},
	},
	Check: checkCD110,
}

var captureSyncs = []string{".item(", ".cpu(", ".tolist(", ".numpy(", "synchronize(", "print("}

func checkCD110(p *pylint.Pass) {
	f := p.File
	done := map[uint32]bool{}
	for _, off := range f.Find("graph(", 0, len(f.Src)) {
		n := f.NodeAt(off, off+len("graph"))
		if n == nil {
			continue
		}
		w := pylint.Ancestor(n, "with_statement")
		if w == nil || done[w.StartByte()] {
			continue
		}
		body := w.ChildByFieldName("body")
		if body == nil || pylint.Within(n, body) {
			continue
		}
		done[w.StartByte()] = true
		inner := f.NodeAt(int(body.StartByte()), int(body.StartByte())+1)
		if inner == nil || f.ContextOf(inner)&pylint.CtxGraphCapture == 0 {
			continue
		}
		var hits []*pylint.Node
		for _, needle := range captureSyncs {
			for _, c := range f.CallsAt(needle, int(body.StartByte()), int(body.EndByte())) {
				if !sameFn(c, w) {
					continue
				}
				if needle == "print(" && !printsNonLiteral(f, c) {
					continue
				}
				hits = append(hits, c)
			}
		}
		sortNodes(hits)
		for _, c := range hits {
			p.Report(c, fmt.Sprintf("%s inside torch.cuda.graph capture synchronises with the GPU and invalidates the capture (cudaErrorStreamCaptureInvalidated)", shorten(f.Callee(c))+"()"))
		}
	}
}

func sameFn(a, b *pylint.Node) bool {
	fa, fb := pylint.Ancestor(a, "function_definition"), pylint.Ancestor(b, "function_definition")
	if fa == nil || fb == nil {
		return fa == nil && fb == nil
	}
	return same(fa, fb)
}

// printsNonLiteral: print() with an argument that is not a plain string.
func printsNonLiteral(f *pylint.File, call *pylint.Node) bool {
	if f.Callee(call) != "print" {
		return false
	}
	for _, a := range pylint.PositionalArgs(call) {
		if _, ok := stringValue(f, a); !ok {
			return true
		}
	}
	return false
}
