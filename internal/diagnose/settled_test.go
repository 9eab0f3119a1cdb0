package diagnose

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

const barrierSkipLog = "../../testdata/gpu/dist/n7_barrier_skip_detail/detail.log"

// The alternatives of a watchdog or barrier timeout are dropped exactly
// when the log shows the rank that did not arrive alive afterwards.
func TestAlternativesFollowTheEvidence(t *testing.T) {
	e := New(kb.MustDefault())
	real, err := os.ReadFile(barrierSkipLog)
	if err != nil {
		t.Fatal(err)
	}
	// The same job, but the launcher reports rank 1 killed by SIGKILL:
	// then a host kill or a lost GPU is still a possible reason.
	killed := strings.NewReplacer("exitcode  : -15 (pid: 1339)", "exitcode  : -9 (pid: 1339)",
		"Signal 15 (SIGTERM) received by PID 1339", "Signal 9 (SIGKILL) received by PID 1339").Replace(string(real))
	if killed == string(real) {
		t.Fatal("the fixture no longer has rank 1's SIGTERM summary")
	}
	tests := []struct {
		name, text string
		want       bool // alternatives named
	}{
		{"missing rank seen alive (SIGTERM after the failure)", string(real), false},
		{"missing rank killed by SIGKILL", killed, true},
		{"watchdog timeout alone", readFile(t, logs+"h200x2/n1_desync_timeout.plain.log"), true},
		{"fingerprints of both ranks", readFile(t, logs+"h200x2/n4_shape_mismatch.detail.log"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := explainText(t, e, tt.text)
			if len(fs) == 0 || fs[0].Class != "nccl-error" {
				t.Fatalf("want an nccl-error finding first, got %+v", fs)
			}
			got := fs[0].Alternatives
			if tt.want && !slices.Contains(got, "host-killed") {
				t.Errorf("alternatives %v, want host-killed among them: the evidence leaves it open", got)
			}
			if !tt.want && len(got) > 0 {
				t.Errorf("alternatives %v, want none: the evidence settles the class", got)
			}
		})
	}
}

// One request larger than the whole card leaves nothing to weigh: no
// fragmentation or other tenant explains it. A full card keeps its
// alternative, with what tells it apart.
func TestOversizedRequestSettles(t *testing.T) {
	e := New(kb.MustDefault())
	huge := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 122.07 GiB. GPU 0 has a total capacity of 79.18 GiB of which 78.41 GiB is free. Including non-PyTorch memory, this process has 776.00 MiB memory in use. Of the allocated memory 256.03 MiB is allocated by PyTorch, and 1.97 MiB is reserved by PyTorch but unallocated.\n"
	if fs := explainText(t, e, huge); len(fs) != 1 || fs[0].Class != "oom" || len(fs[0].Alternatives) != 0 {
		t.Errorf("oversized request: %+v", fs)
	}
	full := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 1.41 GiB is free. Including non-PyTorch memory, this process has 77.70 GiB memory in use. Of the allocated memory 76.03 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.\n"
	fs := explainText(t, e, full)
	if len(fs) != 1 || fs[0].Class != "oom" || !slices.Contains(fs[0].Alternatives, "oom-fragmentation") || fs[0].SettleBy["oom-fragmentation"] == "" {
		t.Errorf("full card: %+v", fs)
	}
}

func TestEvidenceSettles(t *testing.T) {
	tests := []struct {
		name   string
		f      report.Finding
		live   map[int]bool
		wantOK bool
	}{
		{"one missing rank, alive", report.Finding{Class: "nccl-error", Facts: map[string]any{"missing_ranks": 1}}, map[int]bool{1: true}, true},
		{"two missing ranks, one alive", report.Finding{Class: "nccl-error", Facts: map[string]any{"missing_ranks": "1, 3"}}, map[int]bool{1: true}, false},
		{"two missing ranks, both alive", report.Finding{Class: "nccl-error", Facts: map[string]any{"missing_ranks": "1, 3"}}, map[int]bool{1: true, 3: true}, true},
		{"no rank named", report.Finding{Class: "nccl-error", Facts: map[string]any{"timeout_ms": 600000}}, map[int]bool{1: true}, false},
		{"OOM killer named", report.Finding{Class: "host-killed", Facts: map[string]any{"pid": 777, "process": "python3"}}, nil, true},
		{"a bare Killed", report.Finding{Class: "host-killed"}, nil, false},
	}
	for _, tt := range tests {
		if ok, _ := evidenceSettles(&tt.f, tt.live); ok != tt.wantOK {
			t.Errorf("%s: settles = %v, want %v", tt.name, ok, tt.wantOK)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
