package flightrec

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/flightrec/frtest"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

const realDump = "../../testdata/gpu/artifacts/n1_flight_recorder_rank_0.pickle"

// summary is what a test checks of a finding.
type summary struct {
	Rule       string
	Divergence string
	Rank       int
	Origin     string
	Missing    string
	NotEntered string
}

func summarize(f report.Finding) summary {
	s := summary{Rule: f.Rule, Rank: -1}
	if d, ok := f.Facts["divergence"].(string); ok {
		s.Divergence = d
	}
	if f.Rank != nil {
		s.Rank = *f.Rank
	}
	if f.Origin != nil {
		s.Origin = fmt.Sprintf("%s:%d", filepath.Base(f.Origin.Path), f.Origin.Line)
	}
	if m, ok := f.Facts["dumps_missing"].([]int); ok {
		s.Missing = fmt.Sprint(m)
	}
	if m, ok := f.Facts["ranks_not_entered"].([]int); ok {
		s.NotEntered = fmt.Sprint(m)
	}
	return s
}

func TestRealDumpDecodes(t *testing.T) {
	data, err := os.ReadFile(realDump)
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeBytes(data, realDump)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rank != 0 || d.Version != "2.10" || d.CommLibVersion != "2.28.9" || d.Format != "pickle" {
		t.Errorf("header: rank %d version %q lib %q format %q", d.Rank, d.Version, d.CommLibVersion, d.Format)
	}
	if diff := cmp.Diff(map[string]PG{"0": {Name: "0", Desc: "default_pg", Ranks: []int{0, 1}}}, d.PGs); diff != "" {
		t.Errorf("pg_config (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]PGStatus{"0": {LastEnqueued: 4, LastStarted: -1, LastCompleted: 3}}, d.Status); diff != "" {
		t.Errorf("pg_status (-want +got):\n%s", diff)
	}
	if len(d.Entries) != 4 {
		t.Fatalf("%d entries, want 4", len(d.Entries))
	}
	last := d.Entries[3]
	want := Entry{RecordID: 3, PGID: 0, PGName: "0", PGDesc: "default_pg", CollectiveSeq: 4, OpID: 4,
		ProfilingName: "nccl:all_reduce", TimeCreatedNs: 1795325714633933384,
		InputSizes: [][]int64{{1048576}}, OutputSizes: [][]int64{{1048576}}, InputDtypes: []string{"Float"}, OutputDtypes: []string{"Float"},
		State: "scheduled", TimeoutMs: 20000,
		Frames: []Frame{
			{Name: "all_reduce", File: "/opt/torch/.venv/lib/python3.12/site-packages/torch/distributed/distributed_c10d.py", Line: 3068},
			{Name: "wrapper", File: "/opt/torch/.venv/lib/python3.12/site-packages/torch/distributed/c10d_logger.py", Line: 83},
			{Name: "<module>", File: "/workspace/faultlab/nccl/n1_desync_timeout.py", Line: 14},
		}}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("last entry (-want +got):\n%s", diff)
	}
}

func TestRealDumpFinding(t *testing.T) {
	f, err := os.Open(realDump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Decode(f, realDump)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Analyze([]*Dump{d})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	want := summary{Rule: RuleDesync, Divergence: KindNoPeerDump, Rank: 0, Origin: "n1_desync_timeout.py:14", Missing: "[1]"}
	if diff := cmp.Diff(want, summarize(fs[0])); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, s := range []string{"all_reduce #4", "n1_desync_timeout.py:14", "rank 1 left no Flight Recorder dump"} {
		if !strings.Contains(fs[0].Message, s) {
			t.Errorf("message %q lacks %q", fs[0].Message, s)
		}
	}
	if len(fs[0].Related) != 1 || !strings.Contains(fs[0].Related[0].Message, "n1_flight_recorder_rank_1.pickle") {
		t.Errorf("related = %+v, want rank 1's missing dump named", fs[0].Related)
	}
}

// n1 as it would look with both dumps: rank 0 makes one all_reduce more per step.
var n1Both = frtest.Job{
	PGs:    map[string][]int{"0": {0, 1}},
	Script: "/workspace/faultlab/nccl/n1_desync_timeout.py",
	Calls: map[int][]frtest.Call{
		0: {{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}, {PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 14},
			{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}, {PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 14, State: "scheduled"}},
		1: {{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}, {PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12},
			{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}},
	},
}

func TestAnalyze(t *testing.T) {
	threePG := map[string][]int{"0": {0, 1, 2, 3}, "1": {0, 1, 2, 3}, "2": {0, 1, 2, 3}}
	steps := func(n int, last frtest.Call, lastRanks map[int]frtest.Call) map[int][]frtest.Call {
		out := map[int][]frtest.Call{}
		for r := 0; r < 4; r++ {
			var cs []frtest.Call
			for s := 0; s < n; s++ {
				cs = append(cs, frtest.Call{PG: "0", Op: "all_reduce", Size: 64, Line: 10},
					frtest.Call{PG: "1", Op: "all_reduce", Size: 64, Line: 11},
					frtest.Call{PG: "2", Op: "all_reduce", Size: 64, Line: 12})
			}
			c := last
			if lc, ok := lastRanks[r]; ok {
				c = lc
			}
			if c.Op != "" {
				cs = append(cs, c)
			}
			out[r] = cs
		}
		return out
	}
	tests := []struct {
		name  string
		job   frtest.Job
		json  bool
		drop  []int // ranks whose dumps are not given
		want  *summary
		inMsg []string
	}{
		{
			name:  "n1 with both dumps: rank 1 never entered #4",
			job:   n1Both,
			want:  &summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "n1_desync_timeout.py:14", NotEntered: "[1]"},
			inMsg: []string{"rank 0 called all_reduce #4", "rank 1 never did"},
		},
		{
			name: "an extra call early on shifts every later pairing: the origin is the extra call, not the hang",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 10}, {PG: "0", Op: "all_reduce", Size: 8, Line: 9},
					{PG: "0", Op: "all_reduce", Size: 8, Line: 10}, {PG: "0", Op: "all_reduce", Size: 8, Line: 10},
					{PG: "0", Op: "all_reduce", Size: 8, Line: 10, State: "scheduled"}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 10}, {PG: "0", Op: "all_reduce", Size: 8, Line: 10},
					{PG: "0", Op: "all_reduce", Size: 8, Line: 10}, {PG: "0", Op: "all_reduce", Size: 8, Line: 10}},
			}},
			want:  &summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "train.py:9", NotEntered: "[1]"},
			inMsg: []string{"fell out of step at all_reduce #2, which rank 0 called at train.py:9 while rank 1 called at train.py:10"},
		},
		{
			name: "ranks calling from different lines every step is no drift",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "broadcast", Size: 8, Line: 5}, {PG: "0", Op: "broadcast", Size: 8, Line: 5},
					{PG: "0", Op: "all_reduce", Size: 8, Line: 12, State: "scheduled"}},
				1: {{PG: "0", Op: "broadcast", Size: 8, Line: 7}, {PG: "0", Op: "broadcast", Size: 8, Line: 7}},
			}},
			want: &summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "train.py:12", NotEntered: "[1]"},
		},
		{
			name: "n1 JSON form: no stacks, so no origin",
			job:  n1Both, json: true,
			want: &summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, NotEntered: "[1]"},
		},
		{
			name: "n4: sizes differ, rank 0 completed, rank 1 waits",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 1000, Line: 9}},
				1: {{PG: "0", Op: "all_reduce", Size: 1024, Line: 9, State: "started"}},
			}},
			want:  &summary{Rule: RuleDesync, Divergence: KindSize, Rank: 1, Origin: "train.py:9"},
			inMsg: []string{"1000 elements", "1024 elements"},
		},
		{
			name: "dtype differs",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 9, State: "started"}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Dtype: "Half", Line: 9, State: "started"}},
			}},
			want: &summary{Rule: RuleDesync, Divergence: KindDtype, Rank: 1, Origin: "train.py:9"},
		},
		{
			name: "three groups, rank 2 broadcasts where the others all_reduce on group 2",
			job: frtest.Job{PGs: threePG, Calls: steps(3, frtest.Call{PG: "2", Op: "all_reduce", Size: 64, Line: 12, State: "started"},
				map[int]frtest.Call{2: {PG: "2", Op: "broadcast", Size: 64, Line: 30, State: "started"}})},
			want:  &summary{Rule: RuleDesync, Divergence: KindOp, Rank: 2, Origin: "train.py:30"},
			inMsg: []string{"collective #4 of process group 2", "rank 2 broadcast at train.py:30", "ranks 0-1,3 all_reduce"},
		},
		{
			name: "tie broken by the call site that is new on its rank",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "all_reduce", Size: 8, Line: 5, State: "started"}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "all_gather", Size: 8, Line: 7, State: "started"}},
			}},
			want: &summary{Rule: RuleDesync, Divergence: KindOp, Rank: 1, Origin: "train.py:7"},
		},
		{
			name: "rank 1 skips a barrier and goes on to the next step's all_reduce",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce_barrier", Size: 1, Line: 9}, {PG: "0", Op: "all_reduce", Size: 8, Line: 5},
					{PG: "0", Op: "all_reduce_barrier", Size: 1, Line: 9}, {PG: "0", Op: "all_reduce", Size: 8, Line: 5, State: "scheduled"}},
				1: {{PG: "0", Op: "all_reduce_barrier", Size: 1, Line: 9}, {PG: "0", Op: "all_reduce", Size: 8, Line: 5},
					{PG: "0", Op: "all_reduce", Size: 8, Line: 5, State: "started"}},
			}},
			want: &summary{Rule: RuleDesync, Divergence: KindOp, Rank: 0, Origin: "train.py:9"},
		},
		{
			name: "rank 3 skips a barrier on group 1, missing dump of rank 1",
			job: frtest.Job{PGs: threePG, Calls: steps(2, frtest.Call{PG: "1", Op: "all_reduce", Size: 1, Line: 40, State: "scheduled"},
				map[int]frtest.Call{3: {}})},
			drop: []int{1},
			want: &summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "train.py:40", Missing: "[1]", NotEntered: "[3]"},
		},
		{
			name: "every rank entered and nothing completed",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "all_reduce", Size: 8, Line: 6, State: "started"}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "all_reduce", Size: 8, Line: 6, State: "started"}},
			}},
			want:  &summary{Rule: RuleStuck, Divergence: KindStuck, Rank: 0, Origin: "train.py:6"},
			inMsg: []string{"every rank entered all_reduce #2"},
		},
		{
			name: "a pending send with its peer's dump missing",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "send 0->1", Size: 8, Line: 8, State: "scheduled", P2P: true}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}},
			}},
			drop: []int{1},
			want: &summary{Rule: RuleDesync, Divergence: KindNoPeerDump, Rank: 0, Origin: "train.py:8", Missing: "[1]"},
		},
		{
			name: "both ranks send first: point-to-point deadlock",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "send 0->1", Size: 8, Line: 5, P2P: true}, {PG: "0", Op: "recv 0<-1", Size: 8, Line: 6, P2P: true},
					{PG: "0", Op: "send 0->1", Size: 8, Line: 5, State: "started", P2P: true}},
				1: {{PG: "0", Op: "recv 1<-0", Size: 8, Line: 5, P2P: true}, {PG: "0", Op: "send 1->0", Size: 8, Line: 6, P2P: true},
					{PG: "0", Op: "send 1->0", Size: 8, Line: 9, State: "started", P2P: true}},
			}},
			want:  &summary{Rule: RuleDesync, Divergence: KindOp, Rank: 1, Origin: "train.py:9"},
			inMsg: []string{"point-to-point operation #3"},
		},
		{
			name: "a send nobody receives",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "send 0->1", Size: 8, Line: 5, P2P: true}, {PG: "0", Op: "send 0->1", Size: 8, Line: 5, State: "scheduled", P2P: true}},
				1: {{PG: "0", Op: "recv 1<-0", Size: 8, Line: 7, P2P: true}},
			}},
			want: &summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "train.py:5", NotEntered: "[1]"},
		},
		{
			name: "receives sized differently from the sends",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "send 0->1", Size: 8, Line: 5, State: "started", P2P: true}},
				1: {{PG: "0", Op: "recv 1<-0", Size: 16, Line: 7, State: "started", P2P: true}},
			}},
			want: &summary{Rule: RuleDesync, Divergence: KindSize, Rank: 1, Origin: "train.py:7"},
		},
		{
			name: "sends met by receives: healthy",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "send 0->1", Size: 8, Line: 5, P2P: true}, {PG: "0", Op: "recv 0<-1", Size: 8, Line: 6, P2P: true}},
				1: {{PG: "0", Op: "recv 1<-0", Size: 8, Line: 5, P2P: true}, {PG: "0", Op: "send 1->0", Size: 8, Line: 6, P2P: true}},
			}},
		},
		{
			name: "healthy job: nothing pending, nothing differs",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "broadcast", Size: 8, Line: 6}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "broadcast", Size: 8, Line: 6}},
			}},
		},
		{
			name: "gathers may differ in size across ranks",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "gather", Size: 16, Line: 5}},
				1: {{PG: "0", Op: "gather", Size: 8, Line: 5}},
			}},
		},
		{
			name: "version 2.4 dumps read the same",
			job:  frtest.Job{Version: "2.4", PGs: n1Both.PGs, Calls: n1Both.Calls, Script: n1Both.Script},
			want: &summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "n1_desync_timeout.py:14", NotEntered: "[1]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dumps := decodeJob(t, tc.job, tc.json)
			var kept []*Dump
		next:
			for _, d := range dumps {
				for _, r := range tc.drop {
					if d.Rank == r {
						continue next
					}
				}
				kept = append(kept, d)
			}
			fs, err := Analyze(kept)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("%d findings, want 1", len(fs))
			}
			if diff := cmp.Diff(*tc.want, summarize(fs[0])); diff != "" {
				t.Errorf("(-want +got):\n%s\nmessage: %s", diff, fs[0].Message)
			}
			for _, s := range tc.inMsg {
				if !strings.Contains(fs[0].Message, s) {
					t.Errorf("message %q lacks %q", fs[0].Message, s)
				}
			}
			if fs[0].Class != Class || fs[0].Severity != report.Error {
				t.Errorf("class %q severity %v", fs[0].Class, fs[0].Severity)
			}
		})
	}
}

// A rank whose ring no longer holds the early collectives must not look as
// if it never entered them.
func TestEvictedHistoryIsNotDivergence(t *testing.T) {
	var c0, c1 []frtest.Call
	for i := 0; i < 10; i++ {
		c0 = append(c0, frtest.Call{PG: "0", Op: "all_reduce", Size: 4, Line: 3})
		c1 = append(c1, frtest.Call{PG: "0", Op: "all_reduce", Size: 4, Line: 3})
	}
	c0[9].State, c1[9].State = "started", "started"
	dumps := decodeJob(t, frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{0: c0, 1: c1}}, false)
	dumps[1].Entries = dumps[1].Entries[6:] // rank 1's ring kept only #7..#10
	fs, err := Analyze(dumps)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Rule != RuleStuck {
		t.Fatalf("want one %s finding, got %+v", RuleStuck, fs)
	}
}

func TestJSONAndPickleAgree(t *testing.T) {
	p := decodeJob(t, n1Both, false)
	j := decodeJob(t, n1Both, true)
	for i := range p {
		for k := range p[i].Entries {
			p[i].Entries[k].Frames = nil
		}
		p[i].Format, j[i].Format = "", ""
	}
	if diff := cmp.Diff(p, j); diff != "" {
		t.Errorf("pickle and JSON forms differ (-pickle +json):\n%s", diff)
	}
}

func TestBuildIntList(t *testing.T) {
	v := map[string]any{"version": "2.10", "entries": []any{map[string]any{
		"pg_id": int64(0), "process_group": frtest.Tuple{"0", "default_pg"}, "collective_seq_id": int64(1),
		"profiling_name": "nccl:all_reduce", "input_sizes": []any{frtest.IntList{int64(3), int64(4)}}, "state": "started",
	}}}
	d, err := DecodeBytes(frtest.EncodePickle(v), "nccl_trace_rank_2")
	if err != nil {
		t.Fatal(err)
	}
	if d.Rank != 2 || len(d.Entries) != 1 || fmt.Sprint(d.Entries[0].InputSizes) != "[[3 4]]" {
		t.Errorf("got rank %d entries %+v", d.Rank, d.Entries)
	}
}

func TestDecodeErrors(t *testing.T) {
	good := frtest.EncodePickle(n1Both.Dump(0))
	snapshot := frtest.EncodePickle(map[string]any{"segments": []any{}, "device_traces": []any{}})
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "neither a pickle nor JSON"},
		{"text", []byte("hello\n"), "neither a pickle nor JSON"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"no stop", good[:len(good)-1], "truncated"},
		{"os.system", []byte("\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R."), "class os.system"},
		{"object state", []byte("\x80\x02}b."), "builds Python objects"},
		{"memory snapshot", snapshot, "memory snapshot"},
		{"list at top", frtest.EncodePickle([]any{int64(1)}), "not a dictionary"},
		{"other dict", frtest.EncodePickle(map[string]any{"a": int64(1)}), "not a Flight Recorder dump"},
		{"huge string length", []byte("\x80\x02X\xff\xff\xff\x7f"), "too long"},
		{"lying string length", []byte("\x80\x02X\xff\xff\xff\x00"), "truncated"},
		{"unknown opcode", []byte("\x80\x02\xff."), "unknown opcode"},
		{"odd setitems", []byte("\x80\x02}(K\x01u."), "odd number of items"},
		{"self-referencing list", []byte("\x80\x02]q\x00(h\x00e."), "contains itself"},
		{"bad JSON", []byte(`{"version": "2.10", "entries": [`), "malformed JSON"},
		{"protocol 9", []byte("\x80\x09}."), "neither a pickle nor JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeBytes(tc.data, "nccl_trace_rank_0")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestDecodeTooLarge(t *testing.T) {
	const max = 1 << 20
	r := &zeros{n: max + 10}
	if _, err := decodeLimit(r, "x", max); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v", err)
	}
}

type zeros struct{ n int }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, fmt.Errorf("EOF")
	}
	n := min(len(p), z.n)
	clear(p[:n])
	z.n -= n
	return n, nil
}

func TestRankNames(t *testing.T) {
	tests := []struct {
		path    string
		rank    int
		sibling string // name for rank 7
	}{
		{"/tmp/nccl_trace_rank_0", 0, "nccl_trace_rank_7"},
		{"out/fr_rank_12", 12, "fr_rank_7"},
		{"n1_flight_recorder_rank_0.pickle", 0, "n1_flight_recorder_rank_7.pickle"},
		{"dumps/trace_3", 3, "trace_7"},
		{"dumps/trace_3.json", 3, "trace_7.json"},
		{"RANK-5.pkl", 5, "RANK-7.pkl"},
		{"dump.pickle", -1, ""},
	}
	for _, tc := range tests {
		if got := rankFromName(tc.path); got != tc.rank {
			t.Errorf("rankFromName(%q) = %d, want %d", tc.path, got, tc.rank)
		}
		if tc.rank >= 0 {
			if got := siblingName(tc.path, tc.rank, 7); got != tc.sibling {
				t.Errorf("siblingName(%q) = %q, want %q", tc.path, got, tc.sibling)
			}
		}
	}
}

func TestUnnamedDumps(t *testing.T) {
	dumps := decodeJob(t, n1Both, false)
	for _, d := range dumps {
		d.Rank = -1
		d.Path = "dump.pickle"
	}
	if _, err := Analyze(dumps); err == nil || !strings.Contains(err.Error(), "cannot tell which rank") {
		t.Fatalf("err = %v", err)
	}
	fs, err := Analyze(dumps[:1])
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Rank != nil || !strings.Contains(fs[0].Message, "the other ranks left no Flight Recorder dump") {
		t.Fatalf("got %+v", fs)
	}
}

func TestIsPickle(t *testing.T) {
	for _, tc := range []struct {
		data []byte
		want bool
	}{{[]byte{0x80, 2}, true}, {[]byte{0x80, 5}, true}, {[]byte{0x80, 1}, false}, {[]byte{0x80}, false}, {[]byte("{}"), false}} {
		if got := IsPickle(tc.data); got != tc.want {
			t.Errorf("IsPickle(%x) = %v", tc.data, got)
		}
	}
	if !bytes.HasPrefix(frtest.EncodePickle(n1Both.Dump(0)), []byte{0x80, 2}) {
		t.Error("synthetic dumps must be protocol 2")
	}
}

// n8's shape: rank 1 skips its call on group 2 at step 2, so rank 0 waits
// on group 2 while rank 1 runs ahead and waits on group 0. The earlier
// divergence (group 2) is the cause; rank 1's wait on group 0 its echo.
func TestEarliestDivergenceAcrossGroups(t *testing.T) {
	var c0, c1 []frtest.Call
	for step := 0; step < 5; step++ {
		for r := 0; r < 2; r++ {
			cs := []frtest.Call{{PG: "0", Op: "all_reduce", Size: 4096, Line: 18}, {PG: "1", Op: "all_reduce", Size: 512, Line: 19}}
			if !(r == 1 && step == 2) {
				cs = append(cs, frtest.Call{PG: "2", Op: "all_reduce", Size: 64, Line: 21})
			}
			if r == 0 {
				c0 = append(c0, cs...)
			} else {
				c1 = append(c1, cs...)
			}
		}
	}
	c0, c1 = c0[:9], c1[:9] // both block after their ninth call
	c0[8].State, c1[8].State = "started", "started"
	job := frtest.Job{PGs: map[string][]int{"0": {0, 1}, "1": {0, 1}, "2": {0, 1}}, Script: "/w/n8_group_desync.py",
		Calls: map[int][]frtest.Call{0: c0, 1: c1}}
	fs, err := Analyze(decodeJob(t, job, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 {
		t.Fatalf("%d findings", len(fs))
	}
	want := summary{Rule: RuleDesync, Divergence: KindOrder, Rank: 0, Origin: "n8_group_desync.py:21", NotEntered: "[1]"}
	if diff := cmp.Diff(want, summarize(fs[0])); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(fs[0].Related) != 1 || !strings.Contains(fs[0].Related[0].Message, "waits in all_reduce #4 of process group 0 (default_pg) at n8_group_desync.py:18") {
		t.Errorf("related = %+v", fs[0].Related)
	}
}

// Older and newer layouts: 2.3 without a state (derived from the discovery
// times, 0 meaning none in JSON), 2.7 naming the NCCL version nccl_version,
// and fields this reader does not know.
func TestVersionLayouts(t *testing.T) {
	tests := []struct {
		name, doc string
		lib       string
		states    []string
	}{
		{"2.3 JSON without state", `{"version": "2.3", "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}},
			"entries": [{"record_id": 0, "pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": 1, "profiling_name": "nccl:all_reduce",
			"time_discovered_started_ns": 5, "time_discovered_completed_ns": 7},
			{"record_id": 1, "pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": 2, "profiling_name": "nccl:all_reduce",
			"time_discovered_started_ns": 9, "time_discovered_completed_ns": 0},
			{"record_id": 2, "pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": 3, "profiling_name": "nccl:all_reduce",
			"time_discovered_started_ns": 0, "time_discovered_completed_ns": 0}]}`, "", []string{"completed", "started", "scheduled"}},
		{"2.7 JSON with nccl_version and unknown fields", `{"version": "2.7", "nccl_version": "2.21.5", "future": {"x": [1]},
			"pg_status": {"0": {"last_enqueued_collective": "1", "last_started_collective": "1", "last_completed_collective": "-1"}},
			"entries": [{"pg_id": 0, "process_group": ["0", "default_pg"], "collective_seq_id": 1, "state": "started", "new_field": 3}]}`,
			"2.21.5", []string{"started"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DecodeBytes([]byte(tc.doc), "nccl_trace_rank_0")
			if err != nil {
				t.Fatal(err)
			}
			var states []string
			for _, e := range d.Entries {
				states = append(states, e.State)
			}
			if diff := cmp.Diff(tc.states, states); diff != "" || d.CommLibVersion != tc.lib {
				t.Errorf("states (-want +got):\n%s\nlib %q", diff, d.CommLibVersion)
			}
			if _, err := Analyze([]*Dump{d}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
