package logparse

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"
	"unicode/utf8"
)

// Prefilter finds the lines of a buffer that contain any of a fixed set of
// substrings without looking at most bytes: it samples one 4-byte window
// every `stride` bytes and checks it against a bitset of every 4-gram of
// every pattern (a sampled Wu-Manber filter). Every occurrence of a pattern
// of length L spans L-3 consecutive windows, so sampling with a stride of at
// most L-3 cannot miss it. Patterns too short for the sampled table are
// searched with bytes.Index.
//
// Its twin for pastes (Pasted) also finds a pattern where a re-flowed
// paste broke it at one of its spaces ("CUDA out of" / "memory"): see
// spanMatch. The cursor reports such breaks, and candidates joins the two
// lines. That costs a denser table and a second try at every near miss,
// so only short inputs, the size of a paste, are scanned with it.
type Prefilter struct {
	// Pasted is this filter's twin that also finds broken patterns; nil
	// in the twin itself.
	Pasted  *Prefilter
	reflow  bool
	stride  int
	bits    [1 << hashBits / 64]uint64
	start   [1<<16 + 1]int32 // CSR index of entries per hash
	entries []pfEntry
	pats    [][]byte
	patID   []int // index of pats[i] in the patterns given to NewPrefilter
	shortID []int
	// Accept, when set, confirms a candidate line given the indexes of the
	// patterns it holds; a line it refuses is not a candidate. It lets a
	// caller demand more than one fixed text (a number and a word).
	Accept func(line []byte, ids []int) bool

	// Short patterns get the same treatment with 2-byte windows, exact
	// (no hash): a bitset over all 65536 byte pairs.
	short   [][]byte
	stride2 int
	bits2   [1 << 16 / 64]uint64
	start2  [1<<16 + 1]int32
	entry2  []pfEntry
}

type pfEntry struct {
	pat  int32  // index into pats
	off  int32  // offset of the 4-gram inside the pattern
	gram uint32 // the 4-gram itself, to reject hash collisions cheaply
	head uint64 // the pattern's first bytes (up to 8), masked by mask
	mask uint64
	// number marks a pattern of digits (and spaces): it only matches as a
	// whole number, never inside a longer one ("214" is not in "12145").
	number bool
}

func isNumber(pat []byte) bool {
	digit := false
	for _, c := range pat {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c != ' ':
			return false
		}
	}
	return digit
}

// wholeNumber checks the bytes around a number pattern at buf[at:at+n].
func wholeNumber(buf []byte, at, n int) bool {
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	if at > 0 && isDigit(buf[at]) && isDigit(buf[at-1]) {
		return false
	}
	end := at + n
	return !(end < len(buf) && isDigit(buf[end-1]) && isDigit(buf[end]))
}

func headOf(pat []byte) (uint64, uint64) {
	var b [8]byte
	n := copy(b[:], pat)
	mask := ^uint64(0)
	if n < 8 {
		mask = 1<<(8*uint(n)) - 1
	}
	return binary.LittleEndian.Uint64(b[:]), mask
}

// sameHead compares a pattern's first bytes at buf[at:] in one load.
func (e *pfEntry) sameHead(buf []byte, at int) bool {
	if at+8 > len(buf) {
		return true // near the end: let the full comparison decide
	}
	return binary.LittleEndian.Uint64(buf[at:])&e.mask == e.head
}

// hashBits sizes the 4-gram bitset: 2^20 bits (128 KiB) keeps it sparse, so
// few windows of ordinary text pass it; buckets use the top 16 bits.
const hashBits = 20

// minSampled is the shortest pattern the sampled table takes; shorter ones
// go to the 2-byte table, which samples every other byte: the knowledge
// base avoids such anchors.
const minSampled = 4

// NewPrefilter builds the filter, and its twin for pastes, once for a
// pattern set. Prose patterns, numbered after patterns, are searched in
// pastes only: words a person writes about the failure ("+150 MHz core
// clock") are too short to sample a long log for, and a log that long was
// written by a program, which does not state them.
func NewPrefilter(patterns []string, prose ...string) *Prefilter {
	p := newPrefilter(patterns, false)
	p.Pasted = newPrefilter(slices.Concat(patterns, prose), true)
	return p
}

func newPrefilter(patterns []string, reflow bool) *Prefilter {
	p := &Prefilter{reflow: reflow}
	seen := map[string]bool{}
	minLen := 1 << 30
	for id, s := range patterns {
		if s == "" || seen[s] || bytes.IndexByte([]byte(s), '\n') >= 0 {
			continue
		}
		seen[s] = true
		if len(s) < minSampled {
			p.short = append(p.short, []byte(s))
			p.shortID = append(p.shortID, id)
			continue
		}
		p.pats = append(p.pats, []byte(s))
		p.patID = append(p.patID, id)
		if len(s) < minLen {
			minLen = len(s)
		}
	}
	p.buildShort()
	if len(p.pats) == 0 {
		p.stride = 1
		return p
	}
	p.stride = minLen - 3
	type kv struct {
		h uint32
		e pfEntry
	}
	var all []kv
	for i, s := range p.pats {
		// Any minLen bytes of a pattern are enough to find it (Wu-Manber's
		// block): an occurrence spans minLen-3 consecutive windows, one of
		// which the stride samples. Indexing only the rarest block keeps
		// common words ("loss", "NCCL") out of the table, so ordinary
		// lines seldom reach verification.
		lo := rarestBlock(s, minLen)
		hd, mk := headOf(s)
		for off := lo; off+4 <= lo+minLen; off++ {
			// For pastes, each window also stands indexed with one of its
			// inner spaces as a line break: a pattern broken there still
			// shows every window of its block, so the stride still finds it.
			grams := [][4]byte{[4]byte(s[off : off+4])}
			if reflow {
				grams = brokenGrams(s, off)
			}
			for _, g := range grams {
				h := hash4(g[:])
				all = append(all, kv{h >> (hashBits - 16), pfEntry{int32(i), int32(off), binary.LittleEndian.Uint32(g[:]), hd, mk, isNumber(s)}})
				p.bits[h>>6] |= 1 << (h & 63)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].h < all[j].h })
	p.entries = make([]pfEntry, len(all))
	for i, a := range all {
		p.entries[i] = a.e
		p.start[a.h+1]++
	}
	for i := 1; i < len(p.start); i++ {
		p.start[i] += p.start[i-1]
	}
	return p
}

// lineEnds are the ways a re-flowed paste shows a space it broke a line
// at: dropped, kept before the line end, or before a CRLF.
var lineEnds = []string{"\n", " \n", "\r\n"}

// cutEnds are the line ends a terminal's cut leaves in a copied line.
var cutEnds = []string{"\n", "\r\n"}

// brokenGrams returns the window of pat at off as it is, then, for each
// inner space at or after off that the window reaches, the window as it
// reads where a line end (lineEnds) stands for that space, starting at the
// same byte of pat; the one starting at the line end itself is the bare
// '\n' variant of the window at the space. Windows of a glued break
// (gluedBreak) are indexed alike, a line end (cutEnds) standing between
// two bytes of pat. With these indexed, every
// window of a pattern's block broken so is indexed too, so the stride
// still finds it.
func brokenGrams(pat []byte, off int) [][4]byte {
	var g [4]byte
	copy(g[:], pat[off:])
	out := [][4]byte{g}
	for q := off; q < off+4; q++ {
		// A glued break before pat[q]: the line end stands between two
		// bytes of pat ("\r\n" may start the window itself).
		if gluedBreak(pat, q) {
			for _, le := range cutEnds {
				t := string(pat[off:q]) + le + string(pat[q:])
				copy(g[:], t)
				out = append(out, g)
			}
		}
		if pat[q] != ' ' || !innerBreak(pat, q) {
			continue
		}
		for _, le := range lineEnds {
			t := string(pat[off:q]) + le + string(pat[q+1:])
			if len(t) >= 4 {
				copy(g[:], t)
				out = append(out, g)
			}
		}
	}
	return out
}

// innerBreak: a break of pat at its space at (pat[at] == ' ') leaves a
// word of it on each side. A pattern's leading or trailing space ("Error: ")
// broken at a line end would join any two lines.
func innerBreak(pat []byte, at int) bool {
	a, b := len(bytes.TrimSpace(pat[:at])), len(bytes.TrimSpace(pat[at+1:]))
	return min(a, b) >= minSideBytes || min(a, b) > 0 && max(a, b) >= minLongSide
}

// minSideBytes: each side of a broken pattern holds at least this much of
// it, so that a word or two of ordinary text ending one line and opening
// the next are not taken for a pattern.
const minSideBytes = 3

// minLongSide: a side shorter than minSideBytes ("is" / "not in [0, ")
// is enough when the other holds this much, which ordinary text does not
// open or end a line with by chance.
const minLongSide = 10

func (p *Prefilter) buildShort() {
	minLen := 1 << 30
	type kv struct {
		h uint32
		e pfEntry
	}
	var all []kv
	var keep [][]byte
	var keepID []int
	for k, s := range p.short {
		if len(s) < 2 {
			continue // one byte would match nearly every line
		}
		keep = append(keep, s)
		keepID = append(keepID, p.shortID[k])
		if len(s) < minLen {
			minLen = len(s)
		}
		for off := 0; off+2 <= len(s); off++ {
			h := uint32(s[off]) | uint32(s[off+1])<<8
			hd, mk := headOf(s)
			all = append(all, kv{h, pfEntry{pat: int32(len(keep) - 1), off: int32(off), head: hd, mask: mk, number: isNumber(s)}})
			p.bits2[h>>6] |= 1 << (h & 63)
		}
	}
	p.short = keep
	p.shortID = keepID
	if len(keep) == 0 {
		return
	}
	p.stride2 = minLen - 1
	sort.Slice(all, func(i, j int) bool { return all[i].h < all[j].h })
	p.entry2 = make([]pfEntry, len(all))
	for i, a := range all {
		p.entry2[i] = a.e
		p.start2[a.h+1]++
	}
	for i := 1; i < len(p.start2); i++ {
		p.start2[i] += p.start2[i-1]
	}
}

// cost grades how common a byte is in log text: letters, digits and
// spaces fill most lines; quotes, `=`, `$` and the like are rare.
func cost(c byte) int {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == ' ':
		return 10
	case c >= '0' && c <= '9':
		return 8
	case c == ':' || c == '.' || c == ',' || c == '/' || c == '-' || c == '_' || c == '[' || c == ']' || c == '(' || c == ')':
		return 6
	}
	return 3
}

// commonWords are words nearly every line of a training log repeats
// (progress lines, NCCL's INFO chatter; "grad_norm" is Hugging Face
// Trainer's, mmengine's and timm's, logged with every step): a block that
// reaches into one would send most lines to verification.
var commonWords = []string{"loss", "NCCL", "INFO", "step", "rank", "cuda", "epoch", "grad_norm"}

// rarestBlock returns the start of the n-byte block of pat made of the
// least common text: every byte of the block that belongs to a common
// word of pat costs as much as a whole block of ordinary text, so the
// block leans away from those words as far as pat allows ("grad_norm:
// nan" is found by "m: nan", which no healthy step line holds). Ties go
// to the later block, since a message's distinctive end ("... nan")
// tends to follow a common start.
func rarestBlock(pat []byte, n int) int {
	o, _ := rarestBlockCost(pat, n)
	return o
}

// rarestBlockCost is rarestBlock with the block's cost.
func rarestBlockCost(pat []byte, n int) (int, int) {
	common := make([]bool, len(pat))
	for _, w := range commonWords {
		for from := 0; ; {
			i := bytes.Index(pat[from:], []byte(w))
			if i < 0 {
				break
			}
			for j := from + i; j < from+i+len(w); j++ {
				common[j] = true
			}
			from += i + 1
		}
	}
	best, bestCost := 0, -1
	for o := 0; o+n <= len(pat); o++ {
		c := 0
		for j, b := range pat[o : o+n] {
			c += cost(b)
			if common[o+j] {
				c += 100
			}
		}
		if bestCost < 0 || c <= bestCost {
			best, bestCost = o, c
		}
	}
	return best, bestCost
}

// BlockCost is how common the rarest n-byte block of pat is, in
// rarestBlock's terms (lower is rarer): what it costs the prefilter to
// look for pat.
func BlockCost(pat string, n int) int {
	if len(pat) < n {
		n = len(pat)
	}
	_, c := rarestBlockCost([]byte(pat), n)
	return c
}

func hash4(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 0x9E3779B1) >> (32 - hashBits)
}

// Cursor scans one buffer. It remembers where each of the two scans found
// its next line, so a run of Next calls over a buffer stays linear.
type Cursor struct {
	p      *Prefilter
	buf    []byte
	n4, n2 int // next hit line start per scan; -2 unknown, -1 none
	win4   int // the window where scan4 found the line n4
	// Breaks are the line ends that found patterns cross (see
	// spanMatch), in the order found.
	Breaks []Break
	// brokenOnly: only patterns broken across a line end count (see
	// BrokenAcross).
	brokenOnly bool
}

// Cursor starts a scan of buf.
func (p *Prefilter) Cursor(buf []byte) *Cursor {
	return &Cursor{p: p, buf: buf, n4: -2, n2: -2}
}

// Next returns the start of the first line at or after from (a line start)
// that contains a pattern, or -1. The buffer holds whole lines.
func (c *Cursor) Next(from int) int {
	if c.n4 == -2 || (c.n4 >= 0 && c.n4 < from) {
		c.n4 = c.scan4(from)
	}
	if c.n2 == -2 || (c.n2 >= 0 && c.n2 < from) {
		c.n2 = c.scan2(from)
	}
	switch {
	case c.n4 < 0:
		return c.n2
	case c.n2 < 0 || c.n4 < c.n2:
		return c.n4
	}
	return c.n2
}

func (c *Cursor) scan4(from int) int {
	p, buf := c.p, c.buf
	if len(p.pats) == 0 {
		return -1
	}
	end := len(buf) - 4
	stride := p.stride
	bits := &p.bits
	for i := from; i <= end; i += stride {
		w := binary.LittleEndian.Uint32(buf[i:])
		h := (w * 0x9E3779B1) >> (32 - hashBits)
		if bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		if at, brk := p.verify(buf, i, from, w, h>>(hashBits-16), c.brokenOnly); at >= 0 {
			if brk.NL >= 0 {
				c.Breaks = append(c.Breaks, brk)
			}
			c.win4 = i
			return lineStart(buf, at, from)
		}
	}
	return -1
}

// BrokenAcross returns the line end at buf[nl] when one of the paste
// filter's patterns is broken across it (see spanMatch), or noBreak.
// A scan stops at the first pattern of a line, so a pattern broken across
// the end of a line that holds another one ("E tensorflow/...] failed call
// to" / "cuInit: ...") goes unseen by Next; the caller asks again here for
// the ends around the lines Next found.
func (p *Prefilter) BrokenAcross(buf []byte, nl int) Break {
	if p.Pasted != nil {
		p = p.Pasted
	}
	if !p.reflow || nl < 0 || nl >= len(buf) || buf[nl] != '\n' {
		return noBreak
	}
	ls := bytes.LastIndexByte(buf[:nl], '\n') + 1
	end := len(buf)
	if e := bytes.IndexByte(buf[nl+1:], '\n'); e >= 0 {
		end = nl + 1 + e
	}
	c := &Cursor{p: p, buf: buf[:end], n4: -2, n2: -2, brokenOnly: true}
	if c.scan4(ls) < 0 || len(c.Breaks) == 0 {
		return noBreak
	}
	return c.Breaks[0]
}

func (c *Cursor) scan2(from int) int {
	p, buf := c.p, c.buf
	if len(p.short) == 0 {
		return -1
	}
	end := len(buf) - 2
	stride := p.stride2
	bits := &p.bits2
	for i := from; i <= end; i += stride {
		h := uint32(binary.LittleEndian.Uint16(buf[i:]))
		if bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		if p.verify2(buf, i, from) {
			return lineStart(buf, i, from)
		}
	}
	return -1
}

func (p *Prefilter) verify2(buf []byte, i, from int) bool {
	h := uint32(binary.LittleEndian.Uint16(buf[i:]))
	for k := p.start2[h]; k < p.start2[h+1]; k++ {
		e := &p.entry2[k]
		at := i - int(e.off)
		if at < from || !e.sameHead(buf, at) {
			continue
		}
		pat := p.short[e.pat]
		if at+len(pat) <= len(buf) && bytes.Equal(buf[at:at+len(pat)], pat) && (!e.number || wholeNumber(buf, at, len(pat))) {
			return true
		}
	}
	return false
}

// verify checks the patterns whose 4-gram w sits at i. It returns where
// the match starts, or -1, and the line end the match crosses, or
// noBreak.
//
// A paste's filter weighs every pattern at the window and keeps the match
// that starts first: a pattern broken across the line end before the
// window ("out of" / "memory") starts a line earlier than one wholly after
// it ("memory"), and its break must not go unseen.
func (p *Prefilter) verify(buf []byte, i, from int, w, bucket uint32, brokenOnly bool) (int, Break) {
	best, bestBrk := -1, noBreak
	for k := p.start[bucket]; k < p.start[bucket+1]; k++ {
		e := &p.entries[k]
		if e.gram != w {
			continue
		}
		at := i - int(e.off)
		pat := p.pats[e.pat]
		if at >= from && e.sameHead(buf, at) && at+len(pat) <= len(buf) && bytes.Equal(buf[at:at+len(pat)], pat) && (!e.number || wholeNumber(buf, at, len(pat))) {
			if brokenOnly {
				continue
			}
			if !p.reflow {
				return at, noBreak
			}
			if best < 0 || at < best {
				best, bestBrk = at, noBreak
			}
			continue
		}
		if !p.reflow {
			continue
		}
		if start, end, brk := spanMatch(buf, i, int(e.off), pat, from); brk.NL >= 0 && wholeWords(buf, start, end) && (!e.number || wholeNumber(buf, start, end-start)) && (best < 0 || start < best) {
			best, bestBrk = start, brk
		}
	}
	return best, bestBrk
}

// A Break is a line end a pattern was found broken across.
type Break struct {
	// NL is the offset of the '\n'; -1 for none.
	NL int
	// Glued: the break stood between two letters of a word, where a
	// terminal cut the line at its width, so nothing stood for it and
	// the join puts back nothing (see gluedBreak).
	Glued bool
}

var noBreak = Break{NL: -1}

// spanMatch matches pat around buf[i:i+4], its window at off, letting
// one inner space of pat (see innerBreak) stand as a line end: the line
// may keep the space or end in "\r\n", and the next may be indented or
// quoted ("> "). A line a terminal cut may also break pat between two of
// its bytes, with nothing for the break (see gluedBreak). It returns the
// match's bounds and the line end it crosses; brk.NL is -1 when pat is
// not there broken at a line end. Most windows differ from pat at their
// first byte or two, so a failed try costs little.
func spanMatch(buf []byte, i, off int, pat []byte, floor int) (start, end int, brk Break) {
	brk = noBreak
	// Backwards from the window: pattern byte k against buffer byte j.
	k, j := off-1, i-1
	for k >= 0 {
		if j >= floor && buf[j] == pat[k] {
			k, j = k-1, j-1
			continue
		}
		if brk.NL < 0 && j >= floor && gluedBreak(pat, k+1) {
			if nl := lineEndAt(buf, j); nl >= 0 && cutLine(buf, nl) {
				brk = Break{NL: nl, Glued: true}
				j = len(trimCR(buf[:nl])) - 1
				continue
			}
		}
		// A break stands for pat[k] (a space), or for the space pat[k+1]
		// a blank of the break has matched.
		space := pat[k] == ' ' && innerBreak(pat, k)
		if brk.NL >= 0 || j < floor || !(space || k+1 < len(pat) && pat[k+1] == ' ' && innerBreak(pat, k+1)) {
			return 0, 0, noBreak
		}
		nl := breakAt(buf, j, i+4, floor)
		if nl < 0 {
			return 0, 0, noBreak
		}
		brk = Break{NL: nl}
		j = breakStart(buf, nl, floor) - 1
		if space {
			k--
		}
	}
	start = j + 1
	// Forwards from the window's first byte (the window itself may hold
	// the break, as an indexed broken window does).
	k, j = off, i
	for k < len(pat) {
		if j < len(buf) && buf[j] == pat[k] {
			k, j = k+1, j+1
			continue
		}
		if j < len(buf) && (brk.NL < 0 || brk.Glued) && gluedBreak(pat, k) {
			if nl := lineEndAt(buf, j); nl >= 0 && nl >= j && (brk.NL < 0 || nl == brk.NL) && cutLine(buf, nl) {
				brk = Break{NL: nl, Glued: true}
				j = nl + 1
				continue
			}
		}
		space := pat[k] == ' ' && innerBreak(pat, k)
		if j >= len(buf) || brk.Glued || !(space || k > 0 && pat[k-1] == ' ' && innerBreak(pat, k-1)) {
			return 0, 0, noBreak
		}
		nl := breakAt(buf, j, len(buf), floor)
		if nl < 0 || brk.NL >= 0 && nl != brk.NL || nl < j && brk.NL < 0 {
			return 0, 0, noBreak
		}
		// The same break may be met again past it (breakAt looks back from
		// j): crossing it twice without matching a byte would go round
		// for ever.
		next := breakEnd(buf, nl)
		if next <= j && !space {
			return 0, 0, noBreak
		}
		brk = Break{NL: nl}
		j = next
		if space {
			k++
		}
	}
	return start, j, brk
}

// gluedBreak: pat may be found cut between pat[at-1] and pat[at] with
// nothing standing for the cut: both are no blanks, and each side holds
// at least minSideBytes of pat, so that a word ending one line and one
// opening the next are not taken for a pattern.
func gluedBreak(pat []byte, at int) bool {
	return at >= minSideBytes && len(pat)-at >= minSideBytes && pat[at-1] != ' ' && pat[at] != ' '
}

// lineEndAt returns the '\n' of the line end at buf[j] ("\n", or the '\r'
// of "\r\n"), or -1.
func lineEndAt(buf []byte, j int) int {
	switch {
	case buf[j] == '\n':
		return j
	case buf[j] == '\r' && j+1 < len(buf) && buf[j+1] == '\n':
		return j + 1
	}
	return -1
}

// cutLine: the line that ends at buf[nl] is as wide as a terminal, and
// ends in no blank, as a line a terminal cut mid-word does: a re-flowing
// tool fills lines to at most maxFillWidth and never breaks a word.
func cutLine(buf []byte, nl int) bool {
	line := trimCR(buf[bytes.LastIndexByte(buf[:nl], '\n')+1 : nl])
	return len(line) >= maxFillWidth && line[len(line)-1] != ' ' && line[len(line)-1] != '\t' && utf8.RuneCount(line) >= maxFillWidth
}

// wholeWords: a pattern found broken across lines must also begin and
// end where words do ("unhandled system" / "errors counter" is not
// "unhandled system error"): the join it makes is evidence enough only
// when the words read the same.
func wholeWords(buf []byte, start, end int) bool {
	return (start == 0 || !wordByte(buf[start-1]) || !wordByte(buf[start])) &&
		(end >= len(buf) || !wordByte(buf[end]) || !wordByte(buf[end-1]))
}

func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// breakAt finds the line end whose break (breakStart to breakEnd) holds
// buf[j]: the blanks and '\r' before a '\n', the '\n', or the indent or
// quote marks after it. The '\n' is searched before limit; -1 when j is
// in no break.
func breakAt(buf []byte, j, limit, floor int) int {
	k := j
	for k < limit && k < len(buf) && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\r') {
		k++
	}
	if k < limit && k < len(buf) && buf[k] == '\n' {
		return k
	}
	for k = j; k >= floor && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '>'); k-- {
	}
	if k >= floor && buf[k] == '\n' {
		return k
	}
	return -1
}

// breakStart is where the blanks ending the line before nl begin.
func breakStart(buf []byte, nl, floor int) int {
	k := nl
	for k > floor && (buf[k-1] == ' ' || buf[k-1] == '\t' || buf[k-1] == '\r') {
		k--
	}
	return k
}

// breakEnd is where the text after nl's indent or quote marks begins. A
// quote mark is a run of '>' that a blank ends ("> ", ">> "): a '>' the
// text goes on from (">= 0") is the text's own.
func breakEnd(buf []byte, nl int) int {
	k := nl + 1
	for k < len(buf) {
		switch c := buf[k]; {
		case c == ' ' || c == '\t':
			k++
		case c == '>':
			q := k
			for q < len(buf) && buf[q] == '>' {
				q++
			}
			if q < len(buf) && buf[q] != ' ' && buf[q] != '\t' && buf[q] != '\n' && buf[q] != '\r' {
				return k
			}
			k = q
		default:
			return k
		}
	}
	return k
}

func lineStart(buf []byte, i, floor int) int {
	j := bytes.LastIndexByte(buf[floor:i], '\n')
	if j < 0 {
		return floor
	}
	return floor + j + 1
}

// LineIDs returns the patterns of the line buf[ls:le] that Next just
// returned. The sampled scan that found the line already passed its
// windows before the hit with nothing found, so it goes on from the hit's
// window to the line's end, collecting every match, instead of reading
// the line again: on a log whose every step line holds an anchor
// ("grad_norm") that second reading was a fifth of the work.
func (c *Cursor) LineIDs(ls, le int, ids []int) []int {
	p := c.p
	if len(p.short) > 0 || p.reflow || c.brokenOnly || c.n4 != ls || c.win4 < ls || c.win4 >= le {
		return p.LinePatterns(c.buf[ls:le], ids)
	}
	return p.windowIDs(c.buf, c.win4, ls, le, ids[:0])
}

// windowIDs appends the patterns that lie wholly in buf[ls:le] and whose
// indexed window is one of those sampled from window first on.
func (p *Prefilter) windowIDs(buf []byte, first, ls, le int, ids []int) []int {
	for i := first; i+4 <= le; i += p.stride {
		w := binary.LittleEndian.Uint32(buf[i:])
		h := (w * 0x9E3779B1) >> (32 - hashBits)
		if p.bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		b := h >> (hashBits - 16)
		for k := p.start[b]; k < p.start[b+1]; k++ {
			e := &p.entries[k]
			at := i - int(e.off)
			pat := p.pats[e.pat]
			if e.gram == w && at >= ls && at+len(pat) <= le && bytes.Equal(buf[at:at+len(pat)], pat) && (!e.number || wholeNumber(buf, at, len(pat))) {
				ids = append(ids, p.patID[e.pat])
			}
		}
	}
	return ids
}

// LinePatterns returns the indexes (into NewPrefilter's patterns) of the
// patterns a line holds, checking every position; patterns repeated in
// NewPrefilter's list are reported under their first index.
func (p *Prefilter) LinePatterns(line []byte, ids []int) []int {
	// The table holds only each pattern's rarest block, whose windows the
	// stride samples one of (see newPrefilter): the line needs no more
	// windows than the scan that found it.
	ids = p.windowIDs(line, 0, 0, len(line), ids[:0])
	for i := 0; i+2 <= len(line) && len(p.short) > 0; i++ {
		h := uint32(binary.LittleEndian.Uint16(line[i:]))
		if p.bits2[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for k := p.start2[h]; k < p.start2[h+1]; k++ {
			e := &p.entry2[k]
			at := i - int(e.off)
			pat := p.short[e.pat]
			if at >= 0 && at+len(pat) <= len(line) && bytes.Equal(line[at:at+len(pat)], pat) && (!e.number || wholeNumber(line, at, len(pat))) {
				ids = append(ids, p.shortID[e.pat])
			}
		}
	}
	return ids
}
