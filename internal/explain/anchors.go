package explain

import (
	"regexp/syntax"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// anchors picks, for every signature, the one fixed text the prefilter
// looks for: the longest of its keywords and of the literals its regex
// cannot match without. A signature only fires when all its keywords occur,
// so one per signature loses nothing, and a longer text is rarer: a line
// holding "137" is common, one holding "exit code 137" is not.
func anchors(k *kb.KB) []string {
	var out []string
	for _, c := range k.Classes {
		for _, s := range c.Signatures {
			best := ""
			for _, kw := range s.Keywords {
				if len(kw) > len(best) {
					best = kw
				}
			}
			for _, lit := range requiredLiterals(s.Regex) {
				if len(lit) > len(best) {
					best = lit
				}
			}
			if best != "" {
				out = append(out, best)
			}
		}
	}
	return out
}

// requiredLiterals are the case-sensitive literals at the top level of a
// regex's concatenation: every match contains each of them.
func requiredLiterals(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	var subs []*syntax.Regexp
	switch re.Op {
	case syntax.OpConcat:
		subs = re.Sub
	default:
		subs = []*syntax.Regexp{re}
	}
	var out []string
	for _, s := range subs {
		for s.Op == syntax.OpCapture {
			s = s.Sub[0]
		}
		if s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 {
			lit := string(s.Rune)
			if !strings.ContainsRune(lit, '\n') {
				out = append(out, lit)
			}
		}
	}
	return out
}
