package logparse

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// LineIDs, which goes on from the window where the scan found a line,
// reports the same patterns as reading the whole line again, whatever
// sits before the hit and however many patterns share the line.
func TestLineIDsMatchesLinePatterns(t *testing.T) {
	pats := []string{"grad_norm", "CUDA error", "out of memory", "Traceback", "illegal memory access", "NCCL WARN", "214748"}
	pf := NewPrefilter(pats)
	rng := rand.New(rand.NewPCG(1, 2))
	words := append([]string{"step", "loss", "0.31", "lr", "3e-4", "[rank0]:", "x", "tokens/s", "2147483", "nan"}, pats...)
	var b strings.Builder
	for l := 0; l < 3000; l++ {
		for w, n := 0, rng.IntN(12); w < n; w++ {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(5) > 0 {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	buf := []byte(b.String())
	cur := pf.Cursor(buf)
	lines := 0
	for pos := 0; pos < len(buf); {
		n := cur.Next(pos)
		if n < 0 {
			break
		}
		e := bytes.IndexByte(buf[n:], '\n')
		got := slices.Sorted(slices.Values(cur.LineIDs(n, n+e, nil)))
		want := slices.Sorted(slices.Values(pf.LinePatterns(buf[n:n+e], nil)))
		if !slices.Equal(got, want) {
			t.Fatalf("line %q: LineIDs %v, LinePatterns %v", buf[n:n+e], got, want)
		}
		lines++
		pos = n + e + 1
	}
	if lines < 1000 {
		t.Fatalf("only %d lines found", lines)
	}
}
