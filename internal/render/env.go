package render

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// envText writes `env`'s report: what was detected, one line per check, then
// the failing and warning checks in full with their fixes. It reports false
// when the report lacks the env sections.
func envText(tw *errWriter, r *report.Report, opts Options) bool {
	checks, ok := r.Environment["checks"].([]report.CheckResult)
	if !ok {
		return false
	}
	st := styler{on: opts.Color}
	if detected, ok := r.Environment["detected"].([]report.Fact); ok && len(detected) > 0 {
		width := 0
		for _, d := range detected {
			width = max(width, len(d.Label))
		}
		for _, d := range detected {
			tw.printf("%s  %s\n", st.wrap(ansiBold, fmt.Sprintf("%-*s", width, d.Label)), d.Value)
		}
		tw.printf("\n")
	}
	idWidth := 0
	for _, c := range checks {
		idWidth = max(idWidth, len(c.ID))
	}
	for _, c := range checks {
		mark, style := "✓", ansiGreen
		switch c.Status {
		case "fail":
			mark, style = "✗", ansiBold+ansiRed
		case "warn":
			mark, style = "⚠", ansiBold+ansiYellow
		case "skip":
			mark, style = "–", ansiDim
		}
		msg := c.Message
		if c.Status == "skip" {
			msg = "skipped: " + msg
		}
		tw.printf("%s %s  %s\n", st.wrap(style, mark), fmt.Sprintf("%-*s", idWidth, c.ID), trimLine(msg, opts.Width, idWidth+4))
	}
	if len(r.Findings) > 0 {
		for _, f := range r.Findings {
			tw.printf("\n")
			writeFinding(tw, st, &f, opts)
		}
		summary := summaryLine(r.Findings)
		if len(r.Findings) == 1 {
			summary = strings.Replace(summary, "1 findings", "1 finding", 1)
		}
		tw.printf("\n%s\n", st.wrap(ansiDim, summary))
	} else {
		tw.printf("\n%s\n", st.wrap(ansiGreen, noFindingText("env")))
	}
	return true
}
