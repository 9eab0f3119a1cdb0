package runner

import (
	"bytes"
	"sort"
	"sync"
	"sync/atomic"
)

// stream is one of the child's output streams: a byte ring the reads land in
// directly (no copy beyond the read itself), with a record of which global
// sequence number each read got, so both streams can be merged in arrival
// order at the end.
type stream struct {
	ring    []byte
	cap     int
	written int64 // total bytes ever read on this stream
	segs    []segment
	segHead int // index of the oldest record once segs is full
	maxSegs int
}

// ringJump is the size past which a growing ring is given its full capacity.
const ringJump = 256 << 10

type segment struct {
	seq   uint64
	start int64 // absolute offset of the first byte
	n     int
}

func newStream(capacity, maxSegs int) *stream {
	if capacity < 1 {
		capacity = 1
	}
	if maxSegs < 1 {
		maxSegs = 1
	}
	return &stream{cap: capacity, maxSegs: maxSegs}
}

// readBuf returns where the next read should land: at most max bytes, never
// across the ring's end.
func (s *stream) readBuf(max int) []byte {
	if len(s.ring) < s.cap {
		// Grow lazily so a quiet stream costs little memory.
		want := len(s.ring) + max
		if want > s.cap {
			want = s.cap
		}
		if cap(s.ring) < want {
			// Doubling only while the stream is small: a stream that has
			// passed ringJump gets its whole capacity at once, because
			// every doubling copies what is held into fresh pages the
			// kernel must fault in, which cost a bulk stream more than
			// the copies of the tail ever do.
			size := max2(want, 2*cap(s.ring))
			if size > ringJump {
				size = s.cap
			}
			grown := make([]byte, len(s.ring), min(s.cap, size))
			copy(grown, s.ring)
			s.ring = grown
		}
		return s.ring[len(s.ring):want]
	}
	pos := int(s.written % int64(s.cap))
	end := pos + max
	if end > s.cap {
		end = s.cap
	}
	return s.ring[pos:end]
}

// commit records that n bytes were read into the slice readBuf returned.
func (s *stream) commit(n int, seq uint64) {
	if n == 0 {
		return
	}
	if len(s.ring) < s.cap {
		s.ring = s.ring[:len(s.ring)+n]
	}
	rec := segment{seq: seq, start: s.written, n: n}
	s.written += int64(n)
	if len(s.segs) < s.maxSegs {
		s.segs = append(s.segs, rec)
		return
	}
	s.segs[s.segHead] = rec
	s.segHead = (s.segHead + 1) % s.maxSegs
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// pieces returns the still-held parts of the recorded segments.
func (s *stream) pieces(id int) []piece {
	oldest := s.written - int64(len(s.ring))
	var out []piece
	n := len(s.segs)
	for i := 0; i < n; i++ {
		seg := s.segs[(s.segHead+i)%n]
		start, end := seg.start, seg.start+int64(seg.n)
		if end <= oldest {
			continue
		}
		if start < oldest {
			start = oldest
		}
		out = append(out, piece{seq: seg.seq, stream: id, data: s.slice(start, end)})
	}
	return out
}

// slice copies absolute range [start,end) out of the ring.
func (s *stream) slice(start, end int64) []byte {
	out := make([]byte, 0, end-start)
	for start < end {
		pos := int(start % int64(s.cap))
		chunk := int(end - start)
		if pos+chunk > len(s.ring) {
			chunk = len(s.ring) - pos
		}
		out = append(out, s.ring[pos:pos+chunk]...)
		start += int64(chunk)
	}
	return out
}

type piece struct {
	seq    uint64
	stream int
	data   []byte
}

// mergeTail interleaves the streams' pieces in arrival order, holding back a
// stream's unfinished line until its next piece so that lines of stdout and
// stderr never splice into each other, and keeps the newest limit bytes.
func mergeTail(limit int, streams ...*stream) (tail []byte, dropped int64) {
	var all []piece
	var total int64
	for i, s := range streams {
		all = append(all, s.pieces(i)...)
		total += s.written
	}
	sort.Slice(all, func(i, j int) bool { return all[i].seq < all[j].seq })
	carry := make([][]byte, len(streams))
	var buf bytes.Buffer
	for _, p := range all {
		data := p.data
		if c := carry[p.stream]; len(c) > 0 {
			data = append(c, data...)
			carry[p.stream] = nil
		}
		cut := bytes.LastIndexByte(data, '\n') + 1
		buf.Write(data[:cut])
		if cut < len(data) {
			carry[p.stream] = append([]byte(nil), data[cut:]...)
		}
	}
	for _, c := range carry {
		if len(c) > 0 {
			buf.Write(c)
			buf.WriteByte('\n')
		}
	}
	out := buf.Bytes()
	cut := 0
	if len(out) > limit {
		cut = len(out) - limit
	}
	if cut > 0 || int64(len(out)) < total {
		// Older output was dropped: start at a line boundary when one is near.
		if i := bytes.IndexByte(out[cut:], '\n'); i >= 0 && i < 4096 {
			cut += i + 1
		}
	}
	out = out[cut:]
	held := int64(len(out))
	if total > held {
		dropped = total - held
	}
	return out, dropped
}

// seqCounter orders reads across the streams.
type seqCounter struct{ n atomic.Uint64 }

func (c *seqCounter) next() uint64 { return c.n.Add(1) }

// lineSplitter hands complete lines (capped at max bytes), with their
// number across both streams, to a callback. With a filter, only lines
// holding one of its keywords are handed over; a chunk holding none of them
// costs one vectorised byte search per anchor (keywords.go) instead of a
// call per line, so plain training output passes at pipe speed. The callback runs under mu, which
// both streams share, never concurrently.
type lineSplitter struct {
	max       int
	partial   []byte
	truncated bool // the unfinished line passed max; its rest is not kept
	mu        *sync.Mutex
	count     *int // lines so far, both streams; guarded by mu
	emit      func(line []byte, n int)
	filter    [][]byte
	set       *keywordSet // built from filter on first use
	starts    []int       // reused by hits
}

func (l *lineSplitter) write(p []byte) {
	if l.emit == nil {
		return
	}
	// One lock per chunk, not per line: lines are short and many.
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 || l.truncated {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.keep(p)
			return
		}
		l.keep(p[:i])
		l.finishPartial()
		p = p[i+1:]
	}
	last := bytes.LastIndexByte(p, '\n')
	full, rest := p[:last+1], p[last+1:]
	switch {
	case len(full) == 0:
	case l.filter == nil:
		l.eachLine(full)
	default:
		l.hits(full)
	}
	l.keep(rest)
}

// eachLine hands over every line of full (which ends with a newline).
func (l *lineSplitter) eachLine(full []byte) {
	for len(full) > 0 {
		i := bytes.IndexByte(full, '\n')
		*l.count++
		l.emit(l.capped(full[:i]), *l.count)
		full = full[i+1:]
	}
}

// hits hands over the lines of full that hold a keyword, in order.
func (l *lineSplitter) hits(full []byte) {
	if l.set == nil {
		l.set = newKeywordSet(l.filter)
	}
	// Binary data (a tar stream, a tensor dump) holds no log lines worth
	// handing over: its lines are only counted.
	starts, newlines, binary := l.set.scan(full, l.starts[:0])
	l.starts = starts
	if len(starts) == 0 || binary {
		*l.count += newlines
		return
	}
	sort.Ints(starts)
	base, pos := *l.count, 0
	prev := -1
	for _, st := range starts {
		if st == prev {
			continue
		}
		prev = st
		base += bytes.Count(full[pos:st], []byte{'\n'})
		pos = st
		end := st + bytes.IndexByte(full[st:], '\n')
		l.emit(l.capped(full[st:end]), base+1)
	}
	*l.count += newlines
}

// binaryChunk says a chunk of output is binary: NUL bytes, which text
// output does not hold, make up more than one byte in 1024 of it (random
// bytes have one in 256; a stray NUL in a text log is not enough).
func binaryChunk(p []byte) bool {
	// Text holds no NUL at all: one search that finds none is cheaper than
	// counting them.
	return len(p) >= 1024 && bytes.IndexByte(p, 0) >= 0 && bytes.Count(p, []byte{0}) > len(p)/1024
}

func (l *lineSplitter) capped(line []byte) []byte {
	if len(line) > l.max {
		return line[:l.max]
	}
	return line
}

func (l *lineSplitter) matches(line []byte) bool {
	if l.filter == nil {
		return true
	}
	for _, kw := range l.filter {
		if bytes.Contains(line, kw) {
			return true
		}
	}
	return false
}

// keep buffers an unfinished line up to max bytes; past that the line is
// only counted, so binary output costs no more than one scan.
func (l *lineSplitter) keep(p []byte) {
	if room := l.max - len(l.partial); len(p) > room {
		l.partial = append(l.partial, p[:room]...)
		l.truncated = true
		return
	}
	l.partial = append(l.partial, p...)
}

func (l *lineSplitter) finishPartial() {
	*l.count++
	if l.matches(l.partial) {
		l.emit(l.partial, *l.count)
	}
	l.partial = l.partial[:0]
	l.truncated = false
}

// flush hands over the last, unterminated line.
func (l *lineSplitter) flush() {
	if l.emit == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 || l.truncated {
		l.finishPartial()
	}
}
