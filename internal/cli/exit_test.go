package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
)

type codeErr struct{ code int }

func (c codeErr) Error() string { return "child failed" }
func (c codeErr) ExitCode() int { return c.code }

func TestExitCodeTable(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, ExitOK},
		{command.ErrFindings, ExitFindings},
		{&command.UsageError{Err: errors.New("bad flag")}, ExitUsage},
		{errors.New("cannot read x"), ExitFailure},
		{codeErr{137}, 137},
		{codeErr{0}, 0},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--format", "xml", "explain", "-"},
		{"--color", "purple", "explain", "-"},
		{"--fail-on", "fatal", "explain", "-"},
		{"explain", "--no-such-flag"},
		{"no-such-command"},
		{"rules", "a", "b"},
		{"rules", "no-such-rule"},
	} {
		code, _, stderr := runCLI(t, "", args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, ExitUsage, stderr)
		}
		if !strings.HasPrefix(stderr, "cudadoctor: ") {
			t.Errorf("%v: stderr %q lacks the one-line error", args, stderr)
		}
	}
}

func TestMissingFileIsToolFailure(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "explain", filepath.Join(t.TempDir(), "nope.log"))
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d", code, ExitFailure)
	}
	if stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "nope.log") {
		t.Errorf("want one line naming the file on stderr, got stdout %q stderr %q", stdout, stderr)
	}
}

func TestFailOn(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "oom.log")
	text := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 1.00 GiB is free.\n"
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "", "explain", log); code != ExitFindings {
		t.Errorf("default --fail-on error: exit %d, want 1", code)
	}
	if code, _, _ := runCLI(t, "", "--fail-on", "never", "explain", log); code != ExitOK {
		t.Errorf("--fail-on never: exit %d, want 0", code)
	}
	if code, _, stderr := runCLI(t, "", "explain", "-"); code != ExitFailure || !strings.Contains(stderr, "the input is empty") || !strings.Contains(stderr, "2>&1") {
		t.Errorf("empty stdin: exit %d, want 3 with a reminder to pipe stderr; stderr %q", code, stderr)
	}
	if code, _, _ := runCLI(t, "step 1 loss 0.5\n", "explain", "-"); code != ExitOK {
		t.Errorf("a healthy line on stdin: exit %d, want 0", code)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, stdout, _ := runCLI(t, "", args...)
		lines := strings.Split(stdout, "\n")
		if code != 0 || lines[0] != "cudadoctor "+Version || !strings.Contains(stdout, "\ncommit:  ") || !strings.Contains(stdout, "\ngo:      go1.") {
			t.Errorf("%v: exit %d, stdout %q", args, code, stdout)
		}
	}
}
