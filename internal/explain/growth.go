package explain

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
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
var memReadingRE = regexp.MustCompile(`(?i)(?:mem|alloc)[a-z_]*\W{0,3}(?:\(?([kmgt]i?b|bytes)\)?\W{0,3})?(\d+(?:\.\d+)?)\s*([kmgt]i?b|[kmgt]\b|bytes)?`)

var digitsRE = regexp.MustCompile(`\d+(?:\.\d+)?`)

// seeMemory reads the lines that end in b and speak of memory, the first
// one joined to its start in the tail when an earlier read began it.
// startLine is the number of the line b's first byte is on (counted as
// the lines seen so far plus one); first is whether b starts that line.
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
	if !memWord(b) {
		return
	}
	for len(b) > 0 {
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			return // the line goes on in the next read
		}
		if l := b[:end]; len(l) < 400 && memWord(l) {
			t.memReading(l, line)
		}
		b = b[end+1:]
		line++
	}
}

// memWord: b names memory or an allocation (what memReadingRE starts with).
func memWord(b []byte) bool {
	return bytes.Contains(b, []byte("mem")) || bytes.Contains(b, []byte("Mem")) || bytes.Contains(b, []byte("MEM")) ||
		bytes.Contains(b, []byte("lloc")) || bytes.Contains(b, []byte("LLOC"))
}

func (t *tracker) memReading(l []byte, line int) {
	m := memReadingRE.FindSubmatch(l)
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
	key := string(digitsRE.ReplaceAll(l, []byte("#")))
	if t.mem == nil {
		t.mem = map[string]*memSeries{}
	}
	s := t.mem[key]
	if s == nil {
		if len(t.mem) >= maxMemSeries {
			return
		}
		s = &memSeries{first: v, unit: unit, firstLine: line}
		t.mem[key] = s
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
