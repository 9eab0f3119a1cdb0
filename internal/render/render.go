// Package render turns a report.Report into text, JSON or SARIF. Every
// renderer is a pure function of its inputs: it writes to w and reads nothing.
package render

import (
	"fmt"
	"io"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Format names an output format.
type Format string

const (
	FormatText  Format = "text"
	FormatJSON  Format = "json"
	FormatSARIF Format = "sarif"
)

// ParseFormat validates a --format value.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatText, FormatJSON, FormatSARIF:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown format %q (want text, json or sarif)", s)
}

// Options tune the renderers; the zero value is plain text without colour.
type Options struct {
	Color bool
	// Width is the terminal width when known (0: unknown); used to trim
	// long evidence lines in text output.
	Width int
	// Excerpts shows the source line under each lint finding (on a terminal).
	Excerpts bool
}

// Render writes r in the given format.
func Render(w io.Writer, r *report.Report, f Format, opts Options) error {
	switch f {
	case FormatJSON:
		return JSON(w, r)
	case FormatSARIF:
		return SARIF(w, r)
	default:
		return Text(w, r, opts)
	}
}
