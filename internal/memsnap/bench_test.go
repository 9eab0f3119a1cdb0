package memsnap

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
)

func BenchmarkDecodeFixture(b *testing.B) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAnalyzeFixture(b *testing.B) {
	s := loadFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		Findings(s, Analyze(s), "s33.pickle")
	}
}

var (
	largeOnce sync.Once
	largeData []byte
	largeErr  error
)

// largeSnapshot is a synthetic snapshot of a leaking loop with deep stacks,
// MEMSNAP_BENCH_MB megabytes (default 128). MEMSNAP_BENCH_KEEP=PATH also
// writes it to PATH, to time the binary on it.
func largeSnapshot(b *testing.B) []byte {
	largeOnce.Do(func() {
		mb := 128
		if v, err := strconv.Atoi(os.Getenv("MEMSNAP_BENCH_MB")); err == nil && v > 0 {
			mb = v
		}
		// One iteration with these options is about 26 KB of pickle.
		o := synthOptions{TempPerIter: 3, LeakPerIter: 1, BlockSize: 2 << 20, LibraryDepth: 48, OOM: true}
		o.Iterations = mb << 20 / 26000
		var buf bytes.Buffer
		largeErr = writeSynthetic(&buf, o)
		largeData = buf.Bytes()
		if p := os.Getenv("MEMSNAP_BENCH_KEEP"); p != "" && largeErr == nil {
			largeErr = os.WriteFile(p, largeData, 0o644)
		}
	})
	if largeErr != nil {
		b.Fatal(largeErr)
	}
	return largeData
}

// BenchmarkDecodeLarge reports throughput and, as heap/file, the live heap
// of the decoded snapshot relative to the file size.
func BenchmarkDecodeLarge(b *testing.B) {
	data := largeSnapshot(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var s *Snapshot
	for b.Loop() {
		var err error
		s, err = Decode(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse-uint64(cap(data)))/float64(len(data)), "heap/file")
	b.ReportMetric(float64(len(data))/(1<<20), "file-MB")
	runtime.KeepAlive(s)
}

func BenchmarkAnalyzeLarge(b *testing.B) {
	s, err := Decode(bytes.NewReader(largeSnapshot(b)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Findings(s, Analyze(s), "large.pickle")
	}
}
