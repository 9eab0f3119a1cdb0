package rules

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// TestRegistry checks every rule's documentation where `rules`, SARIF and
// docs/rules.md read it, whichever part of cudadoctor declares it (the
// knowledge base, lint, env checks, Flight Recorder, memory): unique ids
// and names, a known kind (each kind's rules together, as the listing
// prints them under one heading), a title, a summary, a severity, sections
// with a title and a body, and references that are web addresses or
// files of the repository (the recorded GPU scenario a lint rule is
// grounded on). Every
// kind has rules; how many is not this test's business.
func TestRegistry(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	names := map[string]string{}
	kinds := map[report.RuleKind]bool{}
	var last report.RuleKind
	for _, r := range all {
		id := strings.ToLower(r.ID)
		if r.ID == "" || ids[id] {
			t.Errorf("rule id %q is empty or not unique", r.ID)
		}
		ids[id] = true
		if r.Name != "" && r.Name != r.ID {
			if other, ok := names[r.Name]; ok {
				t.Errorf("%s and %s share the name %q", other, r.ID, r.Name)
			}
			names[r.Name] = r.ID
		}
		if kindTitle(r.Kind) == string(r.Kind) {
			t.Errorf("%s: unknown kind %q", r.ID, r.Kind)
		}
		if r.Kind != last && kinds[r.Kind] {
			t.Errorf("%s: the %s rules are not listed together", r.ID, r.Kind)
		}
		kinds[r.Kind], last = true, r.Kind
		if strings.TrimSpace(r.Title) == "" || strings.TrimSpace(r.Summary) == "" {
			t.Errorf("%s: no title or summary", r.ID)
		}
		if r.Severity == report.SeverityNone {
			t.Errorf("%s: no severity", r.ID)
		}
		for _, s := range r.Sections {
			if strings.TrimSpace(s.Title) == "" || strings.TrimSpace(s.Body) == "" {
				t.Errorf("%s: a section without a title or a body: %+v", r.ID, s)
			}
		}
		for _, ref := range r.References {
			if !webAddress(ref) && !repoFile(strings.Fields(ref)[0]) {
				t.Errorf("%s: reference %q is neither a web address nor a file of the repository", r.ID, ref)
			}
		}
	}
	for _, k := range []report.RuleKind{report.KindClass, report.KindLint, report.KindProbe, report.KindMemory} {
		if !kinds[k] {
			t.Errorf("no %s rules in the registry", k)
		}
	}
}

func webAddress(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

func repoFile(p string) bool {
	_, err := os.Stat(filepath.Join("..", "..", "..", filepath.FromSlash(p)))
	return err == nil
}
