package runner

import (
	"bytes"
	"io"
	"os"
	"sync"
	"testing"
)

// benchPipe pushes size bytes of data through an OS pipe into consume,
// as the child's output reaches the wrapper.
func benchPipe(b *testing.B, data []byte, consume func(r *os.File)) {
	const size = 256 << 20
	b.SetBytes(size)
	for i := 0; i < b.N; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left := size; left > 0; left -= len(data) {
				w.Write(data)
			}
			w.Close()
		}()
		consume(r)
		r.Close()
		wg.Wait()
	}
}

func pumpInto(r *os.File, withLines bool) {
	var mu sync.Mutex
	var emit func([]byte, int)
	var filter [][]byte
	if withLines {
		emit = newLineSink()
		filter = [][]byte{[]byte("Error"), []byte("CUDA"), []byte("Traceback"), []byte("NCCL"), []byte("Assertion"),
			[]byte("Killed"), []byte("Xid"), []byte("Root Cause"), []byte("[rank"), []byte("(local_rank"), []byte("=========")}
	}
	n := 0
	p := &pump{src: r, dst: io.Discard, st: newStream(DefaultTailBytes, maxSegments),
		lines: &lineSplitter{max: DefaultMaxLine, mu: &mu, count: &n, emit: emit, filter: filter}, seq: &seqCounter{}}
	p.run()
}

// newLineSink does what the run command's scanner does per line: a few
// substring checks.
func newLineSink() func([]byte, int) {
	words := [][]byte{[]byte("Error"), []byte("CUDA"), []byte("Traceback"), []byte("NCCL WARN"), []byte("Assertion")}
	return func(l []byte, _ int) {
		for _, w := range words {
			if bytes.Contains(l, w) {
				return
			}
		}
	}
}

func BenchmarkPlainCopy(b *testing.B) {
	data := make([]byte, 64<<10)
	benchPipe(b, data, func(r *os.File) {
		buf := make([]byte, readChunk)
		for {
			n, err := r.Read(buf)
			io.Discard.Write(buf[:n])
			if err != nil {
				return
			}
		}
	})
}

func BenchmarkPumpBinary(b *testing.B) {
	data := make([]byte, 64<<10) // zeros: no newlines
	benchPipe(b, data, func(r *os.File) { pumpInto(r, true) })
}

func BenchmarkPumpText(b *testing.B) {
	line := []byte("step 1200 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82\n")
	data := bytes.Repeat(line, (64<<10)/len(line))
	benchPipe(b, data, func(r *os.File) { pumpInto(r, true) })
}

func BenchmarkPumpTextEveryLine(b *testing.B) {
	line := []byte("step 1200 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82\n")
	data := bytes.Repeat(line, (64<<10)/len(line))
	benchPipe(b, data, func(r *os.File) {
		var mu sync.Mutex
		n := 0
		p := &pump{src: r, dst: io.Discard, st: newStream(DefaultTailBytes, maxSegments),
			lines: &lineSplitter{max: DefaultMaxLine, mu: &mu, count: &n, emit: func([]byte, int) {}}, seq: &seqCounter{}}
		p.run()
	})
}

func benchSplit(b *testing.B, filter [][]byte, emit func([]byte, int)) {
	line := []byte("step 1200 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82\n")
	chunk := bytes.Repeat(line, readChunk/len(line))
	var mu sync.Mutex
	n := 0
	l := &lineSplitter{max: DefaultMaxLine, mu: &mu, count: &n, emit: emit, filter: filter}
	b.SetBytes(int64(len(chunk)))
	for i := 0; i < b.N; i++ {
		l.write(chunk)
	}
}

var scanFilter = [][]byte{[]byte("Error"), []byte("CUDA"), []byte("Traceback"), []byte("NCCL"), []byte("Assertion"),
	[]byte("Killed"), []byte("Xid"), []byte("Root Cause"), []byte("[rank"), []byte("(local_rank"), []byte("=========")}

func BenchmarkSplitFiltered(b *testing.B)  { benchSplit(b, scanFilter, func([]byte, int) {}) }
func BenchmarkSplitEveryLine(b *testing.B) { benchSplit(b, nil, func([]byte, int) {}) }
func BenchmarkSplitEveryLineScan(b *testing.B) {
	benchSplit(b, nil, func(l []byte, _ int) {
		for _, w := range scanFilter {
			if bytes.Contains(l, w) {
				return
			}
		}
	})
}
