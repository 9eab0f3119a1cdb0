package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
)

// TestGPUScenarios lints the scripts that produced the real H100/H200
// failure logs. Every scenario whose fault a static check can see must be
// flagged at the right line (the `# FAULT` line, or for s12 the fork that
// makes its worker's CUDA call fail), and no other scenario may be flagged.
func TestGPUScenarios(t *testing.T) {
	want := []string{
		"s04_bce_range.py:5:CD105",
		"s12_fork_reinit.py:9:CD103",
		"s13_invalid_ordinal.py:3:CD113",
		"s16_graph_capture.py:9:CD110",
		"s19_seed_amp_masked.py:3:CD104",
		"s20_fp16_overflow.py:6:CD106",
		"s21_nonblocking_race.py:17:CD102",
		"s22_inplace_autograd.py:5:CD109",
		"s26_dataloader_worker_cuda.py:8:CD103",
		"s28_leak_oom.py:7:CD107",
		"s33_memory_snapshot.py:11:CD107",
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "gpu", "scenarios", "*.py"))
	nccl, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "gpu", "nccl", "*.py"))
	files = append(files, nccl...)
	if len(files) < 30 {
		t.Fatalf("found only %d scenario scripts", len(files))
	}
	l := &pycheck.Linter{Rules: All()}
	var got []string
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range l.LintSource(p, src) {
			got = append(got, fmt.Sprintf("%s:%d:%s", filepath.Base(p), f.Location.Line, f.Rule))
		}
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	for _, w := range want {
		if !strings.Contains(w, "s12_") {
			p := filepath.Join("..", "..", "..", "testdata", "gpu", "scenarios", strings.SplitN(w, ":", 2)[0])
			src, _ := os.ReadFile(p)
			var line int
			fmt.Sscanf(strings.SplitN(w, ":", 3)[1], "%d", &line)
			if l := strings.Split(string(src), "\n"); line > len(l) || !strings.Contains(l[line-1], "FAULT") && !strings.Contains(w, "s19_") {
				t.Errorf("%s: expected line is not the FAULT line", w)
			}
		}
	}
}
