package logparse

import (
	"fmt"
	"path/filepath"
	"strings"
)

// summarize renders events compactly for tests.
func summarize(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "%s rank=%d lines=%d-%d count=%d time=%q\n", e.Kind, e.Rank, e.Line, e.EndLine, e.Count, e.Time)
		for i, x := range e.Chain {
			fmt.Fprintf(&b, "  exc[%d] remote=%v %s: %.60s frames=%d\n", i, x.Remote, x.Type, x.Message, len(x.Frames))
			for _, f := range x.Frames {
				fmt.Fprintf(&b, "    %s:%d %s | %.50s\n", filepath.Base(f.Path), f.Line, f.Function, f.Code)
			}
		}
		for _, f := range e.Frames {
			fmt.Fprintf(&b, "  frame %s:%d %s\n", filepath.Base(f.Path), f.Line, f.Function)
		}
		if e.Assert != nil {
			fmt.Fprintf(&b, "  assert %+v\n", *e.Assert)
		}
		if e.Work != nil {
			fmt.Fprintf(&b, "  work %+v\n", *e.Work)
		}
		if e.Summary != nil {
			for _, f := range e.Summary.Failures {
				fmt.Fprintf(&b, "  failure root=%v rank=%d exit=%d sig=%s tb=%d\n", f.Root, f.Rank, f.ExitCode, f.Signal, len(f.Traceback))
			}
		}
		for _, l := range e.Lines {
			fmt.Fprintf(&b, "  | %d %.100s\n", l.N, l.Text)
		}
	}
	return b.String()
}
