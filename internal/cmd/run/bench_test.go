package run

import "testing"

func BenchmarkScannerLine(b *testing.B) {
	line := []byte("step 1200 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82")
	sc := newScanner()
	b.SetBytes(int64(len(line) + 1))
	for i := 0; i < b.N; i++ {
		sc.line(line, i+1)
	}
}
