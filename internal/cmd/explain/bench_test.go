package explain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/flightrec/frtest"
)

// BenchmarkExplain64Ranks runs explain over a directory holding what a
// 64-rank job leaves: one Flight Recorder dump per rank (2000 collectives
// each over three process groups, rank 63 one short) and one log per rank
// (the real n1 log's lines, rank-prefixed).
func BenchmarkExplain64Ranks(b *testing.B) {
	dir := b.TempDir()
	logData, err := os.ReadFile("../../../testdata/gpu/logs/h200x2/n1_desync_timeout.plain.log")
	if err != nil {
		b.Fatal(err)
	}
	const ranks, perRank = 64, 2000
	all := make([]int, ranks)
	for i := range all {
		all[i] = i
	}
	job := frtest.Job{PGs: map[string][]int{"0": all, "1": all, "2": all}, Calls: map[int][]frtest.Call{}}
	for r := 0; r < ranks; r++ {
		n := perRank
		if r == ranks-1 {
			n--
		}
		var calls []frtest.Call
		for i := 0; i < n; i++ {
			c := frtest.Call{PG: fmt.Sprint(i % 3), Op: "all_reduce", Size: 1 << 20, Line: 10 + i%3}
			if i >= perRank-3 {
				c.State = "scheduled"
			}
			calls = append(calls, c)
		}
		job.Calls[r] = calls
		var lg strings.Builder
		for _, line := range strings.Split(string(logData), "\n") {
			fmt.Fprintf(&lg, "[rank%d]:%s\n", r, line)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank%d.log", r)), []byte(lg.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	job.Write(b, dir, "nccl_trace_rank_", false)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Options{Paths: []string{dir}})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Inputs) != 2*ranks {
			b.Fatalf("%d inputs", len(rep.Inputs))
		}
		found := false
		for _, f := range rep.Findings {
			found = found || f.Rule == "flightrec/desync"
		}
		if !found {
			b.Fatal("no Flight Recorder finding")
		}
	}
}

// BenchmarkExplainManySmallFiles runs explain over a directory of 2,000
// small logs (the repository's fixture logs under 16 KiB, copied round
// robin): the cost should be that of reading them, with no large per-file
// setup. bench/explain/dir.sh times the same shape through the binary.
func BenchmarkExplainManySmallFiles(b *testing.B) {
	var srcs [][]byte
	for _, root := range []string{"../../../testdata/healthy", "../../../testdata/explain", "../../../testdata/gpu"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".log") || strings.HasSuffix(p, ".txt")) {
				return err
			}
			if info, err := d.Info(); err != nil || info.Size() >= 16<<10 {
				return err
			}
			data, err := os.ReadFile(p)
			srcs = append(srcs, data)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if len(srcs) == 0 {
		b.Fatal("no small fixture logs")
	}
	dir := b.TempDir()
	const files = 2000
	for i := 0; i < files; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d.log", i)), srcs[i%len(srcs)], 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Options{Paths: []string{dir}})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Inputs) != files {
			b.Fatalf("%d inputs, want %d", len(rep.Inputs), files)
		}
	}
}
