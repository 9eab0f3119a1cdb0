package runner

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"
)

// TestKeywordSetFindsEveryLine compares the blocked anchor search with a
// plain search line by line, with keywords placed across block boundaries
// and lines longer than a block.
func TestKeywordSetFindsEveryLine(t *testing.T) {
	ks := newKeywordSet(scanFilter)
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("abcdefghij klmnop=[(CEKTAXRN\n")
	for round := 0; round < 200; round++ {
		var b bytes.Buffer
		for b.Len() < 3*scanBlock {
			if rng.Intn(4) == 0 {
				// A keyword right across a block boundary.
				kw := scanFilter[rng.Intn(len(scanFilter))]
				for b.Len()%scanBlock > scanBlock-len(kw) || b.Len()%scanBlock == 0 {
					b.WriteByte(alphabet[rng.Intn(len(alphabet))])
				}
				for b.Len()%scanBlock != scanBlock-1-rng.Intn(len(kw)) {
					b.WriteByte('x')
				}
				b.Write(kw)
				continue
			}
			if rng.Intn(50) == 0 {
				b.Write(bytes.Repeat([]byte("y"), scanBlock+rng.Intn(100)))
			}
			b.WriteByte(alphabet[rng.Intn(len(alphabet))])
		}
		b.WriteByte('\n')
		full := b.Bytes()
		got, newlines := ks.scan(full, nil)
		slices.Sort(got)
		got = slices.Compact(got)
		var want []int
		for start := 0; start < len(full); {
			end := start + bytes.IndexByte(full[start:], '\n')
			for _, kw := range scanFilter {
				if bytes.Contains(full[start:end], kw) {
					want = append(want, start)
					break
				}
			}
			start = end + 1
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: lines %v, want %v", round, got, want)
		}
		if n := bytes.Count(full, []byte{'\n'}); newlines != n {
			t.Fatalf("round %d: %d newlines, want %d", round, newlines, n)
		}
	}
}

func TestKeywordSetAnchors(t *testing.T) {
	ks := newKeywordSet(scanFilter)
	covered := 0
	for _, g := range ks.anchors {
		if commonByte(g.b) {
			t.Errorf("anchor %q is a byte ordinary output is full of", g.b)
		}
		for _, k := range g.kws {
			if k.kw[k.off] != g.b {
				t.Errorf("%q: anchor offset %d is not %q", k.kw, k.off, g.b)
			}
		}
		covered += len(g.kws)
	}
	if covered != len(scanFilter) || len(ks.anchors) >= len(scanFilter) {
		t.Errorf("%d keywords under %d anchors, want all %d under fewer", covered, len(ks.anchors), len(scanFilter))
	}
}
