package rules

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/pylint"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD101: a device-to-host copy made with non_blocking=True is read on the
// host before the GPU has finished it.
var CD101 = &pylint.Rule{
	Code:     "CD101",
	Name:     "nonblocking-copy-read",
	Severity: report.Error,
	Anchors:  []string{"non_blocking"},
	Doc: pylint.Doc{
		Title:   "Result of a non_blocking device-to-host copy read before synchronising",
		Summary: "A `non_blocking=True` copy from the GPU to the CPU returns at once; its result is read on the host (`.tolist()`, `.numpy()`, `.item()`, `print`, indexing) before any synchronisation.",
		Why: `With non_blocking=True the copy into (pinned) host memory is only queued on the CUDA
stream; the call returns before the data arrives. Reading the destination on the host
before torch.cuda.synchronize(), an event's synchronize() or the stream's synchronize()
reads whatever the memory held before: no error is raised, the numbers are just wrong.`,
		Example: `probs = logits.softmax(-1).to("cpu", non_blocking=True)
print(probs.tolist())        # may print stale memory`,
		Fix: `Synchronise before reading: call torch.cuda.synchronize() (or record an event after the
copy and call event.synchronize()) before touching the result on the host; or drop
non_blocking=True when the value is needed right away.`,
		References: []string{
			"https://docs.pytorch.org/tutorials/intermediate/pinmem_nonblock.html (A guide on good usage of non_blocking and pin_memory(): reading a non-blocking device-to-host copy before synchronising gives undefined data)",
			"testdata/gpu/scenarios/s21_nonblocking_race.py (H100: an unsynchronised non_blocking copy was corrupted 50 times out of 50, silently)",
		},
	},
	Check: checkCD101,
}

// hostReads are the methods that read a CPU tensor's data into Python.
var hostReads = map[string]bool{"tolist": true, "numpy": true, "item": true, "__array__": true}

// hostReadFuncs are builtins and numpy functions that read their argument.
var hostReadFuncs = map[string]bool{"print": true, "float": true, "int": true, "bool": true, "list": true, "str": true,
	"repr": true, "np.array": true, "np.asarray": true, "numpy.array": true, "numpy.asarray": true}

func checkCD101(p *pylint.Pass) {
	f := p.File
	for _, off := range f.Find("non_blocking", 0, len(f.Src)) {
		call := nonBlockingCall(f, off)
		if call == nil || copyDirection(f, call) != "d2h" {
			continue
		}
		checkCopyRead(p, call, "the result of a non_blocking device-to-host copy")
	}
	// Across functions: a helper of this file returns such a copy and the
	// caller reads it.
	m := f.Model()
	for _, call := range f.Calls(0, len(f.Src)) {
		if s := m.Summary(call); s != nil && s.ReturnsNonBlockingD2H {
			checkCopyRead(p, call, fmt.Sprintf("the non_blocking device-to-host copy %s() returns", s.Name))
		}
	}
}

func checkCopyRead(p *pylint.Pass, call *pylint.Node, what string) {
	f := p.File
	// Read in the same expression: x.cpu(non_blocking=True).numpy().
	if n, how := hostRead(f, upParen(call)); n != nil {
		p.Report(n, fmt.Sprintf("%s reads %s before it has completed", how, what))
		return
	}
	name := assignedName(call)
	if name == nil {
		return
	}
	scope := f.Scope(call)
	stmtEnd := int(pylint.Statement(call).EndByte())
	sync := firstSync(f, stmtEnd, int(scope.EndByte()))
	for _, use := range usesAfter(f, scope, f.Text(name), stmtEnd) {
		if int(use.StartByte()) >= sync {
			break
		}
		if n, how := hostRead(f, use); n != nil {
			line, _ := f.LineCol(int(call.StartByte()))
			p.Report(n, fmt.Sprintf("%s reads %s, %s (line %d), before any synchronize()", how, f.Text(name), what, line))
			break
		}
	}
}

// hostRead classifies an expression node whose value is read on the host.
func hostRead(f *pylint.File, n *pylint.Node) (*pylint.Node, string) {
	p := n.Parent()
	if p == nil {
		return nil, ""
	}
	switch p.Type() {
	case "attribute":
		if m, call := methodCallOn(f, n); call != nil && hostReads[m] {
			return call, "." + m + "()"
		}
	case "subscript":
		if v := p.ChildByFieldName("value"); same(v, n) {
			if g := p.Parent(); g != nil && (g.Type() == "assignment" || g.Type() == "augmented_assignment") && same(g.ChildByFieldName("left"), p) {
				return nil, ""
			}
			return p, "indexing"
		}
	case "argument_list":
		call := p.Parent()
		if call != nil && call.Type() == "call" && hostReadFuncs[f.Callee(call)] {
			return call, f.Callee(call) + "()"
		}
	}
	return nil, ""
}
