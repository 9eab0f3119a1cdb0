package logparse

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// MaxLineBytes is how much of one line the parser keeps; the rest of a
// longer line is dropped (the line still counts once).
const MaxLineBytes = 8 << 10

// cleanLine turns raw bytes of one line into display text: the last
// segment of a \r-overwritten line (progress bars), ANSI escape sequences
// removed, invalid UTF-8 replaced, trailing space trimmed.
func cleanLine(raw []byte) string {
	raw = bytes.TrimRight(raw, "\r\n")
	if i := bytes.LastIndexByte(raw, '\r'); i >= 0 {
		// "\r" followed only by spaces (a cleared bar) leaves the segment
		// before it; so does a bare progress frame drawn over a message
		// another process (a rank, a DataLoader worker) printed without a
		// line break of its own: the frame says nothing, the message may be
		// the failure.
		last, rest := raw[i+1:], raw[:i]
		for (len(bytes.TrimSpace(last)) == 0 || progressOnly(last)) && len(rest) > 0 {
			j := bytes.LastIndexByte(rest, '\r')
			seg := rest[j+1:]
			if len(bytes.TrimSpace(seg)) > 0 && (len(bytes.TrimSpace(last)) == 0 || !progressOnly(seg)) {
				last = seg
			}
			if j < 0 {
				break
			}
			rest = rest[:j]
		}
		raw = last
	}
	raw = dropProgressFrame(raw)
	if len(raw) > MaxLineBytes {
		raw = raw[:MaxLineBytes]
	}
	if bytes.IndexByte(raw, '\\') >= 0 && writtenEscapeRE.Match(raw) {
		raw = writtenEscapeRE.ReplaceAll(raw, nil)
	}
	needs := bytes.IndexByte(raw, 0x1b) >= 0 || !utf8.Valid(raw)
	if !needs {
		return string(bytes.TrimRight(raw, " \t"))
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c == 0x1b {
			i = skipEscape(raw, i)
			continue
		}
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, raw[i:i+n]...)
		}
		i += n
	}
	return string(bytes.TrimRight(out, " \t"))
}

// writtenEscapeRE is a colour sequence written out as text, the way a
// notebook's JSON ("\u001b[0;31m"), a Python repr ("\x1b[31m") or a shell
// string ("\033[1m") keeps it.
var writtenEscapeRE = lazyre.New(`\\(?:u001[bB]|x1[bB]|033|e)\[[0-9;]*[A-Za-z]`)

// stripEscapes removes the terminal escape sequences (colours, cursor
// moves) of a run of whole lines in place and returns the shortened run:
// a colour code in the middle of a message ("\x1b[31mTraceback") would
// hide its words from the prefilter, and its bytes would count towards a
// wrapped line's width. No line break is removed, so line numbers stay.
func stripEscapes(buf []byte) []byte {
	i := bytes.IndexByte(buf, 0x1b)
	if i < 0 {
		return buf
	}
	out := i
	for i < len(buf) {
		c := buf[i]
		if c != 0x1b {
			buf[out] = c
			out++
			i++
			continue
		}
		end := skipEscape(buf, i)
		// A sequence cut by the end of its line ends there.
		if nl := bytes.IndexByte(buf[i:min(end, len(buf))], '\n'); nl >= 0 {
			end = i + nl
		}
		i = min(end, len(buf))
	}
	return buf[:out]
}

// progressFrameRE is one frame of a tqdm progress bar at the start of a
// line: "Epoch 1:  42%|████▏     | 390/928 [00:22<00:31, 3.21it/s, loss=0.5]".
var progressFrameRE = lazyre.New(`^[^|]{0,80}?\d{1,3}%\|[^|]*\| *\d+(?:\.\d+)?[kMG]?/\d+(?:\.\d+)?[kMG]? \[[^\]]*\]`)

// dropProgressFrame removes a progress bar's frame from the front of a
// line that goes on after it: tqdm leaves the cursor at the end of its
// last frame, so what the process prints next (the traceback's first
// line, an error) starts on the bar's line.
func dropProgressFrame(raw []byte) []byte {
	if !bytes.Contains(raw, []byte("%|")) {
		return dropProgressTail(raw)
	}
	loc := progressFrameRE.FindIndex(raw)
	if loc == nil || len(bytes.TrimSpace(raw[loc[1]:])) == 0 {
		return raw
	}
	return raw[loc[1]:]
}

// progressOnly says a segment is one progress frame and nothing after it.
func progressOnly(seg []byte) bool {
	if !bytes.Contains(seg, []byte("%|")) {
		return false
	}
	loc := progressFrameRE.FindIndex(seg)
	return loc != nil && len(bytes.TrimSpace(seg[loc[1]:])) == 0
}

// progressTailRE is the end of a tqdm frame at the start of a line, its
// counts and its "[elapsed<remaining, rate]": what a terminal that cut
// the frame at its width leaves on the next line, with the failure
// printed after it ("| 3787/62565 [04:47<1:10:53, 13.82it/s]Killed").
var progressTailRE = lazyre.New(`^\s*\|? *\d+(?:\.\d+)?[kMG]?/\d+(?:\.\d+)?[kMG]? \[\d+:\d\d(?::\d\d)?<[^\]]*\]`)

// dropProgressTail removes progressTailRE's text from the front of a line
// that goes on after it.
func dropProgressTail(raw []byte) []byte {
	if bytes.IndexByte(raw, '<') < 0 || bytes.IndexByte(raw, '/') < 0 {
		return raw
	}
	loc := progressTailRE.FindIndex(raw)
	if loc == nil || len(bytes.TrimSpace(raw[loc[1]:])) == 0 {
		return raw
	}
	return raw[loc[1]:]
}

// skipEscape returns the index after the escape sequence starting at i.
func skipEscape(b []byte, i int) int {
	i++ // ESC
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '[': // CSI: parameters then a final byte in 0x40..0x7e
		i++
		for i < len(b) && (b[i] < 0x40 || b[i] > 0x7e) {
			i++
		}
		return i + 1
	case ']': // OSC: up to BEL or ESC \
		for i < len(b) && b[i] != 0x07 && b[i] != 0x1b {
			i++
		}
		if i < len(b) && b[i] == 0x1b {
			i++
		}
		return i + 1
	default:
		return i + 1
	}
}

// stripRank removes a launcher's rank prefix: torchrun's "[rank1]:" and
// "[default0]:" (then one optional space), mpirun's "[1,0]<stderr>:", and
// srun --label's "0: ". It returns -1 when there is none. It reads one
// line alone, so it takes every "N: " for srun's label; the parser reads
// them only in a log that shows srun's labels (see srunLabels).
func stripRank(s string) (int, string) {
	n, _, rest := stripRankKind(s, true)
	return n, rest
}

// rankKind is the form of a rank prefix.
type rankKind int

const (
	rankGlobal rankKind = iota // "[rank0]:", mpirun's "[1,0]<stderr>:"
	rankLocal                  // "[default0]:", torchrun's per-node numbering
	rankSrun                   // srun --label's "0: "
)

// stripRankKind is stripRank that also says which form the prefix had;
// srun says whether a bare "N: " is srun's label. A label in front of
// torchrun's or mpirun's prefix ("3: [rank3]:") is srun's either way.
func stripRankKind(s string, srun bool) (int, rankKind, string) {
	s = stripStamp(s)
	if len(s) < 2 {
		return -1, rankGlobal, s
	}
	if s[0] == '[' {
		for _, tag := range [...]string{"rank", "default"} {
			if strings.HasPrefix(s[1:], tag) {
				j := 1 + len(tag)
				n, k := digits(s, j)
				if k > j && strings.HasPrefix(s[k:], "]:") {
					kind := rankGlobal
					if tag == "default" {
						kind = rankLocal
					}
					return n, kind, trimOneSpace(s[k+2:])
				}
			}
		}
		// mpirun --tag-output: [jobid,rank]<stdout|stderr>:
		if j := indexComma(s); j > 1 {
			if _, k := digits(s, 1); k == j {
				n, k2 := digits(s, j+1)
				if k2 > j+1 && k2 < len(s) && s[k2] == ']' {
					rest := s[k2+1:]
					for _, t := range [...]string{"<stdout>:", "<stderr>:"} {
						if len(rest) >= len(t) && rest[:len(t)] == t {
							return n, rankGlobal, trimOneSpace(rest[len(t):])
						}
					}
				}
			}
		}
		return -1, rankGlobal, s
	}
	n, rest, ok := srunShape(s)
	if !ok {
		return -1, rankGlobal, s
	}
	// torchrun inside srun: "3: [rank3]:..." names the job's rank
	// behind the task's label, and that rank is the one to keep.
	if len(rest) > 0 && rest[0] == '[' {
		if r, kind, inner := stripRankKind(rest, srun); r >= 0 {
			return r, kind, inner
		}
	}
	if !srun {
		return -1, rankGlobal, s
	}
	// The task's own output may carry its time (srun --label in front
	// of a logger's "2024-05-01 12:00:00,123 ..."): read behind the label
	// as it is read at the start of a line.
	return n, rankSrun, stripStamp(rest)
}

// srunShape reads srun --label's "<task>: " at the start of s (at most 5
// digits, optional leading spaces); an empty line of a task is "N:" once
// its trailing space is trimmed. A numbered list has the same shape.
func srunShape(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && i < 4 && s[i] == ' ' {
		i++
	}
	n, k := digits(s, i)
	if k == i || k-i > 5 || k >= len(s) || s[k] != ':' {
		return 0, "", false
	}
	if k+1 == len(s) {
		return n, "", true
	}
	if s[k+1] != ' ' {
		return 0, "", false
	}
	return n, s[k+2:], true
}

func trimOneSpace(s string) string {
	if len(s) > 0 && s[0] == ' ' {
		return s[1:]
	}
	return s
}

func indexComma(s string) int {
	for i := 1; i < len(s) && i < 12; i++ {
		if s[i] == ',' {
			return i
		}
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
	}
	return -1
}

// digits parses a decimal number at s[i:], returning it and the index after.
func digits(s string, i int) (int, int) {
	n, j := 0, i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i < 9 {
		n = n*10 + int(s[j]-'0')
		j++
	}
	return n, j
}

// c10Prefix recognises the glog-style prefix of PyTorch's C++ log lines,
// "[E1122 05:43:58.555329701 ProcessGroupNCCL.cpp:689] " (c10), and
// torchrun's "E1122 05:36:55.349000 1284 torch/.../api.py:986] ". It
// returns the level (E, W, I), a sortable time "MMDD HH:MM:SS.nnnnnnnnn",
// and the message after the prefix.
func c10Prefix(s string) (level byte, ts, msg string, ok bool) {
	t := s
	bracket := len(t) > 0 && t[0] == '['
	if bracket {
		t = t[1:]
	}
	// L MMDD HH:MM:SS.frac
	if len(t) < 16 || (t[0] != 'E' && t[0] != 'W' && t[0] != 'I' && t[0] != 'F') {
		return 0, "", "", false
	}
	if !allDigits(t[1:5]) || t[5] != ' ' || !allDigits(t[6:8]) || t[8] != ':' || !allDigits(t[9:11]) || t[11] != ':' || !allDigits(t[12:14]) {
		return 0, "", "", false
	}
	end := 14
	frac := ""
	if end < len(t) && t[end] == '.' {
		_, k := digits(t, end+1)
		frac = t[end+1 : k]
		end = k
	}
	close := indexByteFrom(t, ']', end)
	if close < 0 || close-end > 300 {
		return 0, "", "", false
	}
	for len(frac) < 9 {
		frac += "0"
	}
	ts = t[1:5] + " " + t[6:14] + "." + frac[:9]
	msg = t[close+1:]
	if len(msg) > 0 && msg[0] == ' ' {
		msg = msg[1:]
	}
	return t[0], ts, msg, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

func indexByteFrom(s string, c byte, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// stampRE is an ISO-8601 time at the start of a line, as log collectors
// (kubectl --timestamps, container runtimes, cloud log exports) add it,
// optionally followed by the container runtime's "stdout F " tag (the
// CRI log format; an empty line leaves the tag at the end).
var stampRE = lazyre.New(`^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?: (?:stdout|stderr) [FP](?: |$)| |$)`)

func stripStamp(s string) string {
	if len(s) < 20 || s[4] != '-' || s[0] < '0' || s[0] > '9' {
		return s
	}
	if loc := stampRE.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}

// stripQuote removes the quoting a log picks up when it is pasted into an
// issue, an email or a chat: Markdown's "> " (nested or not) and the
// Python prompt's ">>> ". The indentation after the marker is kept, so a
// quoted traceback keeps its shape.
func stripQuote(s string) string {
	for len(s) > 0 && s[0] == '>' {
		switch {
		case strings.HasPrefix(s, ">>> "):
			return s[4:]
		case len(s) == 1:
			return ""
		case s[1] == ' ':
			s = s[2:]
		case s[1] == '>':
			s = s[1:]
		default:
			return s
		}
	}
	return s
}

// promptLineRE is the start of a line the user typed, not one the program
// printed: Python's ">>> " and "... " prompts, IPython's "In [3]:" and the
// "Out[3]:" it writes in front of the value of what was typed. A bare
// "..." is not one: a paste marks the lines it left out with it.
var promptLineRE = lazyre.New(`^(?:>>>(?: |$)|\.\.\. |In \[\d*\]:|Out\[\d*\]:)`)

// isPromptLine says whether s (a line behind a Markdown quote or none)
// starts at a REPL's or a notebook's prompt.
func isPromptLine(s string) bool {
	for strings.HasPrefix(s, "> ") {
		s = s[2:]
	}
	if len(s) < 3 {
		return false
	}
	switch s[0] {
	case '>', '.', 'I', 'O':
		return promptLineRE.MatchString(s)
	}
	return false
}

// elisionRE is a line a paste puts where it left lines out: "...",
// "[...]", "(...)", "<snip>".
var elisionRE = lazyre.New(`^(?:\.{3,}|…|\[\s*(?:\.{3}|…|snip(?:ped)?)\s*\]|\(\s*(?:\.{3}|…|snip(?:ped)?)\s*\)|<\s*(?:\.{3}|…|snip(?:ped)?)\s*>)$`)

// minEscapedBreaks is how many literal "\n" a line needs before it is read
// as a whole log pasted as one string (a JSON field, a Python repr, an
// exception's message re-raised by a wrapper): fewer could be a path or a
// format string.
const minEscapedBreaks = 3

// escapedLines splits a line that holds a log as one escaped string into
// its lines, with escaped quotes and tabs undone; nil when it is not one.
func escapedLines(s string) []string {
	if strings.Count(s, `\n`) < minEscapedBreaks || !escapedLogRE.MatchString(s) {
		return nil
	}
	parts := strings.Split(s, `\n`)
	for i, p := range parts {
		parts[i] = strings.TrimRight(escapeReplacer.Replace(p), " \t")
	}
	return parts
}

// paddedLines splits a line that holds several terminal lines whose breaks
// were lost in the copy: some consoles pad each line with spaces to the
// window's width, so the pasted text is one long line with wide gaps where
// the breaks were. Two gaps of minPadGap spaces in a long line are that
// shape; one gap is a table or an aligned column.
func paddedLines(s string) []string {
	if len(s) < 200 || !strings.Contains(s, padGap) {
		return nil
	}
	var parts []string
	for rest := s; ; {
		i := strings.Index(rest, padGap)
		if i < 0 {
			parts = append(parts, rest)
			break
		}
		parts = append(parts, strings.TrimRight(rest[:i], " "))
		rest = strings.TrimLeft(rest[i:], " ")
	}
	if len(parts) < 3 {
		return nil
	}
	return parts
}

const minPadGap = 16

var padGap = strings.Repeat(" ", minPadGap)

// escapedLogRE: the string reports a failure (a Windows path with three
// directories starting with "n" does not).
var escapedLogRE = lazyre.New(`Error|error|Traceback|Exception|WARN|FAIL|fault|Killed`)

var escapeReplacer = strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\t`, "    ", `\\`, `\`)

// loggerPrefixRE is what Python serving stacks put before every line they
// log, tracebacks included: Ray's actor tag "(RayWorkerWrapper pid=123,
// ip=10.0.0.1) " and vLLM's "ERROR 04-30 10:20:36 [core.py:396] ".
var loggerPrefixRE = lazyre.New(`^(?:\((?:[\w.]+ )?pid=\d+(?:, ip=[\d.]+)?\) ?)?(?:(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[\w./-]+:\d+\] )?`)

// stripLogger removes loggerPrefixRE's prefixes, keeping the indentation
// after them (a traceback's frames stay frames).
func stripLogger(s string) string {
	if len(s) < 8 {
		return s
	}
	switch s[0] {
	case '(', 'I', 'W', 'E', 'D', 'C':
	default:
		return s
	}
	if loc := loggerPrefixRE.FindStringIndex(s); loc != nil && loc[1] > 0 {
		return s[loc[1]:]
	}
	return s
}

// composePrefixRE is what docker compose puts before every line of a
// service's output: its container name (service and replica number,
// "vllm-1", or "project_trainer_1" before Compose v2), padded, and a bar.
var composePrefixRE = lazyre.New(`^[A-Za-z0-9][\w.-]*[-_]\d+ *\| `)

// stripPaste removes what a wrapper or a paste puts in front of a line
// before any rank prefix: docker compose's service, a quote's marker, a
// serving stack's logger prefix.
func stripPaste(s string) string { return stripLogger(stripQuote(stripCompose(s))) }

// stripCompose removes composePrefixRE's prefix.
func stripCompose(s string) string {
	if i := strings.Index(s, "| "); i < 2 || i > 80 {
		return s
	}
	if loc := composePrefixRE.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}
