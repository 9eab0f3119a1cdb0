package flightrec

import (
	"fmt"
	"sort"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/flightrec/frtest"
)

// decodeJob decodes every rank's dump of a job in memory.
func decodeJob(t testing.TB, j frtest.Job, asJSON bool) []*Dump {
	t.Helper()
	var ranks []int
	for r := range j.Calls {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	var out []*Dump
	for _, r := range ranks {
		v := j.Dump(r)
		var b []byte
		if asJSON {
			b = frtest.EncodeJSON(v)
		} else {
			b = frtest.EncodePickle(v)
		}
		d, err := DecodeBytes(b, fmt.Sprintf("nccl_trace_rank_%d", r))
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		out = append(out, d)
	}
	return out
}
