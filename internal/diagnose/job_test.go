package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// TestMergeJob: a root cause in a log takes the Flight Recorder's divergence
// and another node's NCCL timeout as its consequences; without one, the
// divergence is the verdict and the timeout its consequence.
func TestMergeJob(t *testing.T) {
	rank := func(n int) *int { return &n }
	oom := report.Finding{Rule: "oom", Class: "oom", Severity: report.Error, Message: "CUDA out of memory", Rank: rank(1)}
	timeout := report.Finding{Rule: "nccl-error", Class: "nccl-error", Severity: report.Error, Message: "watchdog timeout", Rank: rank(0)}
	desync := report.Finding{Rule: "flightrec/desync", Class: "nccl-error", Severity: report.Error, Message: "rank 1 never entered allreduce"}
	node := NodeReport{Findings: []report.Finding{timeout}, Run: &report.RunInfo{ExitCode: 1}, Ended: time.Unix(10, 0)}

	got := MergeJob([]report.Finding{oom}, []NodeReport{node}, []report.Finding{desync})
	if len(got) != 1 || got[0].Rule != "oom" || len(got[0].Related) != 2 {
		t.Fatalf("with a root cause: %+v", got)
	}
	for _, r := range got[0].Related {
		if !strings.Contains(r.Message, "a consequence of the failure above") {
			t.Errorf("related %q is not named a consequence", r.Message)
		}
	}

	got = MergeJob(nil, []NodeReport{node}, []report.Finding{desync})
	if len(got) != 1 || got[0].Rule != "flightrec/desync" || len(got[0].Related) != 1 || *got[0].Related[0].Rank != 0 {
		t.Fatalf("without a root cause: %+v", got)
	}
}

// TestMergeJobOrdersReportsByTime: the earlier run's root cause comes
// first, whatever the input order.
func TestMergeJobOrdersReportsByTime(t *testing.T) {
	late := NodeReport{Findings: []report.Finding{{Rule: "a", Class: "a", Severity: report.Error, Message: "late"}}, Ended: time.Unix(20, 0)}
	early := NodeReport{Findings: []report.Finding{{Rule: "b", Class: "b", Severity: report.Error, Message: "early"}}, Ended: time.Unix(10, 0)}
	got := MergeJob(nil, []NodeReport{late, early}, nil)
	if len(got) != 2 || got[0].Message != "early" {
		t.Errorf("order %+v", got)
	}
}
