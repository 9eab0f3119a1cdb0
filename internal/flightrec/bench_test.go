package flightrec

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/flightrec/frtest"
	"github.com/cudadoctor/cudadoctor/internal/pickle"
)

// syntheticJob64 builds 64 ranks' dumps on the template of the real rank-0
// dump (its entry layout, frames and field set): 2000 collectives each over
// three process groups, rank 63 skipping the very last one (on group 1), so the
// analysis walks every sequence id before it finds the divergence.
func syntheticJob64(tb testing.TB) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(realDump)
	if err != nil {
		tb.Fatal(err)
	}
	// The generic form of the dump, entries as dicts, to copy from.
	d := pickle.NewDecoder(bytes.NewReader(data), nil, pickle.Limits{})
	raw, err := d.Decode()
	if err != nil {
		tb.Fatal(err)
	}
	root, err := pickle.NewPlain(d, maxDepth).Value(raw, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := root.(map[string]any)["entries"].([]any)[0].(map[string]any)
	const ranks, perRank = 64, 2000
	all := make([]int, ranks)
	for i := range all {
		all[i] = i
	}
	pgs := []string{"0", "1", "2"}
	out := make([][]byte, ranks)
	for r := 0; r < ranks; r++ {
		var entries []any
		seq := map[string]int64{}
		n := perRank
		if r == ranks-1 {
			n--
		}
		for i := 0; i < n; i++ {
			pg := pgs[i%3]
			seq[pg]++
			e := make(map[string]any, len(tmpl))
			for k, v := range tmpl {
				e[k] = v
			}
			e["record_id"] = int64(i)
			e["op_id"] = int64(i + 1)
			e["pg_id"] = frtest.PGID(pg)
			e["process_group"] = []any{pg, "undefined"}
			e["collective_seq_id"] = seq[pg]
			e["time_created_ns"] = int64(1795325714474014111 + i*1000)
			if i >= perRank-3 {
				e["state"] = "scheduled"
				e["retired"] = false
				e["time_discovered_completed_ns"] = nil
			}
			entries = append(entries, e)
		}
		cfg := map[string]any{}
		for _, pg := range pgs {
			cfg[pg] = map[string]any{"name": pg, "desc": "undefined", "ranks": frtest.RanksString(all)}
		}
		d := map[string]any{"version": "2.10", "comm_lib_version": "2.28.9", "pg_config": cfg, "pg_status": map[string]any{}, "entries": entries}
		out[r] = frtest.EncodePickle(d)
	}
	return out
}

// BenchmarkMerge64 decodes 64 ranks' dumps and matches them.
func BenchmarkMerge64(b *testing.B) {
	files := syntheticJob64(b)
	total := 0
	for _, f := range files {
		total += len(f)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dumps := make([]*Dump, len(files))
		for r, data := range files {
			d, err := DecodeBytes(data, fmt.Sprintf("nccl_trace_rank_%d", r))
			if err != nil {
				b.Fatal(err)
			}
			dumps[r] = d
		}
		fs, err := Analyze(dumps)
		if err != nil {
			b.Fatal(err)
		}
		if len(fs) != 1 || fs[0].Facts["divergence"] != KindNotEntered {
			b.Fatalf("want one not-entered finding, got %+v", fs)
		}
	}
}
