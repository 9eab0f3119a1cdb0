package cli

import (
	"strings"
	"testing"
)

// TestUsageErrorMessages: each usage error is one line saying what was
// wrong (with a suggestion where there is one) and one hint line pointing at
// the help of the command that was run.
func TestUsageErrorMessages(t *testing.T) {
	for _, c := range []struct {
		args       []string
		error      string
		hint       string
		notInError string
	}{
		{[]string{"explian"}, `unknown command "explian"; did you mean explain?`, "Run 'cudadoctor --help' for usage.", ""},
		{[]string{"rules", "device-assert"}, "did you mean one of device-assert-", "Run 'cudadoctor rules' to list them.", ""},
		{[]string{"rules", "oom-fragmentaton"}, "did you mean oom-fragmentation?", "Run 'cudadoctor rules' to list them.", ""},
		{[]string{"explain", "--no-such-flag"}, "unknown flag: --no-such-flag", "Run 'cudadoctor explain --help' for usage.", ""},
		{[]string{"lint", "--formt", "json"}, "unknown flag: --formt", "Run 'cudadoctor lint --help' for usage.", ""},
		{[]string{"--fail-on", "critical", "explain", "-"}, "(want error, warning, info or never)", "Run 'cudadoctor explain --help' for usage.", ""},
		{[]string{"explain", "--fail-on", "none", "-"}, "(want error, warning, info or never)", "", ""},
		{[]string{"rules", "--format", "sarif"}, "rules has no --format sarif: it prints text, json or markdown", "Run 'cudadoctor rules --help' for usage.", ""},
		{[]string{"rules", "--format", "github", "oom"}, "rules has no --format github", "", ""},
		// run exits with its child's status whatever it finds: --fail-on
		// would do nothing there, so it is not offered.
		{[]string{"run", "--fail-on", "never", "--", "true"}, "unknown flag: --fail-on", "Run 'cudadoctor run --help' for usage.", ""},
		{[]string{"rules", "--fail-on", "never"}, "unknown flag: --fail-on", "", ""},
		{[]string{"--format", "xml", "explain", "-"}, "want text, json, sarif, github or markdown", "", ""},
	} {
		code, stdout, stderr := runCLI(t, "", c.args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, ExitUsage, stderr)
			continue
		}
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if stdout != "" || len(lines) != 2 {
			t.Errorf("%v: want the error and one hint on stderr, nothing on stdout; got stdout %q stderr %q", c.args, stdout, stderr)
			continue
		}
		if !strings.HasPrefix(lines[0], "cudadoctor: ") || !strings.Contains(lines[0], c.error) {
			t.Errorf("%v: error line %q, want it to hold %q", c.args, lines[0], c.error)
		}
		if strings.Contains(lines[0], "--help") {
			t.Errorf("%v: the error line repeats a help hint: %q", c.args, lines[0])
		}
		if c.hint != "" && lines[1] != c.hint {
			t.Errorf("%v: hint %q, want %q", c.args, lines[1], c.hint)
		}
	}
}

func TestFailOnOfferedWhereFindingsDecideTheExit(t *testing.T) {
	for cmd, want := range map[string]bool{"explain": true, "lint": true, "env": true, "memory": true, "run": false, "rules": false} {
		_, out, _ := runCLI(t, "", cmd, "--help")
		if got := strings.Contains(out, "--fail-on"); got != want {
			t.Errorf("%s --help offers --fail-on: %v, want %v", cmd, got, want)
		}
	}
}

func TestRulesFormats(t *testing.T) {
	code, out, stderr := runCLI(t, "", "rules", "--format", "markdown", "device-assert-index")
	if code != 0 || !strings.HasPrefix(out, "# `device-assert-index`: ") || !strings.Contains(out, "Severity: error.") {
		t.Errorf("rules --format markdown ID: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "rules", "--format", "markdown")
	if code != 0 || !strings.HasPrefix(out, "# cudadoctor rules\n") {
		t.Errorf("rules --format markdown: exit %d, stdout starts %.40q", code, out)
	}
	code, out, _ = runCLI(t, "", "rules", "--format", "json", "oom")
	if code != 0 || !strings.Contains(out, `"id": "oom"`) {
		t.Errorf("rules --format json oom: exit %d, stdout %.80q", code, out)
	}
}

// TestCompletions asks cobra's completion entry point, which the shell
// scripts of `cudadoctor completion bash|zsh|fish` call.
func TestCompletions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"rules", "device-assert-i"}, []string{"device-assert-index\t"}, []string{"oom"}},
		{[]string{"rules", "cd1"}, []string{"CD101\t"}, nil},
		{[]string{"explain", "--format", ""}, []string{"text", "json", "sarif", "github", "markdown"}, nil},
		{[]string{"rules", "--format", ""}, []string{"text", "json", "markdown"}, []string{"sarif", "github"}},
		{[]string{"version", "--format", ""}, []string{"text", "json"}, []string{"sarif", "github", "markdown"}},
		{[]string{"lint", "--fail-on", ""}, []string{"error", "warning", "info", "never"}, nil},
		{[]string{"--color", ""}, []string{"auto", "always", "never"}, nil},
		{[]string{"expl"}, []string{"explain\t"}, nil},
	} {
		code, out, stderr := runCLI(t, "", append([]string{"__complete"}, c.args...)...)
		if code != 0 {
			t.Errorf("complete %v: exit %d (%s)", c.args, code, stderr)
			continue
		}
		lines := strings.Split(out, "\n")
		has := func(w string) bool {
			for _, l := range lines {
				if l == w || (strings.HasSuffix(w, "\t") && strings.HasPrefix(l, w)) {
					return true
				}
			}
			return false
		}
		for _, w := range c.want {
			if !has(w) {
				t.Errorf("complete %v: %q missing from %q", c.args, w, out)
			}
		}
		for _, w := range c.not {
			if has(w) {
				t.Errorf("complete %v: %q offered: %q", c.args, w, out)
			}
		}
	}
}
