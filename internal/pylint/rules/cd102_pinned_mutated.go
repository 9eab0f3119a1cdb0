package rules

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pylint"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// CD102: a pinned host tensor is modified while a non_blocking copy from it
// to the GPU may still be running.
var CD102 = &pylint.Rule{
	Code:     "CD102",
	Name:     "pinned-source-mutated",
	Severity: report.Error,
	Anchors:  []string{"non_blocking"},
	Doc: pylint.Doc{
		Title:   "Pinned source of a non_blocking copy modified before synchronising",
		Summary: "A pinned CPU tensor is copied to the GPU with `non_blocking=True` and then written (`copy_`, `fill_`, `zero_`, another in-place op, slice assignment, `+=`) before any synchronisation.",
		Why: `A non_blocking host-to-device copy from pinned memory is a DMA transfer queued on the
stream: the call returns before the bytes are read. Writing the source afterwards races
with the transfer, and the GPU receives the new values, the old ones or a mix, with no
error. In a loop the write at the top of the next iteration races the same way.
Pageable (unpinned) sources are safe: CUDA stages them synchronously.`,
		Example: `src = torch.empty(n).pin_memory()
dst = src.to("cuda", non_blocking=True)
src.fill_(-1.0)              # races with the copy`,
		Fix: `Synchronise (torch.cuda.synchronize(), or record an event after the copy and wait on it
with event.synchronize()) before writing the pinned buffer again; or keep one pinned
buffer per in-flight copy (double buffering) and reuse a buffer only after its event.`,
		References: []string{
			"testdata/gpu/scenarios/s21_nonblocking_race.py and testdata/gpu/logs/h100/s21_nonblocking_race.plain.log (H100: the GPU copy was corrupted 50 times out of 50, no error)",
			"https://docs.pytorch.org/tutorials/intermediate/pinmem_nonblock.html (non_blocking copies from pinned memory are asynchronous)",
		},
	},
	Check: checkCD102,
}

func checkCD102(p *pylint.Pass) {
	f := p.File
	for _, off := range f.Find("non_blocking", 0, len(f.Src)) {
		call := nonBlockingCall(f, off)
		if call == nil {
			continue
		}
		var src *pylint.Node
		switch pylint.LastName(f.Callee(call)) {
		case "to", "cuda":
			if copyDirection(f, call) == "h2d" {
				src = unparen(receiver(call))
			}
		case "copy_":
			if args := pylint.PositionalArgs(call); len(args) > 0 {
				src = unparen(args[0])
			}
		}
		if src == nil || !isPlace(f, src) {
			continue
		}
		scope := f.Scope(call)
		name := f.Text(src)
		if !pinnedPlace(f, scope, src, int(call.StartByte())) {
			continue
		}
		stmt := pylint.Statement(call)
		stmtEnd := int(stmt.EndByte())
		line, _ := f.LineCol(int(call.StartByte()))
		reported := false
		for _, use := range placeUsesAfter(f, scope, src, stmtEnd) {
			if hostSyncBefore(f, scope, stmtEnd, use) {
				break
			}
			if n, what := mutation(f, use); n != nil {
				p.Report(n, fmt.Sprintf("%s writes pinned %s while the non_blocking copy from it (line %d) may still be running", what, name, line))
				reported = true
				break
			}
		}
		if reported {
			continue
		}
		loop := enclosingLoop(call, scope)
		if loop == nil {
			continue
		}
		body := loop.ChildByFieldName("body")
		if body == nil || firstSync(f, int(body.StartByte()), int(body.EndByte())) < int(body.EndByte()) {
			continue
		}
		uses := placeOccurrences(f, scope, src, int(body.StartByte()), int(stmt.StartByte()))
		fresh := false
		for _, use := range uses {
			// A buffer made anew in each iteration is not the one in flight.
			if placeRebound(use) {
				fresh = true
			}
		}
		if fresh {
			continue
		}
		for _, use := range uses {
			if n, what := mutation(f, use); n != nil {
				p.Report(n, fmt.Sprintf("%s writes pinned %s on the next loop iteration while the non_blocking copy from it (line %d) may still be running", what, name, line))
				break
			}
		}
	}
}

// pinnedPlace reports whether place was last assigned pinned memory before
// offset in scope, or (self.x) pinned anywhere in its class.
func pinnedPlace(f *pylint.File, scope, place *pylint.Node, before int) bool {
	isPinned := func(rhs *pylint.Node) bool {
		t := f.Compact(rhs)
		return strings.Contains(t, ".pin_memory()") || strings.Contains(t, "pin_memory=True")
	}
	if place.Type() == "identifier" {
		rhs := lastAssignment(f, scope, f.Text(place), before)
		return rhs != nil && isPinned(rhs)
	}
	region := scope
	if place.Type() == "attribute" && strings.HasPrefix(f.Text(place), "self.") {
		if cls := pylint.Ancestor(place, "class_definition"); cls != nil {
			region = cls
		}
	}
	for _, n := range placeOccurrences(f, nil, place, int(region.StartByte()), int(region.EndByte())) {
		if placeRebound(n) && isPinned(n.Parent().ChildByFieldName("right")) {
			return true
		}
	}
	return false
}
