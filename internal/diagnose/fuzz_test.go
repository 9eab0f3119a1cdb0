package diagnose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// FuzzExplain runs the whole engine (parse, group, classify, locate, rank)
// on arbitrary input: it must never panic, and every finding must be well
// formed whatever the log holds.
func FuzzExplain(f *testing.F) {
	for _, name := range []string{
		"h100/s03_ce_target_oob.plain.log", "h100/s05_oom.plain.log", "h100/s12_fork_reinit.plain.log",
		"h200x2/n1_desync_timeout.detail.log", "h200x2/n4_shape_mismatch.detail.log",
	} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "gpu", "logs", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("Root Cause (first observed failure):\n[0]:\n  rank      : 3 (local_rank: 3)\n  exitcode  : -9 (pid: 1)\n  traceback : Signal 9 (SIGKILL) received by PID 1\n"))
	f.Add([]byte("[rank1]:Traceback (most recent call last):\n[rank1]:  File \"t.py\", line 1, in <module>\n[rank1]:    loss = F.cross_entropy(x, y)\n[rank1]:RuntimeError: CUDA error: device-side assert triggered\n"))
	e := realEngine(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := e.Explain(context.Background(), []Input{{Name: "fuzz.log", Reader: strings.NewReader(string(data))}})
		if err != nil {
			return // binary input is refused with an error, which is fine
		}
		for _, fd := range fs {
			if fd.Rule == "" || fd.Message == "" {
				t.Fatalf("finding without rule or message: %+v", fd)
			}
			if fd.Severity < report.Info || fd.Severity > report.Error {
				t.Fatalf("finding with severity %v: %+v", fd.Severity, fd)
			}
			if fd.Rank != nil && *fd.Rank < 0 {
				t.Fatalf("negative rank: %+v", fd)
			}
		}
	})
}
