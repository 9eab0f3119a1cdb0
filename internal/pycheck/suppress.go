package pycheck

import (
	"bytes"
	"regexp"
	"strings"
)

// suppression is one `# cudadoctor: ignore[CODES] reason` comment.
type suppression struct {
	line   int
	offset int // of the '#'
	end    int
	codes  []string
	reason string
	used   map[string]bool
}

const suppressMarker = "cudadoctor:"

var suppressRE = regexp.MustCompile(`^#\s*cudadoctor:\s*ignore(?:\[([^\]]*)\])?\s*(.*)$`)

// noqaRE is ruff's and flake8's comment: `# noqa` silences every code on
// its line, `# noqa: CD113, E501` the codes it names.
var noqaRE = regexp.MustCompile(`(?i)#\s*noqa(?::\s*([A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?`)

// noqa is one noqa comment: its line and codes (none: all).
type noqa struct {
	all   bool
	codes []string
}

// parseNoqa finds noqa comments by text; codes of other tools are kept
// and simply never match.
func parseNoqa(src []byte) map[int]noqa {
	if !bytes.Contains(src, []byte("noqa")) && !bytes.Contains(src, []byte("NOQA")) && !bytes.Contains(src, []byte("NoQA")) {
		return nil
	}
	out := map[int]noqa{}
	for i, line := range bytes.Split(src, []byte{'\n'}) {
		h := bytes.IndexByte(line, '#')
		if h < 0 {
			continue
		}
		m := noqaRE.FindSubmatch(line[h:])
		if m == nil {
			continue
		}
		n := noqa{all: len(m[1]) == 0}
		for _, c := range strings.FieldsFunc(string(m[1]), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			n.codes = append(n.codes, strings.ToUpper(c))
		}
		out[i+1] = n
	}
	return out
}

// applyNoqa drops the diagnostics a noqa comment on their line silences.
func applyNoqa(f *File, nq map[int]noqa, diags []Diagnostic) []Diagnostic {
	if len(nq) == 0 {
		return diags
	}
	out := diags[:0]
	for _, d := range diags {
		line, _ := f.LineCol(d.Start)
		if n, ok := nq[line]; ok && (n.all || contains(n.codes, d.Rule.ID)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// parseSuppressions finds suppression comments by text; a file without the
// marker costs one byte search.
func parseSuppressions(src []byte) []*suppression {
	if !bytes.Contains(src, []byte(suppressMarker)) {
		return nil
	}
	var out []*suppression
	line, start := 1, 0
	for start <= len(src) {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		text := src[start:end]
		if i := bytes.Index(text, []byte(suppressMarker)); i >= 0 {
			if h := bytes.LastIndexByte(text[:i], '#'); h >= 0 {
				if m := suppressRE.FindSubmatch(bytes.TrimRight(text[h:], "\r")); m != nil {
					s := &suppression{line: line, offset: start + h, end: end, reason: strings.TrimSpace(string(m[2])), used: map[string]bool{}}
					for _, c := range strings.Split(string(m[1]), ",") {
						if c = strings.TrimSpace(c); c != "" {
							s.codes = append(s.codes, strings.ToUpper(c))
						}
					}
					out = append(out, s)
				}
			}
		}
		line++
		start = end + 1
	}
	return out
}

// applySuppressions drops suppressed diagnostics and adds findings for
// suppressions that are malformed or silenced nothing.
func applySuppressions(f *File, sups []*suppression, diags []Diagnostic, enabled func(string) bool) []Diagnostic {
	if len(sups) == 0 {
		return diags
	}
	byLine := map[int]*suppression{}
	for _, s := range sups {
		byLine[s.line] = s
	}
	out := diags[:0]
	for _, d := range diags {
		line, _ := f.LineCol(d.Start)
		if s := byLine[line]; s != nil && s.reason != "" && contains(s.codes, d.Rule.ID) {
			s.used[d.Rule.ID] = true
			continue
		}
		out = append(out, d)
	}
	for _, s := range sups {
		switch {
		case len(s.codes) == 0 || s.reason == "":
			if enabled(CodeInvalidSuppression) {
				out = append(out, Diagnostic{Rule: engineRule(CodeInvalidSuppression), Start: s.offset, End: s.end,
					Message: "suppression needs codes and a reason: # cudadoctor: ignore[CD101] why it is safe"})
			}
		default:
			var unused []string
			for _, c := range s.codes {
				if !s.used[c] && enabled(c) {
					unused = append(unused, c)
				}
			}
			if len(unused) > 0 && enabled(CodeUnusedSuppression) {
				out = append(out, Diagnostic{Rule: engineRule(CodeUnusedSuppression), Start: s.offset, End: s.end,
					Message: "unused suppression: " + strings.Join(unused, ", ") + " reported nothing on this line"})
			}
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
