package rules

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pylint"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD108: GPU work timed with a host clock without synchronising first.
var CD108 = &pylint.Rule{
	Code:     "CD108",
	Name:     "unsynchronized-timing",
	Severity: report.Warning,
	Anchors:  []string{"time.time(", "perf_counter(", "time.monotonic("},
	Doc: pylint.Doc{
		Title:   "GPU work timed with a host clock and no synchronisation",
		Summary: "`time.time()`/`time.perf_counter()` is read before and after CUDA work, with no `torch.cuda.synchronize()` (or CUDA event timing) before the second read.",
		Why: `CUDA kernels run asynchronously: a PyTorch call returns once the kernel is queued.
The host clock read right after measures how long it took to queue the work, not to
run it, so the number is usually far too small (and the next synchronising call gets
blamed for the time).`,
		Example: `t0 = time.perf_counter()
y = model(x.cuda())
elapsed = time.perf_counter() - t0      # measures launch time only`,
		Fix: `Call torch.cuda.synchronize() before each clock read, or time with CUDA events:
start = torch.cuda.Event(enable_timing=True); end = ...; start.record(); ...;
end.record(); end.synchronize(); start.elapsed_time(end). torch.utils.benchmark does
both for you.`,
		References: []string{
			"https://docs.pytorch.org/docs/stable/notes/cuda.html#asynchronous-execution (CUDA operations are asynchronous; time with synchronize() or events)",
			"testdata/gpu/README.md (s01..s10: kernels failed asynchronously and the error surfaced at a later call, the same queuing that skews host timings)",
		},
	},
	Check: checkCD108,
}

// gpuWork are signs that a stretch of code launches GPU work.
var gpuWork = []string{"cuda", "model(", ".forward(", ".backward(", "unet(", "optimizer.step(", ".generate("}

// syncs are calls that wait for the GPU (directly or by reading a result).
var syncs = []string{"synchronize(", "elapsed_time(", ".item()", ".cpu()", ".tolist()", ".numpy()", "torch.cuda.Event"}

func checkCD108(p *pylint.Pass) {
	f := p.File
	if !bytes.Contains(f.Src, []byte("cuda")) {
		return
	}
	var clocks []*pylint.Node
	for _, needle := range []string{"time.time(", "perf_counter(", "time.monotonic("} {
		for _, c := range f.CallsAt(needle, 0, len(f.Src)) {
			if len(pylint.PositionalArgs(c)) == 0 {
				clocks = append(clocks, c)
			}
		}
	}
	for _, end := range clocks {
		startRHS := clockStart(f, end)
		// t = time.time(); t - t: the start is the end itself.
		if startRHS == nil || startRHS.EndByte() > end.StartByte() {
			continue
		}
		rs := string(f.Src[startRHS.EndByte():end.StartByte()])
		if !containsAny(rs, gpuWork) || containsAny(rs, syncs) {
			continue
		}
		line, _ := f.LineCol(int(startRHS.StartByte()))
		p.Report(end, fmt.Sprintf("%s measures GPU work started after line %d without torch.cuda.synchronize(): it times the kernel launches, not the kernels", f.Callee(end), line))
	}
}

// clockStart finds the clock read that end is measured against: in
// `end_call - t0` or `t1 = end_call; ...; t1 - t0`, the read assigned to t0.
func clockStart(f *pylint.File, end *pylint.Node) *pylint.Node {
	var start *pylint.Node
	if p := upParen(end).Parent(); p != nil && p.Type() == "binary_operator" && f.Text(p.ChildByFieldName("operator")) == "-" && same(unparen(p.ChildByFieldName("left")), end) {
		start = unparen(p.ChildByFieldName("right"))
	} else if name := assignedName(end); name != nil {
		for _, use := range usesAfter(f, f.Scope(end), f.Text(name), int(pylint.Statement(end).EndByte())) {
			if p := use.Parent(); p != nil && p.Type() == "binary_operator" && f.Text(p.ChildByFieldName("operator")) == "-" && same(p.ChildByFieldName("left"), use) {
				start = unparen(p.ChildByFieldName("right"))
				break
			}
		}
	}
	if start == nil || start.Type() != "identifier" {
		return nil
	}
	rhs := lastAssignment(f, f.Scope(end), f.Text(start), int(end.StartByte()))
	if rhs == nil || rhs.Type() != "call" || !containsAny(f.Callee(rhs), []string{"time.time", "perf_counter", "monotonic"}) {
		return nil
	}
	return rhs
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
