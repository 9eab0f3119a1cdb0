package pycheck

import (
	"context"
	"errors"
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

// TestReadCapsEndlessInput: a device such as /dev/zero reports size 0 and
// never ends; reading stops one byte past MaxFileSize with an error that
// names the path and the limit.
func TestReadCapsEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	ch, errc := Read(context.Background(), OSFS{}, []string{"/dev/zero"})
	for range ch {
		t.Error("a source came through")
	}
	err := <-errc
	if err == nil || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "/dev/zero") {
		t.Errorf("want a too-large error naming /dev/zero, got %v", err)
	}
}
