package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/runner"
	"github.com/cudadoctor/cudadoctor/internal/shellquote"
)

const fixtures = "../../../testdata/gpu"

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "logs/h100", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeChild replays scripted runs: the output goes through OnLine and the
// tail exactly as the runner would hand it over.
type fakeChild struct {
	runs  []fakeRun
	specs []runner.Spec
}

type fakeRun struct {
	output     string
	code       int
	signal     syscall.Signal
	dur        time.Duration
	timedOut   bool
	interrupts int
	startErr   error
	writeErr   error
}

func (f *fakeChild) exec(ctx context.Context, spec runner.Spec) (*runner.Result, error) {
	i := len(f.specs)
	f.specs = append(f.specs, spec)
	if i >= len(f.runs) {
		return nil, errors.New("unexpected extra run")
	}
	r := f.runs[i]
	if r.startErr != nil {
		return nil, r.startErr
	}
	if spec.Stdout != nil {
		spec.Stdout.Write([]byte(r.output))
	}
	n := 0
	for _, l := range strings.SplitAfter(r.output, "\n") {
		if l == "" {
			continue
		}
		n++
		line := []byte(strings.TrimSuffix(l, "\n"))
		if spec.OnLine != nil && matchesAny(line, spec.LineFilter) {
			spec.OnLine(line, n)
		}
	}
	return &runner.Result{ExitCode: r.code, Signal: r.signal, Duration: r.dur, TimedOut: r.timedOut,
		Interrupts: r.interrupts, Tail: []byte(r.output), OutputBytes: int64(len(r.output)), Lines: n, WriteErr: r.writeErr}, nil
}

// fakeEngine stands in for the explain engine: it names a class by a
// keyword and, like the engine, puts the traceback's frame in Reported when
// PyTorch says the error may be asynchronous, in Origin otherwise.
type fakeEngine struct {
	calls []string
	err   error
	panic bool
}

func (e *fakeEngine) Diagnose(ctx context.Context, name string, out []byte) ([]report.Finding, error) {
	e.calls = append(e.calls, name)
	if e.panic {
		panic("boom")
	}
	if e.err != nil {
		return nil, e.err
	}
	s := string(out)
	class := ""
	switch {
	case strings.Contains(s, "srcIndex < srcSelectDimSize"), strings.Contains(s, "index out of bounds"):
		class = "device-assert-index"
	case strings.Contains(s, "n_classes"):
		class = "device-assert-target"
	case strings.Contains(s, "input_val >= zero"), strings.Contains(s, "probability tensor"), strings.Contains(s, "cumdist"):
		class = "device-assert-range"
	case strings.Contains(s, "misaligned address"):
		class = "misaligned-address"
	case strings.Contains(s, "illegal memory access"), strings.Contains(s, "address space"), strings.Contains(s, "unspecified launch failure"):
		class = "illegal-address"
	case strings.Contains(s, "out of memory"):
		class = "oom"
	case strings.Contains(s, "device-side assert"):
		class = "device-assert-other"
	case strings.Contains(s, "modified by an inplace operation"):
		class = "autograd-inplace"
	default:
		return nil, nil
	}
	f := report.Finding{Rule: class, Class: class, Severity: report.Error, Message: class}
	if loc := lastUserFrame(out); loc != nil {
		if strings.Contains(s, "asynchronously reported") || class == "autograd-inplace" {
			f.Reported = loc
		} else {
			f.Origin = loc
		}
	}
	return []report.Finding{f}, nil
}

var asyncClasses = map[string]bool{"device-assert-index": true, "device-assert-target": true, "device-assert-range": true,
	"device-assert-other": true, "illegal-address": true, "misaligned-address": true}

type harness struct {
	child  *fakeChild
	engine *fakeEngine
	msgs   bytes.Buffer
	stdout bytes.Buffer
	opts   Options
}

func newHarness(argv []string, runs ...fakeRun) *harness {
	h := &harness{child: &fakeChild{runs: runs}, engine: &fakeEngine{}}
	h.opts = Options{
		Argv: argv, Env: []string{"PATH=/usr/bin", "HOME=/home/u"},
		Stdout: &h.stdout, Messages: &h.msgs,
		RerunMaxRuntime: 10 * time.Minute,
		Diagnoser:       h.engine,
		IsAsync:         func(c string) bool { return asyncClasses[c] },
		Exec:            h.child.exec,
		Hostname:        func() (string, error) { return "node-a", nil },
		Pid:             4242,
		ReadFile:        func(string) ([]byte, error) { return nil, os.ErrNotExist },
	}
	return h
}

func (h *harness) run(t *testing.T) (*Outcome, error) {
	t.Helper()
	out, err := Run(context.Background(), h.opts)
	return out, err
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("error %v is not an ExitError", err)
	}
	return ee.ExitCode()
}

// manifestEntry is one log of the GPU fixtures' manifest.json.
type manifestEntry struct {
	Log, Scenario, Mode, Class string
	FaultLine                  int `json:"fault_line"`
	LastReported               int `json:"last_reported_line"`
	ExitCode                   int `json:"exit_code"`
}

func loadManifest(t *testing.T) []manifestEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest []manifestEntry
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	return manifest
}

func TestLocalisesAsynchronousErrors(t *testing.T) {
	// Every scenario whose failure our H100 reported away from its origin,
	// replayed: plain output first, CUDA_LAUNCH_BLOCKING=1 output on re-run.
	manifest := loadManifest(t)
	tested := 0
	for _, e := range manifest {
		if e.Mode != "plain" || !asyncClasses[e.Class] || !strings.Contains(e.Log, "h100") {
			continue
		}
		blocking := strings.Replace(e.Log, ".plain.", ".blocking.", 1)
		if _, err := os.Stat(filepath.Join(fixtures, blocking)); err != nil {
			continue
		}
		tested++
		t.Run(e.Scenario, func(t *testing.T) {
			h := newHarness([]string{"python3", e.Scenario + ".py"},
				fakeRun{output: fixture(t, filepath.Base(e.Log)), code: e.ExitCode, dur: 5 * time.Second},
				fakeRun{output: fixture(t, filepath.Base(blocking)), code: e.ExitCode, dur: 6 * time.Second})
			out, err := h.run(t)
			if code := exitCode(t, err); code != e.ExitCode {
				t.Errorf("exit %d, want %d", code, e.ExitCode)
			}
			if len(h.child.specs) != 2 {
				t.Fatalf("%d runs, want 2; messages:\n%s", len(h.child.specs), h.msgs.String())
			}
			re := h.child.specs[1]
			if !contains(re.Env, "CUDA_LAUNCH_BLOCKING=1") || re.Stdout != nil || re.Stdin != nil || re.Timeout <= 0 || !re.KillGroupOnExit {
				t.Errorf("re-run spec: env has blocking %v, stdout %v, timeout %v", contains(re.Env, "CUDA_LAUNCH_BLOCKING=1"), re.Stdout, re.Timeout)
			}
			f := out.Report.Findings[0]
			if f.Origin == nil || f.Origin.Line != e.FaultLine || !strings.HasSuffix(f.Origin.Path, e.Scenario+".py") || f.Origin.Code == "" {
				t.Errorf("origin %+v, want line %d", f.Origin, e.FaultLine)
			}
			// The origin is confirmed: no fix may still send the user to
			// re-run for it, and the first names the line found.
			for _, r := range f.Remedies {
				if strings.Contains(r, "cudadoctor run --") || strings.Contains(r, "CUDA_LAUNCH_BLOCKING") || strings.Contains(r, "probably not where") {
					t.Errorf("moot re-run advice after a confirmed origin: %q", r)
				}
			}
			if f.Reported != nil && (len(f.Remedies) == 0 || !strings.Contains(f.Remedies[0], e.Scenario+".py:"+itoa(e.FaultLine))) {
				t.Errorf("first fix does not name the origin: %q", f.Remedies)
			}
			msgs := h.msgs.String()
			if e.LastReported != e.FaultLine {
				if f.Reported == nil || f.Reported.Line != e.LastReported {
					t.Errorf("reported %+v, want line %d", f.Reported, e.LastReported)
				}
				for _, want := range []string{
					"re-running once with CUDA_LAUNCH_BLOCKING=1",
					"reported at    " + e.Scenario + ".py:" + itoa(e.LastReported),
					"originates at  " + e.Scenario + ".py:" + itoa(e.FaultLine),
				} {
					if !strings.Contains(msgs, want) {
						t.Errorf("messages lack %q:\n%s", want, msgs)
					}
				}
			} else if f.Reported != nil || !strings.Contains(msgs, "confirms the origin") {
				t.Errorf("reported %+v; messages:\n%s", f.Reported, msgs)
			}
			ri := out.Report.Run.Rerun
			if ri == nil || ri.Mode != ModeBlocking || ri.ExitCode != e.ExitCode || ri.DurationS != 6 || ri.Skipped != "" {
				t.Errorf("rerun info %+v", ri)
			}
			if h.stdout.String() != fixture(t, filepath.Base(e.Log)) {
				t.Error("stdout holds more than the first run's output")
			}
		})
	}
	if tested < 5 {
		t.Errorf("only %d scenarios replayed", tested)
	}
}

func TestRerunDecisionTable(t *testing.T) {
	plain := "Traceback (most recent call last):\n  File \"/w/train.py\", line 5, in <module>\n    x = y.cuda()\ntorch.AcceleratorError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	blocking := "Traceback (most recent call last):\n  File \"/w/train.py\", line 4, in <module>\n    h = emb(t)\ntorch.AcceleratorError: CUDA error: device-side assert triggered\n"
	oom := "Traceback (most recent call last):\n  File \"/w/train.py\", line 9, in <module>\n    y = m(x)\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
	fail := fakeRun{output: plain, code: 1, dur: 3 * time.Second}
	again := fakeRun{output: blocking, code: 1, dur: 4 * time.Second}
	tests := []struct {
		name      string
		argv      []string
		env       []string
		runs      []fakeRun
		mod       func(*Options)
		wantRuns  int
		wantMsg   []string
		noMsg     []string
		wantSkip  string
		wantTimed bool
	}{
		{name: "healthy exit", runs: []fakeRun{{output: "ok\n", code: 0}}, wantRuns: 1, noMsg: []string{"cudadoctor"}},
		{name: "asynchronous class reruns", runs: []fakeRun{fail, again}, wantRuns: 2, wantMsg: []string{"originates at  train.py:4"}},
		{name: "synchronous class does not rerun", runs: []fakeRun{{output: oom, code: 1}}, wantRuns: 1, noMsg: []string{"re-run"}},
		{name: "failure without diagnosis does not rerun", runs: []fakeRun{{output: "segfault\n", code: 139, signal: syscall.SIGSEGV}}, wantRuns: 1, noMsg: []string{"re-run"}},
		{name: "first run too long", runs: []fakeRun{{output: plain, code: 1, dur: 3 * time.Hour}}, wantRuns: 1,
			wantMsg:  []string{"took 3h0m0s, more than --rerun-max-runtime 10m0s", "run: CUDA_LAUNCH_BLOCKING=1 python3 train.py"},
			wantSkip: "more than --rerun-max-runtime"},
		{name: "--no-rerun", runs: []fakeRun{fail}, mod: func(o *Options) { o.NoRerun = true }, wantRuns: 1,
			wantMsg: []string{"disabled (--no-rerun)", "CUDA_LAUNCH_BLOCKING=1 python3 train.py"}, wantSkip: "--no-rerun"},
		{name: "already blocking", env: []string{"CUDA_LAUNCH_BLOCKING=1"}, runs: []fakeRun{fail}, wantRuns: 1,
			wantMsg: []string{"already set"}},
		{name: "interrupted", runs: []fakeRun{{output: plain, code: 130, interrupts: 1}}, wantRuns: 1, wantMsg: []string{"interrupted"}},
		{name: "reader went away (| head)", runs: []fakeRun{{output: "y\ny\n", code: 141, signal: syscall.SIGPIPE, writeErr: syscall.EPIPE}},
			wantRuns: 1, noMsg: []string{"cudadoctor"}},
		{name: "interrupted with nothing to localise says nothing", runs: []fakeRun{{output: "epoch 3\n", code: 130, interrupts: 1}},
			wantRuns: 1, noMsg: []string{"cudadoctor"}},
		{name: "one process of a larger job", env: []string{"WORLD_SIZE=8", "RANK=3"}, runs: []fakeRun{fail}, wantRuns: 1,
			wantMsg: []string{"8-process job"}, wantSkip: "8-process job"},
		{name: "multi-node torchrun", argv: []string{"torchrun", "--nnodes", "4", "--nproc-per-node=8", "train.py"}, runs: []fakeRun{fail}, wantRuns: 1,
			wantMsg: []string{"spans several nodes (--nnodes 4)"}},
		{name: "single-node torchrun reruns with a timeout", argv: []string{"torchrun", "--standalone", "--nproc_per_node=2", "train.py"},
			runs: []fakeRun{fail, again}, wantRuns: 2, wantTimed: true, wantMsg: []string{"stops after 1m6s"}},
		{name: "python -m torch.distributed.run", argv: []string{"python3", "-m", "torch.distributed.run", "--nnodes=2", "train.py"},
			runs: []fakeRun{fail}, wantRuns: 1, wantMsg: []string{"--nnodes 2"}},
		{name: "rerun succeeds", runs: []fakeRun{fail, {output: "ok\n", code: 0}}, wantRuns: 2, wantMsg: []string{"did not reproduce"}},
		{name: "rerun times out", runs: []fakeRun{fail, {output: "", code: 143, timedOut: true}}, wantRuns: 2, wantMsg: []string{"did not finish within"}},
		{name: "rerun cannot start", runs: []fakeRun{fail, {startErr: errors.New("fork failed")}}, wantRuns: 2, wantMsg: []string{"could not start"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv := tc.argv
			if argv == nil {
				argv = []string{"python3", "train.py"}
			}
			h := newHarness(argv, tc.runs...)
			h.opts.Env = append(h.opts.Env, tc.env...)
			if tc.mod != nil {
				tc.mod(&h.opts)
			}
			out, err := h.run(t)
			if code := exitCode(t, err); code != tc.runs[0].code {
				t.Errorf("exit %d, want the child's %d", code, tc.runs[0].code)
			}
			if len(h.child.specs) != tc.wantRuns {
				t.Errorf("%d runs, want %d; messages:\n%s", len(h.child.specs), tc.wantRuns, h.msgs.String())
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(h.msgs.String(), w) {
					t.Errorf("messages lack %q:\n%s", w, h.msgs.String())
				}
			}
			for _, w := range tc.noMsg {
				if strings.Contains(h.msgs.String(), w) {
					t.Errorf("messages hold %q:\n%s", w, h.msgs.String())
				}
			}
			if tc.wantSkip != "" {
				ri := out.Report.Run.Rerun
				if ri == nil || !strings.Contains(ri.Skipped, tc.wantSkip) {
					t.Errorf("rerun info %+v, want skipped %q", ri, tc.wantSkip)
				}
			}
			if tc.wantTimed && (len(h.child.specs) < 2 || h.child.specs[1].Timeout != 2*3*time.Second+time.Minute) {
				t.Errorf("re-run without the expected timeout")
			}
		})
	}
}

func TestDistributedNamesTheFirstFailedRank(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(fixtures, "logs/h200x2/n2_rank_crash.plain.log"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness([]string{"torchrun", "--standalone", "--nproc-per-node=2", "n2_rank_crash.py"},
		fakeRun{output: string(b), code: 1, dur: 20 * time.Second}, fakeRun{output: string(b), code: 1})
	h.opts.NoRerun = true
	out, _ := h.run(t)
	if !strings.Contains(h.msgs.String(), "rank 1 failed first") {
		t.Errorf("messages:\n%s", h.msgs.String())
	}
	if f := out.Report.Findings; len(f) == 0 || f[0].Rank == nil || *f[0].Rank != 1 {
		t.Errorf("findings %+v, want the first on rank 1", f)
	}
}

func TestSanitizeNamesKernelAndLaunch(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s09_triton_illegal.py")
	src, err := os.ReadFile(filepath.Join(fixtures, "scenarios/s09_triton_illegal.py"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(script, src, 0o644)
	h := newHarness([]string{"python3", script},
		fakeRun{output: fixture(t, "s09_triton_illegal.plain.log"), code: 1, dur: 6 * time.Second},
		fakeRun{output: fixture(t, "s09_triton_illegal.sanitizer.log"), code: 1, dur: 60 * time.Second})
	h.opts.Sanitize = true
	h.opts.ReadFile = os.ReadFile
	h.opts.LookPath = func(p string) (string, error) {
		if p == "/usr/local/cuda/bin/compute-sanitizer" {
			return p, nil
		}
		return "", errors.New("not found")
	}
	out, err := h.run(t)
	if exitCode(t, err) != 1 {
		t.Errorf("exit %v", err)
	}
	if len(h.child.specs) != 2 {
		t.Fatalf("%d runs", len(h.child.specs))
	}
	re := h.child.specs[1]
	wantArgv := []string{"/usr/local/cuda/bin/compute-sanitizer", "--tool", "memcheck", "python3", script}
	if diff := cmp.Diff(wantArgv, re.Argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	if !contains(re.Env, "PYTORCH_NO_CUDA_MEMORY_CACHING=1") {
		t.Error("caching allocator left on")
	}
	f := out.Report.Findings[0]
	for k, want := range map[string]any{"kernel": "scale_kernel", "kernel_source": "s09_triton_illegal.py:9",
		"access": "write", "access_size": 4, "out_of_bounds_bytes": int64(4055907841), "sanitizer_errors": 386} {
		if got := f.Facts[k]; got != want {
			t.Errorf("fact %s = %v (%T), want %v", k, got, got, want)
		}
	}
	if f.Origin == nil || f.Origin.Line != 13 || f.Origin.Path != script || !strings.Contains(f.Origin.Code, "scale_kernel[(4,)]") {
		t.Errorf("origin %+v", f.Origin)
	}
	if f.Reported == nil || f.Reported.Line != 14 {
		t.Errorf("reported %+v", f.Reported)
	}
	if len(f.Related) == 0 || f.Related[0].Location == nil || f.Related[0].Location.Line != 9 ||
		f.Related[0].Location.Code != "tl.store(dst + offs * stride, vals * 2.0)  # bug: strided store, no mask" {
		t.Errorf("related %+v", f.Related)
	}
	msgs := h.msgs.String()
	for _, w := range []string{"kernel scale_kernel at s09_triton_illegal.py:9", "4,055,907,841 bytes after", "originates at  s09_triton_illegal.py:13"} {
		if !strings.Contains(msgs, w) {
			t.Errorf("messages lack %q:\n%s", w, msgs)
		}
	}
	if ri := out.Report.Run.Rerun; ri == nil || ri.Mode != ModeSanitizer || ri.DurationS != 60 {
		t.Errorf("rerun %+v", ri)
	}
}

func TestSanitizerMissing(t *testing.T) {
	h := newHarness([]string{"python3", "k.py"}, fakeRun{output: "boom\n", code: 1})
	h.opts.Sanitize = true
	h.opts.LookPath = func(string) (string, error) { return "", errors.New("no") }
	out, err := h.run(t)
	if exitCode(t, err) != 1 || len(h.child.specs) != 1 {
		t.Fatalf("exit %v runs %d", err, len(h.child.specs))
	}
	if !strings.Contains(h.msgs.String(), "compute-sanitizer not found") || out.Report.Run.Rerun.Skipped == "" {
		t.Errorf("messages:\n%s", h.msgs.String())
	}
}

func TestDiagnosisProblemsKeepTheExitStatus(t *testing.T) {
	for _, e := range []*fakeEngine{{err: errors.New("engine broke")}, {panic: true}} {
		h := newHarness([]string{"python3", "t.py"}, fakeRun{output: "x\n", code: 7})
		h.opts.Diagnoser = e
		_, err := h.run(t)
		if exitCode(t, err) != 7 {
			t.Errorf("exit %v", err)
		}
		if !strings.Contains(h.msgs.String(), "could not diagnose") {
			t.Errorf("messages:\n%s", h.msgs.String())
		}
	}
}

func TestStartErrorExitStatus(t *testing.T) {
	h := newHarness([]string{"nope"}, fakeRun{startErr: &runner.StartError{Argv0: "nope", Code: 127, Err: errors.New("not found")}})
	_, err := h.run(t)
	if exitCode(t, err) != 127 || !strings.Contains(h.msgs.String(), "cannot run nope") {
		t.Errorf("err %v, messages %q", err, h.msgs.String())
	}
}

func TestHealthyRunIsNotDiagnosed(t *testing.T) {
	h := newHarness([]string{"python3", "ok.py"}, fakeRun{output: "CUDA error: just a print\n", code: 0})
	out, err := h.run(t)
	if err != nil || len(h.engine.calls) != 0 || h.msgs.Len() != 0 || len(out.Report.Findings) != 0 || out.Failed {
		t.Errorf("err %v, diagnoses %d, messages %q", err, len(h.engine.calls), h.msgs.String())
	}
}

func TestReportDir(t *testing.T) {
	dir := t.TempDir()
	out := "[rank0]: ok\n[rank1]: Traceback (most recent call last):\n[rank1]: RuntimeError: x\n"
	h := newHarness([]string{"torchrun", "--nproc-per-node=2", "t.py"}, fakeRun{output: out, code: 1, dur: time.Second})
	h.opts.ReportDir = filepath.Join(dir, "reports")
	h.run(t)
	path := filepath.Join(dir, "reports", "cudadoctor-node-a-ranks0-1-4242.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; messages:\n%s", err, h.msgs.String())
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Command != "run" || rep.Run.Host != "node-a" || !cmp.Equal(rep.Run.Ranks, []int{0, 1}) || rep.Run.ExitCode != 1 {
		t.Errorf("report %+v", rep.Run)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "reports")); len(entries) != 1 {
		t.Errorf("%d files: a temporary file was left", len(entries))
	}

	// A rank's own wrapper names its rank from the environment.
	h = newHarness([]string{"python3", "t.py"}, fakeRun{output: "ok\n", code: 0})
	h.opts.Env = append(h.opts.Env, "RANK=5", "WORLD_SIZE=8")
	h.opts.ReportDir = dir
	h.run(t)
	if _, err := os.Stat(filepath.Join(dir, "cudadoctor-node-a-rank5-4242.json")); err != nil {
		t.Error(err)
	}
}

// Under Slurm each task's wrapper names the node as Slurm does and its rank
// from SLURM_PROCID, in the file name and in the findings, so that the
// reports of one job merged by `explain DIR` say which task failed.
func TestReportDirUnderSlurm(t *testing.T) {
	dir := t.TempDir()
	out := "Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n" +
		"torch.AcceleratorError: CUDA error: device-side assert triggered\n" +
		"CUDA kernel errors might be asynchronously reported at some other API call\n"
	slurm := []string{"SLURM_PROCID=1", "SLURM_NTASKS=2", "SLURMD_NODENAME=gpu-a17"}
	h := newHarness([]string{"python3", "t.py"}, fakeRun{output: out, code: 1, dur: time.Second})
	h.opts.Env = append(h.opts.Env, slurm...)
	h.opts.ReportDir = dir
	o, err := h.run(t)
	if code := exitCode(t, err); code != 1 {
		t.Errorf("exit %d, want the task's 1", code)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cudadoctor-gpu-a17-rank1-4242.json"))
	if err != nil {
		t.Fatalf("%v; messages:\n%s", err, h.msgs.String())
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Run.Host != "gpu-a17" || !cmp.Equal(rep.Run.Ranks, []int{1}) {
		t.Errorf("run host %q ranks %v, want gpu-a17 [1]", rep.Run.Host, rep.Run.Ranks)
	}
	for _, fs := range [][]report.Finding{rep.Findings, o.Report.Findings} {
		if len(fs) != 1 || fs[0].Rank == nil || *fs[0].Rank != 1 {
			t.Fatalf("findings %+v, want one of rank 1", fs)
		}
	}

	// A finding that names its rank keeps it.
	h = newHarness([]string{"python3", "t.py"}, fakeRun{output: out, code: 1, dur: time.Second})
	h.opts.Env = append(h.opts.Env, "RANK=3")
	fs := []report.Finding{{Rank: report.IntPtr(0)}, {}}
	h.opts.stampRank(fs)
	if *fs[0].Rank != 0 || fs[1].Rank == nil || *fs[1].Rank != 3 {
		t.Errorf("ranks %v %v, want 0 and 3", fs[0].Rank, fs[1].Rank)
	}

	// A torchrun started once per node: SLURM_PROCID numbers the node, and
	// the ranks are its children's, from its output.
	h = newHarness([]string{"torchrun", "--nproc-per-node=2", "t.py"}, fakeRun{output: "[rank3]: " + strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", "\n[rank3]: ") + "\n", code: 1, dur: time.Second})
	h.opts.Env = append(h.opts.Env, slurm...)
	h.opts.ReportDir = dir
	o, _ = h.run(t)
	if _, err := os.Stat(filepath.Join(dir, "cudadoctor-gpu-a17-rank3-4242.json")); err != nil {
		entries, _ := os.ReadDir(dir)
		t.Errorf("%v; the directory holds %v", err, entries)
	}
	for _, f := range o.Report.Findings {
		if f.Rank != nil && *f.Rank == 1 {
			t.Errorf("a launcher's finding was given the node's SLURM_PROCID: %+v", f)
		}
	}

	// Outside Slurm the host name is used.
	h = newHarness([]string{"python3", "t.py"}, fakeRun{output: "ok\n", code: 0})
	h.opts.Env = append(h.opts.Env, "RANK=2")
	h.opts.ReportDir = dir
	h.run(t)
	if _, err := os.Stat(filepath.Join(dir, "cudadoctor-node-a-rank2-4242.json")); err != nil {
		t.Error(err)
	}
}

func TestReportName(t *testing.T) {
	for _, tc := range []struct {
		host  string
		ranks []int
		want  string
	}{
		{"gpu01", nil, "cudadoctor-gpu01-7.json"},
		{"gpu01", []int{3}, "cudadoctor-gpu01-rank3-7.json"},
		{"gpu01.cluster", []int{8, 9, 10, 11}, "cudadoctor-gpu01.cluster-ranks8-11-7.json"},
		{"a/b c", []int{0, 2}, "cudadoctor-a_b_c-ranks0_2-7.json"},
	} {
		if got := reportName(tc.host, tc.ranks, 7); got != tc.want {
			t.Errorf("reportName(%q, %v) = %q, want %q", tc.host, tc.ranks, got, tc.want)
		}
	}
}

func TestLauncherDetection(t *testing.T) {
	for _, tc := range []struct {
		argv  []string
		dist  bool
		nodes string
	}{
		{[]string{"torchrun", "--nnodes=2", "t.py"}, true, "2"},
		{[]string{"/usr/bin/torchrun", "--standalone", "--nproc_per_node", "8", "t.py", "--nnodes", "9"}, true, ""},
		{[]string{"python3", "-m", "torch.distributed.run", "--nnodes", "1:4", "t.py"}, true, "1:4"},
		{[]string{"python", "-u", "-m", "torch.distributed.launch", "t.py"}, true, ""},
		{[]string{"python3", "train.py", "-m", "torch.distributed.run"}, false, ""},
		{[]string{"python3", "-m", "pytest"}, false, ""},
	} {
		if got := isDistributedLauncher(tc.argv); got != tc.dist {
			t.Errorf("%v: distributed %v", tc.argv, got)
		}
		if tc.dist {
			if got := launcherNodes(tc.argv); got != tc.nodes {
				t.Errorf("%v: nodes %q, want %q", tc.argv, got, tc.nodes)
			}
		}
	}
}

func TestShellQuote(t *testing.T) {
	got := shellquote.Join([]string{"CUDA_LAUNCH_BLOCKING=1", "python3", "train.py", "--name", "my run", "it's", ""})
	want := `CUDA_LAUNCH_BLOCKING=1 python3 train.py --name 'my run' 'it'\''s' ''`
	if got != want {
		t.Errorf("got %s", got)
	}
}

func TestPinnedLinesSurviveADroppedTail(t *testing.T) {
	sc := newScanner()
	sc.line([]byte("IndexKernel.cu:111: Assertion `idx < n` failed."), 1)
	tail := []byte("step\nstep\n")
	got := string(sc.diagnosisInput(tail, 5000, 1001))
	if !strings.HasPrefix(got, "IndexKernel.cu:111: Assertion") || !strings.HasSuffix(got, "step\nstep\n") {
		t.Errorf("input %q", got)
	}
	if string(sc.diagnosisInput(tail, 0, 1001)) != string(tail) {
		t.Error("nothing was dropped, yet the input changed")
	}
	if string(sc.diagnosisInput([]byte("IndexKernel.cu:111: Assertion `idx < n` failed.\nstep\n"), 10, 2)) != "IndexKernel.cu:111: Assertion `idx < n` failed.\nstep\n" {
		t.Error("a pinned line still in the tail was repeated")
	}
}

func TestScannerSeesOnlyWhatItNeeds(t *testing.T) {
	// Every pattern of the scanner must survive the keyword filter.
	for _, l := range []string{
		"CUDA kernel errors might be asynchronously reported at some other API call",
		"torch.AcceleratorError: CUDA error: device-side assert triggered",
		"[rank1]: Traceback (most recent call last):",
		"Root Cause (first observed failure):",
		"  rank      : 1 (local_rank: 1)",
		"========= Invalid __global__ write of size 4 bytes",
		"NCCL WARN Cuda failure 'an illegal memory access was encountered'",
	} {
		if !matchesAny([]byte(l), scanKeywords) {
			t.Errorf("filtered out: %q", l)
		}
	}
}

func TestLastUserFrame(t *testing.T) {
	got := lastUserFrame([]byte(fixture(t, "s10_cupy_misaligned.plain.log")))
	if got == nil || got.Line != 13 || got.Code != `h = torch.randn(256, 256, device="cuda")` {
		t.Errorf("s10 plain: %+v", got)
	}
	got = lastUserFrame([]byte(fixture(t, "s03_ce_target_oob.blocking.log")))
	if got == nil || got.Line != 6 || !strings.HasSuffix(got.Path, "s03_ce_target_oob.py") {
		t.Errorf("s03 blocking: %+v", got)
	}
	if lastUserFrame([]byte("no traceback here")) != nil {
		t.Error("frame from nothing")
	}
}

func matchesAny(line []byte, keywords []string) bool {
	if keywords == nil {
		return true
	}
	for _, k := range keywords {
		if bytes.Contains(line, []byte(k)) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }

func lookupEnv(env []string, key string) (string, bool) {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

func TestMemorySnapshotIsCapturedOnceAndAnalysed(t *testing.T) {
	snapshot, err := os.ReadFile(filepath.Join(fixtures, "verify/memory/s28_captured_oom.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	oom := "Traceback (most recent call last):\n  File \"/w/leak.py\", line 6, in <module>\n    y = x @ x\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB.\n"
	assert := "Traceback (most recent call last):\n  File \"/w/train.py\", line 9, in <module>\n    loss.item()\ntorch.AcceleratorError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	for _, tc := range []struct {
		name      string
		runs      []fakeRun
		write     bool // the child writes a snapshot
		wantRules bool
	}{
		{"oom writes a snapshot", []fakeRun{{output: oom, code: 1, dur: time.Second}}, true, true},
		{"no snapshot written", []fakeRun{{output: oom, code: 1, dur: time.Second}}, false, false},
		{"the re-run does not capture", []fakeRun{{output: assert, code: 1, dur: time.Second}, {output: assert, code: 1, dur: time.Second}}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// A snapshot of an earlier run is not this run's.
			old := filepath.Join(dir, "oom_pid1_1.pickle")
			if err := os.WriteFile(old, []byte("not a snapshot"), 0o644); err != nil {
				t.Fatal(err)
			}
			hourAgo := time.Now().Add(-time.Hour)
			if err := os.Chtimes(old, hourAgo, hourAgo); err != nil {
				t.Fatal(err)
			}
			h := newHarness([]string{"python3", "leak.py"}, tc.runs...)
			h.opts.MemorySnapshot = dir
			var shims []string
			h.opts.Exec = func(ctx context.Context, spec runner.Spec) (*runner.Result, error) {
				if got, ok := lookupEnv(spec.Env, "CUDADOCTOR_MEMORY_SNAPSHOT_DIR"); ok {
					if got != dir {
						t.Errorf("snapshot dir %q, want %q", got, dir)
					}
					pp, _ := lookupEnv(spec.Env, "PYTHONPATH")
					shim := strings.Split(pp, string(os.PathListSeparator))[0]
					if _, err := os.Stat(filepath.Join(shim, "sitecustomize.py")); err != nil {
						t.Errorf("no capture shim on PYTHONPATH %q: %v", pp, err)
					}
					shims = append(shims, shim)
					if tc.write {
						if err := os.WriteFile(filepath.Join(dir, "oom_pid457_1.pickle"), snapshot, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
				return h.child.exec(ctx, spec)
			}
			out, err := h.run(t)
			if code := exitCode(t, err); code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			if len(h.child.specs) != len(tc.runs) {
				t.Fatalf("%d runs, want %d; messages:\n%s", len(h.child.specs), len(tc.runs), h.msgs.String())
			}
			if len(shims) != 1 {
				t.Fatalf("%d runs captured, want exactly the first", len(shims))
			}
			if _, err := os.Stat(shims[0]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the capture shim %s is left behind (%v)", shims[0], err)
			}
			if strings.Contains(h.msgs.String(), "could not") {
				t.Errorf("messages:\n%s", h.msgs.String())
			}
			var rules []string
			for _, f := range out.Report.Findings {
				rules = append(rules, f.Rule)
			}
			if len(rules) == 0 || strings.HasPrefix(rules[0], "memory/") {
				t.Errorf("findings %v: the output's own diagnosis must come first", rules)
			}
			hasGrowth := contains(rules, "memory/growth")
			if hasGrowth != tc.write {
				t.Errorf("findings %v; want memory/growth: %v", rules, tc.write)
			}
			documented := false
			for _, r := range out.Report.Rules {
				documented = documented || r.ID == "memory/growth"
			}
			if documented != tc.wantRules {
				t.Errorf("memory rules documented: %v, want %v", documented, tc.wantRules)
			}
			if tc.write && !strings.Contains(h.msgs.String(), "memory snapshot written to "+filepath.Join(dir, "oom_pid457_1.pickle")) {
				t.Errorf("messages do not name the snapshot:\n%s", h.msgs.String())
			}
		})
	}
}

func TestMemorySnapshotDirThatCannotBeMade(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness([]string{"python3", "x.py"}, fakeRun{code: 0})
	h.opts.MemorySnapshot = filepath.Join(file, "sub")
	_, err := h.run(t)
	var ee *ExitError
	if err == nil || errors.As(err, &ee) || len(h.child.specs) != 0 {
		t.Fatalf("error %v after %d runs; want a tool failure before running", err, len(h.child.specs))
	}
}

func TestRunTimesAreRecorded(t *testing.T) {
	h := newHarness([]string{"python3", "x.py"}, fakeRun{code: 3, dur: 90 * time.Second})
	h.opts.NoRerun = true
	clock := time.Date(2026, 11, 22, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	h.opts.Now = func() time.Time { t := clock; clock = clock.Add(90 * time.Second); return t }
	out, _ := h.run(t)
	if got, want := [2]string{out.Report.Run.StartedAt, out.Report.Run.EndedAt}, [2]string{"2026-11-22T08:30:00Z", "2026-11-22T08:31:30Z"}; got != want {
		t.Errorf("times %v, want %v", got, want)
	}
	b, _ := json.Marshal(out.Report.Run)
	if !strings.Contains(string(b), `"started_at":"2026-11-22T08:30:00Z","ended_at":"2026-11-22T08:31:30Z"`) {
		t.Errorf("run info JSON %s", b)
	}
}

func TestLocalisesWithTheRealEngine(t *testing.T) {
	// The H100's own outputs through the real knowledge base and engine:
	// the plain run's output first, the CUDA_LAUNCH_BLOCKING=1 run's on the
	// re-run; the messages must name where it was reported and where it
	// originates, as the scenario's FAULT line says.
	k, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	manifest := loadManifest(t)
	isAsync := func(id string) bool { c, ok := k.Class(id); return ok && c.Async }
	tested := 0
	for _, e := range manifest {
		if e.Mode != "plain" || !isAsync(e.Class) || !strings.Contains(e.Log, "h100") {
			continue
		}
		blocking := strings.Replace(e.Log, ".plain.", ".blocking.", 1)
		if _, err := os.Stat(filepath.Join(fixtures, blocking)); err != nil {
			continue
		}
		tested++
		t.Run(e.Scenario, func(t *testing.T) {
			h := newHarness([]string{"python3", e.Scenario + ".py"},
				fakeRun{output: fixture(t, filepath.Base(e.Log)), code: e.ExitCode, dur: 5 * time.Second},
				fakeRun{output: fixture(t, filepath.Base(blocking)), code: e.ExitCode, dur: 6 * time.Second})
			h.opts.Diagnoser = Engine{E: diagnose.New(k)}
			h.opts.IsAsync = isAsync
			out, err := h.run(t)
			if code := exitCode(t, err); code != e.ExitCode {
				t.Errorf("exit %d, want %d", code, e.ExitCode)
			}
			if len(h.child.specs) != 2 {
				t.Fatalf("%d runs, want 2; messages:\n%s", len(h.child.specs), h.msgs.String())
			}
			if len(out.Report.Findings) == 0 {
				t.Fatalf("no findings; messages:\n%s", h.msgs.String())
			}
			f := out.Report.Findings[0]
			if f.Class != e.Class {
				t.Errorf("class %q, want %q", f.Class, e.Class)
			}
			if f.Origin == nil || f.Origin.Line != e.FaultLine || !strings.HasSuffix(f.Origin.Path, e.Scenario+".py") {
				t.Errorf("origin %+v, want %s.py:%d", f.Origin, e.Scenario, e.FaultLine)
			}
			msgs := h.msgs.String()
			want := []string{"cudadoctor: confirms the origin: " + e.Scenario + ".py:" + itoa(e.FaultLine)}
			if e.LastReported != e.FaultLine {
				want = []string{
					"cudadoctor: reported at    " + e.Scenario + ".py:" + itoa(e.LastReported),
					"cudadoctor: originates at  " + e.Scenario + ".py:" + itoa(e.FaultLine),
				}
				if f.Reported == nil || f.Reported.Line != e.LastReported {
					t.Errorf("reported %+v, want line %d", f.Reported, e.LastReported)
				}
			}
			for _, w := range want {
				if !strings.Contains(strings.Replace(msgs, "the blocking re-run confirms", "confirms", 1), w) {
					t.Errorf("messages lack %q:\n%s", w, msgs)
				}
			}
		})
	}
	if tested < 5 {
		t.Errorf("only %d scenarios replayed", tested)
	}
}

func TestNoEnvironmentMeansOurs(t *testing.T) {
	t.Setenv("CUDADOCTOR_TEST_MARK", "1")
	h := newHarness([]string{"python3", "x.py"}, fakeRun{code: 0})
	h.opts.Env = nil
	h.opts.MemorySnapshot = t.TempDir()
	h.run(t)
	if len(h.child.specs) != 1 || !contains(h.child.specs[0].Env, "CUDADOCTOR_TEST_MARK=1") {
		t.Errorf("the child's environment lost the wrapper's: %v", h.child.specs)
	}
}

func TestScannerReadsAsTheLogParserDoes(t *testing.T) {
	sc := newScanner()
	for i, l := range []string{
		"[1,3]<stderr>:RuntimeError: CUDA error: an illegal memory access was encountered",
		"CUDA KERNEL ERRORS MIGHT BE ASYNCHRONOUSLY REPORTED AT SOME OTHER API CALL, so the stacktrace below might be incorrect.",
		"0: Traceback (most recent call last):",
		"Root Cause (first observed failure):",
		"[0]:",
		"  rank      : 3 (local_rank: 1)",
	} {
		sc.line([]byte(l), i+1)
	}
	if got := sc.rankList(); len(got) != 2 || got[0] != 0 || got[1] != 3 {
		t.Errorf("ranks %v, want mpirun's 3 and srun's 0", got)
	}
	if r := sc.firstErrRank; r == nil || *r != 3 {
		t.Errorf("first failing rank %v, want 3", r)
	}
	if r := sc.failedRank(); r == nil || *r != 3 {
		t.Errorf("root cause rank %v, want 3", r)
	}
	if !sc.asyncHint {
		t.Error("PyTorch's note, shouted, was missed")
	}
	loc := lastUserFrame([]byte("Traceback (most recent call last):\nCell In[4], line 9, in train_step(batch)\n    loss = model(batch)\nRuntimeError: x\n"))
	if loc == nil || loc.Path != "In[4]" || loc.Line != 9 || loc.Code != "loss = model(batch)" {
		t.Errorf("IPython frame: %+v", loc)
	}
}
