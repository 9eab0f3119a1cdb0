package lint

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Severity colours of lint's one-line form, as ruff and compilers colour
// their rule codes.
var lintSeverityColor = map[report.Severity]string{
	report.Error:   "\x1b[1;31m",
	report.Warning: "\x1b[1;33m",
	report.Info:    "\x1b[1;36m",
}

// views are lint's own text and Markdown: hazards are many and short, one
// a line (or a table row), where the other commands' findings are blocks.
var views = render.Views{render.FormatText: text, render.FormatMarkdown: markdown}

// text prints lint findings one per line as `path:line:col: CODE
// message`; with opts.Excerpts (a terminal) the source line follows with a
// caret under the column.
func text(w io.Writer, r *report.Report, opts render.Options) error {
	tw := render.NewPrinter(w)
	st := render.Styler{On: opts.Color}
	for _, f := range r.Findings {
		loc := f.Location
		tw.Printf("%s: %s %s %s\n", st.Wrap("\x1b[1m", harmless(loc.String())), st.Wrap(lintSeverityColor[f.Severity], f.Rule),
			st.Wrap(lintSeverityColor[f.Severity], "["+f.Severity.String()+"]"), harmless(f.Message))
		if opts.Excerpts && loc != nil && loc.Code != "" {
			code := harmless(strings.ReplaceAll(loc.Code, "\t", " "))
			tw.Printf("  %5d | %s\n", loc.Line, code)
			col := loc.Column - 1
			if col < 0 || col > len(code) {
				col = 0
			}
			tw.Printf("        | %s%s\n", strings.Repeat(" ", col), st.Wrap("\x1b[1;31m", "^"))
		}
	}
	switch n := len(r.Findings); n {
	case 0:
		tw.Printf("%s\n", st.Wrap(render.AnsiGreen, "All checks passed: no hazards found."))
	case 1:
		tw.Printf("Found 1 hazard.\n")
	default:
		tw.Printf("Found %d hazards.\n", n)
	}
	return tw.Err()
}

// harmless makes text quoted from a source file safe to print on a
// terminal: control characters (an escape sequence that would recolour,
// retitle or clear the terminal, a carriage return that would hide the
// line) are shown as \xNN escapes instead of being sent.
func harmless(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// markdown is lint's findings as one table.
func markdown(w io.Writer, r *report.Report, opts render.Options) error {
	tw := render.NewPrinter(w)
	if len(r.Findings) == 0 {
		tw.Printf("**cudadoctor lint**: no hazards found.\n")
		return tw.Err()
	}
	tw.Printf("| Location | Rule | Severity | Message |\n|---|---|---|---|\n")
	for _, f := range r.Findings {
		tw.Printf("| %s | `%s` | %s | %s |\n", render.MarkdownCode(f.Location.String()), f.Rule, f.Severity, strings.ReplaceAll(render.MarkdownText(f.Message), "|", `\|`))
	}
	n := len(r.Findings)
	if n == 1 {
		tw.Printf("\n1 hazard.\n")
	} else {
		tw.Printf("\n%d hazards.\n", n)
	}
	return tw.Err()
}
