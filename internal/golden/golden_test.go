package golden

import (
	"os"
	"path/filepath"
	"testing"
)

type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.txt")
	check(t, path, []byte("one\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("one\n"))
	if r.failed {
		t.Error("equal output failed")
	}
	Check(r, path, []byte("two\n"))
	if !r.failed {
		t.Error("different output passed")
	}
	r = &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "missing"), nil)
	if !r.failed {
		t.Error("a missing file passed")
	}
}
