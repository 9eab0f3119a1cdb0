package diagnose

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// A training log that prints the allocated memory at every step shows a
// leak before the OOM does: the readings climb until the card is full.
// The tracker keeps, per line template (the line with its numbers
// blanked), a small summary of those readings; it never keeps the lines.

// maxMemSeries bounds how many line templates the tracker follows.
const maxMemSeries = 8

// memSeries summarises the readings of one template.
type memSeries struct {
	first, last         float64
	unit                string
	n, rises, falls     int
	firstLine, lastLine int
}

// memReadingRE reads the number that follows a memory word ("allocated
// GiB 1.3", "mem: 12.4G", "memory_allocated=812 MiB"), with a unit before
// or after it.
var memReadingRE = lazyre.New(`^(?i)(?:mem|alloc)[a-z_]*\W{0,3}(?:\(?([kmgt]i?b|bytes)\)?\W{0,3})?(\d+(?:\.\d+)?)\s*([kmgt]i?b|[kmgt]\b|bytes)?`)

// templateOf appends l to dst with every run of digits and dots as one
// '#': the lines of one progress print share it.
func templateOf(dst, l []byte) []byte {
	inNum := false
	for _, c := range l {
		if c >= '0' && c <= '9' || (inNum && c == '.') {
			if !inNum {
				dst = append(dst, '#')
				inNum = true
			}
			continue
		}
		inNum = false
		dst = append(dst, c)
	}
	return dst
}

// memWords start the words memReadingRE reads; upper-case spellings are
// left out, since NCCL's INFO lines print "CUMEM" by the thousand.
var memWords = [3][]byte{[]byte("mem"), []byte("Mem"), []byte("lloc")}

// Memory readings are read from every byte of the first full bytes of an
// input and, after that, from one MiB in stride: a log that large prints
// its readings many times over, and the samples keep their order, so a
// series that climbs still climbs; the search for memory words would
// otherwise be the largest cost of reading a long log. A zero field takes
// its default; tests lower them to reach the sampled part with a short log.
type memSampling struct {
	full, stride int64
}

const (
	defaultMemFull   int64 = 64 << 20
	defaultMemStride int64 = 8
)

// reads says whether the read starting at byte at is one the memory scan
// looks at.
func (m memSampling) reads(at int64) bool {
	full, stride := m.full, m.stride
	if full == 0 {
		full = defaultMemFull
	}
	if stride == 0 {
		stride = defaultMemStride
	}
	return at < full || (at>>20)%stride == 0
}

// memSampled counts n more bytes and says whether the read they came in
// is one the memory scan reads.
func (t *tracker) memSampled(n int) bool {
	at := t.memBytes
	t.memBytes += int64(n)
	return t.sample.reads(at)
}

// seeMemory reads the lines that end in b and hold a memory word, the
// first one joined to its start in the tail when an earlier read began it.
// startLine is the number of the line b's first byte is on (the lines seen
// so far plus one); first is whether b starts that line. Only the lines
// around a memory word are visited: a read without one costs one
// vectorised search per word.
func (t *tracker) seeMemory(b []byte, startLine int, first bool) {
	line := startLine
	if !first {
		// The line began in an earlier read: its start is in the tail.
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			return
		}
		if i := bytes.LastIndexByte(t.tail, '\n'); i >= 0 || len(t.tail) < tailKeep {
			l := append(append([]byte{}, t.tail[i+1:]...), b[:end]...)
			if len(l) < 400 && memWord(l) {
				t.memReading(l, line)
			}
		}
		b = b[end+1:]
		line++
	}
	counted := 0 // line is the number of the line at b[counted]
	// next[k] is where memWords[k] next occurs at or after off (-1: never
	// again in b); a word is searched again only once passed, so each read
	// is scanned about once per word.
	var next [3]int
	for k := range next {
		next[k] = -2
	}
	for off := 0; off < len(b); {
		at := -1
		for k, w := range memWords {
			if next[k] == -2 || (next[k] >= 0 && next[k] < off) {
				next[k] = -1
				if i := bytes.Index(b[off:], w); i >= 0 {
					next[k] = off + i
				}
			}
			if next[k] >= 0 && (at < 0 || next[k] < at) {
				at = next[k]
			}
		}
		if at < 0 {
			return
		}
		start := bytes.LastIndexByte(b[:at], '\n') + 1
		end := bytes.IndexByte(b[at:], '\n')
		if end < 0 {
			return // the line goes on in the next read
		}
		end += at
		line += bytes.Count(b[counted:start], []byte{'\n'})
		counted = start
		if end-start < 400 {
			from := at - start
			if from > 0 && (b[at-1] == 'a' || b[at-1] == 'A') {
				from-- // "alloc", found by its "lloc"
			}
			t.memReadingAt(b[start:end], from, line)
		}
		off = end + 1
	}
}

func (t *tracker) memReading(l []byte, line int) {
	for _, w := range memWords {
		if i := bytes.Index(l, w); i >= 0 {
			if i > 0 && w[0] == 'l' {
				i--
			}
			t.memReadingAt(l, i, line)
			return
		}
	}
}

// memReadingAt reads the reading whose memory word starts at l[from:]:
// the expression then runs anchored there, not over the whole line.
func (t *tracker) memReadingAt(l []byte, from, line int) {
	m := memReadingRE.FindSubmatch(l[from:])
	if m == nil {
		return
	}
	v, err := strconv.ParseFloat(string(m[2]), 64)
	if err != nil {
		return
	}
	unit := string(m[1])
	if unit == "" {
		unit = string(m[3])
	}
	t.key = templateOf(t.key[:0], l)
	if t.mem == nil {
		t.mem = map[string]*memSeries{}
	}
	s := t.mem[string(t.key)] // no allocation for the lookup
	if s == nil {
		if len(t.mem) >= maxMemSeries {
			return
		}
		s = &memSeries{first: v, unit: unit, firstLine: line}
		t.mem[string(t.key)] = s
	} else {
		switch {
		case v > s.last:
			s.rises++
		case v < s.last:
			s.falls++
		}
	}
	s.last, s.lastLine = v, line
	s.n++
}

// memoryGrowth describes a climb of the memory readings before line, if
// one series rose at almost every reading (at least five readings, four in
// five of the steps a rise, none a fall) to at least twice its start.
func (t *tracker) memoryGrowth(before int) (string, bool) {
	if t == nil {
		return "", false
	}
	var best *memSeries
	for _, s := range t.mem {
		steps := s.n - 1
		if s.n < 5 || s.falls > 0 || s.rises*5 < steps*4 || s.first <= 0 || s.last < 2*s.first || s.lastLine > before {
			continue
		}
		if best == nil || s.n > best.n {
			best = s
		}
	}
	if best == nil {
		return "", false
	}
	u := strings.TrimSpace(best.unit)
	if u != "" {
		u = " " + u
	}
	return fmt.Sprintf("%s%s at line %d to %s%s at line %d, over %d readings", num(best.first), u, best.firstLine, num(best.last), u, best.lastLine, best.n), true
}

func num(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// memWord: b holds a memory word.
func memWord(b []byte) bool {
	for _, w := range memWords {
		if bytes.Contains(b, w) {
			return true
		}
	}
	return false
}
