package pycheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		dir     bool
		want    bool
	}{
		{"*.gen.py", "a/b/x.gen.py", false, true},
		{"*.gen.py", "x.py", false, false},
		{"build/", "build", true, true},
		{"build/", "build", false, false},
		{"build/", "src/build/x.py", false, true},
		{"/build", "src/build", true, false},
		{"/build", "build", true, true},
		{"docs/*.py", "docs/a.py", false, true},
		{"docs/*.py", "docs/sub/a.py", false, false},
		{"docs/**/*.py", "docs/sub/deep/a.py", false, true},
		{"**/fixtures", "a/b/fixtures", true, true},
		{"tests/*", "tests/test_a.py", false, true},
		{"file[0-9].py", "file3.py", false, true},
		{"file[!0-9].py", "file3.py", false, false},
		{"a?c.py", "abc.py", false, true},
		{"a?c.py", "a/c.py", false, false},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if got := g.match(tt.path, tt.dir); got != tt.want {
			t.Errorf("%q matches %q (dir %v) = %v, want %v", tt.pattern, tt.path, tt.dir, got, tt.want)
		}
	}
}

func TestIgnoreListLastMatchWins(t *testing.T) {
	l := parseIgnoreList("/repo", "# comment\n*.gen.py\n!keep.gen.py\n\nout/\n")
	for path, want := range map[string]bool{
		"/repo/a.gen.py": true, "/repo/sub/keep.gen.py": false, "/repo/a.py": false, "/repo/out": true, "/elsewhere/a.gen.py": false,
	} {
		got, _ := l.decide(path, strings.HasSuffix(path, "out"))
		if got != want {
			t.Errorf("%s ignored = %v, want %v", path, got, want)
		}
	}
}

func TestConfig(t *testing.T) {
	src := `
[tool.cudadoctor]
select = ["CD1"]
ignore = ["CD113"]
exclude = ["legacy/"]
[tool.cudadoctor.per-file-ignores]
"tests/*" = ["CD112", "CD108"]
`
	c, found, err := ParseConfig([]byte(src), "/repo")
	if err != nil || !found {
		t.Fatalf("found %v, err %v", found, err)
	}
	for _, tt := range []struct {
		path, code string
		want       bool
	}{
		{"/repo/a.py", "CD101", true},
		{"/repo/a.py", "CD113", false},
		{"/repo/a.py", "CD002", false}, // not selected
		{"/repo/tests/t.py", "CD112", false},
		{"/repo/tests/t.py", "CD101", true},
		{"/repo/src/t.py", "CD112", true},
	} {
		if got := c.Enabled(tt.path, tt.code); got != tt.want {
			t.Errorf("Enabled(%s, %s) = %v, want %v", tt.path, tt.code, got, tt.want)
		}
	}
	if !c.Excluded("/repo/legacy", true) || c.Excluded("/repo/src", true) {
		t.Error("exclude legacy/ not applied")
	}
	for _, bad := range []string{"[tool.cudadoctor]\nignore = [\"E501\"]", "[tool.cudadoctor\n", "[tool.cudadoctor]\nselect = 3"} {
		if _, _, err := ParseConfig([]byte(bad), "/repo"); err == nil {
			t.Errorf("config %q accepted", bad)
		}
	}
	if _, found, err := ParseConfig([]byte("[tool.ruff]\nline-length = 100\n"), "/repo"); err != nil || found {
		t.Errorf("pyproject without our table: found %v err %v", found, err)
	}
}

func TestSuppressionParsing(t *testing.T) {
	src := []byte("a = 1  # cudadoctor: ignore[CD101, cd102] copied on the CPU\nb = 2  # cudadoctor: ignore[CD101]\nc = 3 # cudadoctor: ignore\nd = '# not cudadoctor'\n")
	got := parseSuppressions(src)
	if len(got) != 3 {
		t.Fatalf("got %d suppressions, want 3", len(got))
	}
	if diff := cmp.Diff([]string{"CD101", "CD102"}, got[0].codes); diff != "" || got[0].reason != "copied on the CPU" || got[0].line != 1 {
		t.Errorf("first: %+v %s", got[0], diff)
	}
	if got[1].reason != "" || got[2].codes != nil || got[2].line != 3 {
		t.Errorf("second/third: %+v %+v", got[1], got[2])
	}
}

// dummyRule flags every line containing "BAD" in a torch file.
var dummyRule = &Rule{RuleDoc: report.RuleDoc{ID: "CD900", Name: "dummy-rule", Severity: report.Error}, Anchors: []string{"BAD"},
	Check: func(p *Pass) {
		for _, off := range p.File.Find("BAD", 0, len(p.File.Src)) {
			p.Report(p.File.NodeAt(off, off+3), "bad")
		}
	}}

func TestLintSourceSuppressionAndSkip(t *testing.T) {
	l := &Linter{Rules: []*Rule{dummyRule}}
	src := "import torch\nBAD = 1\nBAD = 2  # cudadoctor: ignore[CD900] fine here\nx = 3  # cudadoctor: ignore[CD900] stale\n"
	var got []string
	for _, f := range l.LintSource("a.py", []byte(src)) {
		got = append(got, f.Location.String()+" "+f.Rule)
	}
	want := []string{"a.py:2:1 CD900", "a.py:4:8 CD002"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// A file that never names torch or cuda is not checked at all.
	if fs := l.LintSource("b.py", []byte("BAD = 1\n")); len(fs) != 0 {
		t.Errorf("non-torch file produced %v", fs)
	}
}

func TestRulePanicBecomesFinding(t *testing.T) {
	boom := &Rule{RuleDoc: report.RuleDoc{ID: "CD901", Name: "boom-rule", Severity: report.Error}, Check: func(p *Pass) { panic("boom") }}
	fs := (&Linter{Rules: []*Rule{boom}}).LintSource("a.py", []byte("import torch\n"))
	if len(fs) != 1 || fs[0].Rule != CodeParseError || !strings.Contains(fs[0].Message, "internal error in CD901") {
		t.Fatalf("got %+v", fs)
	}
}

func TestAnchorSet(t *testing.T) {
	rules := []*Rule{{Anchors: []string{"non_blocking", "+="}}, {Anchors: []string{"cuda.amp"}, AlsoAnchors: []string{"i"}}}
	s, err := newAnchorSet(rules)
	if err != nil {
		t.Fatal(err)
	}
	found := s.scan([]byte("a += 1\nimport torch.cuda.amp\n"))
	if !rules[0].applies(s, found) || !rules[1].applies(s, found) {
		t.Error("anchors present but rule skipped")
	}
	found = s.scan([]byte("torch.cuda.amp"))
	if rules[0].applies(s, found) || rules[1].applies(s, found) { // no "i": the second group fails
		t.Error("rule applied without its anchors")
	}
}

// manyAnchorRules returns n one-anchor rules, anchor i spelt "anchor<i>_",
// so that no anchor is a prefix of another.
func manyAnchorRules(n int) []*Rule {
	rules := make([]*Rule, n)
	for i := range rules {
		rules[i] = &Rule{Anchors: []string{fmt.Sprintf("anchor%d_", i)}}
	}
	return rules
}

// TestAnchorSetWide: anchors past the first 64-bit word are found and keep
// their rules off files without them, and adding anchors changes nothing
// for the rules already there.
func TestAnchorSetWide(t *testing.T) {
	rules := manyAnchorRules(MaxAnchors)
	s, err := newAnchorSet(rules)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte("x = anchor3_ + anchor70_\nanchor255_()\n")
	found := s.scan(src)
	for i, r := range rules {
		want := i == 3 || i == 70 || i == 255
		if r.applies(s, found) != want {
			t.Errorf("rule %d applies = %v, want %v", i, !want, want)
		}
	}
	// The first 64 rules see the same files whether or not the others
	// are there.
	narrow, err := newAnchorSet(rules[:64])
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"anchor3_", "anchor63_ anchor64_", "anchor200_", ""} {
		fw, fn := s.scan([]byte(text)), narrow.scan([]byte(text))
		for i, r := range rules[:64] {
			if r.applies(s, fw) != r.applies(narrow, fn) {
				t.Errorf("%q: rule %d applies differently once more anchors are added", text, i)
			}
		}
	}
	if _, err := newAnchorSet(manyAnchorRules(MaxAnchors + 1)); err == nil {
		t.Errorf("%d anchors accepted; the set holds %d", MaxAnchors+1, MaxAnchors)
	}
	l := &Linter{Rules: manyAnchorRules(MaxAnchors + 1)}
	if _, err := l.LintSources(Source{Path: "a.py", Src: []byte("import torch\n")}); err == nil {
		t.Error("Lint ran with an anchor left out of the pre-filter")
	}
}

func TestCollectAndRead(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref")
	write(".gitignore", "gen/\n")
	write("src/.gitignore", "*.tmp.py\n")
	write("src/a.py", "import torch\n")
	write("src/b.tmp.py", "import torch\n")
	write("gen/c.py", "import torch\n")
	write(".venv/d.py", "import torch\n")
	write("src/notes.txt", "torch\n")
	cfg, err := FindConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := Collect(OSFS{}, []string{filepath.Join(dir, "src"), filepath.Join(dir, "gen", "c.py")}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	// An explicitly named file is linted even when ignored.
	if diff := cmp.Diff([]string{"src/a.py", "gen/c.py"}, rel); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if _, _, err := Collect(OSFS{}, []string{filepath.Join(dir, "missing")}, cfg); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing path: %v", err)
	}
	ch, errc := Read(context.Background(), OSFS{}, []string{filepath.Join(dir, "src", "a.py"), filepath.Join(dir, "nope.py")})
	n := 0
	for range ch {
		n++
	}
	if err := <-errc; n != 1 || err == nil {
		t.Errorf("read %d files, err %v", n, err)
	}
}

// TestLintCancelledMidFile cancels the run from inside a rule on a large
// file: the searches the next rules make come back empty, no later rule
// runs, and Lint returns the cancellation.
func TestLintCancelledMidFile(t *testing.T) {
	var src strings.Builder
	src.WriteString("import torch\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&src, "y%d = x.cpu(non_blocking=True)\nprint(y%d.tolist())\n", i, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var before, after int
	laterRan := false
	cancelling := &Rule{RuleDoc: report.RuleDoc{ID: "CD901", Name: "cancel-midway"}, Check: func(p *Pass) {
		f := p.File
		half := len(f.Src) / 2
		before = len(f.Calls(0, half))
		cancel()
		after = len(f.Calls(half, len(f.Src))) + len(f.Find("non_blocking", half, len(f.Src)))
	}}
	later := &Rule{RuleDoc: report.RuleDoc{ID: "CD902", Name: "after-cancel"}, Check: func(p *Pass) { laterRan = true }}
	ch := make(chan Source, 1)
	ch <- Source{Path: "big.py", Src: []byte(src.String())}
	close(ch)
	fs, _, err := (&Linter{Rules: []*Rule{cancelling, later}}).Lint(ctx, ch)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Lint returned %v (%d findings), want context.Canceled", err, len(fs))
	}
	if before == 0 {
		t.Fatal("the rule saw no calls before cancelling")
	}
	if after != 0 {
		t.Errorf("after cancelling, the second half of the file still gave %d calls and matches", after)
	}
	if laterRan {
		t.Error("a rule ran after the run was cancelled")
	}
}

// A transformers Trainer subclass that imports neither torch nor
// lightning still computes its loss in the GPU step.
func TestMentionsGPU(t *testing.T) {
	for src, want := range map[string]bool{
		"from transformers import Trainer\nclass T(Trainer):\n    def compute_loss(self, model, inputs):\n        return model(**inputs).loss\n": true,
		"import torch\n":                        true,
		"def compute_losses(rows):\n    pass\n": false,
		"print('hello')\n":                      false,
	} {
		if got := mentionsGPU([]byte(src)); got != want {
			t.Errorf("mentionsGPU(%q) = %v, want %v", src, got, want)
		}
	}
}
