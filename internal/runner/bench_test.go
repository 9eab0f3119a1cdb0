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
	var emit func([]byte)
	if withLines {
		emit = newLineSink()
	}
	p := &pump{src: r, dst: io.Discard, st: newStream(DefaultTailBytes, maxSegments),
		lines: &lineSplitter{max: DefaultMaxLine, mu: &mu, emit: emit}, seq: &seqCounter{}}
	p.run()
}

// newLineSink does what the run command's scanner does per line: a few
// substring checks.
func newLineSink() func([]byte) {
	words := [][]byte{[]byte("Error"), []byte("CUDA"), []byte("Traceback"), []byte("NCCL WARN"), []byte("Assertion")}
	return func(l []byte) {
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

func BenchmarkPumpTextNoScan(b *testing.B) {
	line := []byte("step 1200 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82\n")
	data := bytes.Repeat(line, (64<<10)/len(line))
	benchPipe(b, data, func(r *os.File) {
		var mu sync.Mutex
		p := &pump{src: r, dst: io.Discard, st: newStream(DefaultTailBytes, maxSegments),
			lines: &lineSplitter{max: DefaultMaxLine, mu: &mu, emit: func([]byte) {}}, seq: &seqCounter{}}
		p.run()
	})
}
