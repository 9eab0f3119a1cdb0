package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRulesDocFresh keeps docs/rules.md equal to what the code documents.
// Regenerate with: go run ./cmd/cudadoctor rules --markdown > docs/rules.md
func TestRulesDocFresh(t *testing.T) {
	rules, err := allRules()
	if err != nil {
		t.Fatal(err)
	}
	want := rulesMarkdown(rules)
	path := filepath.Join("..", "..", "docs", "rules.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: generate it with go run ./cmd/cudadoctor rules --markdown > docs/rules.md", err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("docs/rules.md is stale; regenerate it with go run ./cmd/cudadoctor rules --markdown > docs/rules.md\n%s", diff)
	}
	code, stdout, _ := runCLI(t, "", "rules", "--markdown")
	if code != 0 || stdout != want {
		t.Errorf("rules --markdown: exit %d, output differs from the generator", code)
	}
	if !strings.Contains(want, "### `oom`") {
		t.Error("the page lacks the oom class")
	}
}
