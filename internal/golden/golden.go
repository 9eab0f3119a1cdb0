// Package golden keeps tests' expected output in files: Check compares what
// a test produced with its file, and `go test -update` rewrites the files
// from the output instead. Only tests import it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files from the tests' output")

// Update reports whether the tests run with -update, for tests whose
// expectations live inside a larger file (a txtar archive, the README).
func Update() bool { return *update }

// Check compares got with the file at path. With -update it writes got to
// path (creating its directory) and passes.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	check(t, path, got, *update)
}

func check(t testing.TB, path string, got []byte, rewrite bool) {
	t.Helper()
	if rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, d)
	}
}
