package render

import (
	"bytes"
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
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(indentJSON(compact.Bytes()))
	return err
}

// indentJSON is json.Indent(src, "", "  ") for the compact text an
// encoder writes, in one plain pass: encoding/json's indenter steps a
// scanner per byte, which was a sixth of the CPU time of a report with
// thousands of findings. Text with whitespace between tokens (never
// written by an encoder) goes to json.Indent.
func indentJSON(src []byte) []byte {
	dst := make([]byte, 0, len(src)+len(src)/2)
	depth := 0
	inString, escaped := false, false
	newline := func() {
		dst = append(dst, '\n')
		for i := 0; i < depth; i++ {
			dst = append(dst, ' ', ' ')
		}
	}
	end := len(src)
	for end > 0 && src[end-1] == '\n' {
		end--
	}
	for i := 0; i < end; i++ {
		c := src[i]
		if inString {
			dst = append(dst, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			dst = append(dst, c)
		case '{', '[':
			dst = append(dst, c)
			if i+1 < end && src[i+1] == c+2 { // "{}" and "[]" stay as they are ('}' is '{'+2, ']' is '['+2)
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		case ' ', '\t', '\r', '\n':
			var out bytes.Buffer
			if err := json.Indent(&out, src, "", "  "); err != nil {
				return src
			}
			return out.Bytes()
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, src[end:]...)
}
