package render

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Markdown writes a report to paste into an issue or a pull-request
// comment (GitHub-flavoured): per finding a headline, the line of code it
// comes from, the evidence folded into a <details> block (logs are long and
// the reader wants the verdict first), and the fixes as a numbered list.
func Markdown(w io.Writer, r *report.Report, opts Options) error {
	tw := &Printer{w: w}
	if len(r.Findings) == 0 {
		tw.Printf("**cudadoctor %s**: %s.\n", r.Command, opts.nothingFound())
		return tw.err
	}
	for i := range r.Findings {
		if i > 0 {
			tw.Printf("\n---\n\n")
		}
		markdownFinding(tw, &r.Findings[i])
	}
	if len(r.Findings) > 1 {
		tw.Printf("\n%s\n", SummaryLine(r.Findings))
	}
	tw.Printf("\n<sub>Diagnosed by cudadoctor %s; `cudadoctor rules ID` explains a class.</sub>\n", mdEscape(r.Tool.Version, "`"))
	return tw.err
}

func markdownFinding(tw *Printer, f *report.Finding) {
	tw.Printf("### %s: %s\n\n", f.Severity, MarkdownText(f.Message))
	tw.Printf("- **Class:** `%s`", f.Rule)
	if f.Class != "" && f.Class != f.Rule {
		tw.Printf(" (root cause `%s`)", f.Class)
	}
	tw.Printf("\n")
	if f.Rank != nil {
		tw.Printf("- **Rank:** %d\n", *f.Rank)
	}
	if f.Origin != nil {
		tw.Printf("- **Origin:** %s\n", mdLocation(f.Origin))
	}
	if f.Reported != nil {
		tw.Printf("- **Reported at:** %s (the traceback's line; CUDA reported the error asynchronously)\n", mdLocation(f.Reported))
	}
	if f.Location != nil {
		tw.Printf("- **Seen at:** `%s`\n", f.Location.String())
	}
	if len(f.Alternatives) > 0 {
		tw.Printf("- **Could also be:** `%s`\n", strings.Join(f.Alternatives, "`, `"))
	}
	for _, rel := range f.Related {
		where := rel.Location.String()
		if rel.Rank != nil {
			where = strings.TrimSpace(fmt.Sprintf("rank %d %s", *rel.Rank, where))
		}
		if where != "" {
			where = " (" + MarkdownCode(where) + ")"
		}
		tw.Printf("- **Related:** %s%s\n", MarkdownText(rel.Message), where)
	}
	facts := textFacts(f.Facts)
	if len(f.Evidence) > 0 || len(facts) > 0 {
		var body strings.Builder
		for _, e := range f.Evidence {
			if e.Path != "" || e.Line > 0 {
				fmt.Fprintf(&body, "%s:%d: ", e.Path, e.Line)
			}
			body.WriteString(e.Text)
			if e.Count > 1 {
				fmt.Fprintf(&body, "  (x%d)", e.Count)
			}
			body.WriteString("\n")
		}
		for _, fact := range facts {
			fmt.Fprintf(&body, "%s\n", fact)
		}
		summary := fmt.Sprintf("Evidence (%d %s", len(f.Evidence), plural(len(f.Evidence), "line", "lines"))
		if len(facts) > 0 {
			summary += fmt.Sprintf(", %d %s", len(facts), plural(len(facts), "fact", "facts"))
		}
		summary += ")"
		// Evidence is log text: a fence longer than any backtick run in it
		// keeps it verbatim.
		fence := strings.Repeat("`", max(3, longestRun(body.String(), '`')+1))
		tw.Printf("\n<details>\n<summary>%s</summary>\n\n%stext\n%s%s\n\n</details>\n", summary, fence, body.String(), fence)
	}
	if len(f.Remedies) > 0 {
		tw.Printf("\n**Fixes**\n\n")
		for i, rem := range f.Remedies {
			tw.Printf("%d. %s\n", i+1, strings.ReplaceAll(MarkdownText(rem), "\n", "\n   "))
		}
	}
}

func mdLocation(l *report.Location) string {
	s := MarkdownCode(l.String())
	if l.Function != "" {
		s += " in " + MarkdownCode(l.Function)
	}
	if l.Code != "" {
		s += ": " + MarkdownCode(strings.TrimSpace(l.Code))
	}
	return s
}

// MarkdownCode is an inline code span that holds s verbatim, whatever backticks
// it contains.
func MarkdownCode(s string) string {
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// MarkdownText escapes prose for Markdown, leaving `code spans` (which the
// knowledge base's remedies use for commands) as they are: outside them a
// `<module>` would vanish as an HTML tag and a `*` or `_` at the edge of a
// word turn into emphasis. Inside a word (vectorized_gather_kernel) GFM
// leaves underscores alone, so they stay unescaped and readable.
func MarkdownText(s string) string {
	if strings.Count(s, "`")%2 == 1 {
		// An unbalanced backtick: no code spans, escape it all.
		return mdEscape(s, "`")
	}
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString("`" + part + "`")
			continue
		}
		b.WriteString(mdEscape(part, ""))
	}
	return b.String()
}

// mdEscape backslash-escapes Markdown's active characters (and extra).
func mdEscape(s, extra string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '_' || r == '*':
			inWord := i > 0 && i < len(rs)-1 && isWordRune(rs[i-1]) && isWordRune(rs[i+1])
			if !inWord {
				b.WriteByte('\\')
			}
		case strings.ContainsRune(`\<>[]#|~`+extra, r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
