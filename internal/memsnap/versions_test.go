package memsnap

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/pickle"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func encode(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	p := newPickleWriter(&buf)
	p.Value(v)
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func frame(file string, line int, name string) ordered {
	return ordered{{"name", name}, {"filename", file}, {"line", line}}
}

func findingsOf(t *testing.T, b []byte) (*Snapshot, []*DeviceAnalysis, []report.Finding) {
	t.Helper()
	s, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	as := Analyze(s)
	return s, as, Findings(s, as, "snap.pickle")
}

func rules(fs []report.Finding) string {
	var r []string
	for _, f := range fs {
		r = append(r, f.Rule)
	}
	return strings.Join(r, " ")
}

// Snapshots as older PyTorch versions wrote them: the fields differ, the
// report degrades, nothing fails.
func TestOlderSnapshotLayouts(t *testing.T) {
	user := frame("/home/u/train.py", 7, "<module>")
	lib := frame("/usr/lib/python3/dist-packages/torch/nn/modules/linear.py", 116, "forward")
	cpp := frame("??", 0, "at::native::empty_cuda")
	seg := func(blocks ...any) ordered {
		return ordered{{"device", 0}, {"address", int64(1 << 40)}, {"total_size", 2 << 20}, {"allocated_size", 1 << 20},
			{"active_size", 1 << 20}, {"stream", 0}, {"segment_type", "large"}, {"blocks", blocks}}
	}
	tests := []struct {
		name  string
		snap  any
		rules string
		check func(t *testing.T, s *Snapshot, a *DeviceAnalysis)
	}{
		{
			// torch.cuda.memory_snapshot() (any version): the segment list alone.
			name:  "bare segment list",
			snap:  []any{seg(ordered{{"size", 1 << 20}, {"state", "active_allocated"}}, ordered{{"size", 1 << 20}, {"state", "inactive"}})},
			rules: "memory/peak memory/no-history",
			check: func(t *testing.T, s *Snapshot, a *DeviceAnalysis) {
				if a.PeakAllocated != 1<<20 || a.PeakReserved != 2<<20 || a.Frag.LargestFree != 1<<20 {
					t.Errorf("peak %d/%d, largest free %d", a.PeakAllocated, a.PeakReserved, a.Frag.LargestFree)
				}
			},
		},
		{
			// 2.0: per-block "history" instead of "frames", no time_us, no settings.
			name: "2.0 block history",
			snap: ordered{
				{"segments", []any{seg(ordered{{"size", 1 << 20}, {"state", "active_allocated"},
					{"history", []any{ordered{{"addr", int64(1 << 40)}, {"real_size", 1000}, {"frames", []any{cpp, lib, user}}}}}})}},
				{"device_traces", []any{[]any{ordered{{"action", "alloc"}, {"addr", int64(1 << 40)}, {"size", 1 << 20}, {"stream", 0},
					{"frames", []any{lib, user}}}}}},
			},
			rules: "memory/peak memory/top-site",
			check: func(t *testing.T, s *Snapshot, a *DeviceAnalysis) {
				if len(a.Top) == 0 || a.Sites[a.Top[0].Site].Label != "train.py:7" || a.Timeline.XIsTime {
					t.Errorf("top %+v, x is time %v", a.Top, a.Timeline.XIsTime)
				}
			},
		},
		{
			// The docstring's state name, and unknown keys everywhere.
			name: "awaiting free and unknown fields",
			snap: ordered{
				{"segments", []any{seg(ordered{{"size", 1 << 20}, {"state", "active_awaiting_free"}, {"frames", []any{user}}, {"new_field", 3}})}},
				{"device_traces", []any{[]any{}}},
				{"allocator_settings", ordered{{"expandable_segments", true}, {"something_new", []any{1, "x"}}}},
				{"future_key", ordered{{"a", 1}}},
			},
			rules: "memory/peak memory/top-site memory/no-history",
			check: func(t *testing.T, s *Snapshot, a *DeviceAnalysis) {
				if a.FinalAllocated != 1<<20 || s.ExpandableSegments == nil || !*s.ExpandableSegments {
					t.Errorf("allocated %d, expandable %v", a.FinalAllocated, s.ExpandableSegments)
				}
			},
		},
		{
			// History recorded with context="state" only: no frames anywhere.
			name: "no stacks",
			snap: ordered{
				{"segments", []any{seg(ordered{{"size", 1 << 20}, {"state", "active_allocated"}, {"frames", []any{}}})}},
				{"device_traces", []any{[]any{ordered{{"action", "alloc"}, {"addr", int64(1 << 40)}, {"size", 1 << 20}, {"stream", 0}, {"time_us", 5}, {"frames", []any{}}}}}},
			},
			rules: "memory/peak memory/no-history",
			check: func(t *testing.T, s *Snapshot, a *DeviceAnalysis) {
				if a.Sites[a.Top[0].Site].Label != labelNoStack {
					t.Errorf("top site %q", a.Sites[a.Top[0].Site].Label)
				}
			},
		},
		{
			// Only C++ and library frames: attribute to the innermost Python frame.
			name:  "library frames only",
			snap:  ordered{{"segments", []any{seg(ordered{{"size", 1 << 20}, {"state", "active_allocated"}, {"frames", []any{cpp, lib}}})}}},
			rules: "memory/peak memory/top-site memory/no-history",
			check: func(t *testing.T, s *Snapshot, a *DeviceAnalysis) {
				if a.Sites[a.Top[0].Site].Label != "linear.py:116" {
					t.Errorf("top site %q", a.Sites[a.Top[0].Site].Label)
				}
			},
		},
		{
			// A ring that starts mid-run: blocks freed in it were allocated before it.
			name: "ring starts mid-run",
			snap: ordered{
				{"segments", []any{seg(ordered{{"size", 1 << 20}, {"state", "inactive"}})}},
				{"device_traces", []any{[]any{ordered{{"action", "free_completed"}, {"addr", int64(1 << 40)}, {"size", 1 << 20}, {"stream", 0}, {"time_us", 9}, {"frames", []any{user}}}}}},
			},
			rules: "memory/peak memory/top-site",
			check: func(t *testing.T, s *Snapshot, a *DeviceAnalysis) {
				if a.PeakAllocated != 1<<20 || a.FinalAllocated != 0 || a.Sites[a.Top[0].Site].Label != labelBefore {
					t.Errorf("peak %d final %d top %q", a.PeakAllocated, a.FinalAllocated, a.Sites[a.Top[0].Site].Label)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, as, fs := findingsOf(t, encode(t, tt.snap))
			if len(as) != 1 {
				t.Fatalf("%d devices", len(as))
			}
			if got := rules(fs); got != tt.rules {
				t.Errorf("rules %q, want %q", got, tt.rules)
			}
			tt.check(t, s, as[0])
		})
	}
}

func TestNotASnapshot(t *testing.T) {
	for name, v := range map[string]any{
		"int":          5,
		"dict":         ordered{{"a", 1}},
		"segment ints": ordered{{"segments", []any{1, 2}}},
		"traces":       ordered{{"device_traces", []any{5}}},
	} {
		_, err := Decode(bytes.NewReader(encode(t, v)))
		if !errors.Is(err, ErrNotSnapshot) {
			t.Errorf("%s: error %v, want ErrNotSnapshot", name, err)
		}
	}
}

func TestSyntheticLeakIsFound(t *testing.T) {
	tests := []struct {
		name    string
		o       synthOptions
		growth  bool
		perIter int64
	}{
		{"leak", synthOptions{Iterations: 50, TempPerIter: 2, LeakPerIter: 1, BlockSize: 4 << 20, LibraryDepth: 10, OOM: true}, true, 4 << 20},
		{"leak without 2.11 fields", synthOptions{Iterations: 20, TempPerIter: 1, LeakPerIter: 2, BlockSize: 2 << 20, LibraryDepth: 4, Pre211: true}, true, 4 << 20},
		{"steady loop", synthOptions{Iterations: 50, TempPerIter: 3, BlockSize: 4 << 20, LibraryDepth: 10}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeSynthetic(&buf, tt.o); err != nil {
				t.Fatal(err)
			}
			_, as, fs := findingsOf(t, buf.Bytes())
			a := as[0]
			if got := len(a.Growth) > 0; got != tt.growth {
				t.Fatalf("growth found %v, want %v (%s)", got, tt.growth, rules(fs))
			}
			if tt.growth {
				if a.Sites[a.Growth[0].Site].Label != "train.py:12" || a.GrowthPerIteration() != tt.perIter || a.Iterations != tt.o.Iterations {
					t.Errorf("growth %+v at %q, %d iterations", a.Growth, a.Sites[a.Growth[0].Site].Label, a.Iterations)
				}
				if fs[0].Rule != RuleGrowth {
					t.Errorf("first finding %s", fs[0].Rule)
				}
			}
			// Temporaries were freed but their segments stay cached.
			if tt.o.TempPerIter > 0 && a.Frag.Reserved-a.Frag.Allocated != int64(tt.o.Iterations*tt.o.TempPerIter)*tt.o.BlockSize {
				t.Errorf("reserved-allocated %d", a.Frag.Reserved-a.Frag.Allocated)
			}
			if tt.o.OOM && (a.OOM == nil || a.OOM.Requested != 4*tt.o.BlockSize) {
				t.Errorf("OOM %+v", a.OOM)
			}
		})
	}
}

// FuzzSnapshot runs the decoder and every analysis on arbitrary input:
// errors are fine, panics are not.
func FuzzSnapshot(f *testing.F) {
	var buf bytes.Buffer
	writeSynthetic(&buf, synthOptions{Iterations: 3, TempPerIter: 1, LeakPerIter: 1, BlockSize: 1 << 20, LibraryDepth: 2, OOM: true})
	f.Add(buf.Bytes())
	f.Add(encode(f, []any{ordered{{"device", 0}, {"blocks", []any{ordered{{"size", 1}, {"state", "inactive"}}}}}}))
	f.Add(encode(f, ordered{{"device_traces", []any{[]any{ordered{{"action", "free_completed"}, {"addr", 1}, {"size", 2}}}}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(bytes.NewReader(b))
		if err != nil {
			var pe *pickle.Error
			var le *pickle.LimitError
			if !errors.As(err, &pe) && !errors.As(err, &le) && !errors.Is(err, ErrNotSnapshot) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			return
		}
		as := Analyze(s)
		fs := Findings(s, as, "f")
		var out bytes.Buffer
		if err := WriteHTML(&out, &report.Report{Findings: fs}, s, as, "f"); err != nil {
			t.Fatal(err)
		}
	})
}
