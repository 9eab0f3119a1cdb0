package kb

import (
	"path/filepath"
	"testing"
)

// BenchmarkMatchesAssertFlood measures Matches on the lines of a device-assert
// flood (thousands of near-identical kernel lines), the costliest input.
func BenchmarkMatchesAssertFlood(b *testing.B) {
	k := MustDefault()
	line := "/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: block: [118,0,0], thread: [0,0,0] Assertion `ind >=0 && ind < ind_dim_size && \"vectorized gather kernel index out of bounds\"` failed."
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		k.Matches(line)
	}
}

// BenchmarkMatchesNoise measures Matches on a line that passes no keyword
// (what most lines of a training log look like).
func BenchmarkMatchesNoise(b *testing.B) {
	k := MustDefault()
	line := "vm:1392:1392 [0] NCCL INFO Channel 05/0 : 0[0] -> 1[1] via P2P/CUMEM"
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		k.Matches(line)
	}
}

// BenchmarkClassifyRankCrash classifies the whole n2 log (a 2-rank crash with
// a 2000-line assert flood) in one call.
func BenchmarkClassifyRankCrash(b *testing.B) {
	k := MustDefault()
	t := &testing.T{}
	lines := readLines(t, filepath.Join(fixtureDir, "logs/h200x2/n2_rank_crash.plain.log"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.Classify(lines)
	}
}
