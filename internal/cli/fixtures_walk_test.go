package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fixtureCase is one run of the CLI over a shared fixture: the arguments
// after the subcommand and the report it gave.
type fixtureCase struct {
	name     string
	command  string
	args     []string
	findings []jsonFinding
}

// jsonFinding is one finding of a JSON report, as the tests read it.
type jsonFinding struct {
	Rule         string         `json:"rule"`
	Class        string         `json:"class"`
	Alternatives []string       `json:"alternatives"`
	Severity     string         `json:"severity"`
	Message      string         `json:"message"`
	Location     *jsonLoc       `json:"location"`
	Origin       *jsonLoc       `json:"origin"`
	Reported     *jsonLoc       `json:"reported"`
	Rank         *int           `json:"rank"`
	Evidence     []jsonEvidence `json:"evidence"`
	Facts        map[string]any `json:"facts"`
	Remedies     []string       `json:"remedies"`
	Related      []struct {
		Message string `json:"message"`
		Rank    *int   `json:"rank"`
	} `json:"related"`
}

// sharedFixtureInputs lists every shared fixture, relative to the
// repository root: each GPU log alone, each multi-rank directory whole
// (logs and Flight Recorder dumps together), the healthy traps, the
// in-place logs, and the memory snapshot.
func sharedFixtureInputs(t *testing.T) []fixtureCase {
	t.Helper()
	var cases []fixtureCase
	for _, glob := range []string{
		"testdata/gpu/logs/*/*.log",
		"testdata/gpu/extra/logs/*.log",
		"testdata/healthy/traps/*.log",
		"testdata/explain/inplace/*.log",
	} {
		ms, err := filepath.Glob(filepath.Join(repoRoot, glob))
		if err != nil || len(ms) == 0 {
			t.Fatalf("no fixture matches %s", glob)
		}
		for _, m := range ms {
			rel, _ := filepath.Rel(repoRoot, m)
			cases = append(cases, fixtureCase{name: rel, command: "explain", args: []string{rel}})
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(repoRoot, "testdata/gpu/dist/*"))
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		var args []string
		for _, e := range entries {
			if !e.IsDir() && e.Name() != "expect.json" && e.Name() != "README.md" {
				rel, _ := filepath.Rel(repoRoot, filepath.Join(d, e.Name()))
				args = append(args, rel)
			}
		}
		if len(args) > 0 {
			rel, _ := filepath.Rel(repoRoot, d)
			cases = append(cases, fixtureCase{name: rel, command: "explain", args: args})
		}
	}
	cases = append(cases, fixtureCase{name: "testdata/gpu/artifacts/s33_memory_snapshot.pickle", command: "memory",
		args: []string{"testdata/gpu/artifacts/s33_memory_snapshot.pickle"}})
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	return cases
}

// explainSharedFixtures runs every shared fixture through the CLI as JSON.
func explainSharedFixtures(t *testing.T) []fixtureCase {
	t.Helper()
	cases := sharedFixtureInputs(t)
	for i := range cases {
		c := &cases[i]
		args := append([]string{c.command, "--format", "json", "--fail-on", "never"}, c.args...)
		code, out, errs := runFake(t, "", false, nil, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, strings.TrimSpace(errs))
		}
		var rep struct {
			Findings []jsonFinding `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		c.findings = rep.Findings
	}
	return cases
}
