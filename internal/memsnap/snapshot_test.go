package memsnap

import (
	"os"
	"testing"
)

const fixture = "../../testdata/gpu/artifacts/s33_memory_snapshot.pickle"

func loadFixture(t testing.TB) *Snapshot {
	t.Helper()
	f, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDecodeFixture(t *testing.T) {
	s := loadFixture(t)
	nblocks := 0
	for _, seg := range s.Segments {
		nblocks += len(seg.Blocks)
	}
	counts := map[Action]int{}
	for _, e := range s.Traces[0] {
		counts[e.Action]++
	}
	t.Logf("segments %d blocks %d traces %d frames %d stacks %d counts %v", len(s.Segments), nblocks, len(s.Traces[0]), len(s.Frames), len(s.Stacks), counts)
	if len(s.Segments) != 703 || nblocks != 847 || len(s.Traces) != 1 || len(s.Traces[0]) != 2801 {
		t.Errorf("got %d segments, %d blocks, %d trace lists", len(s.Segments), nblocks, len(s.Traces))
	}
	want := map[Action]int{ActionAlloc: 1263, ActionSegmentAlloc: 703, ActionFreeRequested: 417, ActionFreeCompleted: 417, ActionOOM: 1}
	for a, n := range want {
		if counts[a] != n {
			t.Errorf("%s: %d entries, want %d", a, counts[a], n)
		}
	}
}

func TestAnalyzeFixtureDebug(t *testing.T) {
	s := loadFixture(t)
	as := Analyze(s)
	for _, f := range Findings(s, as, "x.pickle") {
		t.Logf("%s %s %s %v", f.Severity, f.Rule, f.Message, f.Origin)
	}
	t.Logf("timeline points %d", len(as[0].Timeline.X))
}
