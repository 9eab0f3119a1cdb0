package logparse

// ParseSanitizer reads the reports of NVIDIA compute-sanitizer's memcheck
// tool in detail: which kernel accessed what memory, where in its source,
// how far out of bounds, and which host frame launched it. `run` reads its
// sanitizer re-run with it; the log parser folds the same records into
// KindSanitizer events.

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// SanitizerPrefix starts every line compute-sanitizer writes.
const SanitizerPrefix = "========="

// MaxSanitizerErrors bounds how many distinct errors a report keeps; the rest are
// only counted, so huge reports cost bounded memory.
const MaxSanitizerErrors = 64

// SanitizerReport is a parsed compute-sanitizer log.
type SanitizerReport struct {
	// Errors are the distinct errors in the order first seen; identical
	// errors (same kind, kernel, source and distance) are folded into Count.
	Errors []SanitizerError
	// Total counts every error record seen, folded or not.
	Total int
	// Summary is the "ERROR SUMMARY: N errors" count, -1 when absent.
	Summary int
	// Tool names the tool when the header said it ("memcheck").
	Tool string
}

// SanitizerError is one memcheck error.
type SanitizerError struct {
	// Kind is the headline as printed: "Invalid __global__ write of size 4 bytes".
	Kind string
	// Space is the memory space (global, shared, local) when named; Access is
	// "read" or "write"; Size is the access size in bytes.
	Space  string
	Access string
	Size   int
	// Kernel is the device function; PC its offset ("0x410").
	Kernel string
	PC     string
	// Source is the kernel's source position, when the binary carries line info.
	Source *SanitizerFrame
	Thread string
	Block  string
	// Address is the faulting address; Detail the sentence about it
	// ("is out of bounds", "is misaligned").
	Address string
	Detail  string
	// Distance is how far outside the nearest allocation the access was, in
	// bytes; Direction is "before" or "after"; Allocation and AllocSize
	// describe that allocation. Distance is -1 when not reported.
	Distance   int64
	Direction  string
	Allocation string
	AllocSize  int64
	// HostFrames is the host backtrace at launch, innermost first.
	HostFrames []SanitizerFrame
	// Count is how many times this error was reported.
	Count int
}

// SanitizerFrame is one backtrace frame or source position.
type SanitizerFrame struct {
	Function string
	File     string
	Line     int
	Module   string // shared object or executable, for native frames
	Offset   string
}

func (f SanitizerFrame) String() string {
	if f.File != "" {
		s := f.File
		if f.Line > 0 {
			s += ":" + strconv.Itoa(f.Line)
		}
		if f.Function != "" {
			s = f.Function + " in " + s
		}
		return s
	}
	return strings.TrimSpace(f.Function + " " + f.Module)
}

// sanPats are compute-sanitizer's line shapes.
var sanPats = &sanitizerPats{
	head:    lazyre.New(`^Invalid (?:__(\w+)__ )?(read|write|atomic)\w* of size (\d+) bytes?`),
	generic: lazyre.New(`^(?:Misaligned|Out-of-range|Invalid|Cuda API error|Program hit|Malloc|Free|Leaked|Uninitialized|Race)`),
	pc:      lazyre.New(`^(.*?)\+(0x[0-9a-fA-F]+)$`),
	fileLn:  lazyre.New(`^(.+?):(\d+)(?::(.+))?$`),
	by:      lazyre.New(`^by thread \(([^)]*)\) in block \(([^)]*)\)`),
	addr:    lazyre.New(`^(?:Access to |Address )(0x[0-9a-fA-F]+) (.+?)\.?$`),
	dist:    lazyre.New(`^and is ([\d,]+) bytes? (before|after) the nearest allocation at (0x[0-9a-fA-F]+) of size ([\d,]+) bytes?`),
	host:    lazyre.New(`^Host Frame:\s*(.*)$`),
	summary: lazyre.New(`ERROR SUMMARY: (\d+) errors?`),
	// native: "launch [0x1dbe] in mod.so"; python: "__call__ in driver.py:713".
	native: lazyre.New(`^(.*?)\s*\[(0x[0-9a-fA-F]+)\] in (.+)$`),
	py:     lazyre.New(`^(.*?) in (.+?):(\d+)$`),
	tool:   lazyre.New(`--tool (\w+)`),
}

type sanitizerPats struct {
	head, generic, pc, fileLn, by, addr, dist, host, summary, native, py, tool *lazyre.Regexp
}

// ParseSanitizer reads a log holding compute-sanitizer output, possibly interleaved
// with the program's own output, which it skips.
func ParseSanitizer(r io.Reader) (*SanitizerReport, error) {
	p := sanPats
	rep := &SanitizerReport{Summary: -1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur *SanitizerError
	seen := map[string]int{}
	finish := func() {
		if cur == nil {
			return
		}
		rep.Total++
		key := fmt.Sprintf("%s|%s|%v|%d|%s", cur.Kind, cur.Kernel, cur.Source, cur.Distance, cur.Direction)
		if i, ok := seen[key]; ok {
			rep.Errors[i].Count++
		} else if len(rep.Errors) < MaxSanitizerErrors {
			cur.Count = 1
			seen[key] = len(rep.Errors)
			rep.Errors = append(rep.Errors, *cur)
		}
		cur = nil
	}
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, SanitizerPrefix)
		if i < 0 {
			continue
		}
		body := line[i+len(SanitizerPrefix):]
		// The indentation says whether a line continues an error record.
		trimmed := strings.TrimSpace(body)
		indented := strings.HasPrefix(body, "  ")
		if trimmed == "" {
			finish()
			continue
		}
		if m := p.summary.FindStringSubmatch(trimmed); m != nil {
			finish()
			if rep.Summary < 0 {
				rep.Summary, _ = strconv.Atoi(m[1])
			}
			continue
		}
		if !indented {
			finish()
			if m := p.head.FindStringSubmatch(trimmed); m != nil {
				size, _ := strconv.Atoi(m[3])
				cur = &SanitizerError{Kind: trimmed, Space: m[1], Access: m[2], Size: size, Distance: -1}
			} else if p.generic.MatchString(trimmed) {
				cur = &SanitizerError{Kind: trimmed, Distance: -1}
			} else if m := p.tool.FindStringSubmatch(trimmed); m != nil && rep.Tool == "" {
				rep.Tool = m[1]
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "at ") && cur.Kernel == "":
			parseSanitizerAt(cur, strings.TrimPrefix(trimmed, "at "))
		case p.by.MatchString(trimmed):
			m := p.by.FindStringSubmatch(trimmed)
			cur.Thread, cur.Block = m[1], m[2]
		case p.addr.MatchString(trimmed):
			m := p.addr.FindStringSubmatch(trimmed)
			cur.Address, cur.Detail = m[1], m[2]
		case p.dist.MatchString(trimmed):
			m := p.dist.FindStringSubmatch(trimmed)
			cur.Distance = parseSanitizerNum(m[1])
			cur.Direction = m[2]
			cur.Allocation = m[3]
			cur.AllocSize = parseSanitizerNum(m[4])
		case p.host.MatchString(trimmed):
			if len(cur.HostFrames) < 256 {
				cur.HostFrames = append(cur.HostFrames, parseSanitizerFrame(p.host.FindStringSubmatch(trimmed)[1]))
			}
		}
	}
	finish()
	if err := sc.Err(); err != nil {
		return rep, fmt.Errorf("reading the sanitizer report: %w", err)
	}
	return rep, nil
}

// parseSanitizerAt reads the kernel position. Current form: "KERNEL+0xPC in
// FILE:LINE" (the file part only with line info); older tools wrote
// "0xPC in FILE:LINE:KERNEL" or "0xPC in KERNEL".
func parseSanitizerAt(e *SanitizerError, s string) {
	p := sanPats
	left, right := s, ""
	if i := strings.LastIndex(s, " in "); i >= 0 {
		left, right = s[:i], s[i+4:]
	}
	if strings.HasPrefix(left, "0x") && !strings.Contains(left, "+") {
		e.PC = left
		if m := p.fileLn.FindStringSubmatch(right); m != nil {
			n, _ := strconv.Atoi(m[2])
			e.Kernel = m[3]
			e.Source = &SanitizerFrame{Function: m[3], File: m[1], Line: n}
		} else {
			e.Kernel = right
		}
		return
	}
	e.Kernel = left
	if m := p.pc.FindStringSubmatch(left); m != nil {
		e.Kernel, e.PC = m[1], m[2]
	}
	if m := p.fileLn.FindStringSubmatch(right); m != nil && m[3] == "" {
		n, _ := strconv.Atoi(m[2])
		e.Source = &SanitizerFrame{Function: e.Kernel, File: m[1], Line: n}
	}
}

func parseSanitizerNum(s string) int64 {
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func parseSanitizerFrame(s string) SanitizerFrame {
	p := sanPats
	s = strings.TrimSpace(s)
	if m := p.native.FindStringSubmatch(s); m != nil {
		return SanitizerFrame{Function: m[1], Offset: m[2], Module: m[3]}
	}
	if m := p.py.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[3])
		return SanitizerFrame{Function: m[1], File: m[2], Line: n}
	}
	return SanitizerFrame{Function: s}
}

// Launch picks the host frame that launched the kernel from the user's
// code: the innermost source frame isUser accepts, else the innermost
// source frame of all (nil when the backtrace holds none).
func (e *SanitizerError) Launch(isUser func(file string) bool) *SanitizerFrame {
	var first *SanitizerFrame
	for i := range e.HostFrames {
		f := &e.HostFrames[i]
		if f.File == "" {
			continue
		}
		if first == nil {
			first = f
		}
		if isUser != nil && isUser(f.File) {
			return f
		}
	}
	return first
}

// Describe is a one-line account of the error for people.
func (e *SanitizerError) Describe() string {
	var b strings.Builder
	switch {
	case e.Access != "":
		space := ""
		if e.Space != "" {
			space = e.Space + " "
		}
		fmt.Fprintf(&b, "invalid %s%s of %d bytes", space, e.Access, e.Size)
	default:
		b.WriteString(strings.TrimSuffix(e.Kind, "."))
	}
	if e.Kernel != "" {
		fmt.Fprintf(&b, " in kernel %s", e.Kernel)
	}
	if e.Source != nil {
		fmt.Fprintf(&b, " at %s:%d", e.Source.File, e.Source.Line)
	}
	if e.Distance >= 0 {
		fmt.Fprintf(&b, ", %s bytes %s an allocation of %s bytes", groupDigits3(e.Distance), e.Direction, groupDigits3(e.AllocSize))
	} else if e.Detail != "" && e.Address != "" {
		fmt.Fprintf(&b, ", address %s %s", e.Address, e.Detail)
	}
	return b.String()
}

func groupDigits3(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
