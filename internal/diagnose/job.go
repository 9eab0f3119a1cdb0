package diagnose

import (
	"fmt"
	"sort"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// NodeReport is one node's cudadoctor report (`run --report-dir`), read
// back to be joined with the job's other evidence.
type NodeReport struct {
	Findings []report.Finding
	Run      *report.RunInfo
	Ended    time.Time // zero when the report does not say
}

// MergeJob joins a job's evidence into one verdict: the log engine's
// findings, the nodes' reports (in input order) and the Flight Recorder's
// analysis. Root causes come first (from the reports, earliest run first,
// then from the logs), then the Flight Recorder's divergence, then the
// consequences (timeouts, terminated ranks), which are folded under the
// root cause when there is one.
func MergeJob(logs []report.Finding, nodes []NodeReport, flightRecorder []report.Finding) []report.Finding {
	// Reports whose times do not order them keep the input order.
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		ti, tj := nodes[order[i]].Ended, nodes[order[j]].Ended
		if !ti.IsZero() && !tj.IsZero() && !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return order[i] < order[j]
	})
	var roots, echoes []report.Finding
	for _, n := range order {
		nr := nodes[n]
		terminated := runTerminated(nr.Run)
		for _, f := range nr.Findings {
			if terminated || consequence(&f) {
				echoes = append(echoes, f)
			} else {
				roots = append(roots, f)
			}
		}
	}
	for _, f := range logs {
		if consequence(&f) {
			echoes = append(echoes, f)
		} else {
			roots = append(roots, f)
		}
	}
	// A root cause (an OOM, a kill, a device assert) stops its rank, and
	// the Flight Recorder then shows the others waiting for it: the dumps'
	// divergence is its consequence, named as such on both sides.
	roots = errorsFirst(roots)
	fr := append([]report.Finding(nil), flightRecorder...)
	report.SortFindings(fr)
	// One failure, one finding: the dumps' divergence and the other ranks'
	// timeouts and terminations are listed under the root cause, as the log
	// engine does for one combined log, not reported as failures of their
	// own. Without a root cause in the logs, the first divergence is it.
	switch {
	case len(roots) > 0 && roots[0].Severity == report.Error:
		markConsequences(&roots[0], fr)
		fr = nil
		foldEchoes(&roots[0], echoes)
		echoes = nil
	case len(fr) > 0 && fr[0].Severity == report.Error:
		foldEchoes(&fr[0], echoes)
		echoes = nil
	}
	merged := make([]report.Finding, 0, len(roots)+len(fr)+len(echoes))
	merged = append(merged, roots...)
	merged = append(merged, fr...)
	merged = append(merged, echoes...)
	report.SortFindings(merged)
	return merged
}

// consequence says whether a finding is the echo of a failure elsewhere in
// the job: an NCCL timeout or error on a rank left waiting, or a process
// that the launcher terminated because another one failed.
func consequence(f *report.Finding) bool {
	if f.Class == "nccl-error" {
		return true
	}
	// torchrun's agent stopped by SIGTERM once the job was failing.
	if f.Class == "other" && agentSignalRE.MatchString(f.Message) {
		return true
	}
	return isSIGTERM(f.Facts["signal"]) || isSIGTERM(f.Facts["exit_code"])
}

// agentSignalRE is the elastic agent's exception when it is told to stop.
var agentSignalRE = lazyre.New(`SignalException: Process \d+ got signal: (?:15|1|2)\b`)

func isSIGTERM(v any) bool {
	switch x := v.(type) {
	case string:
		return x == "SIGTERM" || x == "15" || x == "-15" || x == "143"
	case float64:
		return x == -15 || x == 143
	case int:
		return x == -15 || x == 143
	}
	return false
}

func runTerminated(r *report.RunInfo) bool {
	return r != nil && (r.Signal == "SIGTERM" || r.ExitCode == 143 || r.ExitCode == -15)
}

// errorsFirst orders root causes by severity, keeping their order otherwise.
func errorsFirst(fs []report.Finding) []report.Finding {
	report.SortFindings(fs)
	return fs
}

// foldEchoes lists each echo under root as a related consequence.
func foldEchoes(root *report.Finding, echoes []report.Finding) {
	for _, e := range echoes {
		loc := e.Origin
		if loc == nil {
			loc = e.Location
		}
		root.Related = append(root.Related, report.Related{
			Message:  e.Message + " (a consequence of the failure above)",
			Rank:     e.Rank,
			Location: loc,
			Class:    e.Class,
		})
	}
}

// markConsequences records that the Flight Recorder findings follow from
// root: root lists them as related, where they stay (each also says so in
// its facts, for a caller that keeps them).
func markConsequences(root *report.Finding, fr []report.Finding) {
	what := root.Class
	if root.Rank != nil {
		what = fmt.Sprintf("%s on rank %d", root.Class, *root.Rank)
	}
	for i := range fr {
		f := &fr[i]
		if f.Facts == nil {
			f.Facts = map[string]any{}
		}
		f.Facts["consequence_of"] = what
		root.Related = append(root.Related, report.Related{
			Message:  "Flight Recorder (" + f.Rule + "): " + f.Message + " (a consequence of the failure above)",
			Rank:     f.Rank,
			Location: f.Location,
			Class:    f.Class,
		})
	}
}
