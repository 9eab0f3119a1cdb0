package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/golden"
	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// repoRoot is where the fixture paths in the golden files are relative to.
var repoRoot, _ = filepath.Abs("../..")

// fakeSys is an in-process terminal: input, captured output, environment.
type fakeSys struct {
	stdout, stderr bytes.Buffer
	env            map[string]string
}

func (f *fakeSys) sys(stdin string, tty bool) Sys {
	return Sys{
		Stdin: strings.NewReader(stdin), Stdout: &f.stdout, Stderr: &f.stderr,
		Getenv:    func(k string) string { return f.env[k] },
		StdoutTTY: tty,
	}
}

// run calls the CLI from the repository root, where the paths of the
// fixtures are short and stable.
func runFake(t *testing.T, stdin string, tty bool, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(repoRoot)
	f := &fakeSys{env: env}
	code := Main(context.Background(), args, f.sys(stdin, tty))
	return code, f.stdout.String(), f.stderr.String()
}

type jsonReport struct {
	SchemaVersion int    `json:"schema_version"`
	Command       string `json:"command"`
	Tool          struct {
		Name, Version string
	} `json:"tool"`
	Findings []jsonFinding `json:"findings"`
}

type jsonLoc struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Function string `json:"function"`
	Code     string `json:"code"`
}

type jsonEvidence struct {
	Path  string `json:"path"`
	Line  int    `json:"line"`
	Text  string `json:"text"`
	Count int    `json:"count"`
}

func decode(t *testing.T, out string) jsonReport {
	t.Helper()
	var r jsonReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		// inputs is allowed on top of the findings
		var loose jsonReport
		if err2 := json.Unmarshal([]byte(out), &loose); err2 != nil {
			t.Fatalf("output is not JSON: %v\n%s", err2, out)
		}
		return loose
	}
	return r
}

type manifestEntry struct {
	Log              string  `json:"log"`
	Scenario         string  `json:"scenario"`
	Mode             string  `json:"mode"`
	Class            *string `json:"class"`
	FaultLine        *int    `json:"fault_line"`
	LastReportedLine *int    `json:"last_reported_line"`
}

// TestManifest diagnoses every real GPU log of both fixture sets (the logs
// the engine was developed on, and extra/, which it was never tuned on) and
// checks the verdict against the class the manifest records, and the origin
// line against the scenario's # FAULT line where the log can show it.
func TestManifest(t *testing.T) {
	sets := []struct {
		dir, glob string
		min       int
	}{
		{"testdata/gpu", "logs/*/*.log", 60},
		{"testdata/gpu/extra", "logs/*.log", 15},
	}
	for _, set := range sets {
		t.Run(set.dir, func(t *testing.T) { checkManifest(t, set.dir, set.glob, set.min) })
	}
}

func checkManifest(t *testing.T, dir, glob string, min int) {
	b, err := os.ReadFile(filepath.Join(repoRoot, dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []manifestEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatal(err)
	}
	k := kb.MustDefault()
	byLog := map[string]manifestEntry{}
	for _, m := range entries {
		byLog[m.Log] = m
	}
	logs, _ := filepath.Glob(filepath.Join(repoRoot, dir, glob))
	if len(logs) < min || len(logs) != len(entries) {
		t.Fatalf("found %d fixture logs under %s for %d manifest entries (want at least %d)", len(logs), dir, len(entries), min)
	}
	for _, p := range logs {
		rel, _ := filepath.Rel(filepath.Join(repoRoot, dir), p)
		m, ok := byLog[filepath.ToSlash(rel)]
		if !ok {
			t.Errorf("%s has no manifest entry", rel)
			continue
		}
		t.Run(m.Log, func(t *testing.T) {
			if m.Class != nil {
				if _, ok := k.Class(*m.Class); !ok {
					t.Fatalf("the knowledge base has no class %s", *m.Class)
				}
			}
			path := filepath.Join(dir, m.Log)
			code, out, errOut := runFake(t, "", false, nil, "explain", "--format", "json", path)
			r := decode(t, out)
			if m.Class == nil {
				for _, f := range r.Findings {
					if f.Severity == "error" {
						t.Fatalf("healthy log has an error finding: %s %s", f.Class, f.Message)
					}
				}
				if code != ExitOK {
					t.Errorf("exit %d, want 0 (stderr %q)", code, errOut)
				}
				return
			}
			if len(r.Findings) == 0 {
				t.Fatalf("no finding, want %s", *m.Class)
			}
			f := r.Findings[0]
			if f.Class != *m.Class {
				t.Fatalf("primary class %s (%s), want %s", f.Class, f.Message, *m.Class)
			}
			if code != ExitFindings {
				t.Errorf("exit %d, want 1", code)
			}
			async := f.Facts["reported_asynchronously"] == true
			switch {
			case async:
				// Reported late: the traceback line is "reported", and the
				// origin is known only from other evidence in the log.
				if f.Reported == nil && f.Origin == nil {
					t.Errorf("async finding with neither reported nor origin")
				}
				if f.Origin != nil && m.FaultLine != nil && f.Origin.Line != *m.FaultLine {
					t.Errorf("origin %s:%d invented: the fault is at line %d", f.Origin.Path, f.Origin.Line, *m.FaultLine)
				}
				if f.Reported != nil && m.LastReportedLine != nil && f.Reported.Line != *m.LastReportedLine && f.Origin == nil {
					t.Errorf("reported line %d, the traceback names %d", f.Reported.Line, *m.LastReportedLine)
				}
			case m.Mode == "blocking" && m.FaultLine != nil:
				want := *m.FaultLine
				if !logShowsLine(t, path, m.Scenario, want) {
					// The log never names the fault line (an autograd
					// error raised in backward): the traceback's line is
					// where it was reported, and no origin is invented.
					if f.Origin != nil || f.Reported == nil || f.Reported.Line != *m.LastReportedLine {
						t.Errorf("origin %+v reported %+v, want no origin and reported line %d", f.Origin, f.Reported, *m.LastReportedLine)
					}
					return
				}
				if f.Origin == nil || f.Origin.Line != want || strings.TrimSuffix(filepath.Base(f.Origin.Path), ".py") != m.Scenario {
					t.Errorf("origin %+v, want %s.py:%d", f.Origin, m.Scenario, want)
				}
			}
		})
	}
}

// logShowsLine reports whether any frame of the log names script:line.
func logShowsLine(t *testing.T, path, scenario string, line int) bool {
	b, err := os.ReadFile(filepath.Join(repoRoot, path))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Contains(s, scenario+`.py", line `+itoa(line)+",") || strings.Contains(s, scenario+".py:"+itoa(line))
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"s01_plain.txt", []string{"explain", "testdata/gpu/logs/h100/s01_embedding_oob.plain.log"}},
		{"s01_blocking.json", []string{"explain", "--format", "json", "testdata/gpu/logs/h100/s01_embedding_oob.blocking.log"}},
		{"s05_oom.txt", []string{"explain", "testdata/gpu/logs/h100/s05_oom.plain.log"}},
		{"n1_plain.json", []string{"explain", "--format", "json", "testdata/gpu/logs/h200x2/n1_desync_timeout.plain.log"}},
		{"n2_plain.txt", []string{"explain", "testdata/gpu/logs/h200x2/n2_rank_crash.plain.log"}},
		{"n4_detail.txt", []string{"explain", "testdata/gpu/logs/h200x2/n4_shape_mismatch.detail.log"}},
		{"n3_healthy.txt", []string{"explain", "testdata/gpu/logs/h200x2/n3_debug_info.plain.log"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, out, _ := runFake(t, "", false, nil, c.args...)
			golden.Check(t, filepath.Join("testdata/explain", c.name), []byte(out))
		})
	}
}

const oomLog = "Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n    x = torch.randn(4_000_000, 8192, device=\"cuda\")\n" +
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 122.07 GiB. GPU 0 has a total capacity of 79.18 GiB of which 78.41 GiB is free.\n"

func TestExplainCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.log", "")
	script := write("train.py", "import torch\nx = torch.zeros(3).cuda()\n")
	binary := write("train.log", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00garbage\x00\x00")
	healthy := write("ok.log", "step 1 loss 0.5\nstep 2 loss 0.4\n")
	oom := write("oom.log", oomLog)
	sub := filepath.Join(dir, "ranks")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "rank_0.log"), []byte("step 1\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "rank_1.log"), []byte(oomLog), 0o644)
	emptyDir := filepath.Join(dir, "none")
	os.Mkdir(emptyDir, 0o755)

	tests := []struct {
		name      string
		stdin     string
		tty       bool
		env       map[string]string
		args      []string
		code      int
		stdoutHas string
		stderrHas string
		stdoutNot string
	}{
		{name: "finding exits 1", args: []string{"explain", oom}, code: ExitFindings, stdoutHas: "[oom]"},
		{name: "healthy exits 0", args: []string{"explain", healthy}, code: ExitOK, stdoutHas: "no CUDA or PyTorch failure found"},
		{name: "fail-on never", args: []string{"explain", "--fail-on", "never", oom}, code: ExitOK, stdoutHas: "[oom]"},
		{name: "missing file", args: []string{"explain", filepath.Join(dir, "nope.log")}, code: ExitFailure, stderrHas: "cannot read"},
		{name: "binary file", args: []string{"explain", binary}, code: ExitFailure, stderrHas: "train.log: binary data, not a text log"},
		{name: "empty file", args: []string{"explain", empty}, code: ExitFailure, stderrHas: "is empty: nothing to explain"},
		{name: "a Python source file", args: []string{"explain", script}, code: ExitFailure, stderrHas: "is Python source, not a log: `cudadoctor lint"},
		{name: "a command line", args: []string{"explain", "python3", "train.py"}, code: ExitFailure, stderrHas: "python3 is a command, not a log: to run it and explain its failure, use `cudadoctor run -- python3 train.py`"},
		{name: "stdin by default", stdin: oomLog, args: []string{"explain"}, code: ExitFindings, stdoutHas: "-:4"},
		{name: "dash is stdin", stdin: oomLog, args: []string{"explain", "-"}, code: ExitFindings, stdoutHas: "[oom]"},
		{name: "directory", args: []string{"explain", sub}, code: ExitFindings, stdoutHas: "rank_1.log:4 (rank 1)"},
		{name: "empty directory", args: []string{"explain", emptyDir}, code: ExitFailure, stderrHas: "holds no files"},
		{name: "bad format", args: []string{"explain", "--format", "xml", oom}, code: ExitUsage, stderrHas: "format"},
		{name: "no color when piped", args: []string{"explain", oom}, code: ExitFindings, stdoutNot: "\x1b["},
		{name: "color on a tty", tty: true, args: []string{"explain", oom}, code: ExitFindings, stdoutHas: "\x1b["},
		{name: "NO_COLOR on a tty", tty: true, env: map[string]string{"NO_COLOR": "1"}, args: []string{"explain", oom}, code: ExitFindings, stdoutNot: "\x1b["},
		{name: "color always", args: []string{"explain", "--color", "always", oom}, code: ExitFindings, stdoutHas: "\x1b["},
		{name: "color never on a tty", tty: true, args: []string{"explain", "--color=never", oom}, code: ExitFindings, stdoutNot: "\x1b["},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runFake(t, tt.stdin, tt.tty, tt.env, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if tt.stdoutHas != "" && !strings.Contains(out, tt.stdoutHas) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdoutHas, out)
			}
			if tt.stdoutNot != "" && strings.Contains(out, tt.stdoutNot) {
				t.Errorf("stdout has %q:\n%q", tt.stdoutNot, out)
			}
			if tt.stderrHas != "" && !strings.Contains(errOut, tt.stderrHas) {
				t.Errorf("stderr lacks %q: %q", tt.stderrHas, errOut)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
				t.Errorf("stderr is more than a line or two: %q", errOut)
			}
		})
	}
}

func TestExplainJSONContract(t *testing.T) {
	code, out, _ := runFake(t, "", false, nil, "explain", "--format", "json", "testdata/gpu/logs/h100/s28_leak_oom.plain.log")
	if code != ExitFindings {
		t.Fatalf("exit %d", code)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"schema_version", "tool", "command", "findings"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("report lacks %q", key)
		}
	}
	fs := raw["findings"].([]any)
	if len(fs) == 0 {
		t.Fatal("no findings")
	}
	f := fs[0].(map[string]any)
	for _, key := range []string{"rule", "class", "alternatives", "severity", "message", "location", "evidence", "remedies"} {
		if _, ok := f[key]; !ok {
			t.Errorf("finding lacks %q: %v", key, f)
		}
	}
	if _, ok := f["alternatives"].([]any); !ok {
		t.Errorf("alternatives is not an array: %v", f["alternatives"])
	}
	ev := f["evidence"].([]any)[0].(map[string]any)
	for _, key := range []string{"path", "line", "text"} {
		if _, ok := ev[key]; !ok {
			t.Errorf("evidence lacks %q", key)
		}
	}
	r := decode(t, out)
	if r.SchemaVersion != 1 || r.Command != "explain" || r.Tool.Name != "cudadoctor" {
		t.Errorf("header: %+v", r)
	}
}

// A binary file among a directory's logs is skipped with a warning; named
// on the command line it stops the run.
func TestExplainDirectorySkipsBinary(t *testing.T) {
	dir := t.TempDir()
	log, err := os.ReadFile(filepath.Join(repoRoot, "testdata/gpu/logs/h100/s05_oom.plain.log"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"rank0.log": log, "model.ckpt": {0x80, 0, 1, 2, 0xff}} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runFake(t, "", false, nil, "explain", dir)
	if code != ExitFindings || !strings.Contains(out, "error[oom]") {
		t.Errorf("directory: exit %d, output %q", code, out)
	}
	if want := "skipping " + filepath.Join(dir, "model.ckpt") + ": binary data"; !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr %q, want one line with %q", errOut, want)
	}
	code, _, errOut = runFake(t, "", false, nil, "explain", filepath.Join(dir, "model.ckpt"))
	if code != ExitFailure || !strings.Contains(errOut, "binary data") {
		t.Errorf("named binary file: exit %d, stderr %q", code, errOut)
	}
	if err := os.Remove(filepath.Join(dir, "rank0.log")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut = runFake(t, "", false, nil, "explain", dir); code != ExitFailure || !strings.Contains(errOut, "no readable text files") {
		t.Errorf("directory of binary files only: exit %d, stderr %q", code, errOut)
	}
}

func TestExplainInterruptedExits130(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // an idle writer: reading stdin would wait for ever
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeSys{}
	sys := f.sys("", false)
	sys.Stdin = r
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	code := Main(ctx, []string{"explain", "-"}, sys)
	if code != ExitInterrupted || strings.TrimSpace(f.stderr.String()) != "cudadoctor: interrupted" {
		t.Errorf("exit %d, stderr %q; want 130 and one line", code, f.stderr.String())
	}
}
