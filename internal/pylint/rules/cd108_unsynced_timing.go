package rules

import (
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

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
var gpuWork = []string{"cuda", "model(", ".forward(", ".backward(", "unet(", "pipe(", "optimizer.step(", "torch.", ".generate("}

// syncs are calls that wait for the GPU (directly or by reading a result).
var syncs = []string{"synchronize(", "elapsed_time(", ".item()", ".cpu()", ".tolist()", ".numpy()", "torch.cuda.Event"}

func checkCD108(p *pylint.Pass) {
	f := p.File
	if !strings.Contains(string(f.Src), "cuda") {
		return
	}
	var clocks []*sitter.Node
	for _, needle := range []string{"time.time(", "perf_counter(", "time.monotonic("} {
		for _, c := range f.CallsAt(needle, 0, len(f.Src)) {
			if len(pylint.PositionalArgs(c)) == 0 {
				clocks = append(clocks, c)
			}
		}
	}
	sortNodes(clocks)
	byScope := map[uint32][]*sitter.Node{}
	var order []uint32
	for _, c := range clocks {
		s := f.Scope(c).StartByte()
		if _, ok := byScope[s]; !ok {
			order = append(order, s)
		}
		byScope[s] = append(byScope[s], c)
	}
	for _, s := range order {
		cs := byScope[s]
		for i := 1; i < len(cs); i++ {
			start, end := cs[i-1], cs[i]
			// The second read must be a measurement: inside a subtraction.
			if !isElapsed(f, end) {
				continue
			}
			region := f.Src[start.EndByte():end.StartByte()]
			rs := string(region)
			if !containsAny(rs, gpuWork) || containsAny(rs, syncs) {
				continue
			}
			line, _ := f.LineCol(int(start.StartByte()))
			p.Report(end, fmt.Sprintf("%s measures GPU work started after line %d without torch.cuda.synchronize(): it times the kernel launches, not the kernels", f.Callee(end), line))
		}
	}
}

// isElapsed: the clock read takes part in a subtraction, directly or by
// being assigned to a name that is then subtracted.
func isElapsed(f *pylint.File, c *sitter.Node) bool {
	if p := upParen(c).Parent(); p != nil && p.Type() == "binary_operator" && f.Text(p.ChildByFieldName("operator")) == "-" {
		return true
	}
	name := assignedName(c)
	if name == nil {
		return false
	}
	for _, use := range usesAfter(f, f.Scope(c), f.Text(name), int(pylint.Statement(c).EndByte())) {
		if p := use.Parent(); p != nil && p.Type() == "binary_operator" && f.Text(p.ChildByFieldName("operator")) == "-" {
			return true
		}
	}
	return false
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}
