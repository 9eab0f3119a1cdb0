package logparse

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// maxChain bounds a traceback's chain of exceptions.
const maxChain = 16

const (
	tbFrames  = iota // reading frames, code and caret lines
	tbMessage        // after the exception line: its message's continuation lines
	tbAfter          // after a blank line or closing quotes: a chain separator may follow
	tbExpect         // after a chain separator: the next traceback header
	tbRemote         // after "RemoteTraceback:": quotes, then a traceback header
)

// tbBlock builds one traceback event with its whole exception chain.
type tbBlock struct {
	ev    Event
	lastN int
	state int
	// chain is in print order; finish reorders it root cause first.
	chain  []Exception
	blanks int
	// pending holds remote (worker) exceptions to place before the one
	// that carries them.
	nested  bool
	remoteQ bool // inside RemoteTraceback quotes
	ipython bool // the last frame is IPython's: its code line has an arrow
	// richPath holds the head of a rich frame's path that the box broke
	// over two of its lines.
	richPath string
	// indent is the header's indentation: a traceback pasted indented (in
	// an issue, an email) has its exception line at that depth, not at 0.
	indent int
	// frameIndent is the first frame's indentation plus one, 0 before any.
	// A header behind a label (torchrun's "traceback : Traceback ...")
	// says nothing of the block's depth; the frames do: the exception
	// line sits left of them.
	frameIndent int
	// codeN is the last line that was the last frame's code.
	codeN int
}

// maxCode bounds a frame's statement joined from its lines.
const maxCode = 400

func (b *tbBlock) inherits() bool { return false }
func (b *tbBlock) last() int      { return b.lastN }

func (b *tbBlock) cur() *Exception { return &b.chain[len(b.chain)-1] }

var caretRE = lazyre.New(`^\s*[\^~]+[\s\^~]*$`)

func isSeparator(s string) bool {
	return strings.HasPrefix(s, "During handling of the above exception") || strings.HasPrefix(s, "The above exception was the direct cause")
}

func (b *tbBlock) feed(p *parser, l pline) bool {
	msg := l.Msg
	trim := strings.TrimSpace(msg)
	// A line of another rank never reaches here; a C++ log line ends the traceback.
	if l.C10 {
		return false
	}
	switch b.state {
	case tbRemote:
		switch {
		case trim == `"""`:
			b.remoteQ = !b.remoteQ
		case strings.Contains(trim, TracebackHead+":"):
			b.chain = append(b.chain, Exception{Remote: true})
			b.state = tbFrames
		case trim == "":
		default:
			return false
		}
	case tbFrames:
		if inner, ok := richInner(trim); ok {
			b.richLine(inner, l.N)
			break
		}
		if fr, ok := parseFrame(msg, l.N); ok {
			b.ipython = !frameRE.MatchString(msg)
			if b.frameIndent == 0 {
				b.frameIndent = indentOf(msg) + 1
			}
			e := b.cur()
			if len(e.Frames) < maxFrames {
				e.Frames = append(e.Frames, fr)
			} else {
				e.Frames[len(e.Frames)-1] = fr
			}
			b.blanks = 0
			break
		}
		if trim == "" {
			if b.blanks++; b.blanks > 2 {
				return false
			}
			break
		}
		if elisionRE.MatchString(trim) {
			// The paste left frames out here ("...", "[...]"): the
			// frames go on after it.
			break
		}
		// An exception line after a blank line may sit as deep as the
		// frames: a paste indented as a whole, cut above its header.
		afterBlank := b.blanks > 0
		b.blanks = 0
		if m := arrowRE.FindStringSubmatch(msg); m != nil {
			// IPython marks the frame's line with an arrow.
			e := b.cur()
			if n := len(e.Frames); n > 0 {
				f := &e.Frames[n-1]
				if f.Line == 0 {
					f.Line = atoi(m[1])
				}
				if f.Code == "" {
					f.Code = strings.TrimSpace(m[2])
				}
			}
			break
		}
		if strings.HasPrefix(trim, "-----") {
			break
		}
		if in := indentOf(msg); in > b.indent && !((in < b.frameIndent-1 || afterBlank && in == b.frameIndent-1) && excRE.MatchString(trim)) {
			e := b.cur()
			if caretRE.MatchString(msg) || strings.HasPrefix(trim, "[Previous line repeated") {
				break
			}
			if n := len(e.Frames); n > 0 && !b.ipython {
				switch f := &e.Frames[n-1]; {
				case f.Code == "" && f.LogLine == b.lastN:
					f.Code = trim
					b.codeN = l.N
				case f.Code != "" && b.codeN == b.lastN && len(f.Code) < maxCode:
					// Python 3.11+ prints a statement's every line: a
					// raise whose message spans three lines is the only
					// copy of it when the paste stops before the error.
					f.Code += " " + trim
					b.codeN = l.N
				}
			}
			break
		}
		if isSchedulerLine(msg) {
			return false // the traceback was cut where the scheduler ended the task
		}
		// The exception line.
		e := b.cur()
		msg = strings.TrimLeft(msg, " \t")
		if m := excRE.FindStringSubmatch(msg); m != nil {
			e.Type, e.Message = m[1], m[2]
		} else {
			e.Message = msg
		}
		e.Lines = append(e.Lines, Line{l.N, msg})
		b.state = tbMessage
		if strings.HasSuffix(e.Type, "ChildFailedError") {
			// torchrun's summary follows: hand over to its own block.
			b.finishChain(p)
			p.startSummary(l, msg, false)
			return true
		}
	case tbMessage:
		switch {
		case trim == "":
			b.state = tbAfter
			b.blanks = 1
		case trim == `"""`:
			b.state = tbAfter
			b.blanks = 0
		case strings.HasPrefix(trim, "Original Traceback (most recent call last):"):
			// DataLoader worker: the frames that follow ran in the worker.
			b.chain = append(b.chain, Exception{Remote: true})
			b.nested = true
			b.state = tbFrames
		case startsStructure(l) || isSeparator(trim):
			if isSeparator(trim) {
				b.state = tbExpect
				break
			}
			return false
		case l.Prompt:
			// The next thing typed at the REPL or the notebook.
			return false
		default:
			e := b.cur()
			if len(e.Lines) < 40 {
				if indentOf(msg) >= b.indent {
					msg = msg[b.indent:]
				}
				e.Lines = append(e.Lines, Line{l.N, msg})
			}
		}
	case tbAfter:
		switch {
		case trim == "":
			if b.blanks++; b.blanks > 3 {
				return false
			}
		case isSeparator(trim):
			b.state = tbExpect
		case trim == `"""`:
		default:
			return false
		}
	case tbExpect:
		switch {
		case trim == "":
		case strings.Contains(trim, TracebackHead+":") && len(b.chain) < maxChain:
			b.chain = append(b.chain, Exception{})
			b.state = tbFrames
			b.blanks = 0
			b.indent = indentOf(msg)
			b.frameIndent = 0
		case strings.HasSuffix(trim, "RemoteTraceback:"):
			b.state = tbRemote
		default:
			return false
		}
	}
	b.lastN = l.N
	b.ev.EndLine = l.N
	return true
}

// rich (the library behind Typer's, accelerate's and Lightning's pretty
// tracebacks) draws the frames in a box:
//
//	╭──── Traceback (most recent call last) ────╮
//	│ /home/ana/train.py:88 in main              │
//	│ ❱  88 │   loss = out.loss.item()            │  (rich 13+: "❱ 88 loss = ...")
//	╰────────────────────────────────────────────╯
//	RuntimeError: CUDA error: ...
//
// A frame is "PATH:LINE in FUNCTION", its path broken over two box lines
// when it is wider than the box; ❱ marks the frame's line in its code.
var (
	richFrameRE = lazyre.New(`^(\S.*?\.pyx?):(\d+) in (\S+)$`)
	richHeadRE  = lazyre.New(`^\S.*?\.pyx?:\d+ in$`)
	richCodeRE  = lazyre.New(`^❱\s*(\d+)(?:\s*│| )(.*)$`)
)

// richInner is a rich box line's content; false for a line outside a box.
// Borders and nested panels (locals) come back empty.
func richInner(trim string) (string, bool) {
	switch {
	case strings.HasPrefix(trim, "│"):
		in := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(trim, "│"), "│"))
		if strings.HasPrefix(in, "│") || strings.HasPrefix(in, "╭") || strings.HasPrefix(in, "╰") {
			return "", true // a locals panel inside the frame
		}
		return in, true
	case strings.HasPrefix(trim, "╭"), strings.HasPrefix(trim, "╰"):
		return "", true
	}
	return "", false
}

func (b *tbBlock) richLine(in string, n int) {
	e := b.cur()
	if m := richCodeRE.FindStringSubmatch(in); m != nil {
		// The marked line belongs to the frame of that line number.
		if k := len(e.Frames); k > 0 && e.Frames[k-1].Code == "" && e.Frames[k-1].Line == atoi(m[1]) {
			// Indentation guides (│) stand before the code.
			e.Frames[k-1].Code = strings.TrimSpace(strings.TrimLeft(m[2], " │"))
		}
		b.richPath = ""
		return
	}
	text := in
	if b.richPath != "" {
		text = b.richPath + in
		if strings.HasSuffix(b.richPath, " in") {
			text = b.richPath + " " + in
		}
	}
	if m := richFrameRE.FindStringSubmatch(text); m != nil {
		if len(e.Frames) < maxFrames {
			e.Frames = append(e.Frames, Frame{Path: m[1], Line: atoi(m[2]), Function: m[3], LogLine: n})
		}
		b.richPath = ""
		return
	}
	// The head of a frame the box broke: a path cut where it met the
	// border (no space yet), or a whole "PATH:LINE in" whose function went
	// to the next line.
	b.richPath = ""
	if richHeadRE.MatchString(in) || (strings.HasPrefix(in, "/") || strings.HasPrefix(in, "~") || strings.Contains(in, `:\`)) && !strings.Contains(in, " ") {
		b.richPath = in
	}
}

func indentOf(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

// parseFrame reads a Python frame line in CPython's or IPython's format.
func parseFrame(msg string, n int) (Frame, bool) {
	if m := frameRE.FindStringSubmatch(msg); m != nil {
		return Frame{Path: m[1], Line: atoi(m[2]), Function: m[3], LogLine: n}, true
	}
	if !strings.HasPrefix(msg, "File ") && !strings.HasPrefix(msg, "Cell ") && !strings.Contains(msg, " in ") {
		return Frame{}, false
	}
	m := ipyFrameRE.FindStringSubmatch(msg)
	if m == nil {
		return Frame{}, false
	}
	fr := Frame{LogLine: n, Function: strings.TrimSpace(m[6])}
	switch {
	case m[1] != "":
		fr.Path, fr.Line = m[1], atoi(m[2])
	case m[3] != "":
		fr.Path, fr.Line = m[3], atoi(m[4])
	default:
		fr.Path = m[5]
	}
	if i := strings.IndexByte(fr.Function, '('); i > 0 {
		fr.Function = fr.Function[:i]
	}
	return fr, true
}

func (b *tbBlock) finish(p *parser) {
	b.finishChain(p)
}

func (b *tbBlock) finishChain(p *parser) {
	if b.ev.Kind == 0 {
		return
	}
	// Python prints causes first already; a DataLoader worker's original
	// traceback is printed inside its carrier's message, so it goes first.
	var chain []Exception
	for i := range b.chain {
		e := b.chain[i]
		if e.Type == "" && len(e.Frames) == 0 && len(e.Lines) == 0 {
			continue
		}
		if e.Remote && len(chain) > 0 && !chain[len(chain)-1].Remote && b.nested {
			chain = append(chain[:len(chain)-1], e, chain[len(chain)-1])
			continue
		}
		chain = append(chain, e)
	}
	b.ev.Chain = chain
	for _, e := range chain {
		for _, ln := range e.Lines {
			if len(b.ev.Lines) < maxEventLine {
				b.ev.Lines = append(b.ev.Lines, ln)
			}
		}
	}
	ev := b.ev
	b.ev.Kind = 0
	if len(chain) > 0 {
		p.emit(ev)
	}
}

// summaryBlock parses torchrun's ChildFailedError summary.
type summaryBlock struct {
	ev       Event
	lastN    int
	inRoot   bool
	cur      *RankFailure
	inTB     bool
	seenRoot bool
}

func (b *summaryBlock) inherits() bool { return false }
func (b *summaryBlock) last() int      { return b.lastN }

var kvRE = lazyre.New(`^\s{2}(time|host|rank|exitcode|error_file|traceback)\s*:\s?(.*)$`)
var rankRE = lazyre.New(`^(-?\d+)(?: \(local_rank: (\d+)\))?`)
var exitRE = lazyre.New(`^(-?\d+)(?: \(pid: (\d+)\))?`)
var entryRE = lazyre.New(`^\[(\d+)\]:$`)

func (b *summaryBlock) feed(p *parser, l pline) bool {
	msg := l.Msg
	trim := strings.TrimSpace(msg)
	s := b.ev.Summary
	switch {
	case strings.HasPrefix(trim, "====="):
		if b.seenRoot && b.cur != nil {
			b.flush()
			b.lastN = l.N
			b.ev.EndLine = l.N
			p.close(l.Rank)
			return true
		}
	case strings.HasPrefix(trim, "-----"):
		b.flush()
		b.inTB = false
	case strings.HasSuffix(trim, " FAILED") && s.Title == "":
		s.Title = strings.TrimSuffix(trim, " FAILED")
	case trim == "Failures:":
		b.inRoot = false
	case strings.HasPrefix(trim, RootCauseHead):
		b.flush()
		b.inRoot = true
	case trim == "<NO_OTHER_FAILURES>":
	case entryRE.MatchString(trim) && !b.inTB || entryRE.MatchString(msg):
		b.flush()
		b.cur = &RankFailure{Root: b.inRoot, Rank: -1, Line: l.N}
		b.inTB = false
		if b.inRoot {
			b.seenRoot = true
		}
	default:
		if b.cur == nil {
			if trim == "" {
				break
			}
			return false
		}
		if m := kvRE.FindStringSubmatch(msg); m != nil && !(b.inTB && m[1] != "traceback" && false) {
			b.inTB = false
			v := strings.TrimSpace(m[2])
			switch m[1] {
			case "time":
				b.cur.Time = v
			case "host":
				b.cur.Host = v
			case "rank":
				if r := rankRE.FindStringSubmatch(v); r != nil {
					b.cur.Rank, b.cur.LocalRank = atoi(r[1]), atoi(r[2])
				}
			case "exitcode":
				if r := exitRE.FindStringSubmatch(v); r != nil {
					b.cur.ExitCode, b.cur.PID = atoi(r[1]), atoi(r[2])
				}
			case "error_file":
				if v != "<N/A>" {
					b.cur.ErrorFile = v
				}
			case "traceback":
				b.inTB = true
				b.cur.Traceback = append(b.cur.Traceback, Line{l.N, v})
				if i := strings.Index(v, "Signal "); i >= 0 {
					if j := strings.Index(v, "("); j > i {
						if k := strings.Index(v[j:], ")"); k > 0 {
							b.cur.Signal = v[j+1 : j+k]
						}
					}
				}
			}
			break
		}
		if b.inTB {
			if len(b.cur.Traceback) < maxEventLine {
				b.cur.Traceback = append(b.cur.Traceback, Line{l.N, strings.TrimSpace(msg)})
			}
			break
		}
		if trim != "" {
			return false
		}
	}
	b.lastN = l.N
	b.ev.EndLine = l.N
	return true
}

var signalNames = map[int]string{1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}

func (b *summaryBlock) flush() {
	if b.cur != nil {
		if b.cur.Signal == "" && b.cur.ExitCode < 0 {
			b.cur.Signal = signalNames[-b.cur.ExitCode]
		}
		b.ev.Summary.Failures = append(b.ev.Summary.Failures, *b.cur)
		b.cur = nil
	}
}

func (b *summaryBlock) finish(p *parser) {
	b.flush()
	if len(b.ev.Summary.Failures) == 0 && len(b.ev.Lines) == 0 {
		return
	}
	// A ChildFailedError whose summary was cut before its entries is
	// still torchrun's word that a worker failed.
	for _, f := range b.ev.Summary.Failures {
		if !f.Root {
			continue
		}
		for _, t := range f.Traceback {
			if len(b.ev.Lines) < maxEventLine {
				b.ev.Lines = append(b.ev.Lines, t)
			}
		}
	}
	p.emit(b.ev)
}
