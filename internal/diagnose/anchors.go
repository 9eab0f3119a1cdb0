package diagnose

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
)

// anchors picks, for every signature, the fixed texts the prefilter looks
// for: a line can only match the signature if it holds one of them. The
// choice is the better of its longest keyword (all keywords must occur)
// and a set of literals the regex cannot match without (as RE2's
// prefilter derives them): a line holding "137" is common, one holding
// "exit code 137" or "exit status 137" is not.
func anchors(k *kb.KB) []string {
	a, _ := anchorSet(k)
	return a
}

// sigReq is what a line must hold, beyond its anchor, to possibly match a
// signature: a spelling of every keyword (exact; see kb's KeywordSpellings)
// and every case-insensitive literal at the top of its regex ("cuda" in
// "(?i)cuda error 214").
type sigReq struct {
	keywords [][]string
	fold     [][]byte
	// line, when set, is a test of the whole line that stands for the
	// rest (an anchor of a line form, not of a signature).
	line func([]byte) bool
}

func (r *sigReq) holds(line []byte) bool {
	if r.line != nil {
		return r.line(line)
	}
	for _, group := range r.keywords {
		found := false
		for _, kw := range group {
			if bytes.Contains(line, []byte(kw)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, f := range r.fold {
		if !containsFold(line, f) {
			return false
		}
	}
	return true
}

func containsFold(s, sub []byte) bool {
	if len(sub) == 0 {
		return true
	}
	// Candidates for the first byte are found with IndexByte, in both
	// cases for a letter: most lines a requirement is asked of hold the
	// anchor and not the rest ("grad_norm" on every step line, no "nan").
	lo, up := sub[0], sub[0]
	if l := sub[0] | 0x20; l >= 'a' && l <= 'z' {
		lo, up = l, l-('a'-'A')
	}
	last := len(s) - len(sub)
	for i := 0; i <= last; {
		j := bytes.IndexByte(s[i:last+1], lo)
		if lo != up {
			limit := last + 1
			if j >= 0 {
				limit = i + j
			}
			if k := bytes.IndexByte(s[i:limit], up); k >= 0 {
				j = k
			}
		}
		if j < 0 {
			return false
		}
		i += j
		if bytes.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
		i++
	}
	return false
}

// anchorSet returns the distinct anchors and, per anchor, the
// requirements of the signatures it stands for.
func anchorSet(k *kb.KB) ([]string, [][]sigReq) {
	var out []string
	var reqs [][]sigReq
	index := map[string]int{}
	for _, c := range k.Classes {
		for i := range c.Signatures {
			s := &c.Signatures[i]
			// The best keyword stands in the anchors with all its
			// spellings (they share its length).
			best := []string{""}
			var kws [][]string
			for _, group := range s.KeywordSpellings() {
				group = trimmedSet(group)
				kws = append(kws, group)
				if len(group[0]) > len(best[0]) {
					best = group
				}
			}
			if set := trimmedSet(requiredSet(s.Regex)); len(set) > 0 && betterAnchors(set, best) {
				best = set
			}
			fold := foldLiterals(s.Regex)
			for _, a := range best {
				if a == "" {
					continue
				}
				// A line the anchor brought holds it: the keyword group
				// it spells needs no second search.
				req := sigReq{fold: fold}
				for _, g := range kws {
					if !slices.Contains(g, a) {
						req.keywords = append(req.keywords, g)
					}
				}
				i, ok := index[a]
				if !ok {
					i = len(out)
					index[a] = i
					out = append(out, a)
					reqs = append(reqs, nil)
				}
				reqs[i] = append(reqs[i], req)
			}
		}
	}
	return out, reqs
}

// withLineAnchors adds to an anchor set the anchors of line forms
// (errorLevelAnchors, cudaSourceAnchors): a text that already anchors a signature gets the
// form's test as one more requirement that lets a line through.
func withLineAnchors(as []string, reqs [][]sigReq) ([]string, [][]sigReq) {
	index := make(map[string]int, len(as))
	for i, a := range as {
		index[a] = i
	}
	for _, f := range slices.Concat(errorLevelAnchors, cudaSourceAnchors) {
		i, ok := index[f.text]
		if !ok {
			i = len(as)
			index[f.text] = i
			as = append(as, f.text)
			reqs = append(reqs, nil)
		}
		reqs[i] = append(reqs[i], sigReq{line: f.line})
	}
	return as, reqs
}

// foldLiterals are the case-insensitive literals at the top level of a
// regex's concatenation: every match holds each, in some case.
func foldLiterals(expr string) [][]byte {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var out [][]byte
	for _, s := range subs {
		for s.Op == syntax.OpCapture {
			s = s.Sub[0]
		}
		if s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase != 0 {
			if lit := bytes.TrimSpace([]byte(string(s.Rune))); len(lit) > 0 {
				out = append(out, lit)
			}
		}
	}
	return out
}

// minTrimmedAnchor is the shortest anchor trimmedSet makes (the
// prefilter samples one window every shortest-anchor-less-3 bytes).
const minTrimmedAnchor = 6

// trimmedSet is set with the spaces at the ends of its members removed: a
// message re-flowed at a space ends its line where the space was
// ("undefined symbol:" then the symbol on the next line), and the joined
// reading of the two lines must still be offered the line. A set whose
// trimmed members would be too short to sample by is kept as it is.
func trimmedSet(set []string) []string {
	out := make([]string, 0, len(set))
	for _, s := range set {
		t := strings.TrimSpace(s)
		if len(t) < minTrimmedAnchor {
			return set
		}
		out = append(out, t)
	}
	return out
}

// betterAnchors says whether set is a better anchor than kw (a keyword's
// spellings): the one whose commonest member the prefilter finds rarer
// (logparse.BlockCost), then the longer. A longer text is usually the
// rarer, but not when its length is a word every step line of a training
// log repeats: "grad_norm:" is no rarer than "grad_norm", and " (nan)" is
// far rarer than both.
func betterAnchors(set, kw []string) bool {
	if minLen(set) < minTrimmedAnchor || len(kw[0]) < minTrimmedAnchor {
		// Too short to be sampled by its block: the longer is rarer.
		return minLen(set) > len(kw[0])
	}
	if cs, ck := worstCost(set), worstCost(kw); cs != ck {
		return cs < ck
	}
	return minLen(set) > len(kw[0])
}

func worstCost(set []string) int {
	worst := 0
	for _, s := range set {
		worst = max(worst, logparse.BlockCost(s, minTrimmedAnchor))
	}
	return worst
}

func minLen(set []string) int {
	m := -1
	for _, s := range set {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return m
}

// requiredSet returns literals of which every match of expr contains at
// least one, or nil when it finds none worth using.
func requiredSet(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	f := factors(re.Simplify())
	if f.exact != nil {
		return minimal(f.exact)
	}
	return minimal(f.any)
}

// minimal drops the members of a required set that contain another member:
// a line holding "abcd" also holds "bcd", so "bcd" alone suffices.
func minimal(set []string) []string {
	var out []string
	for i, s := range set {
		redundant := false
		for j, t := range set {
			if i != j && strings.Contains(s, t) && (len(t) < len(s) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// maxSet bounds the sets, so a regex with many alternatives does not blow
// up the cross products; it is large enough for a few spellings of a word
// times a few separators ("CUDA error", "cudaError", ...), which is what
// keeps short required texts such as "700" or "nan" out of the anchors.
const maxSet = 64

// factorInfo describes a sub-expression: exact is the complete set of
// strings it can match (nil when unknown or too many); any is a set of
// which every match contains one (nil when none is known).
type factorInfo struct {
	exact []string
	any   []string
}

func factors(re *syntax.Regexp) factorInfo {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			// The parser turns [Cc] into a case-folded C: a literal with
			// a few ASCII letters is the small set of its spellings.
			return factorInfo{exact: foldSpellings(re.Rune)}
		}
		return factorInfo{exact: []string{string(re.Rune)}}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return factorInfo{exact: []string{""}}
	case syntax.OpCapture:
		return factors(re.Sub[0])
	case syntax.OpQuest:
		// Optional: its strings or nothing.
		f := factors(re.Sub[0])
		if f.exact == nil || len(f.exact)+1 > maxSet {
			return factorInfo{}
		}
		return factorInfo{exact: append(append([]string(nil), f.exact...), "")}
	case syntax.OpPlus:
		f := factors(re.Sub[0])
		return factorInfo{any: better(f.any, f.exact)}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			f := factors(re.Sub[0])
			return factorInfo{any: better(f.any, f.exact)}
		}
		return factorInfo{}
	case syntax.OpCharClass:
		// A small class is a set of one-character strings.
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(set) >= 4 {
					return factorInfo{}
				}
				set = append(set, string(r))
			}
		}
		return factorInfo{exact: set}
	case syntax.OpAlternate:
		var exact, any []string
		allExact, allAny := true, true
		for _, s := range re.Sub {
			f := factors(s)
			if f.exact == nil {
				allExact = false
			} else {
				exact = append(exact, f.exact...)
			}
			a := better(f.any, f.exact)
			if a == nil {
				allAny = false
			} else {
				any = append(any, a...)
			}
		}
		var out factorInfo
		if allExact && len(exact) <= maxSet {
			out.exact = exact
		}
		if allAny && len(any) <= maxSet {
			out.any = any
		}
		return out
	case syntax.OpConcat:
		// Walk the children, growing the cross product of adjacent exact
		// runs; the best set seen anywhere is required.
		// Each child's factors are computed once: a bounded repeat
		// (".{0,80}") simplifies to concatenations nested as deep as its
		// bound, and asking a child twice would double the work per level.
		fs := make([]factorInfo, len(re.Sub))
		for i, s := range re.Sub {
			fs[i] = factors(s)
		}
		run := []string{""}
		var best []string
		for _, f := range fs {
			if f.exact != nil && len(run)*len(f.exact) <= maxSet {
				var next []string
				for _, a := range run {
					for _, b := range f.exact {
						next = append(next, a+b)
					}
				}
				run = next
				continue
			}
			best = better(best, run)
			best = better(best, f.any)
			best = better(best, f.exact)
			run = []string{""}
		}
		if len(best) == 0 || len(run) > 0 && run[0] != "" && minLen(run) >= minLen(best) {
			// Every child was exact: the whole concatenation is.
			allExact := true
			for _, f := range fs {
				if f.exact == nil {
					allExact = false
				}
			}
			if allExact && len(run) <= maxSet {
				return factorInfo{exact: run}
			}
		}
		return factorInfo{any: better(best, run)}
	}
	return factorInfo{}
}

// better picks the set whose shortest member is longer (rarer).
func better(a, b []string) []string {
	if len(a) == 0 || minLen(a) == 0 {
		if len(b) == 0 || minLen(b) == 0 {
			return nil
		}
		return b
	}
	if len(b) == 0 || minLen(b) == 0 {
		return a
	}
	if minLen(b) > minLen(a) {
		return b
	}
	return a
}

// foldSpellings lists every upper/lower-case spelling of an ASCII literal,
// or nil when there would be more than 8.
func foldSpellings(rs []rune) []string {
	out := []string{""}
	for _, r := range rs {
		lo, up := r|0x20, r&^0x20
		var next []string
		for _, p := range out {
			if r < 0x80 && lo >= 'a' && lo <= 'z' {
				next = append(next, p+string(up), p+string(lo))
			} else if r < 0x80 {
				next = append(next, p+string(r))
			} else {
				return nil
			}
		}
		if len(next) > 8 {
			return nil
		}
		out = next
	}
	return out
}
