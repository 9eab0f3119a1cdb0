package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const snapshotFixture = "../../testdata/gpu/artifacts/s33_memory_snapshot.pickle"

func TestMemoryFixtureEndToEnd(t *testing.T) {
	html := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runCLI(t, "", "memory", "--format", "json", "--html", html, snapshotFixture)
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d (an OOM is an error); stderr: %s", code, ExitFindings, stderr)
	}
	var doc struct {
		Command  string        `json:"command"`
		Findings []jsonFinding `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if doc.Command != "memory" || len(doc.Findings) == 0 {
		t.Fatalf("command %q with %d findings", doc.Command, len(doc.Findings))
	}
	byRule := map[string][]jsonFinding{}
	for _, f := range doc.Findings {
		byRule[f.Rule] = append(byRule[f.Rule], f)
	}
	const gib = float64(1 << 30)

	// The primary finding is the leak, pointing at the line that allocates.
	first := doc.Findings[0]
	if first.Rule != "memory/growth" || !strings.Contains(first.Message, "leak") || first.Origin == nil ||
		!strings.HasSuffix(first.Origin.Path, "s33_memory_snapshot.py") || first.Origin.Line != 10 {
		t.Errorf("first finding = %+v, want the memory/growth leak at s33_memory_snapshot.py:10", first)
	}
	if it, _ := first.Facts["iterations"].(float64); it < 100 || it > 200 {
		t.Errorf("leak over %v iterations, want about 140", first.Facts["iterations"])
	}
	if g, _ := first.Facts["growth_per_iteration_bytes"].(float64); g < 70<<20 || g > 90<<20 {
		t.Errorf("growth per iteration %v, want about 80 MiB (four 16 MiB activations and the 16 MiB input)", g)
	}

	peak := byRule["memory/peak"]
	if len(peak) != 1 {
		t.Fatalf("%d memory/peak findings", len(peak))
	}
	pa, _ := peak[0].Facts["peak_allocated_bytes"].(float64)
	pr, _ := peak[0].Facts["peak_reserved_bytes"].(float64)
	if got := pa / gib; got < 11.165 || got >= 11.175 {
		t.Errorf("peak allocated %.4f GiB, want 11.17", got)
	}
	if pr < pa || pr/gib > 11.18 {
		t.Errorf("peak reserved %.4f GiB, want at least the allocated peak and about 11.17", pr/gib)
	}

	top := byRule["memory/top-site"]
	if len(top) == 0 || top[0].Origin == nil || top[0].Origin.Line != 10 || !strings.HasSuffix(top[0].Origin.Path, "s33_memory_snapshot.py") {
		t.Fatalf("top site %+v, want s33_memory_snapshot.py:10", top)
	}
	if b, _ := top[0].Facts["bytes"].(float64); b/gib < 8.6 || b/gib > 8.8 {
		t.Errorf("top site holds %.3f GiB, want about 8.7", b/gib)
	}

	oom := byRule["memory/oom"]
	if len(oom) != 1 || oom[0].Class != "oom" || oom[0].Severity != "error" {
		t.Fatalf("memory/oom = %+v", oom)
	}
	if req, _ := oom[0].Facts["requested_bytes"].(float64); req != 16<<20 {
		t.Errorf("OOM request %v, want 16 MiB", req)
	}
	if !strings.Contains(oom[0].Message, "per-process limit") {
		t.Errorf("OOM message %q should say the 8%% cap was hit while the card had room", oom[0].Message)
	}

	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatalf("--html wrote nothing: %v", err)
	}
	for _, want := range []string{"<svg", `id="memory-data"`, "s33_memory_snapshot.py:10", "memory/growth"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
}

func TestMemoryTextOutputNamesTheLeak(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "memory", "--fail-on", "never", snapshotFixture)
	if code != ExitOK {
		t.Errorf("exit %d with --fail-on never", code)
	}
	if !strings.HasPrefix(stdout, "error[memory/growth] memory leak") || !strings.Contains(stdout, "s33_memory_snapshot.py:10") {
		t.Errorf("text report does not start with the leak:\n%s", stdout)
	}
}

func TestMemoryLogWithOOMUsesTheExplainEngine(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "memory", "--format", "json", "../../testdata/gpu/logs/h100/s05_oom.plain.log")
	if code != ExitFindings {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	var doc struct{ Findings []jsonFinding }
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Findings) == 0 || !strings.HasPrefix(doc.Findings[0].Class, "oom") {
		t.Errorf("findings %+v, want an oom finding", doc.Findings)
	}
}

func TestMemoryBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fixture, err := os.ReadFile(snapshotFixture)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.pickle"), "no such file"},
		{"empty", write("empty.pickle", nil), "is empty"},
		{"directory without snapshots", t.TempDir(), "holds no memory snapshot"},
		{"binary", write("garbage.bin", []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 3}), "not a readable PyTorch memory snapshot"},
		{"truncated", write("half.pickle", fixture[:len(fixture)/2]), "truncated"},
		{"cut in the header", write("head.pickle", fixture[:3]), "truncated"},
		{"other pickle", write("list.pickle", []byte("\x80\x04K\x05.")), "not a PyTorch memory snapshot"},
		{"text without OOM", write("train.log", []byte("epoch 1 loss 0.5\nepoch 2 loss 0.4\n")), "neither a PyTorch memory snapshot nor a log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", "memory", tt.path)
			if code != ExitFailure {
				t.Errorf("exit %d, want %d", code, ExitFailure)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q, want one line containing %q", stderr, tt.want)
			}
		})
	}
}

func TestMemoryRulesAreDocumented(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "rules", "memory/growth")
	if code != ExitOK || !strings.Contains(stdout, "kind: memory") {
		t.Errorf("rules memory/growth: exit %d\n%s", code, stdout)
	}
}

func TestMemoryPrintCaptureEnv(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	code, stdout, stderr := runCLI(t, "", "memory", "--print-capture-env", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	shim := filepath.Join(dir, ".shim")
	want := "export PYTHONPATH='" + shim + "'\nexport CUDADOCTOR_MEMORY_SNAPSHOT_DIR='" + dir + "'\n"
	if stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	if _, err := os.Stat(filepath.Join(shim, "sitecustomize.py")); err != nil {
		t.Error(err)
	}
	if code, _, _ := runCLI(t, "", "memory", "--print-capture-env", dir, "x.pickle"); code != ExitUsage {
		t.Errorf("exit %d with a snapshot argument too, want %d", code, ExitUsage)
	}
}

func TestMemoryOnACaptureDirectoryTakesTheNewestSnapshot(t *testing.T) {
	dir := t.TempDir()
	fixture, err := os.ReadFile(snapshotFixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "oom_pid1_1.pickle"), fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "memory", "--format", "json", dir)
	if code != ExitFindings || !strings.Contains(stdout, "oom_pid1_1.pickle") || !strings.Contains(stdout, "memory/growth") {
		t.Errorf("exit %d, stderr %s, stdout %.300s", code, stderr, stdout)
	}
}
