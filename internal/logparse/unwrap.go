package logparse

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Logs often reach us wrapped: copied out of a terminal that broke every
// long line at its width, or re-flowed by a mail client or forum at word
// boundaries. A message cut in two ("an illegal memory access was" /
// "encountered") no longer matches anything, so the parser joins the
// pieces back first. The layout is judged once, on the first chunk (a
// paste is wrapped throughout or not at all), and only an input that
// shows it unmistakably is touched: a log that was not wrapped must read
// exactly as before.

// wrapMode is how an input was wrapped.
type wrapMode int

const (
	noWrap wrapMode = iota
	// hardWrap: every long line was cut into pieces of exactly width
	// characters, mid-word (terminal copies, fixed-width consoles).
	hardWrap
	// wordWrap: lines were re-flowed at spaces to at most width
	// characters (mail clients, forum editors, fmt).
	wordWrap
)

type wrapping struct {
	mode  wrapMode
	width int
	// weak: the width was seen only once or twice, in a short paste; a
	// hard-wrapped piece that starts indented, or a re-flowed one that
	// starts with a capital, is then taken for a line of its own.
	weak bool
}

const (
	// minWrapWidth: narrower "wraps" are columns of a table or a list.
	minWrapWidth = 50
	// maxWordWidth: re-flowing tools wrap at 72-100; a log whose longest
	// line is wider was not re-flowed.
	maxWordWidth = 132
	// minWrapEvidence distinct lines must show the width.
	minWrapEvidence = 3
	// maxHardWidth: no terminal is wider; lines that share a greater
	// width are progress bars redrawn in place.
	maxHardWidth = 400
	// shortPaste: a paste of at most this many lines may show its wrap
	// width only once.
	shortPaste = 40
	// minReflowWidth, maxReflowWidth: the widths re-flowing tools use
	// (fmt and mail clients 72-78, forum editors up to 100); a short paste
	// whose spaced lines end near one of them was re-flowed there.
	minReflowWidth, maxReflowWidth = 64, 100
	// maxFillWidth: fmt, mail clients and editors fill lines to at most
	// 80 columns; pieces of one greater width were cut by a terminal.
	maxFillWidth = 80
	// reflowSpread: a re-flowed line ends up to this many columns short
	// of the width, where the next word would not fit.
	reflowSpread = 8
	// wrapScanLines bounds the judging to the head of a huge input.
	wrapScanLines = 20000
)

// termWidths are the widths terminals open at: a short paste whose
// longest line has exactly one of them was cut there, though it shows the
// width only once or twice. A long log needs minWrapEvidence lines.
var termWidths = map[int]bool{80: true, 100: true, 120: true, 132: true, 160: true}

// detectWrap judges the layout of the head of an input.
func detectWrap(buf []byte) wrapping {
	var ls [][]byte
	for pos := 0; pos < len(buf) && len(ls) < wrapScanLines; {
		e := bytes.IndexByte(buf[pos:], '\n')
		if e < 0 {
			e = len(buf) - pos
		}
		ls = append(ls, trimCR(buf[pos:pos+e]))
		pos += e + 1
	}
	// width -> distinct lines of exactly it; cuts leaves out the lines
	// that end where a program breaks its own output.
	exact, cuts := map[int]map[uint64]bool{}, map[int]map[uint64]bool{}
	add := func(m map[int]map[uint64]bool, w int, h uint64) {
		if m[w] == nil {
			m[w] = map[uint64]bool{}
		}
		m[w][h] = true
	}
	longest, spaced := 0, 0
	for i, line := range ls {
		if tableLine(line) {
			continue
		}
		w := utf8.RuneCount(line)
		longest = max(longest, w)
		// A re-flowing tool cannot break one long word: a line of a
		// single word may exceed its width.
		if bytes.IndexByte(bytes.TrimLeft(line, " \t"), ' ') >= 0 {
			spaced = max(spaced, w)
		}
		// Lines of one fixed format reach one width without being wrapped.
		if w < minWrapWidth || (i+1 < len(ls) && sameShape(line, ls[i+1])) {
			continue
		}
		h := shapeHash(line)
		add(exact, w, h)
		// A program's own wrapped output (printed tensors and lists break
		// after a comma at 80 columns) is no terminal's cut.
		if line[len(line)-1] != ',' {
			add(cuts, w, h)
		}
	}
	if longest < minWrapWidth {
		return wrapping{}
	}
	// Hard wrapping: the longest width is one that several distinct lines
	// reach exactly, since every line longer than it left a piece of it;
	// in a short paste once is enough at a width terminals open at, and
	// twice at one wider than re-flowing tools fill to.
	//
	// A re-flowing tool fills its lines to a spread of widths under its
	// own; a terminal cuts every piece at exactly its width, and the lines
	// just shorter than it are the few last pieces that happen to end
	// there. More lines just under the longest width than at it (twice as
	// many at a width terminals open at) is a re-flowed paste, not a cut
	// one.
	below := 0
	for w := longest - reflowSpread; w < longest; w++ {
		below += len(cuts[w])
	}
	if n := len(cuts[longest]); longest <= maxHardWidth && (below <= n || termWidths[longest] && below <= 2*n) && (n >= minWrapEvidence || (len(ls) <= shortPaste && (n >= 1 && termWidths[longest] || n >= 2 && longest > maxFillWidth))) && !reflowedBelow(ls, longest) {
		return wrapping{mode: hardWrap, width: longest, weak: n < minWrapEvidence}
	}
	// Word wrapping: nothing longer than a re-flowing width but single
	// words, and many lines filled nearly to it.
	if spaced >= minWrapWidth && spaced <= maxWordWidth {
		near, widths := 0, 0
		for w := spaced - 8; w <= spaced; w++ {
			near += len(exact[w])
			if len(exact[w]) > 0 {
				widths++
			}
		}
		// A short paste needs less, but its lines must end at different
		// widths: pieces that all end at one width were cut there.
		if near >= 2*minWrapEvidence {
			return wrapping{mode: wordWrap, width: spaced}
		}
		if len(ls) <= shortPaste && near >= 2 && widths >= 2 && spaced >= minReflowWidth && spaced <= maxReflowWidth {
			return wrapping{mode: wordWrap, width: spaced, weak: true}
		}
	}
	return wrapping{}
}

// reflowedBelow breaks the tie where as many lines end just short of
// width as reach it: a re-flowing tool ends a line short only where the
// next word would not fit, so every such line that goes on in an
// unindented one goes on with a word too long for the room left. A
// terminal's last pieces end anywhere, and the lines after them open
// with words of any length.
func reflowedBelow(ls [][]byte, width int) bool {
	if width < minReflowWidth || width >= maxFillWidth {
		return false
	}
	fit, room := 0, 0
	for i := 0; i+1 < len(ls); i++ {
		line, next := ls[i], ls[i+1]
		w := utf8.RuneCount(line)
		if w < width-reflowSpread || w >= width || len(next) == 0 || tableLine(line) || next[0] == ' ' || next[0] == '\t' {
			continue
		}
		first := next
		if j := bytes.IndexByte(first, ' '); j >= 0 {
			first = first[:j]
		}
		if w+1+utf8.RuneCount(first) > width {
			fit++
		} else {
			room++
		}
	}
	return fit > 0 && room == 0
}

// shapeHash hashes a line with its digits set aside: one message repeated
// with other numbers ("device #105", "device #106") and re-flowed alike
// ends every copy at one width, which is no terminal's cut; the copies
// count once as evidence of a width.
func shapeHash(line []byte) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for _, c := range line {
		if c >= '0' && c <= '9' {
			c = '0'
		}
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// sameShape: two lines that open alike once digits are set aside, as the
// lines of a progress or metrics log do.
func sameShape(a, b []byte) bool {
	const n = 12
	if len(a) < n || len(b) < n {
		return false
	}
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x >= '0' && x <= '9' {
			x = '0'
		}
		if y >= '0' && y <= '9' {
			y = '0'
		}
		if x != y {
			return false
		}
	}
	return true
}

// tableLine: a row or rule of a drawn table or box (nvidia-smi,
// collect_env pastes, rich's tracebacks), whose lines all share one width
// without being wrapped.
func tableLine(b []byte) bool {
	b = bytes.TrimRight(b, " \t")
	if len(b) == 0 {
		return false
	}
	switch b[len(b)-1] {
	case '|', '+', '-', '=', '*', '#':
		return true
	}
	if b[0] == '|' || b[0] == '+' {
		return true
	}
	first, _ := utf8.DecodeRune(b)
	last, _ := utf8.DecodeLastRune(b)
	return boxDrawing(first) || boxDrawing(last)
}

// boxDrawing: the Unicode block terminals draw frames with.
func boxDrawing(r rune) bool { return r >= 0x2500 && r <= 0x257f }

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// join rewrites buf in place, joining each wrapped piece to the one after
// it, and returns the shortened buffer and the offsets (in it) at which a
// line break was removed, so that line numbers stay those of the input.
func (wr wrapping) join(buf []byte, joins []int) ([]byte, []int) {
	if wr.mode == noWrap {
		return buf, joins
	}
	out := 0
	for pos := 0; pos < len(buf); {
		e := bytes.IndexByte(buf[pos:], '\n')
		if e < 0 {
			out += copy(buf[out:], buf[pos:])
			break
		}
		line := buf[pos : pos+e]
		next := buf[pos+e+1:]
		if ne := bytes.IndexByte(next, '\n'); ne >= 0 {
			next = next[:ne]
		}
		sep, ok := wr.continues(trimCR(line), trimCR(next))
		if !ok {
			out += copy(buf[out:], buf[pos:pos+e+1])
			pos += e + 1
			continue
		}
		out += copy(buf[out:], trimCR(line))
		if sep {
			buf[out] = ' '
			out++
		}
		joins = append(joins, out)
		pos += e + 1
	}
	return buf[:out], joins
}

// continues says whether next is the rest of line, and whether a space
// stood at the break.
func (wr wrapping) continues(line, next []byte) (space, ok bool) {
	if len(next) == 0 || len(line) == 0 || tableLine(line) || tableLine(next) || startsRecord(next) {
		return false, false
	}
	if sameShape(line, next) {
		return false, false
	}
	w := utf8.RuneCount(line)
	switch wr.mode {
	case hardWrap:
		if wr.weak && bytes.HasPrefix(next, []byte("  ")) {
			return false, false
		}
		// The printed piece may have lost the space it ended with.
		return false, w == wr.width
	case wordWrap:
		// An indented line, or IPython's arrow at a frame's line ("-->
		// 147 return ..."), opens a line of its own.
		if next[0] == ' ' || next[0] == '\t' || arrowRE.Match(next) {
			return false, false
		}
		// On weak evidence only a piece that cannot open a sentence or a
		// message is a rest: "at least two devices", "2.0.1+cu118)".
		if r, _ := utf8.DecodeRune(next); wr.weak && unicode.IsUpper(r) {
			return false, false
		}
		first := next
		if i := bytes.IndexByte(first, ' '); i >= 0 {
			first = first[:i]
		}
		return true, w+1+utf8.RuneCount(first) > wr.width
	}
	return false, false
}

// joinBroken joins, in place, the line that ends at the break with the
// next one, where the prefilter found one of its patterns broken across
// that line end: the layout of the paste may be too short or too mixed to
// judge (a message re-flowed into two or three lines, a quoted traceback,
// one long line a terminal cut), but a known phrase cut there is evidence
// of the wrap at that break. A phrase cut at a space must still read as a
// re-flowed line (wrappedPair), and the rest of the next line moves up
// behind a single space; one cut mid-word (a glued break) moves up with
// nothing between. Spaces pad the rest to where it ended, so no other
// offset in buf changes. It returns the offset the join leaves in the
// line (see wrapping.join), or -1 when it joins nothing.
func joinBroken(buf []byte, brk Break) int {
	if brk.NL >= len(buf) || buf[brk.NL] != '\n' {
		return -1 // joined already
	}
	ls := bytes.LastIndexByte(buf[:brk.NL], '\n') + 1
	line := bytes.TrimRight(trimCR(buf[ls:brk.NL]), " \t")
	c := brk.NL + 1
	if !brk.Glued {
		c = breakEnd(buf, brk.NL)
	}
	end := len(buf)
	if e := bytes.IndexByte(buf[c:], '\n'); e >= 0 {
		end = c + e
	}
	next := trimCR(buf[c:end])
	if brk.Glued {
		if len(next) == 0 || startsRecord(next) {
			return -1
		}
	} else if !wrappedPair(line, next) {
		return -1
	}
	return moveUp(buf, ls+len(line), c, len(next), !brk.Glued)
}

// moveUp moves the n bytes of text at buf[c:] up to buf[at:], behind a
// space when space is set, and pads the rest of their old place with
// spaces, so that no other offset in buf changes. It returns the offset
// the join leaves in the line (see joinBroken).
func moveUp(buf []byte, at, c, n int, space bool) int {
	if space {
		buf[at] = ' '
		at++
	}
	m := copy(buf[at:], buf[c:c+n])
	for k := at + m; k < c+n; k++ {
		buf[k] = ' '
	}
	return at
}

// joinSplitFrames joins, in place, the traceback frames a paste re-flowed
// at words: a path longer than the width goes on a line of its own, so
// "  File", the quoted path and "line N, in f" stand on three lines, and
// no piece reads as a frame. The three are joined behind single spaces
// (see moveUp), and the offsets of the breaks removed are added to joins.
func joinSplitFrames(buf []byte, joins []int) []int {
	added := false
	for from := 0; ; {
		i := bytes.Index(buf[from:], []byte("File"))
		if i < 0 {
			break
		}
		i += from
		from = i + 4
		if i+4 >= len(buf) {
			break
		}
		nl := lineEndAt(buf, i+4)
		if nl < 0 {
			continue
		}
		ls := bytes.LastIndexByte(buf[:i], '\n') + 1
		if len(bytes.Trim(buf[ls:i], " \t")) != 0 {
			continue
		}
		c := breakEnd(buf, nl)
		path := trimCR(lineAt(buf, c))
		if !quotedPath(path) {
			continue
		}
		at := moveUp(buf, i+4, c, len(path), true)
		joins = append(joins, at)
		added = true
		end := at + len(path) + bytes.IndexByte(buf[at+len(path):], '\n')
		if end < at+len(path) {
			break
		}
		from = end
		c = breakEnd(buf, end)
		rest := trimCR(lineAt(buf, c))
		if !frameRestRE.Match(rest) {
			continue
		}
		joins = append(joins, moveUp(buf, at+len(path), c, len(rest), true))
	}
	if added {
		sort.Ints(joins)
	}
	return joins
}

// quotedPath: a frame's path in its quotes, with the comma after them.
func quotedPath(b []byte) bool {
	b = bytes.TrimSuffix(b, []byte(","))
	return len(b) >= 3 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b[1:len(b)-1], '"') < 0
}

// frameRestRE is the end of a frame line after its path.
var frameRestRE = lazyre.New(`^line \d+(?:, in \S.*)?$`)

// wrappedPair says whether next (its indent or quote marks set aside) can
// be the rest of line: a re-flowing tool breaks a line only where the next
// word would not fit, so line and that word together are wider than any
// tool fills to, and neither is a row of a table nor next a record of its
// own.
func wrappedPair(line, next []byte) bool {
	if len(line) == 0 || len(next) == 0 || tableLine(line) || tableLine(next) || startsRecord(next) {
		return false
	}
	word := next
	if i := bytes.IndexByte(word, ' '); i >= 0 {
		word = word[:i]
	}
	return utf8.RuneCount(line)+1+utf8.RuneCount(word) > minWrapWidth
}

// recordStarts are the openings of a line that begins something new, never
// the rest of the line before it.
var recordStarts = [][]byte{
	[]byte("Traceback "), []byte("  File \""), []byte("File \""), []byte("During handling"),
	[]byte("The above exception"), []byte("[rank"), []byte("Exception raised from"),
	[]byte("srun: "), []byte("slurmstepd: "),
}

func startsRecord(b []byte) bool {
	for _, p := range recordStarts {
		if bytes.HasPrefix(b, p) {
			return true
		}
	}
	return false
}

// leadLines is the head of a message whose rest starts the line at
// buf[pos]: the lines before it, joined, back to the first that is no
// rest of the one before it (see wrappedRest), at most maxLeadLines of
// them, and how many; "", 0 when there is none. Only lines read whole
// from the input count (no join of the re-flow joiner ends in them, so
// their numbers are those before pos's; joins sorted), and no candidate
// line (cands sorted), which is read as a line of its own.
//
// A paste re-flowed at words, or cut by a terminal, in a layout too short
// to judge leaves a message's head ("no" of "no compatible GPUs were
// discovered", "Error while calling cudaMalloc(...," of its "out of
// memory") on the lines before the text the prefilter finds. The message
// event keeps the head as its first line; the knowledge base then reads
// it joined with the rest, and a signature counts there only when it
// needs both.
func leadLines(buf []byte, pos int, joins, cands []int) (string, int) {
	var heads []string
	rest := ""
	for len(heads) < maxLeadLines && pos > 0 && buf[pos-1] == '\n' {
		ls := bytes.LastIndexByte(buf[:pos-1], '\n') + 1
		if k := sort.SearchInts(joins, ls); k < len(joins) && joins[k] < pos {
			break
		}
		if k := sort.SearchInts(cands, ls); k < len(cands) && cands[k] == ls {
			break
		}
		head := strings.TrimSpace(cleanLine(buf[ls : pos-1]))
		if rest == "" {
			rest = strings.TrimSpace(cleanLine(lineAt(buf, pos)))
		}
		// A line behind a log collector's stamp is a record of its own.
		if stripStamp(rest) != rest || !wrappedRest(head, rest) {
			break
		}
		heads = append(heads, head)
		rest, pos = head, ls
	}
	slices.Reverse(heads)
	return strings.Join(heads, " "), len(heads)
}

// maxLeadLines: a message re-flowed at 72 columns fills three lines
// before the text a signature is found by.
const maxLeadLines = 3

// lineAt is the line that starts at buf[pos], without its line end.
func lineAt(buf []byte, pos int) []byte {
	if e := bytes.IndexByte(buf[pos:], '\n'); e >= 0 {
		return buf[pos : pos+e]
	}
	return buf[pos:]
}

// wrappedRest says whether msg may be the rest of lead broken at a word:
// lead and msg's first word are wider than any tool fills a line to, and
// msg opens no sentence, message or record of its own (a capital, a
// bullet or quote mark, a Python record). A row of a box or a table, or
// a rule, is a line of its own; a message may still end a line in a
// character tables draw with ("[T =" / "double] : ... out of memory",
// "CANCELLED AT" / "2025-08-21T20:11:13 ***").
func wrappedRest(lead, msg string) bool {
	if lead == "" || msg == "" || startsRecord([]byte(msg)) || boxRow(lead) || boxRow(msg) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(msg); !unicode.IsLower(r) && !unicode.IsDigit(r) && !pathRest(lead, msg) {
		return false
	}
	word, _, _ := strings.Cut(msg, " ")
	return utf8.RuneCountInString(lead)+1+utf8.RuneCountInString(word) > minWrapWidth
}

// pathRest: msg opens with a quoted path and lead stops mid-sentence, on
// a word (a loader's "... when trying to load", then the DLL's quoted path
// on the next line): a re-flowing tool puts a path longer than the room
// left on a line of its own, and its quote mark then opens the rest of the
// message, not a record of its own.
func pathRest(lead, msg string) bool {
	if len(msg) < 3 || msg[0] != '"' && msg[0] != '\'' {
		return false
	}
	word, _, _ := strings.Cut(msg[1:], " ")
	if !strings.ContainsAny(word, "/\\") {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(lead)
	return unicode.IsLetter(r)
}

// boxRow: a row of a drawn box or table (opened by its border, or closed
// by a box-drawing character) or a rule made only of border characters.
func boxRow(s string) bool {
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if first == '|' || first == '+' || boxDrawing(first) || boxDrawing(last) {
		return true
	}
	return strings.Trim(s, "-=*#+|_~ ") == ""
}
