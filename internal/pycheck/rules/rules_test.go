package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

var wantRE = regexp.MustCompile(`#\s*want\s+((?:CD\d+\s*)+)`)

// wants reads the inline expectations: line -> codes.
func wants(src []byte) []string {
	var out []string
	for i, line := range strings.Split(string(src), "\n") {
		if m := wantRE.FindStringSubmatch(line); m != nil {
			for _, c := range strings.Fields(m[1]) {
				out = append(out, fmt.Sprintf("%d:%s", i+1, c))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestFixtures runs each rule over its fixtures: every finding must be
// expected by a `# want CODE` on its line, and every want must be found.
func TestFixtures(t *testing.T) {
	for _, r := range All() {
		files, _ := filepath.Glob(filepath.Join("testdata", r.ID, "*.py"))
		for _, path := range files {
			t.Run(r.ID+"/"+filepath.Base(path), func(t *testing.T) {
				src, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				l := &pycheck.Linter{Rules: []*pycheck.Rule{r}}
				var got []string
				for _, f := range l.LintSource(path, src) {
					got = append(got, fmt.Sprintf("%d:%s", f.Location.Line, f.Rule))
				}
				sort.Strings(got)
				if diff := cmp.Diff(wants(src), got); diff != "" {
					t.Errorf("findings mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestRegistry checks what every rule must have: a unique code in order, a
// kebab-case name, every doc section, references, and fixtures that both
// flag (flagged.py, with wants) and stay quiet (clean.py, without).
// TestAnchorsFit: the pre-filter holds at most pycheck.MaxAnchors distinct
// anchors (one bit each); with more, Lint refuses to run rather than leave
// one out.
func TestAnchorsFit(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range append(pycheck.EngineRules(), All()...) {
		for _, a := range append(append([]string{}, r.Anchors...), r.AlsoAnchors...) {
			seen[a] = true
		}
	}
	if len(seen) > pycheck.MaxAnchors {
		t.Errorf("%d distinct anchors; the pre-filter holds %d", len(seen), pycheck.MaxAnchors)
	}
}

func TestRegistry(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)+$`)
	codes := map[string]bool{}
	names := map[string]bool{}
	prev := ""
	for _, r := range append(pycheck.EngineRules(), All()...) {
		if codes[r.ID] || names[r.Name] {
			t.Errorf("%s: duplicate code or name %q", r.ID, r.Name)
		}
		codes[r.ID], names[r.Name] = true, true
		if !regexp.MustCompile(`^CD\d{3}$`).MatchString(r.ID) || !kebab.MatchString(r.Name) {
			t.Errorf("%s: bad code or name %q", r.ID, r.Name)
		}
		if r.ID <= prev {
			t.Errorf("%s: registry not sorted (after %s)", r.ID, prev)
		}
		prev = r.ID
		if r.Kind != report.KindLint {
			t.Errorf("%s: kind %q, want %q", r.ID, r.Kind, report.KindLint)
		}
		for field, body := range map[string]string{"title": r.Title, "summary": r.Summary} {
			if strings.TrimSpace(body) == "" || body != strings.TrimSpace(body) {
				t.Errorf("%s: %s empty or not trimmed", r.ID, field)
			}
		}
		// Every rule documents why, an example and the fix, in that order,
		// so `rules CODE`, SARIF help and docs/rules.md read alike.
		var titles []string
		for _, s := range r.Sections {
			titles = append(titles, s.Title)
			if strings.TrimSpace(s.Body) == "" || s.Body != strings.TrimSpace(s.Body) {
				t.Errorf("%s: section %s empty or not trimmed", r.ID, s.Title)
			}
		}
		if strings.Join(titles, ",") != "Why,Example,Fix" {
			t.Errorf("%s: sections %v, want Why, Example, Fix", r.ID, titles)
		}
		if len(r.References) == 0 {
			t.Errorf("%s: no references", r.ID)
		}
		if r.Check == nil && !strings.HasPrefix(r.ID, "CD00") {
			t.Errorf("%s: no check", r.ID)
		}
		if strings.HasPrefix(r.ID, "CD00") {
			continue
		}
		flagged, err := os.ReadFile(filepath.Join("testdata", r.ID, "flagged.py"))
		if err != nil || len(wants(flagged)) == 0 {
			t.Errorf("%s: testdata/%s/flagged.py missing or without # want lines", r.ID, r.ID)
		}
		clean, err := os.ReadFile(filepath.Join("testdata", r.ID, "clean.py"))
		if err != nil || len(wants(clean)) != 0 || len(strings.TrimSpace(string(clean))) == 0 {
			t.Errorf("%s: testdata/%s/clean.py missing, empty or with # want lines", r.ID, r.ID)
		}
		for _, ref := range r.References {
			if strings.HasPrefix(ref, "testdata/gpu/") {
				p := filepath.Join("..", "..", "..", strings.Fields(ref)[0])
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: reference %s does not exist", r.ID, p)
				}
			}
		}
	}
}

// TestProjectFixtures lints each directory of testdata/projects as one
// project (its files import each other) with every rule: findings and
// `# want` lines must match both ways, in every file.
func TestProjectFixtures(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "projects", "*"))
	if len(dirs) == 0 {
		t.Fatal("no project fixtures")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			srcs := pySources(t, dir)
			var want []string
			for _, s := range srcs {
				for _, w := range wants(s.Src) {
					want = append(want, s.Path+":"+w)
				}
			}
			fs, err := (&pycheck.Linter{Rules: All()}).LintSources(srcs...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range fs {
				got = append(got, fmt.Sprintf("%s:%d:%s", f.Location.Path, f.Location.Line, f.Rule))
			}
			sort.Strings(want)
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
