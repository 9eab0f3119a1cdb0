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
	alphabet := []byte("abcdefghij klmnop=[(CEKTAXRN\n\x00\xc3\x1b")
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
		got, newlines, binary := ks.scan(full, nil)
		if binary {
			t.Fatalf("round %d: text taken for binary", round)
		}
		slices.Sort(got)
		got = slices.Compact(got)
		// The search anchor by anchor, used without vector byte
		// classes, finds the same lines.
		byAnchor, anchorNewlines := ks.scanAnchors(full, nil)
		slices.Sort(byAnchor)
		if byAnchor = slices.Compact(byAnchor); !slices.Equal(byAnchor, got) || anchorNewlines != newlines {
			t.Fatalf("round %d: anchor by anchor %v (%d newlines), one pass %v (%d)", round, byAnchor, anchorNewlines, got, newlines)
		}
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

// TestIndexClass compares the vector byte-class search with a byte-at-a-time
// one at every length and offset around the vector widths, with members
// that share high nibbles and more than eight distinct ones.
func TestIndexClass(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	sets := [][]byte{
		[]byte("\x00CEATKX[(="),
		{0x00, 0x13, 0x27, 0x3d, 0x41, 0x5b, 0x6f, 0x70, 0x8a, 0x9c, 0xff},
		{'\n'},
	}
	buf := make([]byte, 300)
	for _, members := range sets {
		ct := newClassTable(members)
		for _, b := range members {
			if !ct.has(b) {
				t.Fatalf("%q: member %q not in the class", members, b)
			}
		}
		for round := 0; round < 2000; round++ {
			for i := range buf {
				buf[i] = 'a' + byte(rng.Intn(26))
			}
			n := rng.Intn(len(buf) - 8)
			if rng.Intn(3) > 0 && n > 0 {
				buf[rng.Intn(n)] = members[rng.Intn(len(members))]
			}
			s := buf[rng.Intn(8) : n+8]
			if got, want := indexClass(s, ct), ct.indexScalar(s); got != want {
				t.Fatalf("%q in %q: index %d, want %d", members, s, got, want)
			}
		}
	}
}

// TestKeywordSetBinary: random bytes are told apart from text with a stray
// NUL, whose keyword lines are still found.
func TestKeywordSetBinary(t *testing.T) {
	ks := newKeywordSet(scanFilter)
	random := make([]byte, 64<<10)
	rand.New(rand.NewSource(3)).Read(random)
	random[len(random)-1] = '\n'
	if _, _, binary := ks.scan(random, nil); !binary {
		t.Errorf("random bytes not taken for binary")
	}
	text := bytes.Repeat([]byte("step 1 | loss 2.5\n"), 4000)
	text[100] = 0
	text = append(text, "RuntimeError: CUDA error: an illegal memory access\n"...)
	starts, _, binary := ks.scan(text, nil)
	if binary || len(starts) == 0 || starts[0] != len(text)-len("RuntimeError: CUDA error: an illegal memory access\n") {
		t.Errorf("text with one NUL: binary %v, lines %v", binary, starts)
	}
}
