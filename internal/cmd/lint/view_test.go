package lint

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func lintReport(n int) *report.Report {
	r := report.New("lint", "x")
	for i := 0; i < n; i++ {
		r.Findings = append(r.Findings, report.Finding{Rule: "CD112", Severity: report.Warning, Message: "torch.load without map_location",
			Location: &report.Location{Path: "a.py", Line: 2, Column: 10, Code: "\tstate = torch.load(\"ckpt.pt\")"}})
	}
	return r
}

func TestLintText(t *testing.T) {
	msg := "torch.load without map_location"
	var plain, tty bytes.Buffer
	if err := text(&plain, lintReport(1), render.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := text(&tty, lintReport(1), render.Options{Excerpts: true}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("a.py:2:10: CD112 [warning] "+msg+"\nFound 1 hazard.\n", plain.String()); diff != "" {
		t.Errorf("plain (-want +got)\n%s", diff)
	}
	// On a terminal the line follows, tabs shown as one space, caret under column 10.
	want := "a.py:2:10: CD112 [warning] " + msg + "\n" +
		"      2 |  state = torch.load(\"ckpt.pt\")\n" +
		"        |          ^\n" +
		"Found 1 hazard.\n"
	if diff := cmp.Diff(want, tty.String()); diff != "" {
		t.Errorf("tty (-want +got)\n%s", diff)
	}
}

func TestLintTextCountsAndColour(t *testing.T) {
	for n, want := range map[int]string{0: "All checks passed: no hazards found.\n", 3: "Found 3 hazards.\n"} {
		var b bytes.Buffer
		if err := text(&b, lintReport(n), render.Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), want) {
			t.Errorf("%d findings: output %q does not end with %q", n, b.String(), want)
		}
	}
	var c bytes.Buffer
	if err := text(&c, lintReport(1), render.Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.String(), "\x1b[1;33mCD112\x1b[0m") {
		t.Errorf("a warning's code is not yellow: %q", c.String())
	}
}

// TestLintTextHarmless: escape sequences and carriage returns quoted from a
// source file reach the terminal as visible \xNN text, never as control
// bytes.
func TestLintTextHarmless(t *testing.T) {
	r := report.New("lint", "x")
	r.Findings = []report.Finding{{Rule: "CD113", Severity: report.Warning, Message: "hard-coded device \"cuda:3\x1b]0;pwned\x07\"",
		Location: &report.Location{Path: "a\x1b[2J.py", Line: 1, Column: 1, Code: "x = 1\r\x1b[31mred\u009b"}}}
	var out bytes.Buffer
	if err := text(&out, r, render.Options{Excerpts: true}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u009b"} {
		if strings.Contains(s, bad) {
			t.Errorf("output holds control %q: %q", bad, s)
		}
	}
	for _, shown := range []string{`\x1b]0;pwned\x07`, `a\x1b[2J.py`, `\x0d\x1b[31mred\x9b`} {
		if !strings.Contains(s, shown) {
			t.Errorf("output lacks %q: %q", shown, s)
		}
	}
}
