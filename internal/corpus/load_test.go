package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A thread enters the corpus once: the same address twice, even spelled
// with another scheme, case or comment anchor, is refused with both places.
func TestLoadRefusesARepeatedThread(t *testing.T) {
	dir := t.TempDir()
	one := `{"url": "https://github.com/o/r/issues/1", "source": "github-issue", "framework": "pytorch", "title": "t", "surface": "oom", "root": "oom", "established": false, "evidence": "e", "log": "RuntimeError: CUDA out of memory."}` + "\n"
	two := `{"url": "http://GitHub.com/o/r/issues/1#issuecomment-2", "source": "github-issue", "framework": "pytorch", "title": "t", "surface": "oom", "root": "oom", "established": false, "evidence": "e", "log": "RuntimeError: CUDA out of memory."}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err != nil {
		t.Fatalf("one report: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), "b.jsonl:1") || !strings.Contains(err.Error(), "a.jsonl:1") {
		t.Fatalf("want the repeat refused naming both places, got %v", err)
	}
}
