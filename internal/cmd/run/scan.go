package run

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/usercode"
)

// scanner watches the child's output as it streams, so that what the
// diagnosis needs is known when the child exits: PyTorch's own hint that an
// error was reported asynchronously, the ranks seen and which failed first,
// and the early error lines that a long tail may have scrolled away.
// scanKeywords select the lines the scanner looks at: every pattern below
// contains one of them. Other lines are only counted, which keeps the
// wrapper's cost per byte near zero on ordinary training output.
var scanKeywords = []string{
	"Error", "CUDA", "Traceback", "NCCL", "Assertion", "Killed", "Xid",
	"Root Cause", "[rank", "[default", "(local_rank", "=========",
}

type scanner struct {
	asyncHint bool
	// traceback: the output held a Python traceback, the sign of a
	// process that raised the error (and what a re-run localises with).
	traceback bool
	// inplace: autograd said a saved tensor was modified in place.
	inplace bool
	// cudaError is the first "CUDA error: ..." message, for a headline when
	// the diagnosis knows no better.
	cudaError string
	lines     int
	ranks     map[int]bool
	// firstErrRank is the first rank whose output showed an error;
	// rootRank is torchrun's "Root Cause (first observed failure)".
	firstErrRank *int
	rootRank     *int
	rootCauseAt  int // line number of torchrun's "Root Cause" header
	pins         []pinned
	pinBytes     int
	// sanitizer collects compute-sanitizer lines in sanitizer re-runs.
	sanitizer      *bytes.Buffer
	sanitizerLimit int
}

type pinned struct {
	index int // line number, 1-based, across both streams
	text  string
}

const (
	maxPins     = 256
	maxPinBytes = 128 << 10
	maxRanks    = 1 << 14
)

var pinWords = [][]byte{
	[]byte("Error"), []byte("Assertion"), []byte("CUDA"), []byte("NCCL WARN"),
	[]byte("Traceback"), []byte("Killed"), []byte("Xid"),
}

var (
	asyncHint     = []byte("might be asynchronously reported")
	tracebackHead = []byte("Traceback (most recent call last)")
	rankRE        = regexp.MustCompile(`^\[(?:rank|default)(\d+)\]:`)
	rootRE        = regexp.MustCompile(`^\s*rank\s*:\s*(\d+)`)
)

func newScanner() *scanner { return &scanner{ranks: map[int]bool{}} }

// line is runner.Spec.OnLine: called for the lines holding a scanKeyword
// (n is the line's number), never concurrently.
func (s *scanner) line(b []byte, n int) {
	s.lines = n
	if s.sanitizer != nil {
		if bytes.Contains(b, []byte("=========")) && s.sanitizer.Len()+len(b) < s.sanitizerLimit {
			s.sanitizer.Write(b)
			s.sanitizer.WriteByte('\n')
		}
	}
	if !s.asyncHint && bytes.Contains(b, asyncHint) {
		s.asyncHint = true
	}
	if !s.inplace && bytes.Contains(b, []byte(inplaceError)) {
		s.inplace = true
	}
	if !s.traceback && bytes.Contains(b, tracebackHead) {
		s.traceback = true
	}
	if s.cudaError == "" {
		if i := bytes.Index(b, []byte("CUDA error: ")); i >= 0 {
			s.cudaError = strings.TrimSpace(string(b[i:]))
		}
	}
	if len(b) > 6 && b[0] == '[' {
		if m := rankRE.FindSubmatch(b); m != nil {
			if r, err := strconv.Atoi(string(m[1])); err == nil {
				if len(s.ranks) < maxRanks {
					s.ranks[r] = true
				}
				if s.firstErrRank == nil && (bytes.Contains(b, []byte("Error")) || bytes.Contains(b, []byte("Traceback"))) {
					s.firstErrRank = &r
				}
			}
		}
	}
	if bytes.Contains(b, []byte("Root Cause (first observed failure)")) {
		s.rootCauseAt = n
	} else if s.rootCauseAt > 0 && n-s.rootCauseAt <= 8 && s.rootRank == nil {
		// "  rank      : 1 (local_rank: 1)", a few lines below the header.
		if m := rootRE.FindSubmatch(b); m != nil {
			if r, err := strconv.Atoi(string(m[1])); err == nil {
				s.rootRank = &r
			}
		}
	}
	if len(s.pins) < maxPins && s.pinBytes+len(b) <= maxPinBytes {
		for _, w := range pinWords {
			if bytes.Contains(b, w) {
				s.pins = append(s.pins, pinned{index: s.lines, text: string(b)})
				s.pinBytes += len(b)
				break
			}
		}
	}
}

// failedRank is the rank that failed first, when the output says.
func (s *scanner) failedRank() *int {
	if s.rootRank != nil {
		return s.rootRank
	}
	return s.firstErrRank
}

func (s *scanner) rankList() []int {
	out := make([]int, 0, len(s.ranks))
	for r := range s.ranks {
		out = append(out, r)
	}
	sort.Ints(out)
	return out
}

// diagnosisInput is what the diagnosis reads: the tail, preceded by the
// pinned error lines it no longer holds when output was dropped.
func (s *scanner) diagnosisInput(tail []byte, dropped int64, lines int) []byte {
	if dropped == 0 || len(s.pins) == 0 {
		return tail
	}
	held := bytes.Count(tail, []byte("\n"))
	firstHeld := lines - held + 1
	var b bytes.Buffer
	for _, p := range s.pins {
		if p.index < firstHeld {
			b.WriteString(p.text)
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return tail
	}
	b.WriteString("[cudadoctor: " + strconv.FormatInt(dropped, 10) + " bytes of earlier output not kept]\n")
	b.Write(tail)
	return b.Bytes()
}

var frameRE = regexp.MustCompile(`^\s*File "([^"]+)", line (\d+), in (.+)$`)

// lastUserFrame finds, in the last Python traceback of out that passes
// through the user's code, the innermost frame outside installed packages:
// where the traceback points in the user's code. Tracebacks printed later
// from library code alone (exceptions ignored at shutdown) are skipped. It
// is the fallback when the diagnosis names no frame.
func lastUserFrame(out []byte) *report.Location {
	text := string(out)
	const head = "Traceback (most recent call last):"
	for end := len(text); end > 0; {
		i := strings.LastIndex(text[:end], head)
		if i < 0 {
			return nil
		}
		if loc := userFrameIn(text[i+len(head) : end]); loc != nil {
			return loc
		}
		end = i
	}
	return nil
}

func userFrameIn(tb string) *report.Location {
	lines := strings.Split(tb, "\n")
	var best *report.Location
	for j := 1; j < len(lines); j++ {
		l := stripRank(lines[j])
		m := frameRE.FindStringSubmatch(l)
		if m == nil {
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, " ") {
				break // the exception line ends the frames
			}
			continue
		}
		if !usercode.IsUser(m[1]) {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		loc := &report.Location{Path: m[1], Line: n, Function: m[3]}
		if j+1 < len(lines) {
			next := stripRank(lines[j+1])
			if code := strings.TrimSpace(next); strings.Trim(code, "^~ ") != "" && !frameRE.MatchString(next) {
				loc.Code = code
			}
		}
		best = loc
	}
	return best
}

func stripRank(l string) string {
	if m := rankRE.FindStringIndex(l); m != nil {
		return strings.TrimPrefix(l[m[1]:], " ")
	}
	return l
}
