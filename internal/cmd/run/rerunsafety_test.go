package run

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/runner"
)

// asyncFailure is a first run whose asynchronous CUDA error PyTorch raised
// (traceback and note), and asyncAgain its blocking re-run.
var (
	asyncFailure = fakeRun{code: 1, dur: 2 * time.Second, output: "Traceback (most recent call last):\n" +
		"  File \"/w/train.py\", line 5, in <module>\n    x = y.cuda()\n" +
		"torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n" +
		"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"}
	asyncAgain = fakeRun{code: 1, dur: 3 * time.Second, output: "Traceback (most recent call last):\n" +
		"  File \"/w/train.py\", line 4, in <module>\n    h = emb(t)\n" +
		"torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"}
)

func TestRerunCanBeTurnedOffForAWholeJob(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(p string) ([]byte, error) {
			if s, ok := m[p]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		}
	}
	tests := []struct {
		name     string
		env      []string
		files    map[string]string
		wantRuns int
		wantMsg  string
	}{
		{name: "by default it re-runs", wantRuns: 2, wantMsg: "originates at  train.py:4"},
		{name: "CUDADOCTOR_RERUN=0", env: []string{"CUDADOCTOR_RERUN=0"}, wantRuns: 1,
			wantMsg: "the localisation re-run is disabled (CUDADOCTOR_RERUN=0)"},
		{name: "CUDADOCTOR_RERUN=off", env: []string{"CUDADOCTOR_RERUN=off"}, wantRuns: 1, wantMsg: "disabled (CUDADOCTOR_RERUN=off)"},
		{name: "CUDADOCTOR_RERUN=1", env: []string{"CUDADOCTOR_RERUN=1"}, wantRuns: 2, wantMsg: "originates at"},
		{name: "rerun = false in the project's pyproject.toml",
			files:    map[string]string{"/proj/pyproject.toml": "[project]\nname = \"x\"\n\n[tool.cudadoctor.run]\nrerun = false\n"},
			wantRuns: 1, wantMsg: "disabled (rerun = false in [tool.cudadoctor.run] of /proj/pyproject.toml)"},
		{name: "the nearest [tool.cudadoctor] table decides",
			files: map[string]string{
				"/proj/sub/pyproject.toml": "[tool.cudadoctor]\nselect = [\"CD1\"]\n",
				"/proj/pyproject.toml":     "[tool.cudadoctor.run]\nrerun = false\n"},
			wantRuns: 2, wantMsg: "originates at"},
		{name: "a pyproject.toml without the table is passed over",
			files: map[string]string{
				"/proj/sub/pyproject.toml": "[project]\nname = \"x\"\n",
				"/proj/pyproject.toml":     "[tool.cudadoctor.run]\nrerun = false\n"},
			wantRuns: 1, wantMsg: "of /proj/pyproject.toml"},
		{name: "rerun = true", files: map[string]string{"/proj/pyproject.toml": "[tool.cudadoctor.run]\nrerun = true\n"},
			wantRuns: 2, wantMsg: "originates at"},
		{name: "unreadable config means no re-run", files: map[string]string{"/proj/pyproject.toml": "[tool.cudadoctor\n"},
			wantRuns: 1, wantMsg: "not re-running: /proj/pyproject.toml: invalid TOML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness([]string{"python3", "train.py"}, asyncFailure, asyncAgain)
			h.opts.Env = append(h.opts.Env, tc.env...)
			h.opts.Dir = "/proj/sub"
			h.opts.ReadFile = files(tc.files)
			out, err := h.run(t)
			if code := exitCode(t, err); code != 1 {
				t.Errorf("exit %d", code)
			}
			msgs := h.msgs.String()
			if len(h.child.specs) != tc.wantRuns || !strings.Contains(msgs, tc.wantMsg) {
				t.Errorf("%d runs, want %d; messages lack %q:\n%s", len(h.child.specs), tc.wantRuns, tc.wantMsg, msgs)
			}
			if tc.wantRuns == 1 {
				if !strings.Contains(msgs, "to find the line yourself, run: CUDA_LAUNCH_BLOCKING=1 python3 train.py") {
					t.Errorf("no command to run by hand:\n%s", msgs)
				}
				if ri := out.Report.Run.Rerun; ri == nil || ri.Skipped == "" {
					t.Errorf("the report does not say the re-run was skipped: %+v", ri)
				}
				// The fixes do not suggest the re-run just refused.
				rems := out.Report.Findings[0].Remedies
				if len(rems) == 0 || !strings.HasPrefix(rems[0], "cudadoctor did not re-run the command") {
					t.Errorf("first fix: %q", rems)
				}
				for _, r := range rems {
					if strings.Contains(r, "cudadoctor run --") {
						t.Errorf("fix suggests the refused re-run: %q", r)
					}
				}
			}
		})
	}
}

func TestRerunIsAnnouncedBeforeItStarts(t *testing.T) {
	h := newHarness([]string{"python3", "train.py", "--lr", "3e-4"}, asyncFailure, asyncAgain)
	var atSecondStart string
	exec := h.opts.Exec
	h.opts.Exec = func(ctx context.Context, spec runner.Spec) (*runner.Result, error) {
		if len(h.child.specs) == 1 {
			atSecondStart = h.msgs.String()
		}
		return exec(ctx, spec)
	}
	h.run(t)
	want := "cudadoctor: running the command a second time: CUDA_LAUNCH_BLOCKING=1 python3 train.py --lr 3e-4 (its output is not shown; CUDADOCTOR_RERUN=0 or --no-rerun prevent this)\n"
	if len(h.child.specs) != 2 || !strings.Contains(atSecondStart, want) {
		t.Errorf("%d runs; when the re-run started, the messages were:\n%s", len(h.child.specs), atSecondStart)
	}
}

func TestAPrintedCUDAErrorIsNotReRun(t *testing.T) {
	// A command that prints a CUDA error's words (a log being shown, a
	// checker script) without a process that raised it: through the real
	// engine, the error is diagnosed but the command is not run again.
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, output := range []string{
		"RuntimeError: CUDA error: an illegal memory access was encountered\n",
		"step 10 failed\nCUDA error: device-side assert triggered\n",
	} {
		h := newHarness([]string{"sh", "check.sh"}, fakeRun{output: output, code: 1, dur: time.Second}, asyncAgain)
		h.opts.Diagnoser = Engine{E: diagnose.New(k)}
		h.opts.IsAsync = func(id string) bool { c, ok := k.Class(id); return ok && c.Async }
		out, err := h.run(t)
		if code := exitCode(t, err); code != 1 {
			t.Errorf("exit %d", code)
		}
		msgs := h.msgs.String()
		if len(h.child.specs) != 1 || !strings.Contains(msgs, "neither a traceback nor PyTorch's note") {
			t.Errorf("%q: %d runs; messages:\n%s", output, len(h.child.specs), msgs)
		}
		if len(out.Report.Findings) == 0 {
			t.Errorf("%q: no diagnosis", output)
		}
	}
}

func TestSanitizeIsARequestNotVetoed(t *testing.T) {
	// --sanitize on the command line is an explicit request: the job-wide
	// switch does not cancel it, and the announcement says why it runs.
	h := newHarness([]string{"python3", "k.py"}, fakeRun{output: "boom\n", code: 1}, fakeRun{output: "", code: 1})
	h.opts.Sanitize = true
	h.opts.Env = append(h.opts.Env, "CUDADOCTOR_RERUN=0")
	h.opts.LookPath = func(string) (string, error) { return "/usr/local/cuda/bin/compute-sanitizer", nil }
	h.run(t)
	want := "cudadoctor: running the command a second time: PYTORCH_NO_CUDA_MEMORY_CACHING=1 /usr/local/cuda/bin/compute-sanitizer --tool memcheck python3 k.py (its output is not shown; as --sanitize asks)\n"
	if len(h.child.specs) != 2 || !strings.Contains(h.msgs.String(), want) {
		t.Errorf("%d runs; messages:\n%s", len(h.child.specs), h.msgs.String())
	}
}
