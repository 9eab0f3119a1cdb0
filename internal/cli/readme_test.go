package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestREADMEOutput keeps the README's real-output examples true: each
// text block under "## Real output" is the output of the command named in
// the sentence before it. -update rewrites them.
func TestREADMEOutput(t *testing.T) {
	path := filepath.Join(repoRoot, "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(b), "```")
	logs := map[int]string{
		1: "testdata/gpu/logs/h100/s01_embedding_oob.plain.log",
		3: "testdata/gpu/logs/h200x2/n2_rank_crash.plain.log",
	}
	if len(blocks) < 5 || !strings.Contains(blocks[0], "## Real output") {
		t.Fatalf("README has no real-output section with its code blocks")
	}
	for i, log := range logs {
		if !strings.Contains(blocks[i-1], filepath.Base(log)) {
			t.Fatalf("README block %d is not introduced by %s", i, filepath.Base(log))
		}
		_, out, _ := run(t, "", false, nil, "explain", log)
		want := "\n" + strings.TrimRight(out, "\n") + "\n"
		if *update {
			blocks[i] = want
			continue
		}
		if d := cmp.Diff(want, blocks[i]); d != "" {
			t.Errorf("README example for %s is stale (go test ./internal/cli -run TestREADMEOutput -update):\n%s", log, d)
		}
	}
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(blocks, "```")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
