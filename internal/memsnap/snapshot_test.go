package memsnap

import (
	"os"
	"strings"
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

func TestAnalyzeFixture(t *testing.T) {
	s := loadFixture(t)
	as := Analyze(s)
	if len(as) != 1 {
		t.Fatalf("%d devices", len(as))
	}
	a := as[0]
	// Block sizes at the end of s33 (sum of the segments' allocated_size).
	const final = 11996894720
	if a.FinalAllocated != final || a.PeakAllocated != final || a.PeakEvent != len(s.Traces[0])-2 {
		t.Errorf("final %d, peak %d at event %d", a.FinalAllocated, a.PeakAllocated, a.PeakEvent)
	}
	if a.FinalReserved != 11997806592 || a.PeakReserved != a.FinalReserved {
		t.Errorf("reserved %d, peak %d", a.FinalReserved, a.PeakReserved)
	}
	var labels []string
	for _, st := range a.Top {
		labels = append(labels, a.Sites[st.Site].Label)
	}
	if got := strings.Join(labels, " "); got != "s33_memory_snapshot.py:10 s33_memory_snapshot.py:9 s33_memory_snapshot.py:5" {
		t.Errorf("top sites %s", got)
	}
	if a.Top[0].PeakBytes+a.Top[1].PeakBytes+a.Top[2].PeakBytes != a.PeakAllocated {
		t.Error("the sites do not add up to the peak")
	}
	if len(a.Growth) != 2 || a.Iterations != 140 || a.Growth[1].PerIteration != 16<<20 {
		t.Errorf("growth %+v over %d iterations", a.Growth, a.Iterations)
	}
	if a.OOM == nil || a.OOM.Requested != 16<<20 || a.OOM.DeviceFree != 137393995776 || a.OOM.Count != 1 {
		t.Errorf("OOM %+v", a.OOM)
	}
	if s.ExpandableSegments == nil || *s.ExpandableSegments || len(s.Settings) != 9 {
		t.Errorf("settings %+v", s.Settings)
	}
}
