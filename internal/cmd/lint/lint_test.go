package lint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunAndText(t *testing.T) {
	dir := t.TempDir()
	src := "import torch\n\tstate = torch.load(\"ckpt.pt\")\n"
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rules) != len(RuleDocs()) || len(rep.Rules) == 0 {
		t.Fatalf("report documents %d rules", len(rep.Rules))
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != "CD112" {
		t.Fatalf("findings %+v", rep.Findings)
	}
	// What the text renderer shows (render/lint_test.go): line 2, column 10,
	// the source line as read.
	loc := rep.Findings[0].Location
	if loc == nil || loc.Line != 2 || loc.Column != 10 || loc.Code != "\tstate = torch.load(\"ckpt.pt\")" {
		t.Errorf("location %+v, want line 2, column 10 and the source line", loc)
	}
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), Options{Paths: []string{filepath.Join(t.TempDir(), "missing.py")}}); err == nil {
		t.Error("missing path accepted")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "pyproject.toml")
	if err := os.WriteFile(cfg, []byte("[tool.cudadoctor]\nselect = [\"E501\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Paths: []string{dir}, ConfigPath: cfg}); err == nil {
		t.Error("bad config accepted")
	}
	big := filepath.Join(dir, "big.py")
	if err := os.WriteFile(big, bytes.Repeat([]byte("# torch\n"), 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Paths: []string{big}}); err == nil {
		t.Error("oversized file accepted")
	}
}

// A file over the size cap found in a directory is left out with a notice,
// and the rest of the directory is still checked; named, it is refused.
func TestRunTooLargeInDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte("import torch\nstate = torch.load(\"ckpt.pt\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "b_pb2.py")
	if err := os.WriteFile(big, []byte("import torch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 17<<20); err != nil { // sparse: never read
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Paths: []string{dir}})
	if err != nil {
		t.Fatalf("a too-large file stopped the directory's lint: %v", err)
	}
	if len(rep.Findings) != 2 || rep.Findings[0].Rule != "CD112" || rep.Findings[1].Rule != "CD001" ||
		rep.Findings[1].Location.Path != big || !strings.Contains(rep.Findings[1].Message, "not checked") {
		t.Fatalf("findings %+v, want CD112 on a.py, then CD001 (not checked) on %s", rep.Findings, big)
	}
	if _, err := Run(context.Background(), Options{Paths: []string{big}}); err == nil {
		t.Error("a too-large file named on the command line was accepted")
	}
}
