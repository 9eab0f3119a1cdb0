package diagnose

import (
	"fmt"
	"strconv"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/oom"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// The alternatives of a finding ("could also be: ...") say that the
// evidence leaves its root open. Where the evidence settles it they are
// noise, and wrong: a reader who is told that a rank may have died of a
// hardware fault goes looking for Xid lines while the log shows that rank
// alive and on another code path.

// liveRanks are the ranks the logs show alive after the failure began:
// a rank with a failure of its own that is not a kill, or a rank that the
// launcher's summary shows stopped by anything but SIGKILL.
func liveRanks(bs []*built, sums []summaryRef) map[int]bool {
	live := map[int]bool{}
	killed := map[int]bool{}
	for _, s := range sums {
		for _, f := range s.ev.Summary.Failures {
			if f.Rank < 0 {
				continue
			}
			if f.Signal == "SIGKILL" || f.ExitCode == -9 || f.ExitCode == 137 {
				killed[f.Rank] = true
			} else {
				live[f.Rank] = true
			}
		}
	}
	for _, b := range bs {
		if b.fail.rank >= 0 && !b.fail.localRank() && b.f.Class != "host-killed" && b.f.Class != "hardware-fault" {
			live[b.fail.rank] = true
		}
	}
	for r := range killed {
		delete(live, r)
	}
	return live
}

var rankNumberRE = lazyre.New(`\d+`)

// evidenceSettles reports whether a finding's own evidence decides its
// root, so that no alternative is left to name, and why.
func evidenceSettles(f *report.Finding, live map[int]bool) (bool, string) {
	if fingerprintMismatch(f.Facts) {
		return true, "both ranks' fingerprints of the collective are in the log"
	}
	if m, ok := f.Facts["missing_ranks"]; ok {
		// monitoredBarrier named the ranks that did not arrive; if each
		// of them is seen alive afterwards, none was killed or lost to
		// the hardware: they were elsewhere in the code.
		ns := rankNumberRE.FindAllString(fmt.Sprint(m), -1)
		all := len(ns) > 0
		for _, n := range ns {
			r, err := strconv.Atoi(n)
			if err != nil || !live[r] {
				all = false
			}
		}
		if all {
			return true, "the ranks that missed the barrier are seen alive afterwards"
		}
	}
	if f.Class == "oom" {
		if m, ok := oom.FromFacts(factStrings(f.Facts)); ok && m.RequestExceedsCapacity() {
			return true, "the one request is larger than the whole card"
		}
	}
	if _, ok := f.Facts["oom_kill_events"]; ok && f.Class == "host-killed" {
		return true, "the kernel's OOM killer is in the log"
	}
	if _, ok := f.Facts["process"]; ok && f.Class == "host-killed" {
		return true, "the kernel's OOM killer is in the log"
	}
	return false, ""
}
