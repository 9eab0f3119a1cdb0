package logparse

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Readers of one line at a time, for `run`, which watches a child's output
// as it streams and must read rank prefixes, traceback frames, torchrun's
// root cause and PyTorch's asynchronous-error note as the parser does.

// TracebackHead opens a Python traceback.
const TracebackHead = "Traceback (most recent call last)"

// RootCauseHead opens the root-cause entry of torchrun's failure summary.
const RootCauseHead = "Root Cause (first observed failure)"

// asyncHintRE is PyTorch's note that a CUDA error may be reported at a
// later API call than the one that caused it.
var asyncHintRE = lazyre.New(`(?i)asynchronously reported at some other API call`)

// HasAsyncHint says whether line carries PyTorch's note that the CUDA error
// may have been reported asynchronously.
func HasAsyncHint(line string) bool {
	// Every line of every failure is asked: the regex runs only on a line
	// holding "ynchronou" in any case (letters no non-ASCII rune folds to).
	return containsFoldASCII(line, "ynchronou") && asyncHintRE.MatchString(line)
}

// containsFoldASCII reports whether s holds lower, a lower-case ASCII
// text, with its ASCII letters in any case.
func containsFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// StripRank removes a launcher's rank prefix (torchrun's "[rank1]:" and
// "[default0]:", mpirun's "[1,0]<stderr>:", srun's "0: ") and a leading
// timestamp, returning the rank, -1 when there is none.
func StripRank(line string) (rank int, rest string) { return stripRank(line) }

// ParseFrame reads a Python traceback frame line, in CPython's or IPython's
// form; LogLine is 0.
func ParseFrame(line string) (Frame, bool) {
	return parseFrame(strings.TrimLeft(line, " \t"), 0)
}

// SummaryRank reads the "rank : N (local_rank: L)" field of an entry of
// torchrun's failure summary.
func SummaryRank(line string) (int, bool) {
	m := kvRE.FindStringSubmatch(line)
	if m == nil || m[1] != "rank" {
		return 0, false
	}
	r := rankRE.FindStringSubmatch(strings.TrimSpace(m[2]))
	if r == nil {
		return 0, false
	}
	return atoi(r[1]), true
}
