package lint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	if len(rep.Rules) != len(Rules()) || len(rep.Rules) < 16 {
		t.Fatalf("report documents %d rules", len(rep.Rules))
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != "CD112" {
		t.Fatalf("findings %+v", rep.Findings)
	}
	rep.Findings[0].Location.Path = "a.py"
	var plain, tty bytes.Buffer
	if err := WriteText(&plain, rep, false, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&tty, rep, true, false); err != nil {
		t.Fatal(err)
	}
	msg := rep.Findings[0].Message
	if diff := cmp.Diff("a.py:2:10: CD112 "+msg+"\nFound 1 hazard.\n", plain.String()); diff != "" {
		t.Errorf("plain (-want +got)\n%s", diff)
	}
	// On a terminal the line follows, tabs shown as one space, caret under column 10.
	want := "a.py:2:10: CD112 " + msg + "\n" +
		"      2 |  state = torch.load(\"ckpt.pt\")\n" +
		"        |          ^\n" +
		"Found 1 hazard.\n"
	if diff := cmp.Diff(want, tty.String()); diff != "" {
		t.Errorf("tty (-want +got)\n%s", diff)
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
