package rules

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
)

// TestRulesDocFresh keeps docs/rules.md equal to what the code documents.
// Regenerate with: go run ./cmd/cudadoctor rules --markdown > docs/rules.md
func TestRulesDocFresh(t *testing.T) {
	rules, err := All()
	if err != nil {
		t.Fatal(err)
	}
	want := Markdown(rules)
	path := filepath.Join("..", "..", "..", "docs", "rules.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: generate it with go run ./cmd/cudadoctor rules --markdown > docs/rules.md", err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("docs/rules.md is stale; regenerate it with go run ./cmd/cudadoctor rules --markdown > docs/rules.md\n%s", diff)
	}
	var stdout bytes.Buffer
	cmd := Command(&command.Deps{Sys: command.Sys{Stdout: &stdout}, Format: "text"})
	cmd.SetArgs([]string{"--markdown"})
	if err := cmd.Execute(); err != nil || stdout.String() != want {
		t.Errorf("rules --markdown: %v, output differs from the generator", err)
	}
	if !strings.Contains(want, "### `oom`") {
		t.Error("the page lacks the oom class")
	}
}
