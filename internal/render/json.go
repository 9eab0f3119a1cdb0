package render

import (
	"encoding/json"
	"io"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// JSON writes the contract's JSON document, indented, with a final newline.
func JSON(w io.Writer, r *report.Report) error {
	out := *r
	if out.Findings == nil {
		out.Findings = []report.Finding{}
	}
	return WriteJSON(w, &out)
}

// WriteJSON is the one JSON encoding of everything cudadoctor prints or
// saves (reports, rule documentation, the build stamp): indented by two
// spaces, HTML characters left as they are, with a final newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
