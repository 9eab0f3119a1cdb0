package run

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
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
	// The note's regexp runs only on lines holding this word, in either case.
	asynchronously, asynchronouslyUpper = []byte("synchronously"), []byte("SYNCHRONOUSLY")
	tracebackHead                       = []byte(logparse.TracebackHead)
	rootCauseHead                       = []byte(logparse.RootCauseHead)
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
	if !s.asyncHint && (bytes.Contains(b, asynchronously) || bytes.Contains(b, asynchronouslyUpper)) && logparse.HasAsyncHint(string(b)) {
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
	if r, rest := logparse.StripRank(string(b)); r >= 0 {
		if len(s.ranks) < maxRanks {
			s.ranks[r] = true
		}
		if s.firstErrRank == nil && (strings.Contains(rest, "Error") || strings.Contains(rest, "Traceback")) {
			s.firstErrRank = &r
		}
	}
	if bytes.Contains(b, rootCauseHead) {
		s.rootCauseAt = n
	} else if s.rootCauseAt > 0 && n-s.rootCauseAt <= 8 && s.rootRank == nil {
		// "  rank      : 1 (local_rank: 1)", a few lines below the header.
		if r, ok := logparse.SummaryRank(string(b)); ok {
			s.rootRank = &r
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

// lastUserFrame finds, in the last Python traceback of out that passes
// through the user's code, the innermost frame outside installed packages:
// where the traceback points in the user's code. Tracebacks printed later
// from library code alone (exceptions ignored at shutdown) are skipped. It
// is the fallback when the diagnosis names no frame.
func lastUserFrame(out []byte) *report.Location {
	text := string(out)
	const head = logparse.TracebackHead + ":"
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
		fr, ok := logparse.ParseFrame(l)
		if !ok {
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, " ") {
				break // the exception line ends the frames
			}
			continue
		}
		if !usercode.IsUser(fr.Path) {
			continue
		}
		loc := &report.Location{Path: fr.Path, Line: fr.Line, Function: fr.Function}
		if j+1 < len(lines) {
			next := stripRank(lines[j+1])
			if _, isFrame := logparse.ParseFrame(next); !isFrame {
				if code := strings.TrimSpace(next); strings.Trim(code, "^~ ") != "" {
					loc.Code = code
				}
			}
		}
		best = loc
	}
	return best
}

// stripRank drops a launcher's rank prefix, as the log parser does.
func stripRank(l string) string {
	_, rest := logparse.StripRank(l)
	return rest
}
