package memsnap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runShim runs testdata/faketorch/train.py with the capture environment.
// The fake torch package has exactly the hooks the shim uses, so this checks
// the shim's logic with a real interpreter and no GPU.
func runShim(t *testing.T, dir string, environ []string, args ...string) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to test the capture shim: %v", err)
	}
	env, cleanup, err := CaptureEnv(dir, environ)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	script, _ := filepath.Abs("testdata/faketorch/train.py")
	cmd := exec.Command(python, append([]string{script}, args...)...)
	// No bytecode caches: the test must leave the checkout as it found it.
	cmd.Env = append(env, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python failed: %v\n%s", err, out)
	}
	return string(out)
}

func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PYTHONPATH=") && !strings.HasPrefix(kv, "PYTHON") {
			env = append(env, kv)
		}
	}
	return env
}

func TestCaptureShimRecordsOnCUDAInitAndDumpsOnOOM(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	start := time.Now().Add(-time.Second)
	chained, _ := filepath.Abs("testdata/chained")
	out := runShim(t, dir, append(baseEnv(), "PYTHONPATH="+chained), "torch")
	for _, want := range []string{
		"chained True",               // the shadowed sitecustomize still ran
		"torch at start False",       // the shim did not import torch
		"recording before init None", // nor start CUDA at import
		"recording after init 100000 python",
		"done",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "cudadoctor:") {
		t.Errorf("the shim complained:\n%s", out)
	}
	paths, err := FindSnapshots(dir, start)
	if err != nil || len(paths) != 1 || !strings.HasPrefix(filepath.Base(paths[0]), "oom_pid") {
		t.Fatalf("snapshots %v (%v), want one oom_pid*.pickle", paths, err)
	}
	findings, err := AnalyzeFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var oom bool
	for _, f := range findings {
		if f.Rule == RuleOOM && f.Facts["requested_bytes"] == int64(1024) && f.Origin != nil && f.Origin.Line == 3 {
			oom = true
		}
	}
	if !oom {
		t.Errorf("no OOM finding at train.py:3 in %+v", findings)
	}
}

func TestCaptureShimLeavesOtherProgramsAlone(t *testing.T) {
	dir := t.TempDir()
	out := runShim(t, dir, baseEnv())
	if !strings.Contains(out, "torch at start False") || !strings.Contains(out, "done") || strings.Contains(out, "cudadoctor:") {
		t.Errorf("unexpected output:\n%s", out)
	}
	if paths, _ := FindSnapshots(dir, time.Time{}); len(paths) != 0 {
		t.Errorf("snapshots written without torch: %v", paths)
	}
}

func TestCaptureEnvKeepsTheUsersPythonPath(t *testing.T) {
	env, cleanup, err := CaptureEnv(t.TempDir(), []string{"HOME=/h", "PYTHONPATH=/a:/b", EnvSnapshotDir + "=/old"})
	if err != nil {
		t.Fatal(err)
	}
	var pp, dir string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PYTHONPATH="); ok {
			pp = v
		}
		if v, ok := strings.CutPrefix(kv, EnvSnapshotDir+"="); ok {
			if dir != "" {
				t.Errorf("%s set twice", EnvSnapshotDir)
			}
			dir = v
		}
	}
	parts := strings.Split(pp, ":")
	if len(parts) != 3 || parts[1] != "/a" || parts[2] != "/b" {
		t.Errorf("PYTHONPATH %q, want the shim then /a:/b", pp)
	}
	if _, err := os.Stat(filepath.Join(parts[0], "sitecustomize.py")); err != nil {
		t.Errorf("shim missing: %v", err)
	}
	if dir == "/old" || dir == "" {
		t.Errorf("%s = %q", EnvSnapshotDir, dir)
	}
	cleanup()
	if _, err := os.Stat(parts[0]); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s", parts[0])
	}
}
