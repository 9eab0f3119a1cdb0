package command

import (
	"sort"
	"strings"
)

// Suggest returns the candidates a mistyped word most likely meant: those it
// is a prefix or part of (`rules device-assert`), then those within a small
// edit distance (`explian`), closest first, at most max of them.
func Suggest(word string, candidates []string, max int) []string {
	w := strings.ToLower(word)
	if w == "" {
		return nil
	}
	type scored struct {
		name string
		dist int
	}
	var hits []scored
	limit := 2
	if n := len([]rune(w)) / 4; n > limit {
		limit = n
	}
	seen := map[string]bool{}
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if c == "" || seen[lc] {
			continue
		}
		seen[lc] = true
		switch d := editDistance(w, lc); {
		case len(w) >= 3 && strings.Contains(lc, w):
			// A fragment of the name ranks ahead of any typo.
			hits = append(hits, scored{c, -1})
		case d <= limit:
			hits = append(hits, scored{c, d})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].dist < hits[j].dist })
	var out []string
	for _, h := range hits {
		if len(out) == max {
			break
		}
		out = append(out, h.name)
	}
	return out
}

// editDistance is the Damerau-Levenshtein distance with adjacent
// transpositions (optimal string alignment), so that `explian` is one edit
// from `explain`, as a typist would count it.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}

// DidYouMean renders suggestions as the end of an error message.
func DidYouMean(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + names[0] + "?"
	}
	return "; did you mean one of " + strings.Join(names, ", ") + "?"
}

// OrList joins choices as "a, b or c".
func OrList(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// OneLine keeps error output to a single line, whatever the error holds.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
