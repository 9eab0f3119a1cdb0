// Package render turns a report.Report into text, JSON, SARIF, GitHub
// workflow annotations or Markdown. Every renderer is a pure function of its
// inputs: it writes to w and reads nothing.
package render

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Format names an output format.
type Format string

const (
	FormatText  Format = "text"
	FormatJSON  Format = "json"
	FormatSARIF Format = "sarif"
	// FormatGitHub is GitHub Actions workflow commands (::error file=...::),
	// which the runner turns into annotations on the source line.
	FormatGitHub Format = "github"
	// FormatMarkdown is a diagnosis to paste into an issue or a PR comment.
	FormatMarkdown Format = "markdown"
)

var formats = []Format{FormatText, FormatJSON, FormatSARIF, FormatGitHub, FormatMarkdown}

// FormatNames lists the --format values, for help texts and completions.
func FormatNames() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return names
}

// ParseFormat validates a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range formats {
		if Format(s) == f {
			return f, nil
		}
	}
	names := FormatNames()
	return "", fmt.Errorf("unknown format %q (want %s or %s)", s, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Options tune the renderers; the zero value is plain text without colour.
type Options struct {
	Color bool
	// Width is the terminal width when known (0: unknown); used to trim
	// long evidence lines in text output.
	Width int
	// Excerpts shows the source line under each lint finding (on a terminal).
	Excerpts bool
	// Root is the directory paths are made relative to in SARIF and GitHub
	// annotations (the checkout in CI), so that a traceback's absolute
	// /home/runner/work/repo/repo/train.py lands on train.py. Empty: paths
	// are kept as they are.
	Root string
	// NothingFound is the line the text and Markdown views print for a
	// report without findings: the command knows what it looked for
	// ("all checks passed"); empty, they say "nothing to report".
	NothingFound string
}

func (o Options) nothingFound() string {
	if o.NothingFound == "" {
		return "nothing to report"
	}
	return o.NothingFound
}

// View renders a report in one format. A command whose report has a shape
// of its own (env's checks, lint's one line per hazard) brings its own
// views; the rest use the findings views here.
type View func(w io.Writer, r *report.Report, opts Options) error

// Views are a command's own renderings, by format; a format without one
// falls back to the findings views.
type Views map[Format]View

// Render writes r in the given format, through the command's own view of
// that format when it has one.
func Render(w io.Writer, r *report.Report, f Format, opts Options, own Views) error {
	if v := own[f]; v != nil {
		return v(w, r, opts)
	}
	switch f {
	case FormatJSON:
		return JSON(w, r)
	case FormatSARIF:
		return SARIF(w, r, opts)
	case FormatGitHub:
		return GitHub(w, r, opts)
	case FormatMarkdown:
		return Markdown(w, r, opts)
	default:
		return Text(w, r, opts)
	}
}

// primaryLocation is where a user acts on a finding: the origin frame when
// it is known, else where the evidence was seen.
func primaryLocation(f *report.Finding) *report.Location {
	if f.Origin != nil && f.Origin.Path != "" && f.Origin.Line > 0 {
		return f.Origin
	}
	return f.Location
}

// relPath makes an absolute path under root relative to it, with forward
// slashes; any other path is returned unchanged.
func relPath(root, p string) string {
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}
