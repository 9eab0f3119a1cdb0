package memory

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The text and JSON reports of the real s33 snapshot, as golden files.
func TestGoldenReports(t *testing.T) {
	// A relative path keeps the golden files independent of the checkout.
	const snap = "../../../testdata/gpu/artifacts/s33_memory_snapshot.pickle"
	rep, err := Run(context.Background(), Options{Path: snap})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		golden string
		format render.Format
	}{{"s33.txt", render.FormatText}, {"s33.json", render.FormatJSON}} {
		t.Run(tc.golden, func(t *testing.T) {
			var buf bytes.Buffer
			if err := render.Render(&buf, rep, tc.format, render.Options{}, nil); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Errorf("%s differs (-want +got; -update rewrites):\n%s", path, diff)
			}
		})
	}
}

func TestHTMLNeverOverwritesTheInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "snap.pickle")
	data, err := os.ReadFile("../../../testdata/gpu/artifacts/s33_memory_snapshot.pickle")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Path: in, HTML: in}); err == nil {
		t.Fatal("no error for --html pointing at the input")
	}
	after, _ := os.ReadFile(in)
	if !bytes.Equal(after, data) {
		t.Error("the input was modified")
	}
}
