package pylint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRefusesBinaryFiles(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "ok.py")
	bin := filepath.Join(dir, "blob.py")
	if err := os.WriteFile(text, []byte("import torch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("import torch\n\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	ch, errc := Read(context.Background(), OSFS{}, []string{text, bin})
	var got []string
	for s := range ch {
		got = append(got, s.Path)
	}
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "blob.py: binary data") {
		t.Errorf("want a binary-data error naming blob.py, got %v", err)
	}
	if len(got) != 1 || got[0] != text {
		t.Errorf("sources read before the error: %v", got)
	}
}
