package render

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Severity colours of lint's one-line form, as ruff and compilers colour
// their rule codes.
var lintSeverityColor = map[report.Severity]string{
	report.Error:   "\x1b[1;31m",
	report.Warning: "\x1b[1;33m",
	report.Info:    "\x1b[1;36m",
}

// lintText prints lint findings one per line as `path:line:col: CODE
// message`; with opts.Excerpts (a terminal) the source line follows with a
// caret under the column.
func lintText(tw *errWriter, st styler, r *report.Report, opts Options) {
	for _, f := range r.Findings {
		loc := f.Location
		tw.printf("%s: %s %s %s\n", st.wrap("\x1b[1m", harmless(loc.String())), st.wrap(lintSeverityColor[f.Severity], f.Rule),
			st.wrap(lintSeverityColor[f.Severity], "["+f.Severity.String()+"]"), harmless(f.Message))
		if opts.Excerpts && loc != nil && loc.Code != "" {
			code := harmless(strings.ReplaceAll(loc.Code, "\t", " "))
			tw.printf("  %5d | %s\n", loc.Line, code)
			col := loc.Column - 1
			if col < 0 || col > len(code) {
				col = 0
			}
			tw.printf("        | %s%s\n", strings.Repeat(" ", col), st.wrap("\x1b[1;31m", "^"))
		}
	}
	switch n := len(r.Findings); n {
	case 0:
		tw.printf("%s\n", st.wrap(ansiGreen, "All checks passed: no hazards found."))
	case 1:
		tw.printf("Found 1 hazard.\n")
	default:
		tw.printf("Found %d hazards.\n", n)
	}
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
