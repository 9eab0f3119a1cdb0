package memory

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/golden"
	"github.com/cudadoctor/cudadoctor/internal/render"
)

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
			golden.Check(t, filepath.Join("testdata", tc.golden), buf.Bytes())
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
