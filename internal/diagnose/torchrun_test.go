package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

const dist = "../../testdata/gpu/dist/"

func realEngine(t testing.TB) *Engine {
	t.Helper()
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	return New(k)
}

// summaryOf writes torchrun's failure summary: the first entry is the one
// torchrun calls the root cause, the others are listed under Failures.
func summaryOf(root string, others ...string) string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n  File \"/opt/torch/.venv/bin/torchrun\", line 10, in <module>\n    sys.exit(main())\n")
	b.WriteString("  File \"/opt/torch/.venv/lib/python3.12/site-packages/torch/distributed/launcher/api.py\", line 317, in launch_agent\n    raise ChildFailedError(\n")
	b.WriteString("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n")
	b.WriteString("=====================================================\ntrain.py FAILED\n-----------------------------------------------------\nFailures:\n")
	if len(others) == 0 {
		b.WriteString("  <NO_OTHER_FAILURES>\n")
	}
	for i, o := range others {
		b.WriteString("[" + string(rune('1'+i)) + "]:\n" + o)
	}
	b.WriteString("-----------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n" + root)
	b.WriteString("=====================================================\n")
	return b.String()
}

func entry(rank, code, pid, tb string) string {
	return "  time      : 2026-11-22_06:37:18\n  host      : localhost\n  rank      : " + rank + " (local_rank: " + rank + ")\n" +
		"  exitcode  : " + code + " (pid: " + pid + ")\n  error_file: <N/A>\n  traceback : " + tb + "\n"
}

const watchdog = "[rank0]:[E1122 06:36:57.926262438 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=15000) ran for 15089 milliseconds before timing out.\n"

func TestTorchrunRootCause(t *testing.T) {
	e := realEngine(t)
	sigabrt0 := entry("0", "-6", "1020", "Signal 6 (SIGABRT) received by PID 1020")
	sigkill1 := entry("1", "-9", "1021", "Signal 9 (SIGKILL) received by PID 1021")
	tests := []struct {
		name    string
		files   []string
		text    string
		class   string
		rank    int
		related []string // substrings some related entry must hold
	}{
		{
			name:  "real: rank 1 SIGKILLed, the agent's line names only its local rank and pid",
			files: []string{dist + "n5_rank_sigkill/torchrun.log"},
			class: "host-killed", rank: 1,
			related: []string{"rank 0 was killed by SIGTERM (exit code -15) after rank 1 failed"},
		},
		{
			name:  "real: torchrun names rank 0 (SIGABRT by its watchdog) though rank 1 was SIGKILLed",
			files: []string{dist + "n5_rank_sigkill_fr/torchrun.log"},
			class: "host-killed", rank: 1,
			related: []string{"rank 0: the collective ALLREDUCE (sequence 7) timed out", "a consequence of the failure above"},
		},
		{
			name:  "synthetic: the same, with the summary alone",
			text:  watchdog + summaryOf(sigabrt0, sigkill1),
			class: "host-killed", rank: 1,
			related: []string{"rank 0: the collective ALLREDUCE"},
		},
		{
			// Rank 0 may have aborted by itself (a C++ check): torchrun's
			// label stands, and neither rank left a line to diagnose but
			// the summary, which the finding reports.
			name:  "a SIGABRT without timeouts in its log is not overruled",
			text:  summaryOf(sigabrt0, sigkill1),
			class: "other", rank: 0,
		},
		{
			name:  "a SIGTERMed root gives way to the rank killed by SIGKILL",
			text:  summaryOf(entry("0", "-15", "1020", "Signal 15 (SIGTERM) received by PID 1020"), sigkill1),
			class: "host-killed", rank: 1,
			related: []string{"rank 0 was killed by SIGTERM (exit code -15) after rank 1 failed"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var fs = explainText(t, e, tc.text)
			if tc.files != nil {
				fs = explainFiles(t, e, tc.files...)
			}
			if tc.class == "" {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %+v", fs)
				}
				return
			}
			if len(fs) == 0 {
				t.Fatal("no finding")
			}
			f := fs[0]
			if f.Class != tc.class || rank(f) != tc.rank {
				t.Fatalf("got %s on rank %d, want %s on rank %d: %s", f.Class, rank(f), tc.class, tc.rank, f.Message)
			}
			for _, want := range tc.related {
				found := false
				for _, r := range f.Related {
					found = found || strings.Contains(r.Message, want)
				}
				if !found {
					t.Errorf("no related entry holds %q: %+v", want, f.Related)
				}
			}
		})
	}
}

// With a real error on the rank torchrun blames, its label stands.
func TestTorchrunRootKept(t *testing.T) {
	fs := explainFiles(t, realEngine(t), dist+"n6_rank_oom/torchrun.log")
	if len(fs) == 0 || fs[0].Class != "oom" || rank(fs[0]) != 1 {
		t.Fatalf("got %+v", fs)
	}
}

// TestTorchrunRootCauseBlockAlone: users often paste only the "Root Cause"
// block of torchrun's summary; its SIGKILL is the diagnosis, on its rank.
func TestTorchrunRootCauseBlockAlone(t *testing.T) {
	e := realEngine(t)
	text := "Root Cause (first observed failure):\n[0]:\n  time      : 2024-03-11_10:12:45\n  host      : node-1\n" +
		"  rank      : 3 (local_rank: 3)\n  exitcode  : -9 (pid: 41290)\n  error_file: <N/A>\n" +
		"  traceback : Signal 9 (SIGKILL) received by PID 41290\n"
	fs := explainText(t, e, text)
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %d: %+v", len(fs), fs)
	}
	if fs[0].Class != "host-killed" || fs[0].Rank == nil || *fs[0].Rank != 3 {
		t.Errorf("got %s on rank %v, want host-killed on rank 3", fs[0].Class, fs[0].Rank)
	}
}
