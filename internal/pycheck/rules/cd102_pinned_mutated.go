package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD102: a pinned host tensor is modified while a non_blocking copy from it
// to the GPU may still be running.
var CD102 = &pycheck.Rule{
	RuleDoc: report.RuleDoc{
		ID:       "CD102",
		Name:     "pinned-source-mutated",
		Kind:     report.KindLint,
		Severity: report.Error,
		Title:    "Pinned source of a non_blocking copy modified before synchronising",
		Summary:  "A pinned CPU tensor is copied to the GPU with `non_blocking=True` and then written (`copy_`, `fill_`, `zero_`, another in-place op, slice assignment, `+=`) (also through another name for it: `buf = pinned`, a slice of it, or a field holding it: a dataclass or attrs field, `self.buf` pinned in another method, a constructor's argument) on some path of the function's control flow with no synchronisation on it: later in the function, or in the loop's next pass before the copy (a buffer made anew in each pass is another buffer).",
		Sections: []report.DocSection{
			{Title: "Why", Body: `A non_blocking host-to-device copy from pinned memory is a DMA transfer queued on the
stream: the call returns before the bytes are read. Writing the source afterwards races
with the transfer, and the GPU receives the new values, the old ones or a mix, with no
error. In a loop the write at the top of the next iteration races the same way.
Pageable (unpinned) sources are safe: CUDA stages them synchronously.`},
			{Title: "Example", Body: `src = torch.empty(n).pin_memory()
dst = src.to("cuda", non_blocking=True)
src.fill_(-1.0)              # races with the copy`},
			{Title: "Fix", Body: `Synchronise (torch.cuda.synchronize(), or record an event after the copy and wait on it
with event.synchronize()) before writing the pinned buffer again; or keep one pinned
buffer per in-flight copy (double buffering) and reuse a buffer only after its event.`},
		},
		References: []string{
			"testdata/gpu/scenarios/s21_nonblocking_race.py and testdata/gpu/logs/h100/s21_nonblocking_race.plain.log (H100: the GPU copy was corrupted 50 times out of 50, no error)",
			"https://docs.pytorch.org/tutorials/intermediate/pinmem_nonblock.html (non_blocking copies from pinned memory are asynchronous)",
		},
	},
	Anchors: []string{"non_blocking"},
	Check:   checkCD102,
}

func checkCD102(p *pycheck.Pass) {
	f := p.File
	for _, call := range nonBlockingCalls(f) {
		var src *pycheck.Node
		switch pycheck.LastName(f.Callee(call)) {
		case "to", "cuda":
			if copyDirection(f, call) == "h2d" {
				src = pycheck.Unparen(receiver(call))
			}
		case "copy_":
			if args := pycheck.PositionalArgs(call); len(args) > 0 {
				src = pycheck.Unparen(args[0])
			}
		}
		// buf[:n].to(...): a slice is a view of the buffer it is cut from.
		if src != nil && src.Type() == "subscript" {
			if v := pycheck.Unparen(src.ChildByFieldName("value")); v != nil && pycheck.IsPlace(v) {
				src = v
			}
		}
		if src == nil || !pycheck.IsPlace(src) {
			continue
		}
		scope := f.Scope(call)
		name := f.Text(src)
		if !pinnedPlace(f, scope, src) {
			continue
		}
		// The writes that some path from the copy reaches with no
		// synchronisation between: later in the function, or in the
		// loop's next pass before the copy (unless the buffer is made
		// anew there).
		fl := f.Flow(scope)
		line, _ := f.LineCol(int(call.StartByte()))
		// A blocking read of a value computed from the uploaded tensor
		// (`loss.item()` after `loss = model(x)`) waits for the upload too.
		var uploaded *pycheck.Node
		if f.ContextOf(call)&pycheck.CtxSideStream == 0 {
			uploaded = assignedPlace(f, call)
		}
		uses := fl.UsesAfter(call, src, hostSyncs(f, fl, uploaded), true)
		sortNodes(uses)
		for _, use := range uses {
			if n, what := mutation(f, use); n != nil {
				when := ""
				if use.StartByte() < call.StartByte() {
					when = " on the next loop iteration"
				}
				subject := name
				if t := f.Text(use); t != name {
					subject = fmt.Sprintf("%s (the same buffer as %s)", t, name)
				}
				p.Report(n, fmt.Sprintf("%s writes pinned %s%s while the non_blocking copy from it (line %d) may still be running", what, subject, when, line))
				break
			}
		}
	}
}

// pinnedPlace reports whether place may hold pinned memory where it is
// copied from (an assignment that pins reaches there), or, for a place
// that is not a plain name, pinned wherever the model says it is set.
func pinnedPlace(f *pycheck.File, scope, place *pycheck.Node) bool {
	return pinnedVia(f, scope, place, 3)
}

// pinnedVia is pinnedPlace following copies of places (`buf = self.pinned`)
// depth deep.
func pinnedVia(f *pycheck.File, scope, place *pycheck.Node, depth int) bool {
	isPinned := func(rhs *pycheck.Node) bool {
		t := f.Compact(rhs)
		return strings.Contains(t, ".pin_memory()") || strings.Contains(t, "pin_memory=True")
	}
	if place.Type() == "identifier" {
		// Pinned by an assignment that reaches the copy on some path (a
		// buffer made lazily: `if buf is None: buf = ....pin_memory()`).
		for _, d := range f.Flow(scope).ReachingDefs(place, place) {
			rhs := defValue(d)
			if rhs != nil && isPinned(rhs) {
				return true
			}
			if v := pycheck.Unparen(rhs); v != nil && depth > 0 && pycheck.IsPlace(v) && f.Text(v) != f.Text(place) && pinnedVia(f, scope, v, depth-1) {
				return true
			}
		}
		return false
	}
	// Assigned in this function, or a field of an object (self.x set in
	// any method, a dataclass or attrs field, a constructor's argument).
	for _, v := range f.Model().AttrValues(place) {
		if isPinned(v) {
			return true
		}
	}
	return false
}
