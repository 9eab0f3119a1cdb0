package env

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// views are env's own text: what was detected and one line per check come
// before the findings.
var views = render.Views{render.FormatText: Text}

// allPassed is env's line when no check found anything.
const allPassed = "all checks passed"

// Text writes `env`'s report: what was detected, one line per check, then
// the failing and warning checks in full with their fixes. A report without
// the env sections gets the findings view.
func Text(w io.Writer, r *report.Report, opts render.Options) error {
	if r.Environment == nil {
		return render.Text(w, r, opts)
	}
	checks := r.Environment.Checks
	tw := render.NewPrinter(w)
	st := render.Styler{On: opts.Color}
	if detected := r.Environment.Detected; len(detected) > 0 {
		width := 0
		for _, d := range detected {
			width = max(width, len(d.Label))
		}
		for _, d := range detected {
			tw.Printf("%s  %s\n", st.Wrap(render.AnsiBold, fmt.Sprintf("%-*s", width, d.Label)), d.Value)
		}
		tw.Printf("\n")
	}
	idWidth := 0
	for _, c := range checks {
		idWidth = max(idWidth, len(c.ID))
	}
	for _, c := range checks {
		mark, style := "✓", render.AnsiGreen
		switch c.Status {
		case report.CheckFail:
			mark, style = "✗", render.AnsiBold+render.AnsiRed
		case report.CheckWarn:
			mark, style = "⚠", render.AnsiBold+render.AnsiYellow
		case report.CheckSkip:
			mark, style = "–", render.AnsiDim
		}
		msg := c.Message
		if c.Status == report.CheckSkip {
			msg = "skipped: " + msg
		}
		tw.Printf("%s %s  %s\n", st.Wrap(style, mark), fmt.Sprintf("%-*s", idWidth, c.ID), render.TrimLine(msg, opts.Width, idWidth+4))
	}
	if len(r.Findings) > 0 {
		for _, f := range r.Findings {
			tw.Printf("\n")
			render.WriteFinding(tw, st, &f, opts)
		}
		summary := render.SummaryLine(r.Findings)
		if len(r.Findings) == 1 {
			summary = strings.Replace(summary, "1 findings", "1 finding", 1)
		}
		tw.Printf("\n%s\n", st.Wrap(render.AnsiDim, summary))
	} else {
		tw.Printf("\n%s\n", st.Wrap(render.AnsiGreen, allPassed))
	}
	return tw.Err()
}
