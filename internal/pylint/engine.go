package pylint

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Diagnostic is one finding of a rule at a byte range of a file.
type Diagnostic struct {
	Rule     *Rule
	Start    int
	End      int
	Message  string
	Remedies []string
}

// Pass is what a rule's Check sees: the file and a way to report.
type Pass struct {
	File  *File
	Rule  *Rule
	diags *[]Diagnostic
}

// Report records a finding at node n.
func (p *Pass) Report(n *Node, msg string, remedies ...string) {
	*p.diags = append(*p.diags, Diagnostic{Rule: p.Rule, Start: int(n.StartByte()), End: int(n.EndByte()), Message: msg, Remedies: remedies})
}

// Source is one file to lint: its display path and its bytes.
type Source struct {
	Path string
	Src  []byte
}

// Stats counts what a run did.
type Stats struct {
	Files  int // files given
	Parsed int // files that were parsed (the rest could not match any rule)
	Lines  int
}

// mentionsGPU is the cheapest filter: a file that never names torch or cuda
// cannot hold any hazard these rules know.
func mentionsGPU(src []byte) bool {
	return bytes.Contains(src, []byte("torch")) || bytes.Contains(src, []byte("cuda"))
}

// MaxNesting bounds the syntax tree depth the rules look at. CPython gives up
// far earlier on real nesting (200 brackets; about 1,500 chained calls), so
// no program that runs is refused.
const MaxNesting = 4000

// Linter runs rules over sources in parallel.
type Linter struct {
	Rules []*Rule
	// Enabled decides per file whether a code is reported (config select,
	// ignore and per-file-ignores); nil enables everything.
	Enabled func(path, code string) bool
	// Workers defaults to GOMAXPROCS.
	Workers int
	// AlwaysParse turns off the byte-level filters (torch/cuda mention,
	// rule anchors) so every file is parsed and given to every rule: the
	// worst case, for measuring what the rules themselves cost.
	AlwaysParse bool

	anchorsOnce sync.Once
	anchors     *anchorSet
}

func (l *Linter) anchorSet() *anchorSet {
	l.anchorsOnce.Do(func() { l.anchors = newAnchorSet(l.Rules) })
	return l.anchors
}

// Lint checks every source and returns findings sorted by path, line and
// column. Sources come from a channel so that reading and parsing overlap
// and memory stays bounded to what the workers hold.
func (l *Linter) Lint(ctx context.Context, sources <-chan Source) ([]report.Finding, Stats) {
	workers := l.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	var all []report.Finding
	var stats Stats
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parser := sitter.NewParser()
			defer parser.Close()
			parser.SetLanguage(python.GetLanguage())
			var local []report.Finding
			var st Stats
			for s := range sources {
				if ctx.Err() != nil {
					continue
				}
				fs, parsed := l.lintOne(ctx, parser, s)
				st.Files++
				st.Lines += bytes.Count(s.Src, []byte{'\n'})
				if parsed {
					st.Parsed++
				}
				local = append(local, fs...)
			}
			mu.Lock()
			all = append(all, local...)
			stats.Files += st.Files
			stats.Parsed += st.Parsed
			stats.Lines += st.Lines
			mu.Unlock()
		}()
	}
	wg.Wait()
	sortFindings(all)
	return all, stats
}

func sortFindings(fs []report.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].Location, fs[j].Location
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return fs[i].Rule < fs[j].Rule
	})
}

func (l *Linter) enabled(path, code string) bool {
	return l.Enabled == nil || l.Enabled(path, code)
}

// LintSource checks one in-memory file (tests, fuzzing).
func (l *Linter) LintSource(path string, src []byte) []report.Finding {
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(python.GetLanguage())
	fs, _ := l.lintOne(context.Background(), parser, Source{Path: path, Src: src})
	sortFindings(fs)
	return fs
}

func (l *Linter) lintOne(ctx context.Context, parser *sitter.Parser, s Source) ([]report.Finding, bool) {
	sups := parseSuppressions(s.Src)
	var active []*Rule
	if l.AlwaysParse || mentionsGPU(s.Src) {
		set := l.anchorSet()
		found := set.scan(s.Src)
		for _, r := range l.Rules {
			if l.enabled(s.Path, r.Code) && (l.AlwaysParse || r.applies(set, found)) {
				active = append(active, r)
			}
		}
	}
	var diags []Diagnostic
	var f *File
	parsed := false
	if len(active) > 0 {
		tree, err := parser.ParseCtx(ctx, nil, s.Src)
		if err != nil || tree == nil {
			return nil, false
		}
		flat := Flatten(tree.RootNode())
		tree.Close()
		parsed = true
		f = newFile(s.Path, s.Src, flat)
		f.precompute()
		if f.Root.HasError() && l.enabled(s.Path, CodeParseError) {
			start, end := 0, 0
			if n := firstError(f.Root); n != nil {
				start, end = int(n.StartByte()), int(n.EndByte())
			}
			diags = append(diags, Diagnostic{Rule: engineRule(CodeParseError), Start: start, End: end,
				Message: "syntax error: the rules could not check the code around here"})
		}
		if f.Tree.MaxDepth > MaxNesting {
			// CPython itself refuses such code (too many nested parentheses,
			// or a RecursionError while compiling); rules that look at a
			// node's surroundings would cost depth times size here.
			active = nil
			if l.enabled(s.Path, CodeParseError) {
				diags = append(diags, Diagnostic{Rule: engineRule(CodeParseError), Start: 0, End: 0,
					Message: fmt.Sprintf("code nested %d levels deep, deeper than Python can compile (limit %d here): not checked", f.Tree.MaxDepth, MaxNesting)})
			}
		}
		for _, r := range active {
			func() {
				defer func() {
					// A rule bug must not take the whole run down: report
					// it as a finding on the file and go on.
					if rec := recover(); rec != nil {
						diags = append(diags, Diagnostic{Rule: engineRule(CodeParseError), Start: 0, End: 0,
							Message: fmt.Sprintf("internal error in %s: %v", r.Code, rec)})
					}
				}()
				r.Check(&Pass{File: f, Rule: r, diags: &diags})
			}()
		}
	}
	if f == nil {
		f = newFile(s.Path, s.Src, nil)
	}
	diags = dedupe(diags)
	diags = applySuppressions(f, sups, diags, func(code string) bool { return l.enabled(s.Path, code) })
	diags = applyNoqa(f, parseNoqa(s.Src), diags)
	out := make([]report.Finding, 0, len(diags))
	for _, d := range diags {
		out = append(out, toFinding(f, d))
	}
	return out, parsed
}

func dedupe(ds []Diagnostic) []Diagnostic {
	seen := map[[3]any]bool{}
	out := ds[:0]
	for _, d := range ds {
		k := [3]any{d.Rule.Code, d.Start, d.Message}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// firstError descends along the children that contain an error to the
// first ERROR or MISSING node; only files with a syntax error pay for it.
func firstError(root *Node) *Node {
	n := root
	for {
		if n.IsError() || n.IsMissing() {
			return n
		}
		var next *Node
		for i := 0; i < int(n.ChildCount()); i++ {
			if c := n.Child(i); c != nil && (c.HasError() || c.IsMissing()) {
				next = c
				break
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
}

var engineRules = func() map[string]*Rule {
	m := map[string]*Rule{}
	for _, r := range EngineRules() {
		m[r.Code] = r
	}
	return m
}()

func engineRule(code string) *Rule { return engineRules[code] }

func toFinding(f *File, d Diagnostic) report.Finding {
	line, col := f.LineCol(d.Start)
	endLine, _ := f.LineCol(max(d.Start, d.End-1))
	loc := &report.Location{Path: f.Path, Line: line, Column: col, Code: f.Line(line)}
	if endLine > line {
		loc.EndLine = endLine
	}
	rem := d.Remedies
	if len(rem) == 0 && d.Rule.Doc.Fix != "" {
		rem = []string{firstParagraph(d.Rule.Doc.Fix)}
	}
	return report.Finding{Rule: d.Rule.Code, Severity: d.Rule.Severity, Message: d.Message, Location: loc, Remedies: rem,
		Facts: map[string]any{"name": d.Rule.Name}}
}

func firstParagraph(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := bytes.Index([]byte(s), []byte("\n\n")); i >= 0 {
		return s[:i]
	}
	return s
}
