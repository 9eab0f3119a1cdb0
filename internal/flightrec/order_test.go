package flightrec

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/flightrec/frtest"
)

// n8Job is fixture n8: three groups, each step an all_reduce on group 0
// (line 18), 1 (line 19) and 2 (line 21); skip names the rank that leaves
// out its group-2 call at step 2. Each rank stops after its first calls
// (the rest never recorded), the last pending[r] of them still pending.
func n8Job(skip int, first, pending map[int]int) frtest.Job {
	calls := map[int][]frtest.Call{}
	for r := 0; r < 2; r++ {
		var cs []frtest.Call
		for step := 0; step < 5; step++ {
			cs = append(cs, frtest.Call{PG: "0", Op: "all_reduce", Size: 4096, Line: 18},
				frtest.Call{PG: "1", Op: "all_reduce", Size: 512, Line: 19})
			if !(r == skip && step == 2) {
				cs = append(cs, frtest.Call{PG: "2", Op: "all_reduce", Size: 64, Line: 21})
			}
		}
		cs = cs[:first[r]]
		for i := len(cs) - pending[r]; i < len(cs); i++ {
			cs[i].State = "scheduled"
		}
		calls[r] = cs
	}
	return frtest.Job{PGs: map[string][]int{"0": {0, 1}, "1": {0, 1}, "2": {0, 1}}, Script: "/w/n8_group_desync.py", Calls: calls}
}

const n8Dump = "../../testdata/gpu/dist/n8_group_desync/fr_rank_"

type orderSummary struct {
	S         summary
	OtherRank int
	OtherPG   string
	OtherSeq  int64
	Postponed bool
}

func summarizeOrder(t *testing.T, dumps []*Dump) (orderSummary, string) {
	t.Helper()
	fs, err := Analyze(dumps)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	f := fs[0]
	s := orderSummary{S: summarize(f), OtherRank: -1}
	if r, ok := f.Facts["other_rank"].(int); ok {
		s.OtherRank = r
	}
	s.OtherPG, _ = f.Facts["other_pg"].(string)
	s.OtherSeq, _ = f.Facts["other_seq"].(int64)
	s.Postponed, _ = f.Facts["postponed"].(bool)
	return s, f.Message
}

// The real dumps of fixture n8 on two H200: rank 1 skipped its group-2 call
// at step 2 and went on to enqueue step 3's calls on groups 0, 1 and 2;
// rank 0 waits in group 2 #3, rank 1 in group 0 #4.
func TestCrossGroupOrderRealDumps(t *testing.T) {
	var dumps []*Dump
	for _, r := range []string{"0", "1"} {
		p := n8Dump + r
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeBytes(b, p)
		if err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, d)
	}
	got, msg := summarizeOrder(t, dumps)
	want := orderSummary{S: summary{Rule: RuleDesync, Divergence: KindOrder, Rank: 0, Origin: "n8_group_desync.py:21"},
		OtherRank: 1, OtherPG: "0", OtherSeq: 4, Postponed: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s\nmessage: %s", diff, msg)
	}
	for _, s := range []string{
		"after all_reduce #3 of process group 1",
		"rank 0 called all_reduce #3 of process group 2 at n8_group_desync.py:21",
		"rank 1 called all_reduce #4 of process group 0 (default_pg) at n8_group_desync.py:18",
		"rank 1 made all_reduce #3 of process group 2 only after that",
		"rank 0 waits in all_reduce #3 of process group 2, rank 1 waits in all_reduce #4 of process group 0",
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q lacks %q", msg, s)
		}
	}
}

func TestCrossGroupOrder(t *testing.T) {
	tests := []struct {
		name  string
		job   frtest.Job
		trim  map[int]int // drop the oldest entries of a rank's ring
		want  *orderSummary
		inMsg []string
	}{
		{
			name: "as on the GPU: rank 1 enqueued step 3's calls, its group-2 call last",
			job:  n8Job(1, map[int]int{0: 9, 1: 11}, map[int]int{0: 1, 1: 3}),
			want: &orderSummary{S: summary{Rule: RuleDesync, Divergence: KindOrder, Rank: 0, Origin: "n8_group_desync.py:21"},
				OtherRank: 1, OtherPG: "0", OtherSeq: 4, Postponed: true},
		},
		{
			name: "each rank blocked right after its ninth call: the new step from line 19 to 18 is the skip",
			job:  n8Job(1, map[int]int{0: 9, 1: 9}, map[int]int{0: 1, 1: 1}),
			want: &orderSummary{S: summary{Rule: RuleDesync, Divergence: KindOrder, Rank: 0, Origin: "n8_group_desync.py:21", NotEntered: "[1]"},
				OtherRank: 1, OtherPG: "0", OtherSeq: 4},
			inMsg: []string{"rank 1 never made all_reduce #3 of process group 2"},
		},
		{
			name: "rank 0 skips instead: the origin is rank 1's call",
			job:  n8Job(0, map[int]int{0: 11, 1: 9}, map[int]int{0: 3, 1: 1}),
			want: &orderSummary{S: summary{Rule: RuleDesync, Divergence: KindOrder, Rank: 1, Origin: "n8_group_desync.py:21"},
				OtherRank: 0, OtherPG: "0", OtherSeq: 4, Postponed: true},
		},
		{
			name: "rings that lost their oldest entries still line up",
			job:  n8Job(1, map[int]int{0: 9, 1: 11}, map[int]int{0: 1, 1: 3}),
			trim: map[int]int{0: 4, 1: 2},
			want: &orderSummary{S: summary{Rule: RuleDesync, Divergence: KindOrder, Rank: 0, Origin: "n8_group_desync.py:21"},
				OtherRank: 1, OtherPG: "0", OtherSeq: 4, Postponed: true},
		},
		{
			name: "one group only: an ordinary collective one rank never entered",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "all_reduce", Size: 8, Line: 6, State: "scheduled"}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}},
			}},
			want: &orderSummary{S: summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "train.py:6", NotEntered: "[1]"}, OtherRank: -1},
		},
		{
			name: "two groups, the other rank finished its call elsewhere: no ordering deadlock",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}, "1": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "1", Op: "all_reduce", Size: 8, Line: 6},
					{PG: "0", Op: "all_reduce", Size: 8, Line: 7, State: "scheduled"}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "1", Op: "all_reduce", Size: 8, Line: 6}},
			}},
			want: &orderSummary{S: summary{Rule: RuleDesync, Divergence: KindNotEntered, Rank: 0, Origin: "train.py:7", NotEntered: "[1]"}, OtherRank: -1},
		},
		{
			name: "groups used in different orders on each rank, everything completed: healthy",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}, "1": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "1", Op: "all_reduce", Size: 8, Line: 6}},
				1: {{PG: "1", Op: "all_reduce", Size: 8, Line: 6}, {PG: "0", Op: "all_reduce", Size: 8, Line: 5}},
			}},
		},
		{
			name: "deadlock on the very first calls, no history to tell who skipped: the lower rank's call is named",
			job: frtest.Job{PGs: map[string][]int{"0": {0, 1}, "1": {0, 1}}, Calls: map[int][]frtest.Call{
				0: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "0", Op: "all_reduce", Size: 8, Line: 9, State: "scheduled"}},
				1: {{PG: "0", Op: "all_reduce", Size: 8, Line: 5}, {PG: "1", Op: "all_reduce", Size: 8, Line: 7, State: "scheduled"}},
			}},
			want: &orderSummary{S: summary{Rule: RuleDesync, Divergence: KindOrder, Rank: 0, Origin: "train.py:9", NotEntered: "[1]"},
				OtherRank: 1, OtherPG: "1", OtherSeq: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dumps := decodeJob(t, tc.job, false)
			for _, d := range dumps {
				if n := tc.trim[d.Rank]; n > 0 {
					d.Entries = d.Entries[n:]
				}
			}
			if tc.want == nil {
				fs, err := Analyze(dumps)
				if err != nil {
					t.Fatal(err)
				}
				if len(fs) != 0 {
					t.Fatalf("want no finding, got %+v", fs)
				}
				return
			}
			got, msg := summarizeOrder(t, dumps)
			if diff := cmp.Diff(*tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nmessage: %s", diff, msg)
			}
			for _, s := range tc.inMsg {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
		})
	}
}
