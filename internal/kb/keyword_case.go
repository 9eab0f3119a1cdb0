package kb

import (
	"slices"
	"strings"
	"unicode"
)

// A signature whose regex ignores case ("(?i)...") matches a wording in
// any case, so its keywords must let every case through the pre-filter
// too: "cuda initialization failed" as well as "CUDA initialization
// failed". Folding the case of every line before the keyword search would
// cost a pass over each line; instead each such keyword stands for the few
// spellings that real messages use: as written, lower case, upper case,
// and with its first letter capitalised ("No GPU Found", "Failed to
// initialize Cuda"). A keyword is a fragment of a word or two, so a spelling
// with mixed case inside a word is not a wording anyone prints.

// foldsCase reports whether a regex ignores case from its start.
func foldsCase(expr string) bool {
	return strings.HasPrefix(expr, "(?i)")
}

// caseSpellings lists kw's spellings as above, as written first, without
// repeats. They all have kw's length, so a keyword long enough to anchor
// the pre-filter stays long enough in every spelling.
func caseSpellings(kw string) []string {
	lower := strings.ToLower(kw)
	title := []rune(lower)
	for i, r := range title {
		if unicode.IsLetter(r) {
			title[i] = unicode.ToUpper(r)
			break
		}
	}
	out := []string{kw}
	for _, s := range []string{lower, strings.ToUpper(kw), string(title)} {
		if len(s) == len(kw) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// KeywordSpellings returns, per keyword of the signature, the texts any one
// of which satisfies it: the keyword itself, or its case spellings when the
// regex ignores case. A line can match the signature only if it holds a
// spelling of every keyword.
func (s *Signature) KeywordSpellings() [][]string {
	if s.spellings == nil {
		return keywordSpellings(s) // a signature not compiled by the loader
	}
	return s.spellings
}

func keywordSpellings(s *Signature) [][]string {
	out := make([][]string, len(s.Keywords))
	for i, kw := range s.Keywords {
		if foldsCase(s.Regex) {
			out[i] = caseSpellings(kw)
		} else {
			out[i] = []string{kw}
		}
	}
	return out
}

// holdsKeywords: line holds a spelling of every keyword of s.
func (s *Signature) holdsKeywords(line string) bool {
	for _, group := range s.KeywordSpellings() {
		found := false
		for _, kw := range group {
			if strings.Contains(line, kw) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
