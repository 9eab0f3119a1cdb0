package run

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{"4MiB": 4 << 20, "512KiB": 512 << 10, "1G": 1 << 30, "100": 100, " 2 MiB": 2 << 20} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0", "-1MiB", "x", "4TiB", "3GiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}

func TestRunInterruptedShowsOnlyErrors(t *testing.T) {
	for _, tc := range []struct {
		sev         report.Severity
		interrupted bool
		shown       bool
	}{
		{report.Warning, true, false}, // Ctrl-C's KeyboardInterrupt traceback
		{report.Error, true, true},
		{report.Warning, false, true},
	} {
		var stderr strings.Builder
		d := &command.Deps{Format: "text", Color: "never", Sys: command.Sys{Stderr: &stderr}}
		rep := report.New("run", "")
		rep.Run = &report.RunInfo{Argv: []string{"python3"}, ExitCode: 130}
		rep.Findings = []report.Finding{{Rule: "other", Class: "other", Severity: tc.sev, Message: "KeyboardInterrupt"}}
		presentRun(d, &Outcome{Report: rep, Failed: true, Interrupted: tc.interrupted}, "")
		if shown := strings.Contains(stderr.String(), "KeyboardInterrupt"); shown != tc.shown {
			t.Errorf("%v interrupted=%v: shown %v, want %v: %q", tc.sev, tc.interrupted, shown, tc.shown, stderr.String())
		}
	}
}
