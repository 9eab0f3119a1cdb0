package explain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/cli"
	"github.com/cudadoctor/cudadoctor/internal/cmd/explain"
	"github.com/cudadoctor/cudadoctor/internal/flightrec/frtest"
)

const (
	gpuData  = "../../../testdata/gpu"
	realDump = gpuData + "/artifacts/n1_flight_recorder_rank_0.pickle"
)

// run calls the command line in-process and returns exit code, stdout, stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	sys := cli.Sys{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		Now: func() time.Time { return time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC) },
	}
	code := cli.Main(context.Background(), args, sys)
	return code, out.String(), errb.String()
}

// finding is the part of a JSON finding the end-to-end tests check.
type finding struct {
	Rule     string `json:"rule"`
	Class    string `json:"class"`
	Message  string `json:"message"`
	Severity string `json:"severity"`
	Rank     *int   `json:"rank"`
	Origin   *struct {
		Path string `json:"path"`
		Line int    `json:"line"`
	} `json:"origin"`
	Facts   map[string]any `json:"facts"`
	Related []struct {
		Message string `json:"message"`
		Rank    *int   `json:"rank"`
	} `json:"related"`
}

func (f finding) originString() string {
	if f.Origin == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(f.Origin.Path), f.Origin.Line)
}

type jsonReport struct {
	Findings []finding `json:"findings"`
	Inputs   []string  `json:"inputs"`
}

func explainJSON(t *testing.T, stdin string, args ...string) (int, jsonReport, string) {
	t.Helper()
	code, out, errs := run(t, stdin, append([]string{"explain", "--format", "json"}, args...)...)
	var rep jsonReport
	if code == 0 || code == 1 {
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out)
		}
	}
	return code, rep, errs
}

func TestExplainRealFlightRecorderDump(t *testing.T) {
	code, rep, errs := explainJSON(t, "", realDump)
	if code != 1 {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("%d findings, want 1", len(rep.Findings))
	}
	f := rep.Findings[0]
	if f.Class != "nccl-error" || f.Rule != "flightrec/desync" || f.originString() != "n1_desync_timeout.py:14" || f.Rank == nil || *f.Rank != 0 {
		t.Errorf("got rule %s class %s origin %s rank %v", f.Rule, f.Class, f.originString(), f.Rank)
	}
	if !strings.Contains(f.Message, "rank 1 left no Flight Recorder dump") {
		t.Errorf("message %q does not name rank 1's missing dump", f.Message)
	}
	if len(f.Related) != 1 || f.Related[0].Rank == nil || *f.Related[0].Rank != 1 || !strings.Contains(f.Related[0].Message, "n1_flight_recorder_rank_1.pickle") {
		t.Errorf("related = %+v", f.Related)
	}
	// The text form says the same.
	code, out, _ := run(t, "", "explain", realDump)
	if code != 1 || !strings.Contains(out, "n1_desync_timeout.py:14") || !strings.Contains(out, "rank 1 left no Flight Recorder dump") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
}

func TestExplainRefusesNonLogs(t *testing.T) {
	dir := t.TempDir()
	real, err := os.ReadFile(realDump)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "nccl_trace_rank_0")
	os.WriteFile(truncated, real[:len(real)/3], 0o644)
	evil := filepath.Join(dir, "evil.pkl")
	os.WriteFile(evil, []byte("\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R."), 0o644)
	snapshot := gpuData + "/artifacts/s33_memory_snapshot.pickle"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"memory snapshot", []string{snapshot}, "run 'cudadoctor memory " + snapshot + "'"},
		{"truncated dump", []string{truncated}, "truncated"},
		{"pickle naming a class", []string{evil}, "class os.system"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, "", append([]string{"explain"}, tc.args...)...)
			if code != 3 {
				t.Fatalf("exit %d, want 3; stdout %q", code, out)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q, want one line containing %q", errs, tc.want)
			}
		})
	}
	before, _ := os.ReadFile(truncated)
	if !bytes.Equal(before, real[:len(real)/3]) {
		t.Error("an input file was modified")
	}
}

// n1Job is fixture n1 with both ranks' dumps.
const realLogPath = "../../../testdata/gpu/logs/h100/s01_embedding_oob.blocking.log"

var n1Job = frtest.Job{
	PGs:    map[string][]int{"0": {0, 1}},
	Script: "/workspace/faultlab/nccl/n1_desync_timeout.py",
	Calls: map[int][]frtest.Call{
		0: {{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}, {PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 14},
			{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}, {PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 14, State: "scheduled"}},
		1: {{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}, {PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12},
			{PG: "0", Op: "all_reduce", Size: 1 << 20, Line: 12}},
	},
}

func TestExplainDirectoryMixingLogsAndDumps(t *testing.T) {
	dir := t.TempDir()
	n1Job.Write(t, dir, "fr_rank_", false)
	logData, err := os.ReadFile(gpuData + "/logs/h200x2/n1_desync_timeout.plain.log")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "train.log"), logData, 0o644)
	code, rep, errs := explainJSON(t, "", dir)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{filepath.Join(dir, "train.log"), filepath.Join(dir, "fr_rank_0"), filepath.Join(dir, "fr_rank_1")}
	if diff := cmp.Diff(want, rep.Inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	var fr *finding
	for i := range rep.Findings {
		if rep.Findings[i].Rule == "flightrec/desync" {
			fr = &rep.Findings[i]
		}
	}
	if fr == nil || fr.originString() != "n1_desync_timeout.py:14" || fr.Facts["divergence"] != "not-entered" {
		t.Fatalf("want the Flight Recorder finding at line 14, got %+v", rep.Findings)
	}
	if rep.Findings[0].Class != "nccl-error" {
		t.Errorf("first finding is %s, want nccl-error", rep.Findings[0].Class)
	}
}

func TestExplainJSONDumpOnStdin(t *testing.T) {
	dump := string(frtest.EncodeJSON(n1Job.Dump(0)))
	code, rep, errs := explainJSON(t, dump, "-")
	if code != 1 || len(rep.Findings) != 1 || rep.Findings[0].Rule != "flightrec/desync" {
		t.Fatalf("exit %d, findings %+v, stderr %q", code, rep.Findings, errs)
	}
	// A JSON-lines log is still a log, read whole: the failure on its last
	// line is found as it is when the log does not start with JSON.
	var lines strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&lines, `{"level":"info","step":%d,"msg":"loss 0.1"}`+"\n", i)
	}
	lines.WriteString(`{"level":"error","msg":"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.50 GiB is free."}` + "\n")
	code, jsonLog, errs := explainJSON(t, lines.String())
	if code == 3 {
		t.Fatalf("a JSON-lines log was refused: %s", errs)
	}
	_, plain, _ := explainJSON(t, "training starts\n"+lines.String())
	if len(plain.Findings) == 0 {
		t.Fatal("the log engine found nothing in the plain log; the comparison would prove nothing")
	}
	if len(jsonLog.Findings) != len(plain.Findings) || jsonLog.Findings[0].Class != plain.Findings[0].Class {
		t.Errorf("a JSON-lines log read differently from the same text: %+v vs %+v", jsonLog.Findings, plain.Findings)
	}
}

// nodeReport writes a report as `cudadoctor run --report-dir` would.
func nodeReport(t *testing.T, dir, name string, findings []map[string]any, run map[string]any) {
	t.Helper()
	doc := map[string]any{"schema_version": 1, "tool": map[string]any{"name": "cudadoctor", "version": "0.1.0"},
		"command": "run", "findings": findings, "run": run}
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExplainMergesNodeReports(t *testing.T) {
	dir := t.TempDir()
	// Node a (rank 0) timed out waiting and was terminated; node b (rank 1)
	// ran out of memory. Names sort a before b: the merge must not care.
	nodeReport(t, dir, "report-a-rank0.json", []map[string]any{{
		"rule": "nccl-error", "class": "nccl-error", "severity": "error", "rank": 0,
		"message": "NCCL watchdog timeout in all_reduce", "alternatives": []string{},
	}}, map[string]any{"argv": []string{"python", "train.py"}, "exit_code": 143, "signal": "SIGTERM", "duration_s": 80.0})
	nodeReport(t, dir, "report-b-rank1.json", []map[string]any{{
		"rule": "oom", "class": "oom", "severity": "error", "rank": 1,
		"message": "CUDA out of memory", "alternatives": []string{},
		"origin": map[string]any{"path": "train.py", "line": 21},
	}}, map[string]any{"argv": []string{"python", "train.py"}, "exit_code": 1, "duration_s": 60.0})
	code, rep, errs := explainJSON(t, "", dir)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s@%d", f.Class, *f.Rank))
	}
	// Rank 0's timeout is the echo of rank 1's OOM: listed under it, not
	// reported as a failure of its own.
	if diff := cmp.Diff([]string{"oom@1"}, got); diff != "" {
		t.Errorf("merged findings (-want +got):\n%s", diff)
	}
	rel := rep.Findings[0].Related
	if len(rel) != 1 || rel[0].Rank == nil || *rel[0].Rank != 0 || !strings.Contains(rel[0].Message, "consequence") {
		t.Errorf("rank 0's timeout is not a related consequence: %+v", rel)
	}
	if rep.Findings[0].Facts["report"] != filepath.Join(dir, "report-b-rank1.json") {
		t.Errorf("facts.report = %v", rep.Findings[0].Facts["report"])
	}
}

func TestExplainReportsOrderedByTime(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []struct {
		name, class, ended string
		rank               int
	}{
		{"n1.json", "oom", "2026-11-22T06:00:05Z", 1},
		{"n2.json", "illegal-address", "2026-11-22T06:00:01Z", 2},
	} {
		nodeReport(t, dir, r.name, []map[string]any{{"rule": r.class, "class": r.class, "severity": "error", "rank": r.rank, "message": r.class, "alternatives": []string{}}},
			map[string]any{"argv": []string{"x"}, "exit_code": 1, "duration_s": 1.0, "ended_at": r.ended})
	}
	_, rep, _ := explainJSON(t, "", dir)
	if len(rep.Findings) != 2 || rep.Findings[0].Class != "illegal-address" {
		t.Fatalf("want the earlier failure first, got %+v", rep.Findings)
	}
}

// expectation is a scenario directory's expect.json: what the first
// finding of `cudadoctor explain DIR` must be. Empty fields are not checked.
type expectation struct {
	Class  string `json:"class"`
	Rule   string `json:"rule"`
	Rank   *int   `json:"rank"`
	Origin string `json:"origin"` // base name:line
	// Contains are strings the JSON output must hold somewhere.
	Contains []string `json:"contains"`
	// Exit is the expected exit code (default 1).
	Exit *int `json:"exit"`
}

// TestDistScenarios runs explain over every directory under
// testdata/gpu/dist/ (logs and Flight Recorder dumps of one real multi-GPU
// failure each) and checks its expect.json. Adding a scenario is adding a
// directory.
func TestDistScenarios(t *testing.T) {
	dirs, _ := filepath.Glob(gpuData + "/dist/*/expect.json")
	if len(dirs) == 0 {
		t.Fatal("no scenario under testdata/gpu/dist")
	}
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var want expectation
			b, err := os.ReadFile(exp)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("%s: %v", exp, err)
			}
			var inputs []string
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "expect.json" && !e.IsDir() {
					inputs = append(inputs, filepath.Join(dir, e.Name()))
				}
			}
			code, out, errs := run(t, "", append([]string{"explain", "--format", "json"}, inputs...)...)
			wantExit := 1
			if want.Exit != nil {
				wantExit = *want.Exit
			}
			if code != wantExit {
				t.Fatalf("exit %d, want %d; stderr %q", code, wantExit, errs)
			}
			var rep jsonReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if want.Class == "" && want.Rule == "" {
				if len(rep.Findings) != 0 {
					t.Fatalf("want no finding, got %+v", rep.Findings)
				}
				return
			}
			if len(rep.Findings) == 0 {
				t.Fatal("no finding")
			}
			f := rep.Findings[0]
			check := func(what, got, want string) {
				if want != "" && got != want {
					t.Errorf("%s = %q, want %q (message: %s)", what, got, want, f.Message)
				}
			}
			check("class", f.Class, want.Class)
			check("rule", f.Rule, want.Rule)
			check("origin", f.originString(), want.Origin)
			if want.Rank != nil && (f.Rank == nil || *f.Rank != *want.Rank) {
				t.Errorf("rank = %v, want %d", f.Rank, *want.Rank)
			}
			for _, s := range want.Contains {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q", s)
				}
			}
		})
	}
}

// One failure, one finding: a log's root cause lists the Flight Recorder's
// view of the ranks left waiting as related, and with no root cause in the
// logs the dumps' divergence is the finding, with the ranks' timeouts and
// the agent's SIGTERM under it. Every multi-rank fixture gives exactly one
// error finding.
func TestRootCausePrecedesFlightRecorder(t *testing.T) {
	tests := []struct {
		dir     string
		first   string
		namesFR bool // the root's related entries name the Flight Recorder
	}{
		{"n6_rank_oom_fr", "oom", true},
		{"n5_rank_sigkill_fr", "host-killed", true},
		{"n7_barrier_skip", "flightrec/desync", false},
		{"n8_group_desync", "flightrec/desync", false},
		{"n1_desync_timeout", "flightrec/desync", false},
		{"n6_rank_oom", "oom", false},
		{"n5_rank_sigkill", "host-killed", false},
		{"n7_barrier_skip_detail", "", false},
		{"n8_group_desync_detail", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			dir := gpuData + "/dist/" + tc.dir
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var inputs []string
			for _, e := range entries {
				if e.Name() != "expect.json" {
					inputs = append(inputs, filepath.Join(dir, e.Name()))
				}
			}
			code, rep, errs := explainJSON(t, "", inputs...)
			if code != 1 || len(rep.Findings) == 0 {
				t.Fatalf("exit %d, %d findings, stderr %q", code, len(rep.Findings), errs)
			}
			if tc.first != "" && rep.Findings[0].Rule != tc.first {
				t.Fatalf("first finding %s, want %s", rep.Findings[0].Rule, tc.first)
			}
			n := 0
			for _, f := range rep.Findings {
				if f.Severity == "error" || f.Severity == "warning" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d error/warning findings, want exactly one: %+v", n, rep.Findings)
			}
			named := false
			for _, r := range rep.Findings[0].Related {
				named = named || strings.HasPrefix(r.Message, "Flight Recorder (")
			}
			if named != tc.namesFR {
				t.Errorf("root's related entries name the Flight Recorder finding: %v, want %v", named, tc.namesFR)
			}
		})
	}
}

// TestExplainRealNodeReports merges the two per-node reports that
// `cudadoctor run --report-dir` wrote on a real two-GPU machine, one torchrun
// node each (bench/gpu/dist/report_dir.sh): rank 1's device-side assert is
// the verdict, rank 0's NCCL timeout its consequence.
func TestExplainRealNodeReports(t *testing.T) {
	code, rep, errs := explainJSON(t, "", filepath.Join(gpuData, "verify", "report_dir", "reports"))
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("want one finding (the root cause), got %d: %+v", len(rep.Findings), rep.Findings)
	}
	f := rep.Findings[0]
	if f.Class != "device-assert-index" || f.Rank == nil || *f.Rank != 1 {
		t.Errorf("verdict %s on rank %v, want device-assert-index on rank 1", f.Class, f.Rank)
	}
	if len(f.Related) != 1 || f.Related[0].Rank == nil || *f.Related[0].Rank != 0 || !strings.Contains(f.Related[0].Message, "timed out") {
		t.Errorf("rank 0's timeout should be the one related consequence: %+v", f.Related)
	}
}

// TestDumpShapedJSONLinesRecord: a JSON-lines log whose first record has a
// Flight Recorder dump's keys and is larger than any dump is read as the
// log it is (the failure after it found, the long record named on
// stderr), not loaded whole and refused; a single document of that size
// is refused by its size.
func TestDumpShapedJSONLinesRecord(t *testing.T) {
	const max = 1 << 20
	dir := t.TempDir()
	record := `{"version": "2.4", "pg_config": {}, "entries": [{"frames": "` + strings.Repeat("x", 2<<20) + `"}]}`
	log, err := os.ReadFile(realLogPath)
	if err != nil {
		t.Fatal(err)
	}
	jsonl := filepath.Join(dir, "train.jsonl")
	if err := os.WriteFile(jsonl, append([]byte(record+"\n"), log...), 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	rep, err := explain.Run(context.Background(), explain.Options{Paths: []string{jsonl}, Warn: &warn, MaxDumpBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Class == "device-assert-index" && f.Location != nil && f.Location.Path == jsonl {
			found = true
		}
	}
	if !found {
		t.Errorf("findings %+v: want the log's embedding failure in train.jsonl", rep.Findings)
	}
	if !strings.Contains(warn.String(), "line 1 is 2.0 MiB long") {
		t.Errorf("warnings %q do not name the long record", warn.String())
	}
	doc := filepath.Join(dir, "dump.json")
	if err := os.WriteFile(doc, []byte(record+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = explain.Run(context.Background(), explain.Options{Paths: []string{doc}, MaxDumpBytes: max})
	if err == nil || !strings.Contains(err.Error(), "a JSON document larger than 1 MiB") {
		t.Errorf("err %v: want the oversized document refused", err)
	}
}

// TestDumpShapedJSONLinesRecordOnStdin: on standard input the same log
// reads as it does from a file, without the first record held in memory to
// tell it from a dump (beyond a few MiB it waits in an unlinked temporary
// file), and the same single document is refused by its size. The stream
// is generated, never written into the repository.
func TestDumpShapedJSONLinesRecordOnStdin(t *testing.T) {
	const max = 1 << 20
	const size = 6 << 20 // past the part kept in memory, past the cap
	log, err := os.ReadFile(realLogPath)
	if err != nil {
		t.Fatal(err)
	}
	record := func() io.Reader {
		return io.MultiReader(strings.NewReader(`{"version": "2.4", "pg_config": {}, "entries": [{"frames": "`),
			io.LimitReader(repeatByte('x'), size), strings.NewReader(`"}]}`))
	}
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "train.jsonl")
	f, err := os.Create(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, io.MultiReader(record(), strings.NewReader("\n"), bytes.NewReader(log))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// Both reports, and what each warned, as JSON with the input's name
	// made the same.
	diagnose := func(opts explain.Options) (string, string, error) {
		var warn bytes.Buffer
		opts.Warn, opts.MaxDumpBytes = &warn, max
		rep, err := explain.Run(context.Background(), opts)
		if err != nil {
			return "", warn.String(), err
		}
		b, err := json.Marshal(rep.Findings)
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), jsonl, "-"), strings.ReplaceAll(warn.String(), jsonl, "-"), nil
	}
	fileOut, fileWarn, err := diagnose(explain.Options{Paths: []string{jsonl}})
	if err != nil {
		t.Fatal(err)
	}
	out, warn, err := diagnose(explain.Options{Paths: []string{"-"}, Stdin: io.MultiReader(record(), strings.NewReader("\n"), bytes.NewReader(log))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "device-assert-index") {
		t.Fatalf("stdin: %s: want the log's embedding failure", out)
	}
	if out != fileOut || warn != fileWarn || !strings.Contains(warn, "line 1 is 6.0 MiB long") {
		t.Errorf("standard input read differently from the file:\n%s\n%s\nvs\n%s\n%s", out, warn, fileOut, fileWarn)
	}
	_, _, err = diagnose(explain.Options{Paths: []string{"-"}, Stdin: io.MultiReader(record(), strings.NewReader("\n\n"))})
	if err == nil || !strings.Contains(err.Error(), "standard input: a JSON document larger than 1 MiB") {
		t.Errorf("err %v: want the oversized document refused", err)
	}
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}
