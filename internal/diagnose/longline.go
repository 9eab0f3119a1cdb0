package diagnose

import (
	"bytes"
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
)

// longLines notes the lines of an input longer than the parser reads
// (logparse.MaxLineBytes): their rest is never searched for a failure, so
// a JSON-lines record of hundreds of MiB with the error far inside it
// would otherwise give "no failure found" without a word. It finds them
// without looking at most bytes: a line longer than twice longBlock bytes
// covers a whole block of longBlock bytes, so it is enough to ask each
// block whether it holds a newline (a vectorised search that, in ordinary
// text, stops within the first hundred bytes) and to measure the line only
// around a block without one.
type longLines struct {
	run   int   // bytes since the last newline, carried across reads
	count int   // lines found longer than the limit
	first int   // the first one's line number, 0 when none
	size  int64 // its length so far
	open  bool  // the first one continues in the next read
}

// longBlock is the sampling step; 2*longBlock must not exceed the limit.
const longBlock = logparse.MaxLineBytes / 2

func (l *longLines) see(b []byte, lines int) {
	if l.open {
		if e := bytes.IndexByte(b, '\n'); e < 0 {
			l.size += int64(len(b))
		} else {
			l.size += int64(e)
			l.open = false
		}
	}
	fe := bytes.IndexByte(b, '\n')
	if fe < 0 {
		if l.run <= logparse.MaxLineBytes && l.run+len(b) > logparse.MaxLineBytes {
			l.found(lines+1, int64(l.run+len(b)), true)
		}
		l.run += len(b)
		return
	}
	if l.run <= logparse.MaxLineBytes && l.run+fe > logparse.MaxLineBytes {
		// A line begun in earlier reads; past the limit already, it was
		// counted when it crossed it.
		l.found(lines+1, int64(l.run+fe), false)
	}
	// Lines that start in this read: sample whole blocks after the first
	// newline; a block without one lies inside a line at least that long.
	for off := fe + 1; off+longBlock <= len(b); {
		if bytes.IndexByte(b[off:off+longBlock], '\n') >= 0 {
			off += longBlock
			continue
		}
		start := bytes.LastIndexByte(b[:off], '\n') + 1
		e := bytes.IndexByte(b[off:], '\n')
		if e < 0 {
			break // it runs into the next read: measured there through run
		}
		if n := off + e - start; n > logparse.MaxLineBytes {
			l.found(lines+1+bytes.Count(b[:start], []byte{'\n'}), int64(n), false)
		}
		off += e + 1
	}
	last := bytes.LastIndexByte(b, '\n')
	l.run = len(b) - last - 1
	if l.run > logparse.MaxLineBytes {
		l.found(lines+1+bytes.Count(b[:last+1], []byte{'\n'}), int64(l.run), true)
	}
}

func (l *longLines) found(line int, size int64, open bool) {
	l.count++
	if l.first == 0 {
		l.first, l.size, l.open = line, size, open
	}
}

// warning is the one line that tells the user, or "" when every line was
// read whole.
func (l *longLines) warning(name string) string {
	if l.count == 0 {
		return ""
	}
	more := ""
	if l.count > 1 {
		more = fmt.Sprintf(" (and %d more lines over %d KiB)", l.count-1, logparse.MaxLineBytes>>10)
	}
	return fmt.Sprintf("%s: line %d is %s long%s: only the first %d KiB of a line are searched for a failure", name, l.first, byteSize(l.size), more, logparse.MaxLineBytes>>10)
}

// byteSize writes n in the largest binary unit that keeps it above 1.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
}
