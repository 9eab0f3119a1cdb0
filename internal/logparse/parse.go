package logparse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// BinaryError says the input is not text.
type BinaryError struct{ Name string }

func (e *BinaryError) Error() string { return e.Name + ": binary data, not a text log" }

// ErrBinary matches every BinaryError with errors.Is.
var ErrBinary = errors.New("binary data, not a text log")

func (e *BinaryError) Is(target error) bool { return target == ErrBinary }

// Triggers are the fixed texts that start a structure the parser must see
// whatever the knowledge base holds. The engine adds them to its keywords.
func Triggers() []string {
	return append([]string{
		TracebackHead,
		"RemoteTraceback",
		"Exception raised from ",
		"terminate called after throwing",
		"ChildFailedError",
		RootCauseHead,
		"Assertion `",
		"Stack trace of the failed collective",
		"Watchdog caught collective",
		"might be asynchronously reported",
		"CollectiveFingerPrint",
		"=========",
		"Some NCCL operations have failed",
		"Exception ignored in",
		// A frame line: a paste may start a traceback below its header.
		frameMark,
	}, ownTriggers...)
}

const (
	chunkSize    = 1 << 20
	maxEventLine = 64  // significant lines kept per event
	maxFrames    = 200 // frames kept per exception
	staleLines   = 64  // an open structure not fed for this many lines closes
)

// Parse reads r to its end and calls emit for every event, in the order the
// events end. pf must include Triggers(). name labels errors and events.
//
// An input that fits in one chunk (most logs of a directory of many) is
// read, scanned and parsed right here: goroutines and channels for it
// would cost more than the work. A longer one is read in a second
// goroutine and prefiltered in a few more, a few chunks ahead of the
// parser, so the scan uses every core and overlaps the (rare) work on
// candidate lines.
func Parse(ctx context.Context, r io.Reader, name string, pf *Prefilter, emit func(Event)) error {
	p := &parser{src: name, pf: pf, blocks: map[int]block{}, floods: map[string]*Event{}, lastRank: -1, localSeen: map[int]bool{}, globalSeen: map[int]bool{}, srunSeen: map[int]bool{}, rankLastN: map[int]int{}}
	p.emit = func(ev Event) {
		ev.LocalRank = ev.Rank >= 0 && p.localSeen[ev.Rank] && !p.globalSeen[ev.Rank]
		ev.SrunLabel = ev.Rank >= 0 && p.srunSeen[ev.Rank]
		emit(ev)
	}
	c := &chunker{ctx: ctx, r: decodeUTF16(r), name: name, first: true}
	first, more := c.next()
	first.data = stripEscapes(first.data)
	p.noSrun = !srunLabels(first.data)
	wr := detectWrap(first.data)
	if !more {
		if first.err != nil {
			return first.err
		}
		if first.data != nil {
			first.data, first.joins = wr.join(first.data, nil)
			first.joins = joinSplitFrames(first.data, first.joins)
			var cands []int
			// Only an input of one chunk can be a paste (see Prefilter).
			cands, first.joins = candidates(pf, first.data, first.joins, true)
			p.paste = true
			p.chunk(first.data, cands, first.joins)
			chunkPool.Put(first.owner)
		}
		p.finish()
		return nil
	}

	workers := runtime.GOMAXPROCS(0)
	if workers > 4 {
		workers = 4
	}
	out := make(chan *piece, 2*workers)
	jobs := make(chan *piece, 2*workers)
	pool := make(chan []byte, 2*workers+2)
	done := make(chan struct{})
	defer close(done)
	for i := 0; i < workers; i++ {
		go func() {
			for pc := range jobs {
				pc.data, pc.joins = wr.join(stripEscapes(pc.data), nil)
				pc.cands, pc.joins = candidates(pf, pc.data, pc.joins, false)
				close(pc.ready)
			}
		}()
	}
	c.pool = pool
	go c.produce(first, out, jobs, done)
	for pc := range out {
		if pc.err != nil {
			return pc.err
		}
		<-pc.ready
		p.chunk(pc.data, pc.cands, pc.joins)
		select {
		case pool <- pc.owner:
		default:
		}
	}
	p.finish()
	for {
		select {
		case b := <-pool:
			chunkPool.Put(b)
		default:
			return nil
		}
	}
}

var chunkPool sync.Pool

// piece is a run of whole lines with the starts of its candidate lines.
type piece struct {
	data  []byte
	cands []int
	// joins are the offsets in data where a wrapped line's break was
	// removed (see unwrap.go): each still counts as a line.
	joins []int
	owner []byte // the pooled buffer data lives in
	err   error
	ready chan struct{} // closed when cands is set
}

// chunker reads an input in chunks and cuts them at their last newline.
type chunker struct {
	ctx  context.Context
	r    io.Reader
	name string
	// pool holds buffers the parser is done with (nil while parsing inline).
	pool     chan []byte
	buf      []byte
	carry    int
	first    bool
	skipping bool // inside the dropped tail of an over-long line
	ended    bool
}

func (c *chunker) get() []byte {
	select {
	case b := <-c.pool:
		return b
	default:
		if b, ok := chunkPool.Get().([]byte); ok {
			return b
		}
		return make([]byte, chunkSize)
	}
}

// next returns the next piece: whole lines, or an error; more is false
// once the input is done (the piece returned with it, if any, is the last).
func (c *chunker) next() (pc piece, more bool) {
	if c.buf == nil && !c.ended {
		c.buf = c.get()
	}
	for !c.ended {
		if err := c.ctx.Err(); err != nil {
			c.end()
			return piece{err: err}, false
		}
		n, err := io.ReadFull(c.r, c.buf[c.carry:])
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			c.end()
			return piece{err: fmt.Errorf("%s: %w", c.name, err)}, false
		}
		data := c.buf[:c.carry+n]
		if c.first && len(data) > 0 {
			c.first = false
			if looksBinary(data) {
				c.end()
				return piece{err: &BinaryError{Name: c.name}}, false
			}
		}
		if c.skipping {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				c.carry = 0
				if eof {
					c.end()
					return piece{}, false
				}
				continue
			}
			data = data[i+1:]
			c.skipping = false
		}
		if eof {
			// The buffer goes with the piece (the parser returns it).
			buf := c.buf
			c.buf = nil
			c.ended = true
			if len(data) == 0 {
				chunkPool.Put(buf)
				return piece{}, false
			}
			if data[len(data)-1] != '\n' {
				data = append(data[:len(data):len(data)], '\n')
			}
			return piece{data: data, owner: buf}, false
		}
		last := bytes.LastIndexByte(data, '\n')
		next := c.get()
		c.carry = 0
		switch {
		case last >= 0:
			c.carry = copy(next, data[last+1:])
			pc = piece{data: data[:last+1], owner: c.buf}
		case len(data) == len(c.buf):
			// One line longer than the buffer: keep its head, drop the rest.
			pc = piece{data: append(data[:len(data)-1:len(data)-1], '\n'), owner: c.buf}
			c.skipping = true
		default:
			c.carry = copy(next, data)
			chunkPool.Put(c.buf)
		}
		c.buf = next
		if pc.data != nil {
			return pc, true
		}
	}
	return piece{}, false
}

// end gives the buffer back after an error or an empty end.
func (c *chunker) end() {
	c.ended = true
	if c.buf != nil {
		chunkPool.Put(c.buf)
		c.buf = nil
	}
}

// produce sends first and the pieces after it to the scanners and, in
// order, to the parser; it closes out when done.
func (c *chunker) produce(first piece, out, jobs chan<- *piece, done <-chan struct{}) {
	defer close(out)
	defer close(jobs)
	send := func(pc piece) bool {
		pc.ready = make(chan struct{})
		if pc.err != nil {
			close(pc.ready)
		} else {
			select {
			case jobs <- &pc:
			case <-done:
				return false
			}
		}
		select {
		case out <- &pc:
			return true
		case <-done:
			return false
		}
	}
	for pc, more := first, true; ; pc, more = c.next() {
		if (pc.data != nil || pc.err != nil) && !send(pc) {
			return
		}
		if !more {
			return
		}
	}
}

// candidates lists the starts of the lines of buf the prefilter selects.
// In a paste, a pattern found broken across a line end (re-flowed text)
// joins the two lines in place (see joinBroken); joins, the sorted
// offsets of the line breaks removed before, comes back with those added.
// A log longer than a chunk was written by a program, which never
// re-flows its own output, so it is scanned without that search.
func candidates(pf *Prefilter, buf []byte, joins []int, paste bool) ([]int, []int) {
	scan := pf
	if paste && pf.Pasted != nil {
		scan = pf.Pasted
	}
	cur := scan.Cursor(buf)
	var out, ids []int
	// Outside pastes no line is joined to another, so Accept judges each
	// line as it is found: a long log whose every step line holds an
	// anchor ("grad_norm") then keeps no list of the lines it refuses.
	acceptNow := pf.Accept != nil && scan == pf
	for pos := 0; pos < len(buf); {
		n := cur.Next(pos)
		if n < 0 {
			break
		}
		e := bytes.IndexByte(buf[n:], '\n')
		if e < 0 {
			e = len(buf) - n
		}
		pos = n + e + 1
		if acceptNow {
			if ids = cur.LineIDs(n, n+e, ids); !pf.Accept(buf[n:n+e], ids) {
				continue
			}
		}
		out = append(out, n)
	}
	if scan != pf {
		// A line found for one pattern hides a second one broken across
		// its end, or across the end of the line before it: ask again
		// there. A pair neither of whose lines was found becomes one.
		found := len(out)
		for _, n := range out[:found] {
			ends := []int{n - 1}
			if e := bytes.IndexByte(buf[n:], '\n'); e >= 0 {
				ends = append(ends, n+e)
			}
			for _, nl := range ends {
				if brk := pf.BrokenAcross(buf, nl); brk.NL >= 0 {
					cur.Breaks = append(cur.Breaks, brk)
					out = append(out, lineStart(buf, brk.NL, 0))
				}
			}
		}
		if len(out) > found {
			slices.Sort(out)
			out = slices.Compact(out)
		}
	}
	if len(cur.Breaks) > 0 {
		var more []int
		sort.Slice(cur.Breaks, func(i, j int) bool { return cur.Breaks[i].NL < cur.Breaks[j].NL })
		for _, brk := range cur.Breaks {
			if at := joinBroken(buf, brk); at >= 0 {
				more = append(more, at)
			}
		}
		if len(more) > 0 {
			joins = append(joins, more...)
			sort.Ints(joins)
			// A line that became the rest of another starts none.
			out = slices.DeleteFunc(out, func(n int) bool { return n > 0 && buf[n-1] != '\n' })
		}
	}
	if pf.Accept != nil && !acceptNow {
		found := slices.Clone(out)
		out = slices.DeleteFunc(out, func(n int) bool {
			e := bytes.IndexByte(buf[n:], '\n')
			if e < 0 {
				e = len(buf) - n
			}
			ids = scan.LinePatterns(buf[n:n+e], ids)
			if pf.Accept(buf[n:n+e], ids) {
				return false
			}
			// The rest of a message whose head the line before holds
			// (see leadLine) is judged with it.
			if lead, _ := leadLines(buf, n, joins, found); lead != "" {
				joined := []byte(lead + " " + strings.TrimSpace(cleanLine(buf[n:n+e])))
				return !pf.Accept(joined, scan.LinePatterns(joined, ids))
			}
			return true
		})
	}
	return out, joins
}

// LooksBinary judges the start of an input (its first 8 KiB) as the
// parser does, so a caller can skip a binary file before parsing.
func LooksBinary(head []byte) bool { return looksBinary(head) }

// looksBinary judges the first chunk: NUL bytes, or many bytes that are
// neither printable text nor valid UTF-8.
func looksBinary(b []byte) bool {
	if hasUTF16BOM(b) {
		return false // decoded by Parse (utf16.go)
	}
	if len(b) > 8192 {
		b = b[:8192]
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\b' && c != 0x1b {
				bad++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 && len(b)-i >= utf8.UTFMax {
			bad++
		}
		i += n
	}
	return bad*10 > len(b)
}

type parser struct {
	src      string
	pf       *Prefilter
	emit     func(Event)
	lineNo   int
	blocks   map[int]block
	floods   map[string]*Event
	lastN    int
	lastRank int
	// localSeen and globalSeen record which ranks appeared with a local
	// ("[default0]:") and which with a global prefix.
	localSeen, globalSeen map[int]bool
	// srunSeen records the ranks that appeared behind srun --label's
	// "N: " prefix.
	srunSeen map[int]bool
	// noSrun: the log's "N: " prefixes are a numbered list, not srun's
	// task labels (see srunLabels); decided on the first chunk.
	noSrun bool
	// inGroup: inside an exception group's frame (exgroup.go).
	inGroup bool
	// rankLastN is the number of each rank's last prefixed line, and
	// bareN that of the last line with no rank: lines of other ranks
	// between two of one rank's lines do not part them, a line of none
	// does.
	rankLastN map[int]int
	bareN     int
	// paste: the input is one chunk, which may be a paste (see
	// Prefilter); lead is then the head of a message on the lines before
	// the candidate line being read, when the scan passed over them (see
	// leadLines).
	paste bool
	lead  string
	leadN int // the lines lead was joined from
}

// pline is one line as the structures see it.
type pline struct {
	N        int
	Text     string // after the rank prefix
	Rank     int
	Prefixed bool
	C10      bool
	Level    byte
	TS       string
	Msg      string // after the C++ log prefix (== Text without one)
	Cand     bool
	// Sub marks a line split out of one physical line (see escapedLines):
	// it shares its number with the line before it.
	Sub bool
	// RankPrev is the number of the same rank's line before this one when
	// only other ranks' lines stand between them (0 when none does).
	RankPrev int
	// Stamp is the log collector's time the line began with (see
	// stripStamp), "" when none.
	Stamp string
	// Prompt marks a line typed at a REPL's or a notebook's prompt (see
	// isPromptLine): input, never the rest of the output before it.
	Prompt bool
}

// follows says whether l comes right after the line numbered prev, or
// right after it among the lines of its rank (launchers interleave the
// lines of their tasks).
func (l pline) follows(prev int) bool {
	return l.N == prev+1 || (l.Sub && l.N == prev) || (l.RankPrev > 0 && l.RankPrev == prev)
}

func (p *parser) chunk(buf []byte, cands, joins []int) {
	ci, ji, pos := 0, 0, 0
	// joined counts the removed breaks before off as the lines they were.
	joined := func(off int) {
		for ji < len(joins) && joins[ji] < off {
			ji++
			p.lineNo++
		}
	}
	for pos < len(buf) {
		for ci < len(cands) && cands[ci] < pos {
			ci++
		}
		next := -1
		if ci < len(cands) {
			next = cands[ci]
		}
		if len(p.blocks) == 0 {
			if next < 0 {
				p.lineNo += bytes.Count(buf[pos:], []byte{'\n'}) + len(joins) - ji
				return
			}
			p.lineNo += bytes.Count(buf[pos:next], []byte{'\n'})
			joined(next)
			pos = next
		}
		p.lead, p.leadN = "", 0
		if pos == next && p.paste && len(p.blocks) == 0 && (ci == 0 || cands[ci-1] < pos) {
			p.lead, p.leadN = leadLines(buf, pos, joins[:ji], cands)
		}
		e := bytes.IndexByte(buf[pos:], '\n')
		p.lineNo++
		p.line(p.lineNo, buf[pos:pos+e+1], pos == next)
		pos += e + 1
		joined(pos)
	}
}

func (p *parser) line(n int, raw []byte, cand bool) {
	text := cleanLine(raw)
	parts := escapedLines(text)
	if parts == nil {
		parts = paddedLines(text)
	}
	if parts != nil {
		for _, s := range parts {
			p.text(n, s, cand, true)
		}
		return
	}
	p.text(n, text, cand, false)
}

// text parses one line of display text; sub is true for the second and
// later lines of a log that was pasted as one escaped string.
func (p *parser) text(n int, text string, cand, sub bool) {
	prompt := isPromptLine(stripCompose(text))
	text = stripPaste(text)
	stamp := text[:len(text)-len(stripStamp(text))]
	rank, kind, rest := stripRankKind(text, !p.noSrun)
	if len(rest) != len(text) {
		// A logger's prefix may sit inside the launcher's or the
		// collector's ("[rank0]:ERROR 04-30 10:20:36 [core.py:396] ...").
		rest = stripLogger(rest)
	}
	if rank >= 0 {
		if kind == rankLocal {
			p.localSeen[rank] = true
		} else {
			p.globalSeen[rank] = true
		}
		if kind == rankSrun {
			p.srunSeen[rank] = true
		}
	}
	rest = p.exceptionGroup(rest)
	l := pline{N: n, Rank: rank, Prefixed: rank >= 0, Cand: cand, Sub: sub, Stamp: stamp, Prompt: prompt}
	if rank >= 0 {
		if prev, ok := p.rankLastN[rank]; ok && prev > p.bareN && prev < n {
			l.RankPrev = prev
		}
		p.rankLastN[rank] = n
	} else if !sub || n != p.bareN {
		p.bareN = n
	}
	l.Text = rest
	l.Level, l.TS, l.Msg, l.C10 = c10Prefix(rest)
	if !l.C10 {
		l.Msg = rest
	}
	// An unprefixed line right after a rank's C++ log message continues it,
	// unless it is a log line or a structure of its own.
	if !l.Prefixed && !startsStructure(l) {
		if b := p.blocks[p.lastRank]; p.lastRank >= 0 && l.follows(p.lastN) && b != nil && b.inherits() {
			l.Rank = p.lastRank
		}
	}
	p.closeStale(n)
	if b := p.blocks[l.Rank]; b != nil {
		if b.feed(p, l) {
			p.lastN, p.lastRank = n, l.Rank
			return
		}
		p.close(l.Rank)
	}
	p.start(l)
	p.lastN, p.lastRank = n, l.Rank
}

func (p *parser) closeStale(n int) {
	for r, b := range p.blocks {
		if n-b.last() > staleLines {
			p.close(r)
		}
	}
}

func (p *parser) close(rank int) {
	if b := p.blocks[rank]; b != nil {
		delete(p.blocks, rank)
		b.finish(p)
	}
}

func (p *parser) finish() {
	ranks := make([]int, 0, len(p.blocks))
	for r := range p.blocks {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	for _, r := range ranks {
		p.close(r)
	}
	p.flushFloods()
}

func (p *parser) flushFloods() {
	if len(p.floods) == 0 {
		return
	}
	evs := make([]*Event, 0, len(p.floods))
	for _, e := range p.floods {
		evs = append(evs, e)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].Line < evs[j].Line })
	for _, e := range evs {
		p.emit(*e)
	}
	clear(p.floods)
}

func (p *parser) newEvent(k Kind, l pline) Event {
	return Event{Kind: k, Source: p.src, Rank: l.Rank, Line: l.N, EndLine: l.N, Level: l.Level, Time: l.TS, Count: 1}
}

// startSummary opens torchrun's summary at line l: after its exception
// line head (kept as the event's first line), or at its "Root Cause"
// heading (inRoot, head "").
func (p *parser) startSummary(l pline, head string, inRoot bool) {
	sb := &summaryBlock{ev: p.newEvent(KindSummary, l), lastN: l.N, inRoot: inRoot}
	sb.ev.Summary = &Summary{}
	if head != "" {
		sb.ev.Lines = []Line{{l.N, head}}
	}
	p.blocks[l.Rank] = sb
}

// isChildFailed: the line is torchrun's exception line.
func isChildFailed(msg string) bool {
	m := excRE.FindStringSubmatch(strings.TrimSpace(msg))
	return m != nil && strings.HasSuffix(m[1], "ChildFailedError")
}

// frameMark is the fixed text of every Python frame line.
const frameMark = `", line `

var (
	frameRE = lazyre.New(`^\s*File "([^"]+)", line (\d+)(?:, in (.+))?$`)
	// IPython / Jupyter frames: "File ~/x/y.py:1501, in f(self)", "Cell In[3], line 5",
	// and the older "<ipython-input-3-abc> in <module>()" with "----> 5 code".
	ipyFrameRE = lazyre.New(`^(?:File (.+?\.pyx?):(\d+)|Cell (In\s*\[\d*\]), line (\d+)|(<ipython-input-[^>]*>|\S+\.pyc?) in )(?:, in )?(.*)$`)
	arrowRE    = lazyre.New(`^-*> ?(\d+)\s?(.*)$`)
	excRE      = lazyre.New(`^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning|Failure|Traceback|Aborted)|(?:Base)?ExceptionGroup|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(?::\s?(.*))?$`)
	collRE     = lazyre.New(`^#(\d+) (.+?) from (.+):(\d+)$`)
	workRE     = lazyre.New(`WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?.*?, Timeout\(ms\)=(\d+)\)(?: ran for (\d+) milliseconds)?`)
	hostRE     = lazyre.New(`^=========\s+Host Frame: ?(\S*) in (\S+\.py):(\d+)$`)
)

// start decides what a line that no open structure took begins.
func (p *parser) start(l pline) {
	msg := l.Msg
	if p.ownLine(l) {
		return
	}
	if isAssert(msg) {
		if a, ok := parseAssert(msg); ok {
			p.addAssert(l, a)
			return
		}
	}
	p.flushFloods()
	switch {
	case strings.Contains(msg, TracebackHead) && !strings.HasPrefix(strings.TrimSpace(msg), "Original Traceback"):
		p.leadIn(l, msg[:strings.Index(msg, TracebackHead)])
		tb := &tbBlock{ev: p.newEvent(KindTraceback, l), lastN: l.N, indent: indentOf(msg)}
		tb.chain = append(tb.chain, Exception{})
		p.blocks[l.Rank] = tb
	case strings.HasSuffix(strings.TrimSpace(msg), "RemoteTraceback:"):
		tb := &tbBlock{ev: p.newEvent(KindTraceback, l), lastN: l.N, state: tbRemote}
		p.blocks[l.Rank] = tb
	case strings.Contains(msg, frameMark) && frameRE.MatchString(msg):
		// Frames with no header above them: a paste that begins inside a
		// traceback ("  File ".../call_queue.py", line 56, in f"). Python
		// prints frames only for a traceback, so it is one, cut at its top.
		tb := &tbBlock{ev: p.newEvent(KindTraceback, l), lastN: l.N, indent: max(indentOf(msg)-2, 0)}
		tb.chain = append(tb.chain, Exception{})
		p.blocks[l.Rank] = tb
		tb.feed(p, l)
	case strings.Contains(msg, "ChildFailedError") && isChildFailed(msg):
		// torchrun's exception line pasted without the traceback above
		// it: its summary follows, as after a traceback (tbBlock.feed).
		p.startSummary(l, strings.TrimSpace(msg), false)
	case strings.HasPrefix(msg, "Exception raised from "):
		ev := p.newEvent(KindCppTrace, l)
		ev.Lines = []Line{{l.N, msg}}
		p.blocks[l.Rank] = &cppBlock{ev: ev, lastN: l.N}
	case strings.HasPrefix(msg, "=========") && isSanitizerRecord(msg):
		ev := p.newEvent(KindSanitizer, l)
		ev.Lines = []Line{{l.N, strings.TrimSpace(strings.TrimLeft(msg, "="))}}
		p.blocks[l.Rank] = &sanBlock{ev: ev, lastN: l.N}
	case strings.HasPrefix(msg, RootCauseHead):
		p.startSummary(l, "", true)
	case l.Cand || (l.C10 && l.Level == 'E'):
		if !l.Cand && !strings.Contains(msg, "rror") && !strings.Contains(msg, "fail") {
			return
		}
		ev := p.newEvent(KindMessage, l)
		ev.Lines = []Line{{l.N, msg}}
		if p.lead != "" && !l.Prefixed && !l.C10 && !l.Sub && msg == strings.TrimSpace(l.Text) {
			ev.Lines = []Line{{l.N - p.leadN, p.lead}, {l.N, msg}}
		}
		mb := &msgBlock{ev: ev, lastN: l.N, stamped: l.Stamp != ""}
		if strings.Contains(msg, "Stack trace of the failed collective:") {
			mb.collective = true
		}
		mb.work(msg)
		if isQuestion(msg) {
			mb.asks = 3
		}
		p.blocks[l.Rank] = mb
	}
}

// leadIn emits, as a message of its own, an error printed on the line of
// a traceback header before it (vLLM's worker logs "...: Cannot
// re-initialize CUDA in forked subprocess. ..., Traceback (most recent
// call last):"). The traceback that follows may be cut before its
// exception line; the text in front is then the only statement of the
// failure. A label ("traceback : ") holds no trigger and stays part of
// the header.
func (p *parser) leadIn(l pline, before string) {
	before = strings.TrimRight(strings.TrimSpace(before), ",:; ")
	if len(before) < 8 || p.pf == nil {
		return
	}
	ids := p.pf.LinePatterns([]byte(before), nil)
	if len(ids) == 0 || (p.pf.Accept != nil && !p.pf.Accept([]byte(before), ids)) {
		return
	}
	ev := p.newEvent(KindMessage, l)
	ev.Lines = []Line{{l.N, before}}
	p.emit(ev)
}

// questionRE is a check whose answer a REPL, a notebook or a script
// prints on the next lines: the call is the line's last text (whether
// CUDA is available, how many GPUs it sees).
var questionRE = lazyre.New(`\.(?:is_available|device_count)\(\)\)?\s*$`)

func isQuestion(msg string) bool {
	return (strings.Contains(msg, ".is_available()") || strings.Contains(msg, ".device_count()")) && questionRE.MatchString(msg)
}

// answerRE is the printed answer to a question: a REPL's bare value,
// a notebook's "Out[2]: False", or a reporter's "return False" (the
// sentence may go on: "It returns False because ..."); a count is a
// small number.
var answerRE = lazyre.New(`^(?:(?:Out\[\d*\]:\s*|>>>\s*|return(?:s|ed)?\s+|#\s*|-+>\s*|=>\s*)?(?:True|False|true|false|\d{1,2})\.?|(?i:(?:it|this|that)\s+)?(?:(?:always|still)\s+)?return(?:s|ed)?\s+(?:True|False|true|false)\b.*)$`)

// promptRE is a REPL or notebook prompt with nothing typed at it.
var promptRE = lazyre.New(`^(?:>>>|\.\.\.|In \[\d*\]:)$`)

// answer takes a line after a question: blank and empty prompt lines are
// passed over (a few), the answer joins the message, and anything else
// ends the wait. It reports whether the block took the line.
func (b *msgBlock) answer(l pline) bool {
	trim := strings.TrimSpace(l.Msg)
	switch {
	case answerRE.MatchString(trim):
		b.asks = 0
		addLine(&b.ev, l, trim)
	case trim == "" || promptRE.MatchString(trim):
		b.asks--
		if b.asks == 0 {
			return false
		}
	default:
		b.asks = 0
		return false
	}
	b.lastN = l.N
	return true
}

// isAssert is the cheap test before the assertion regex.
func isAssert(msg string) bool { return strings.Contains(msg, "Assertion `") }

func isSanitizerRecord(msg string) bool {
	t := strings.TrimSpace(strings.TrimLeft(msg, "="))
	if t == "" || strings.HasPrefix(msg, "==========") {
		return false
	}
	for _, skip := range []string{"COMPUTE-SANITIZER", "ERROR SUMMARY", "Target application returned", "LEAK SUMMARY"} {
		if strings.HasPrefix(t, skip) {
			return false
		}
	}
	return !strings.HasPrefix(msg, "=========  ")
}

func (p *parser) addAssert(l pline, a Assert) {
	key := a.File + ":" + a.Kernel + ":" + a.Expr + ":" + itoa(a.Line)
	if e, ok := p.floods[key]; ok {
		e.Count++
		e.EndLine = l.N
		return
	}
	if len(p.floods) >= 16 {
		p.flushFloods()
	}
	ev := p.newEvent(KindAssert, l)
	ev.Lines = []Line{{l.N, l.Msg}}
	ev.Assert = &a
	p.floods[key] = &ev
}

func isAssertLine(msg string) bool {
	if !isAssert(msg) {
		return false
	}
	_, ok := parseAssert(msg)
	return ok
}

// parseAssert reads a CUDA device assertion line,
// "<file>:<line>: <function>: block: [x,y,z], thread: [x,y,z] Assertion `<expr>` failed.",
// by hand: floods run to millions of lines.
func parseAssert(msg string) (Assert, bool) {
	i := strings.LastIndex(msg, ": block: [")
	if i < 0 {
		return Assert{}, false
	}
	rest := msg[i+len(": block: ["):]
	j := strings.Index(rest, "], thread: [")
	if j < 0 {
		return Assert{}, false
	}
	block := rest[:j]
	rest = rest[j+len("], thread: ["):]
	k := strings.Index(rest, "] Assertion `")
	if k < 0 {
		return Assert{}, false
	}
	thread := rest[:k]
	expr := rest[k+len("] Assertion `"):]
	e := strings.LastIndex(expr, "` failed")
	if e < 0 {
		return Assert{}, false
	}
	expr = expr[:e]
	head := msg[:i] // <file>:<line>: <function>
	for c := 0; c < len(head); {
		d := strings.Index(head[c:], ": ")
		if d < 0 {
			break
		}
		d += c
		// head[:d] must end in ":<digits>"
		q := d
		for q > 0 && head[q-1] >= '0' && head[q-1] <= '9' {
			q--
		}
		if q < d && q > 1 && head[q-1] == ':' {
			return Assert{File: head[:q-1], Line: atoi(head[q:d]), Kernel: head[d+2:], Block: block, Thread: thread, Expr: expr}, true
		}
		c = d + 2
	}
	return Assert{}, false
}

func itoa(n int) string { return strconv.Itoa(n) }

// block is an open multi-line structure of one rank.
type block interface {
	// feed offers the next line; false means the line is not part of the
	// block, which is then closed and the line started afresh.
	feed(p *parser, l pline) bool
	finish(p *parser)
	// inherits says whether unprefixed lines right after this block's last
	// line belong to its rank (continuations of a C++ log message).
	inherits() bool
	last() int
}

func addLine(ev *Event, l pline, text string) {
	ev.EndLine = l.N
	if ev.Time == "" {
		ev.Time = l.TS
	}
	if len(ev.Lines) < maxEventLine {
		ev.Lines = append(ev.Lines, Line{l.N, text})
	}
}

// startsStructure is true for lines that always begin something new.
func startsStructure(l pline) bool {
	m := l.Msg
	return l.C10 || strings.Contains(m, TracebackHead+":") || strings.HasPrefix(m, "Exception raised from ") ||
		strings.HasPrefix(m, "terminate called after") || isAssertLine(m) || strings.HasPrefix(m, "=========") || isOwn(m) ||
		isSchedulerLine(m)
}

// schedulerPrefixes open the lines a job scheduler writes into the job's
// output once a task has ended ("srun: error: node1: task 3: Exited with
// exit code 1", "slurmstepd: error: *** STEP 12.0 ON node1 CANCELLED AT
// ... ***"): another process's words, never the rest of the task's
// traceback or message.
var schedulerPrefixes = []string{"srun: ", "slurmstepd: "}

func isSchedulerLine(m string) bool {
	for _, p := range schedulerPrefixes {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// msgBlock is a log message with its continuation lines (and, after
// "Stack trace of the failed collective:", that stack's frames).
type msgBlock struct {
	ev    Event
	lastN int
	// asks counts the blank and prompt lines still allowed before the
	// answer to a question the message asked (a REPL's
	// "torch.cuda.is_available()", whose "False" may come after a blank
	// line or a prompt); 0 when it asked none or the answer came.
	asks       int
	collective bool
	// stamped: the message's line began with a collector's time, as
	// every line of a collected log does.
	stamped bool
}

func (b *msgBlock) inherits() bool { return true }
func (b *msgBlock) last() int      { return b.lastN }

func (b *msgBlock) feed(p *parser, l pline) bool {
	if b.asks > 0 && l.follows(b.lastN) && b.answer(l) {
		return true
	}
	if !l.follows(b.lastN) || (l.Prefixed && l.Rank >= 0 && b.ev.Rank >= 0 && l.C10) || strings.TrimSpace(l.Text) == "" || startsStructure(l) {
		return false
	}
	if l.Prefixed && b.ev.Rank < 0 {
		return false
	}
	if b.collective {
		if m := collRE.FindStringSubmatch(strings.TrimSpace(l.Msg)); m != nil {
			if len(b.ev.Frames) < maxFrames {
				b.ev.Frames = append(b.ev.Frames, Frame{Function: m[2], Path: m[3], Line: atoi(m[4]), LogLine: l.N})
			}
			b.lastN = l.N
			b.ev.EndLine = l.N
			return true
		}
		return false
	}
	if len(b.ev.Lines) >= 30 {
		return false
	}
	msg := l.Msg
	// A message re-flowed at a time it names ("CANCELLED AT" /
	// "2025-08-21T20:11:13 ***") leaves the time at the start of the next
	// line, where it reads as a collector's stamp; in a log whose lines
	// carry none, it is the message's own text.
	if l.Stamp != "" && !b.stamped && !l.C10 && wrappedRest(b.ev.Lines[len(b.ev.Lines)-1].Text, l.Stamp+msg) {
		msg = l.Stamp + msg
	}
	addLine(&b.ev, l, msg)
	b.work(msg)
	// A question may come on a line the message took in (a numbered
	// list of the commands typed, a paste that began with another
	// candidate line): its answer is awaited as after a first line.
	if isQuestion(msg) {
		b.asks = 3
	}
	b.lastN = l.N
	return true
}

func (b *msgBlock) work(msg string) {
	if b.ev.Work != nil || !strings.Contains(msg, "WorkNCCL(") {
		return
	}
	if m := workRE.FindStringSubmatch(msg); m != nil {
		b.ev.Work = &Work{SeqNum: atoi(m[1]), OpType: m[2], NumelIn: atoi(m[3]), NumelOut: atoi(m[4]), TimeoutMs: atoi(m[5]), RanForMs: atoi(m[6])}
	}
}

func (b *msgBlock) finish(p *parser) { p.emit(b.ev) }

// cppBlock is a C++ frame dump: the header line, then "frame #N:" lines.
type cppBlock struct {
	ev    Event
	lastN int
}

func (b *cppBlock) inherits() bool { return true }
func (b *cppBlock) last() int      { return b.lastN }
func (b *cppBlock) feed(p *parser, l pline) bool {
	if !l.follows(b.lastN) || !strings.HasPrefix(strings.TrimSpace(l.Msg), "frame #") {
		return false
	}
	b.lastN = l.N
	b.ev.EndLine = l.N
	return true
}
func (b *cppBlock) finish(p *parser) { p.emit(b.ev) }

// sanBlock is one compute-sanitizer record; identical records that follow
// are folded into its count.
type sanBlock struct {
	ev     Event
	lastN  int
	header string
	done   bool // the first record is complete; later ones only count
}

func (b *sanBlock) inherits() bool { return false }
func (b *sanBlock) last() int      { return b.lastN }
func (b *sanBlock) feed(p *parser, l pline) bool {
	if !strings.HasPrefix(l.Msg, "=========") {
		return false
	}
	b.lastN = l.N
	b.ev.EndLine = l.N
	t := strings.TrimSpace(strings.TrimLeft(l.Msg, "="))
	if b.header == "" {
		b.header = b.ev.Lines[0].Text
	}
	if isSanitizerRecord(l.Msg) {
		if t == b.header {
			b.ev.Count++
			b.done = true
			return true
		}
		return false
	}
	if b.done || t == "" {
		b.done = b.done || t == ""
		return true
	}
	if m := hostRE.FindStringSubmatch(l.Msg); m != nil {
		if len(b.ev.Frames) < maxFrames {
			b.ev.Frames = append(b.ev.Frames, Frame{Function: m[1], Path: m[2], Line: atoi(m[3]), LogLine: l.N})
		}
		return true
	}
	if strings.HasPrefix(t, "Host Frame:") {
		return true
	}
	addLine(&b.ev, l, t)
	return true
}
func (b *sanBlock) finish(p *parser) { p.emit(b.ev) }
