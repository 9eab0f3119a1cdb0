// Package explain turns log text into diagnoses: it reads parsed events,
// matches them against the knowledge base, refines surface errors to root
// causes, and locates the user-code line each failure comes from.
package explain

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Input is one named log stream ("-" for stdin).
type Input struct {
	Name   string
	Reader io.Reader
}

// Engine diagnoses inputs with a knowledge base.
type Engine struct {
	KB *kb.KB
}

// New returns an engine over k.
func New(k *kb.KB) *Engine { return &Engine{KB: k} }

// Explain reads every input to its end and returns the findings, primary first.
func (e *Engine) Explain(ctx context.Context, inputs []Input) ([]report.Finding, error) {
	var out []report.Finding
	for _, in := range inputs {
		sc := bufio.NewScanner(in.Reader)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		seen := map[string]bool{}
		n := 0
		for sc.Scan() {
			n++
			line := sc.Text()
			for _, m := range e.KB.Matches(line) {
				if m.Signature.Strength != kb.Primary || seen[m.Class.ID] {
					continue
				}
				seen[m.Class.ID] = true
				out = append(out, report.Finding{Rule: m.Class.ID, Class: m.Class.ID, Severity: m.Class.Severity,
					Message:  m.Class.Verdict,
					Location: &report.Location{Path: in.Name, Line: n},
					Evidence: []report.Evidence{{Path: in.Name, Line: n, Text: line}}})
			}
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
	}
	report.SortFindings(out)
	return out, nil
}
