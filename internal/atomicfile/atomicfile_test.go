package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func put(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplacesAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	for _, s := range []string{"one", "two"} {
		if err := Write(p, 0o644, put(s)); err != nil {
			t.Fatal(err)
		}
		if got := read(t, p); got != s {
			t.Errorf("got %q, want %q", got, s)
		}
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d entries in the directory, want the file alone", len(es))
	}
	// A failed fill leaves the old content and no temporary.
	if err := Write(p, 0o644, func(io.Writer) error { return errors.New("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("got %v", err)
	}
	if got := read(t, p); got != "two" {
		t.Errorf("old content lost: %q", got)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d entries after a failure", len(es))
	}
}

func TestPlantedLinkAtGuessableTemporary(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "r.json")
	if err := os.Symlink(victim, p+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, 0o644, put("report")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, victim); got != "precious" {
		t.Errorf("the link's target was overwritten: %q", got)
	}
	if got := read(t, p); got != "report" {
		t.Errorf("report %q", got)
	}
}

func TestLinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, 0o644, put("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target %q", got)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", st.Mode().Perm())
	}
}

func TestNonRegularFilesAreNotReplaced(t *testing.T) {
	if err := Write("/dev/null", 0o644, put("x")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := Write("/dev/full", 0o644, put("x"))
		if err == nil || !errors.Is(err, syscall.ENOSPC) && !strings.Contains(err.Error(), "no space left") {
			t.Errorf("/dev/full: got %v, want no space left", err)
		}
	}
	if err := Write(t.TempDir(), 0o644, put("x")); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}
