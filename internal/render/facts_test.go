package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestTextFacts(t *testing.T) {
	tests := []struct {
		name  string
		facts map[string]any
		want  []string
	}{
		{"size wins over its byte count", map[string]any{"free": "78.41 GiB", "free_bytes": 84192096420}, []string{"free=78.41 GiB"}},
		{"a byte count alone becomes a size", map[string]any{"process_bytes": 813694976, "reserved_bytes": float64(270532608)}, []string{"process=776.00 MiB", "reserved=258.00 MiB"}},
		{"internal flags hidden", map[string]any{"reported_asynchronously": true, "launch_blocking": true, "oom_form": "2.x", "device": 0}, []string{"device=0"}},
		{"kernel source with its line", map[string]any{"kernel_src": "Loss.cu", "kernel_line": 90, "block": "0,0,0"}, []string{"kernel_src=Loss.cu:90"}},
		{"lists and maps stay in JSON", map[string]any{"sites": []any{map[string]any{"site": "a.py:1"}}, "hist": map[string]int{"64": 0}, "n": 2}, []string{"n=2"}},
		{"an order is no size", map[string]any{"rank_by_bytes": 1}, []string{"rank_by_bytes=1"}},
		{"a non-numeric _bytes fact stays", map[string]any{"x_bytes": "n/a"}, []string{"x_bytes=n/a"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, textFacts(tt.facts)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

// A finding about one rank located at another rank's line says whose line
// it is.
func TestTextRankReportedByAnother(t *testing.T) {
	f := report.Finding{Rule: "nccl-error", Severity: report.Error, Message: "rank 0 never published the NCCL unique id",
		Location: &report.Location{Path: "rank3.log", Line: 2}, Rank: report.IntPtr(0), Facts: map[string]any{"waiting_rank": 3}}
	var b strings.Builder
	r := report.New("explain", "0.1.0")
	r.Findings = []report.Finding{f}
	if err := Text(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "--> rank3.log:2 (rank 0, reported by rank 3)") {
		t.Errorf("header:\n%s", b.String())
	}
}
