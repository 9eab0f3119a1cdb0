package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// GitHub writes one GitHub Actions workflow command per finding
// (`::error file=train.py,line=4,title=...::message`); the runner shows each
// as an annotation on that line of the pull request or the run summary. The
// line is the origin in the user's code when known (explain, run), the
// source position for lint, and none for findings without a place (env):
// those become annotations of the run itself.
func GitHub(w io.Writer, r *report.Report, opts Options) error {
	tw := &Printer{w: w}
	for i := range r.Findings {
		f := &r.Findings[i]
		var props []string
		if l := primaryLocation(f); l != nil && l.Path != "" {
			props = append(props, "file="+ghProperty(relPath(opts.Root, l.Path)))
			if l.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", l.Line))
				if l.EndLine > l.Line {
					props = append(props, fmt.Sprintf("endLine=%d", l.EndLine))
				}
				if l.Column > 0 {
					props = append(props, fmt.Sprintf("col=%d", l.Column))
				}
			}
		}
		props = append(props, "title="+ghProperty(ghTitle(f)))
		tw.Printf("::%s %s::%s\n", ghLevel(f.Severity), strings.Join(props, ","), ghData(ghMessage(f)))
	}
	return tw.err
}

func ghLevel(s report.Severity) string {
	switch s {
	case report.Error:
		return "error"
	case report.Warning:
		return "warning"
	}
	return "notice"
}

func ghTitle(f *report.Finding) string {
	t := "cudadoctor " + f.Rule
	if f.Class != "" && f.Class != f.Rule {
		t += " (" + f.Class + ")"
	}
	if f.Rank != nil {
		t += fmt.Sprintf(" on rank %d", *f.Rank)
	}
	return t
}

// ghMessage is the annotation's body: the message, where the traceback
// pointed when that differs, and the first fixes. Annotations are read in
// a narrow box, so it stays short; `--format markdown` has the rest.
func ghMessage(f *report.Finding) string {
	lines := []string{f.Message}
	if f.Reported != nil && f.Reported.Path != "" {
		lines = append(lines, "The traceback pointed at "+f.Reported.String()+" (reported asynchronously).")
	}
	if f.Location != nil && f.Location != primaryLocation(f) {
		lines = append(lines, "Seen at "+f.Location.String()+".")
	}
	for i, rem := range f.Remedies {
		if i == 2 {
			break
		}
		lines = append(lines, fmt.Sprintf("Fix %d: %s", i+1, rem))
	}
	return strings.Join(lines, "\n")
}

// ghData escapes a workflow command's message: a percent sign and line
// breaks would otherwise end or corrupt the command.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value, where ':' and ',' also separate.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
