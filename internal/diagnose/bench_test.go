package diagnose

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// benchLog builds about size bytes of real fixture noise (NCCL INFO and
// step lines) followed by fixture n2's failure.
func benchLog(b testing.TB, size int) []byte {
	noise, err := os.ReadFile(logs + "h200x2/n3_debug_info.plain.log")
	if err != nil {
		b.Fatal(err)
	}
	var info []string
	for _, l := range strings.Split(string(noise), "\n") {
		if strings.Contains(l, "NCCL INFO") {
			info = append(info, l)
		}
	}
	var buf bytes.Buffer
	buf.Grow(size + 1<<20)
	for step := 0; buf.Len() < size; step++ {
		for r := 0; r < 2; r++ {
			fmt.Fprintf(&buf, "[rank%d]: step %d loss %.4f lr 3.0e-04 grad_norm %.3f tokens/s %d\n", r, step, 10/float64(step+1), 1+float64(step%97)/100, 150000+step%5000)
		}
		if step%50 == 0 {
			for _, l := range info {
				buf.WriteString(l + "\n")
			}
		}
	}
	failure, err := os.ReadFile(logs + "h200x2/n2_rank_crash.plain.log")
	if err != nil {
		b.Fatal(err)
	}
	buf.Write(failure)
	return buf.Bytes()
}

// BenchmarkExplain measures the whole engine (parse, group, classify) on a
// ~100 MB log with the real knowledge base; throughput is in MB/s.
func BenchmarkExplain(b *testing.B) {
	data := benchLog(b, 100<<20)
	e := New(kb.MustDefault())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, err := e.Explain(context.Background(), []Input{{Name: "train.log", Reader: bytes.NewReader(data)}})
		if err != nil || len(fs) == 0 {
			b.Fatalf("findings %d, err %v", len(fs), err)
		}
	}
}

// BenchmarkFixtureLogs measures the engine on the small real logs, where
// per-failure work (classification, grouping) dominates.
func BenchmarkFixtureLogs(b *testing.B) {
	e := New(kb.MustDefault())
	var data [][]byte
	for _, p := range []string{"h100/s01_embedding_oob.plain.log", "h200x2/n1_desync_timeout.plain.log", "h200x2/n2_rank_crash.plain.log", "h100/s09_triton_illegal.sanitizer.log"} {
		d, err := os.ReadFile(logs + p)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range data {
			if _, err := e.Explain(context.Background(), []Input{{Name: "x.log", Reader: bytes.NewReader(d)}}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
