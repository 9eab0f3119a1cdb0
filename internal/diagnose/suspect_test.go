package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// The message ProcessGroupNCCL raises on a rank that cannot fetch the NCCL
// unique id rank 0 was to put in the c10d store, as PyTorch 2.x prints it.
func uniqueIDWait(rank int, storeErr string) string {
	r := string(rune('0' + rank))
	return "[rank" + r + "]: torch.distributed.DistBackendError: [" + r + "] is setting up NCCL communicator and " +
		"retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: " +
		storeErr + ". This may indicate a possible application crash on rank 0 or a network set up issue.\n"
}

func TestWaitingRankNamesThePublisher(t *testing.T) {
	e := New(kb.MustDefault())
	tests := []struct {
		name       string
		log        string
		wantRank   int
		wantClass  string
		wantWaiter int // -1: no waiting_rank fact on the first finding
		related    int // rank named as a consequence, -1 for none
	}{
		{"one waiting rank's log", "[rank3]: Traceback (most recent call last):\n" +
			"[rank3]:   File \"/workspace/train.py\", line 40, in <module>\n[rank3]:     dist.barrier()\n" +
			uniqueIDWait(3, "wait timeout after 600000ms, keys: /default_pg//cuda//0"), 0, "nccl-error", 3, -1},
		{"the store connection lost", uniqueIDWait(2, "Connection reset by peer"), 0, "nccl-error", 2, -1},
		{"the publisher's own error in the same log", "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. " +
			"GPU 0 has a total capacity of 79.10 GiB of which 1.02 GiB is free.\n" +
			uniqueIDWait(1, "wait timeout after 600000ms, keys: /default_pg//cuda//0"), 0, "oom", -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := explainText(t, e, tt.log)
			if len(fs) == 0 {
				t.Fatal("no finding")
			}
			f := fs[0]
			if f.Class != tt.wantClass || rank(f) != tt.wantRank {
				t.Fatalf("class %s rank %d, want %s rank %d: %s", f.Class, rank(f), tt.wantClass, tt.wantRank, f.Message)
			}
			if w, ok := f.Facts["waiting_rank"]; (tt.wantWaiter >= 0) != ok || (ok && w != tt.wantWaiter) {
				t.Errorf("waiting_rank = %v, want %d", w, tt.wantWaiter)
			}
			if tt.wantWaiter >= 0 {
				if !strings.HasPrefix(f.Message, "rank 0 never published") {
					t.Errorf("message %q does not lead with the rank to look at", f.Message)
				}
				if len(f.Remedies) == 0 || !strings.Contains(f.Remedies[0], "rank 0's own log") {
					t.Errorf("first fix %q does not send the reader to rank 0", first(f.Remedies))
				}
				if len(f.Evidence) == 0 || !strings.Contains(f.Evidence[0].Text, "["+string(rune('0'+tt.wantWaiter))+"] is setting up") {
					t.Errorf("evidence %v lacks the waiting rank's line", f.Evidence)
				}
			}
			var rel []int
			for _, r := range f.Related {
				if r.Rank != nil {
					rel = append(rel, *r.Rank)
				}
			}
			if tt.related >= 0 && (len(rel) != 1 || rel[0] != tt.related) {
				t.Errorf("related ranks %v, want [%d]", rel, tt.related)
			}
			for _, o := range fs[1:] {
				if o.Severity == report.Error {
					t.Errorf("a second error finding: %s", o.Message)
				}
			}
		})
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
