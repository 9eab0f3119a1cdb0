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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(&out)
}
