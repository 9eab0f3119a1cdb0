package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzLastUserFrame(f *testing.F) {
	for _, name := range []string{"s10_cupy_misaligned.plain.log", "s03_ce_target_oob.blocking.log", "s09_triton_illegal.blocking.log"} {
		if b, err := os.ReadFile(filepath.Join(fixtures, "logs/h100", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("[rank0]: Traceback (most recent call last):\n[rank0]:   File \"t.py\", line 3, in <module>\n[rank0]:     x()\n[rank0]: RuntimeError: y\n")
	f.Fuzz(func(t *testing.T, s string) {
		loc := lastUserFrame([]byte(s))
		if loc == nil {
			return
		}
		if loc.Line < 0 || !strings.HasSuffix(loc.Path, ".py") || strings.Contains(loc.Code, "\n") {
			t.Fatalf("bad frame %+v", loc)
		}
	})
}

func FuzzScanner(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(fixtures, "logs/h200x2/n2_rank_crash.plain.log")); err == nil {
		f.Add(string(b))
	}
	f.Add("Root Cause (first observed failure):\n[0]:\n  rank      : 7 (local_rank: 0)\n")
	f.Fuzz(func(t *testing.T, s string) {
		sc := newScanner()
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if matchesAny([]byte(l), scanKeywords) {
				sc.line([]byte(l), i+1)
			}
		}
		if len(sc.pins) > maxPins || sc.pinBytes > maxPinBytes || len(sc.ranks) > maxRanks {
			t.Fatalf("scanner state unbounded")
		}
		tail := []byte(s)
		in := sc.diagnosisInput(tail, int64(len(s)), len(lines))
		if !bytes.HasSuffix(in, tail) {
			t.Fatalf("diagnosis input lost the tail")
		}
	})
}
