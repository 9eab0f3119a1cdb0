package diagnose

import (
	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// inferredRoots are the roots a refinement infers from circumstances
// rather than reads from the failure: a library status taken for a full
// card because of the message's wording, the memory numbers, or the
// user's words about batch sizes. A build that cannot run on the GPU at
// all, or a driver too old for it, explains the same status more
// directly, but only when a tool printed those facts: a version the user
// merely writes ("cuda9.0, rtx 2080ti") is often the system toolkit, not
// the one the failing build carries, and does not overturn a settled
// reading.
var inferredRoots = set("oom")

// refinable: the pasted check c may name the root of f. It may when f's
// class is a surface c's root stands behind; and when f is an inferred
// root whose surface c's root stands behind, provided every fact c rests
// on was printed by a tool.
func refinable(c report.Finding, f *report.Finding) bool {
	if refinableBy[c.Class][f.Class] {
		return true
	}
	surface, ok := f.Facts["surface_class"].(string)
	return ok && inferredRoots[f.Class] && surface != f.Class && refinableBy[c.Class][surface] &&
		c.Facts["pasted_from"] == probe.FromTool
}
