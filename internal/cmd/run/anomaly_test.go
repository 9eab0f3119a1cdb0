package run

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func inplaceLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/explain/inplace/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadAnomaly(t *testing.T) {
	a := readAnomaly([]byte(inplaceLog(t, "s22_anomaly.log")))
	if a.write == nil || a.write.Line != 5 || !strings.HasSuffix(a.write.Path, "s22_inplace_autograd.py") {
		t.Errorf("write %+v, want s22_inplace_autograd.py:5", a.write)
	}
	if a.forward == nil || a.forward.Line != 3 || a.node != "SigmoidBackward0" {
		t.Errorf("forward %+v by %q, want line 3 by SigmoidBackward0", a.forward, a.node)
	}
	if a := readAnomaly([]byte(inplaceLog(t, "s22_plain.log"))); a.write != nil || a.forward != nil {
		t.Errorf("a plain log gives %+v", a)
	}
}

func TestInplaceOriginFromAnomalyRerun(t *testing.T) {
	src := "import torch\nx = torch.randn(32, 8, device=\"cuda\", requires_grad=True)\ny = torch.sigmoid(x)\nmask = y > 0.9\ny[mask] = 0  # FAULT\nloss = (y * 3).sum()\nloss.backward()\n"
	h := newHarness([]string{"python3", "/work/scenarios/s22_inplace_autograd.py"},
		fakeRun{output: inplaceLog(t, "s22_plain.log"), code: 1, dur: 2 * time.Second},
		fakeRun{output: inplaceLog(t, "s22_anomaly.log"), code: 1, dur: 3 * time.Second})
	h.opts.ReadFile = func(p string) ([]byte, error) {
		if strings.HasSuffix(p, "s22_inplace_autograd.py") {
			return []byte(src), nil
		}
		return nil, os.ErrNotExist
	}
	out, err := h.run(t)
	if exitCode(t, err) != 1 {
		t.Errorf("exit status %v", err)
	}
	if len(h.child.specs) != 2 {
		t.Fatalf("%d runs; messages:\n%s", len(h.child.specs), h.msgs.String())
	}
	env := h.child.specs[1].Env
	if !contains(env, EnvAnomaly+"=1") || !strings.Contains(strings.Join(env, "\n"), "PYTHONPATH=") {
		t.Errorf("re-run environment lacks the anomaly shim: %v", env)
	}
	f := out.Report.Findings[0]
	if f.Origin == nil || f.Origin.Line != 5 || f.Origin.Code != "y[mask] = 0  # FAULT" {
		t.Errorf("origin %+v, want the in-place write at line 5", f.Origin)
	}
	if f.Reported == nil || f.Reported.Line != 7 {
		t.Errorf("reported %+v, want loss.backward() at line 7", f.Reported)
	}
	if len(f.Related) != 1 || f.Related[0].Location.Line != 3 {
		t.Errorf("related %+v, want the forward call at line 3", f.Related)
	}
	msgs := h.msgs.String()
	for _, w := range []string{
		"re-running once with anomaly detection",
		"running the command a second time: python3 /work/scenarios/s22_inplace_autograd.py",
		"CUDADOCTOR_RERUN=0 or --no-rerun prevent this",
		"reported at    s22_inplace_autograd.py:7",
		"originates at  s22_inplace_autograd.py:5    y[mask] = 0  # FAULT",
	} {
		if !strings.Contains(msgs, w) {
			t.Errorf("messages lack %q:\n%s", w, msgs)
		}
	}
	if strings.Index(msgs, "running the command a second time") > strings.Index(msgs, "originates at") {
		t.Error("the re-run was not announced before it ran")
	}
	if ri := out.Report.Run.Rerun; ri == nil || ri.Mode != ModeAnomaly || ri.Skipped != "" || ri.ExitCode != 1 {
		t.Errorf("rerun info %+v", ri)
	}
}

func TestInplaceRerunRefused(t *testing.T) {
	for name, set := range map[string]func(h *harness){
		"flag": func(h *harness) { h.opts.NoRerun = true },
		"env":  func(h *harness) { h.opts.Env = append(h.opts.Env, RerunEnv+"=0") },
		"job":  func(h *harness) { h.opts.Env = append(h.opts.Env, "WORLD_SIZE=8") },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness([]string{"python3", "train.py"}, fakeRun{output: inplaceLog(t, "s22_plain.log"), code: 1})
			set(h)
			out, _ := h.run(t)
			if len(h.child.specs) != 1 {
				t.Fatalf("%d runs, want 1", len(h.child.specs))
			}
			msgs := h.msgs.String()
			if !strings.Contains(msgs, "set_detect_anomaly(True)") || strings.Contains(msgs, "CUDA_LAUNCH_BLOCKING") {
				t.Errorf("messages:\n%s", msgs)
			}
			if ri := out.Report.Run.Rerun; ri == nil || ri.Mode != ModeAnomaly || ri.Skipped == "" {
				t.Errorf("rerun info %+v", ri)
			}
			if f := out.Report.Findings[0]; f.Origin != nil || f.Reported == nil || f.Reported.Line != 7 {
				t.Errorf("origin %+v reported %+v", f.Origin, f.Reported)
			}
		})
	}
}

func TestAnomalyShimWithAPythonChild(t *testing.T) {
	// The shim in a real interpreter, over a stand-in torch that keeps
	// version counters and a mode stack as torch does: the re-run finds the
	// write (line 5 of inplace.py), the first run is left alone.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	// Installed where torch lives, so its frames read as library frames.
	site := filepath.Join(t.TempDir(), "lib", "python3", "site-packages")
	if err := os.CopyFS(site, os.DirFS("testdata/faketorch")); err != nil {
		t.Fatal(err)
	}
	dir := site
	script := filepath.Join(t.TempDir(), "inplace.py")
	if err := os.Rename(filepath.Join(site, "inplace.py"), script); err != nil {
		t.Fatal(err)
	}
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	var msgs, stdout bytes.Buffer
	out, err := Run(context.Background(), Options{
		Argv: []string{py, script}, Env: append(os.Environ(), "PYTHONPATH="+dir),
		Stdout: &stdout, Stderr: &stdout, SameOutput: true, Messages: &msgs, TailBytes: 1 << 20,
		RerunMaxRuntime: time.Minute, Diagnoser: Engine{E: diagnose.New(k)},
	})
	if code := exitCode(t, err); code != 1 {
		t.Fatalf("exit %d; messages:\n%s", code, msgs.String())
	}
	if strings.Contains(stdout.String(), "in-place write") || strings.Contains(stdout.String(), "Error detected") {
		t.Errorf("the first run was changed:\n%s", stdout.String())
	}
	f := out.Report.Findings[0]
	if f.Class != "autograd-inplace" || f.Origin == nil || f.Origin.Path != script || f.Origin.Line != 5 || f.Origin.Code != "y[mask] = 0  # FAULT" {
		t.Errorf("class %s origin %+v, want %s:5; messages:\n%s", f.Class, f.Origin, script, msgs.String())
	}
	if f.Reported == nil || f.Reported.Line != 7 {
		t.Errorf("reported %+v, want line 7", f.Reported)
	}
	if len(f.Related) != 1 || f.Related[0].Location.Path != script || f.Related[0].Location.Line != 3 {
		t.Errorf("related %+v, want the sigmoid call at line 3", f.Related)
	}
	if !strings.Contains(msgs.String(), "originates at  inplace.py:5") {
		t.Errorf("messages:\n%s", msgs.String())
	}
}
