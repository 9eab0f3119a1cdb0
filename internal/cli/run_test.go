package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestRunPassesStatusAndOutputThrough(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		stdin    string
		code     int
		stdout   string
		stderrIn string
	}{
		{"success is untouched", `printf 'a\000b\n'; printf 'warn\n' >&2`, "", 0, "a\x00b\n", "warn\n"},
		{"exit status", `echo out; exit 42`, "", 42, "out\n", ""},
		{"killed by a signal", `kill -9 $$`, "", 137, "", "was killed by SIGKILL"},
		{"SIGKILL names its usual senders", `kill -9 $$`, "", 137, "", "out-of-memory killer"},
		{"stdin reaches the child", `cat; echo done`, "input\n", 0, "input\ndone\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.stdin, "run", "--", "sh", "-c", tc.script)
			if code != tc.code || stdout != tc.stdout || !strings.Contains(stderr, tc.stderrIn) {
				t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
			}
			if tc.code == 0 && stderr != tc.stderrIn {
				t.Errorf("a successful run's stderr gained %q", strings.TrimPrefix(stderr, tc.stderrIn))
			}
		})
	}
}

func TestRunFlagsAfterTheCommandBelongToIt(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "run", "sh", "-c", `echo "$@"`, "x", "--report", "--no-rerun")
	if code != 0 || stdout != "--report --no-rerun\n" {
		t.Errorf("exit %d stdout %q", code, stdout)
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"run"},
		{"run", "--sanitize", "--no-rerun", "--", "true"},
		{"run", "--tail-size", "lots", "--", "true"},
	} {
		if code, stdout, _ := runCLI(t, "", args...); code != ExitUsage || stdout != "" {
			t.Errorf("%v: exit %d stdout %q", args, code, stdout)
		}
	}
	if code, _, stderr := runCLI(t, "", "run", "--", "cudadoctor-no-such-program"); code != 127 || !strings.Contains(stderr, "cannot run") {
		t.Errorf("missing program: exit %d stderr %q", code, stderr)
	}
}

func TestRunReportFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "train.py")
	path := filepath.Join(dir, "r.json")
	log := "Traceback (most recent call last):\n  File \"" + script + "\", line 2, in <module>\n    y = x @ w\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.18 GiB\n"
	os.WriteFile(filepath.Join(dir, "log"), []byte(log), 0o644)
	code, stdout, stderr := runCLI(t, "", "run", "--report", path, "--", "sh", "-c", "cat "+filepath.Join(dir, "log")+" >&2; exit 1")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "diagnosis written to "+path) {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Command != "run" || rep.Run == nil || rep.Run.ExitCode != 1 || rep.Run.Argv[0] != "sh" || rep.Run.DurationS <= 0 {
		t.Errorf("run section %+v", rep.Run)
	}
	if len(rep.Findings) == 0 || rep.Findings[0].Class != "oom" {
		t.Errorf("findings %+v", rep.Findings)
	}
	if rep.Run.Rerun != nil {
		t.Errorf("an out-of-memory error was re-run: %+v", rep.Run.Rerun)
	}
}

func TestRunMemorySnapshot(t *testing.T) {
	pickle, err := filepath.Abs("../../testdata/gpu/verify/memory/s28_captured_oom.pickle")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	snaps, path := filepath.Join(dir, "snaps"), filepath.Join(dir, "r.json")
	// The child stands in for PyTorch's out-of-memory handler that the
	// capture installs: it writes its snapshot where it is told to.
	script := `[ -f "${PYTHONPATH%%:*}/sitecustomize.py" ] || exit 9
cp "$0" "$CUDADOCTOR_MEMORY_SNAPSHOT_DIR/oom_pid77_1.pickle"
echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB." >&2; exit 1`
	code, _, stderr := runCLI(t, "", "run", "--memory-snapshot", snaps, "--report", path, "--", "sh", "-c", script, pickle)
	if code != 1 || !strings.Contains(stderr, "memory snapshot written to "+filepath.Join(snaps, "oom_pid77_1.pickle")) {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, f := range rep.Findings {
		rules = append(rules, f.Rule)
	}
	if len(rules) < 2 || rules[0] != "oom" || !strings.Contains(strings.Join(rules, " "), "memory/growth") {
		t.Errorf("findings %v; want the output's oom, then the snapshot's memory/growth", rules)
	}
	// SARIF lists the rules that fired, the snapshot's too.
	code, _, stderr = runCLI(t, "", "--format", "sarif", "run", "--memory-snapshot", snaps, "--", "sh", "-c", script, pickle)
	var sarif struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
		}
	}
	body := stderr[strings.Index(stderr, "{"):]
	if err := json.Unmarshal([]byte(body), &sarif); err != nil || len(sarif.Runs) != 1 {
		t.Fatalf("exit %d; no SARIF on stderr (%v): %q", code, err, stderr)
	}
	documented := map[string]bool{}
	for _, r := range sarif.Runs[0].Tool.Driver.Rules {
		documented[r.ID] = true
	}
	for _, id := range rules {
		if !documented[id] {
			t.Errorf("rule %s fired but SARIF does not document it", id)
		}
	}
	if _, err := time.Parse(time.RFC3339, rep.Run.StartedAt); err != nil || !strings.HasSuffix(rep.Run.EndedAt, "Z") {
		t.Errorf("run times %q %q", rep.Run.StartedAt, rep.Run.EndedAt)
	}
}

func TestRunDiagnosisOnStderr(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "run", "--", "sh", "-c",
		`echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB." >&2; exit 1`)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "error[oom]") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestRunReportUnwritableOrStdout(t *testing.T) {
	dir := t.TempDir()
	log := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.18 GiB\n"
	os.WriteFile(filepath.Join(dir, "log"), []byte(log), 0o644)
	child := []string{"--", "sh", "-c", "cat " + filepath.Join(dir, "log") + " >&2; exit 1"}

	// A report that cannot be written: the diagnosis is shown instead.
	code, _, stderr := runCLI(t, "", append([]string{"run", "--report", filepath.Join(dir, "missing", "r.json")}, child...)...)
	if code != 1 || !strings.Contains(stderr, "could not write the report") || !strings.Contains(stderr, "out of memory") {
		t.Errorf("unwritable: exit %d stderr %q", code, stderr)
	}

	// A planted link at the old fixed temporary name is not followed.
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious"), 0o644)
	path := filepath.Join(dir, "r.json")
	os.Symlink(victim, path+".tmp")
	if code, _, stderr := runCLI(t, "", append([]string{"run", "--report", path}, child...)...); code != 1 || !strings.Contains(stderr, "diagnosis written") {
		t.Errorf("planted link: exit %d stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the planted link's target was overwritten: %q", b)
	}

	// --report - is standard output, after the child's own output.
	code, stdout, _ := runCLI(t, "", append([]string{"run", "--report", "-"}, child...)...)
	var rep report.Report
	if code != 1 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Run == nil || rep.Run.ExitCode != 1 {
		t.Errorf("--report -: exit %d stdout %q", code, stdout)
	}
}
