package diagnose

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
)

// TestLongLines compares the sampled search with a plain one over inputs
// of short and long lines cut into reads of every size, including reads
// shorter than the sampling block and lines that span many reads.
func TestLongLines(t *testing.T) {
	max := logparse.MaxLineBytes
	lens := [][]int{
		{10, 20, 30},
		{max},                      // exactly at the limit: read whole
		{max + 1},                  // one byte over
		{5, max + 1, 7, 3*max + 5}, // two long lines
		{max - 1, max/2 + 3, 40 * max, 1, 0, 2 * max},
		{100 * max}, // one line longer than any read
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 30; i++ {
		var ls []int
		for j := rng.Intn(8) + 1; j > 0; j-- {
			if rng.Intn(4) == 0 {
				ls = append(ls, max-8+rng.Intn(3*max))
			} else {
				ls = append(ls, rng.Intn(200))
			}
		}
		lens = append(lens, ls)
	}
	for _, ls := range lens {
		var b bytes.Buffer
		wantCount, wantFirst, wantSize := 0, 0, 0
		for i, n := range ls {
			b.WriteString(strings.Repeat("x", n))
			if n > max {
				wantCount++
				if wantFirst == 0 {
					wantFirst, wantSize = i+1, n
				}
			}
			if i < len(ls)-1 || rng.Intn(2) == 0 {
				b.WriteByte('\n') // the last line may end without one
			}
		}
		data := b.Bytes()
		for _, read := range []int{1, 7, longBlock - 1, longBlock + 3, 3 * max, 1 << 20} {
			tr := &tracker{}
			for off := 0; off < len(data); off += read {
				tr.see(data[off:min(off+read, len(data))])
			}
			l := tr.long
			if l.count != wantCount || l.first != wantFirst || (wantFirst > 0 && l.size != int64(wantSize)) {
				t.Errorf("lines %v, reads of %d: found %d long, first line %d of %d bytes; want %d, line %d of %d bytes",
					ls, read, l.count, l.first, l.size, wantCount, wantFirst, wantSize)
			}
		}
	}
}

func TestLongLineWarning(t *testing.T) {
	tr := &tracker{}
	tr.see([]byte("ok\n" + strings.Repeat("a", 3<<20) + "\n" + strings.Repeat("b", 9000) + "\nend\n"))
	got := tr.long.warning("big.log")
	want := "big.log: line 2 is 3.0 MiB long (and 1 more lines over 8 KiB): only the first 8 KiB of a line are searched for a failure"
	if got != want {
		t.Errorf("warning\n got %q\nwant %q", got, want)
	}
	if w := (&longLines{}).warning("x"); w != "" {
		t.Errorf("no long line, yet %q", w)
	}
}
