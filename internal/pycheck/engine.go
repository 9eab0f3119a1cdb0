package pycheck

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

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
// cannot hold any hazard these rules know, unless it is written for
// Lightning (a callback importing only `lightning` runs in the trainer's
// GPU steps) or calls backward() (a training loop handed its model,
// optimiser and loss function needs no import of torch), or overrides a
// trainer's compute_loss (a transformers Trainer subclass importing only
// transformers computes its loss in the GPU step).
func mentionsGPU(src []byte) bool {
	return bytes.Contains(src, []byte("torch")) || bytes.Contains(src, []byte("cuda")) || bytes.Contains(src, []byte("lightning")) ||
		bytes.Contains(src, []byte("backward(")) || bytes.Contains(src, []byte("def compute_loss("))
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
	anchorsErr  error
}

// anchorSet is the rules' anchor set; Lint refuses to run (anchorsErr)
// when the rules have more anchors than it holds.
func (l *Linter) anchorSet() *anchorSet {
	l.anchorsOnce.Do(func() { l.anchors, l.anchorsErr = newAnchorSet(l.Rules) })
	return l.anchors
}

// job is one file between the phases: its source, the rules that apply,
// and what it found.
type job struct {
	src    Source
	active []*Rule
	// anchors found in the file's bytes, when scanned (scanned).
	anchors anchorBits
	scanned bool
	// model is the file's model from the first phase (tree released),
	// with the summary questions its rules asked.
	model    *Model
	findings []report.Finding
	// helper: no rule looks at the file, but its functions may matter to
	// files that import it; it is parsed only if one does.
	helper bool
	// rerun: an answer its rules got in the first phase changed once the
	// project was linked, or a rule now follows a helper it names.
	rerun bool
}

// newParser is a Python parser; each worker has its own (a parser is not
// safe for concurrent use).
func newParser() *sitter.Parser {
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	return p
}

// summarise parses a file, summarises it into the project, and returns
// the parsed file (nil when the parser gave up).
func summarise(ctx context.Context, parser *sitter.Parser, src Source, proj *Project, firstPhase bool) *File {
	f := parseFile(ctx, parser, src, proj)
	if f == nil {
		return nil
	}
	if f.Tree.MaxDepth <= MaxNesting {
		m := f.Model()
		m.inProject, m.firstPhase = true, firstPhase
		m.funcs()
		proj.add(m)
	}
	return f
}

// summariseHelpers parses, in waves, the helper files some summarised file
// imports from (and those they import from in turn), so a project's
// modules that no import reaches are never parsed. It returns how many it
// parsed.
func (l *Linter) summariseHelpers(ctx context.Context, workers int, jobs []*job, proj *Project) int {
	var pending []*job
	for _, j := range jobs {
		if j.helper {
			pending = append(pending, j)
		}
	}
	parsed := 0
	copyDirs := copyHelperDirs(jobs)
	demand := map[string]bool{}
	var seen []*Model
	for len(pending) > 0 && ctx.Err() == nil {
		seen = proj.demand(demand, seen)
		var now, later []*job
		for _, j := range pending {
			if demanded(demand, moduleKey(j.src.Path)) || alwaysSummarised(j.src.Path, j.src.Src, copyDirs) {
				now = append(now, j)
			} else {
				later = append(later, j)
			}
		}
		if len(now) == 0 {
			break
		}
		pending = later
		var n atomic.Int64
		eachWithParser(ctx, workers, len(now), func(parser *sitter.Parser, i int) {
			if f := summarise(ctx, parser, now[i].src, proj, false); f != nil {
				n.Add(1)
				if f.model != nil {
					f.model.release()
				}
				f.Tree.recycle()
			}
		})
		parsed += int(n.Load())
	}
	return parsed
}

// alwaysSummarised: a helper that copies without blocking is summarised
// whoever imports it, since a caller may have no anchor of its own to be
// parsed for (h = to_host(x); h.tolist() names nothing) and is found only
// through the helper's summary; so is a package __init__ that re-exports
// from such a helper's directory or above it. Other helpers are parsed when
// a demanded name reaches them (see Project.demand).
func alwaysSummarised(path string, src []byte, copyDirs map[string]bool) bool {
	if isPackageInit(path) {
		return copyDirs[filepath.Dir(path)] && bytes.Contains(src, []byte("from ."))
	}
	return bytes.Contains(src, []byte("non_blocking"))
}

// copyHelperDirs are the directories, and their parents, of the files
// that copy without blocking (checked or not: a checked file's functions
// are helpers to its importers too).
func copyHelperDirs(jobs []*job) map[string]bool {
	dirs := map[string]bool{}
	for _, j := range jobs {
		if !bytes.Contains(j.src.Src, []byte("non_blocking")) {
			continue
		}
		for d := filepath.Dir(j.src.Path); !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			if d == "." || d == "/" || d == filepath.Dir(d) {
				break
			}
		}
	}
	return dirs
}

// demanded reports whether a module key ends with a name some file
// imports from.
func demanded(demand map[string]bool, key string) bool {
	for k := key; ; {
		if demand[k] {
			return true
		}
		i := strings.IndexByte(k, '.')
		if i < 0 {
			return false
		}
		k = k[i+1:]
	}
}

// summaryAnchors mark a file whose functions may matter to other files'
// rules: they synchronise, copy to the host without blocking, name CUDA, or
// return what a torch factory made.
var summaryAnchors = [][]byte{[]byte("non_blocking"), []byte("synchronize"), []byte(".item()"), []byte(".cpu()"),
	[]byte(".tolist()"), []byte(".numpy()"), []byte(".cuda("), []byte("return torch.")}

func summaryRelevant(path string, src []byte) bool {
	if isPackageInit(path) {
		// A package re-exports its modules' functions.
		return bytes.Contains(src, []byte("import"))
	}
	if !bytes.Contains(src, []byte("def ")) {
		return false
	}
	for _, a := range summaryAnchors {
		if bytes.Contains(src, a) {
			return true
		}
	}
	return false
}

// Lint checks every source and returns findings sorted by path, line and
// column. It runs in two phases over GOMAXPROCS workers: the first parses
// each file that can matter and summarises its functions into the project;
// once every summary is in and linked across imports, the second runs the
// rules. When ctx is cancelled it stops within the file at hand (the
// parser, the tree passes and the rules' searches all look at ctx) and
// returns ctx's error.
func (l *Linter) Lint(ctx context.Context, sources <-chan Source) ([]report.Finding, Stats, error) {
	if l.anchorSet(); l.anchorsErr != nil {
		for range sources { // drain, so the reader can stop
		}
		return nil, Stats{}, l.anchorsErr
	}
	workers := l.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	proj := NewProject()
	var mu sync.Mutex
	var jobs []*job
	var stats Stats
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parser := newParser()
			defer parser.Close()
			var local []*job
			var st Stats
			for s := range sources {
				if ctx.Err() != nil {
					continue // drain, so the reader can stop
				}
				j := &job{src: s}
				j.active, j.anchors, j.scanned = l.activeRules(s)
				st.Files++
				st.Lines += bytes.Count(s.Src, []byte{'\n'})
				var f *File
				if len(j.active) > 0 {
					if f = summarise(ctx, parser, s, proj, true); f != nil {
						st.Parsed++
						j.model = f.model
					}
				} else {
					j.helper = summaryRelevant(s.Path, s.Src)
				}
				// The rules run now, while the tree is at hand; the few
				// files whose answers change once the project is linked
				// run again in the second phase.
				j.findings = l.check(ctx, j, f)
				if j.model != nil {
					j.model.release()
				}
				if f != nil && (f.model == nil || f.model == j.model) {
					f.Tree.recycle() // nothing holds its nodes now
				}
				local = append(local, j)
			}
			mu.Lock()
			jobs = append(jobs, local...)
			stats.Files += st.Files
			stats.Parsed += st.Parsed
			stats.Lines += st.Lines
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, stats, err
	}
	stats.Parsed += l.summariseHelpers(ctx, workers, jobs, proj)
	if err := ctx.Err(); err != nil {
		return nil, stats, err
	}
	proj.link()
	l.addFollowers(proj, jobs)

	var rerun []*job
	for _, j := range jobs {
		if j.rerun || j.model != nil && proj.changed(j.model) {
			rerun = append(rerun, j)
		}
	}
	eachWithParser(ctx, workers, len(rerun), func(parser *sitter.Parser, i int) {
		j := rerun[i]
		j.findings = l.check(ctx, j, parseFile(ctx, parser, j.src, proj))
	})
	if err := ctx.Err(); err != nil {
		return nil, stats, err
	}
	var all []report.Finding
	for _, j := range jobs {
		all = append(all, j.findings...)
	}
	sortFindings(all)
	return all, stats, nil
}

// eachWithParser calls f(parser, i) for i in [0, n) on up to workers
// goroutines, each with a parser of its own, made only once the worker has
// an item; it stops handing out items once ctx is cancelled.
func eachWithParser(ctx context.Context, workers, n int, f func(parser *sitter.Parser, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var parser *sitter.Parser
			defer func() {
				if parser != nil {
					parser.Close()
				}
			}()
			for i := next.Add(1) - 1; int(i) < n && ctx.Err() == nil; i = next.Add(1) - 1 {
				if parser == nil {
					parser = newParser()
				}
				f(parser, int(i))
			}
		}()
	}
	wg.Wait()
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

// AddTooLarge adds to fs, in order, the notice for each file a directory
// walk left out for its size (see Collect): the user learns that it was not
// checked, and why, where a silent skip would read as a clean file.
func (l *Linter) AddTooLarge(fs []report.Finding, paths []string) []report.Finding {
	r := engineRule(CodeParseError)
	added := false
	for _, p := range paths {
		if !l.enabled(p, CodeParseError) {
			continue
		}
		fs = append(fs, report.Finding{Rule: r.ID, Severity: r.Severity, Location: &report.Location{Path: p, Line: 1},
			Message:  fmt.Sprintf("more than %d MiB, so read as generated data rather than source: not checked", MaxFileSize>>20),
			Remedies: []string{"If it is generated, list it under exclude in [tool.cudadoctor] to drop this notice; if it is code, split it below the limit to have it checked."},
			Facts:    map[string]any{"name": r.Name}})
		added = true
	}
	if added {
		sortFindings(fs)
	}
	return fs
}

// LintSource checks one in-memory file (tests, fuzzing): a project of one.
func (l *Linter) LintSource(path string, src []byte) []report.Finding {
	fs, _ := l.LintSources(Source{Path: path, Src: src})
	return fs
}

// LintSources checks in-memory files as one project, so that their
// imports of each other are followed.
func (l *Linter) LintSources(srcs ...Source) ([]report.Finding, error) {
	ch := make(chan Source, len(srcs))
	for _, s := range srcs {
		ch <- s
	}
	close(ch)
	fs, _, err := l.Lint(context.Background(), ch)
	return fs, err
}

// addFollowers gives a rule with Follows the files that name a project
// function it follows, once the summaries are linked. Each file not
// already given the rule is read once, identifier by identifier, against
// one table of the followed names (a search per name would cost names
// times bytes).
func (l *Linter) addFollowers(proj *Project, jobs []*job) {
	var followers []*Rule
	names := map[string]uint64{} // name -> bit per follower
	for _, r := range l.Rules {
		if r.Follows == nil || len(followers) == 64 {
			continue
		}
		bit := uint64(1) << len(followers)
		followers = append(followers, r)
		for _, m := range proj.byPath {
			for name, s := range m.fns {
				if !s.Method && r.Follows(s) {
					names[name] |= bit
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	ns := newNameSet(names)
	set := l.anchorSet()
	for _, j := range jobs {
		var want uint64
		for i, r := range followers {
			if !l.enabled(j.src.Path, r.ID) || slices.Contains(j.active, r) {
				continue
			}
			want |= 1 << i
		}
		if want == 0 {
			continue
		}
		got := identifiersIn(j.src.Src, ns, want)
		for i, r := range followers {
			if got&(1<<i) == 0 {
				continue
			}
			// The names stand in for the second group of anchors when the
			// rule has one (CD108: a clock and, instead of "cuda", a
			// helper that runs CUDA work), else for the first.
			if len(r.AlsoAnchors) > 0 {
				if !j.scanned {
					j.anchors, j.scanned = set.scan(j.src.Src), true
				}
				found := j.anchors
				if m, ok := set.mask(r.Anchors); ok && !found.any(m) {
					continue
				}
			}
			j.active = append(j.active, r)
			j.rerun = true
		}
	}
}

// nameSet is a table of names with what rules out most identifiers before
// the map is asked: their first byte and their length.
type nameSet struct {
	bits           map[string]uint64
	first          [256]bool
	minLen, maxLen int
}

func newNameSet(names map[string]uint64) *nameSet {
	ns := &nameSet{bits: names, minLen: 1 << 30}
	for name := range names {
		if name == "" {
			continue
		}
		ns.first[name[0]] = true
		ns.minLen = min(ns.minLen, len(name))
		ns.maxLen = max(ns.maxLen, len(name))
	}
	return ns
}

var identByte = func() (t [256]bool) {
	for b := range t {
		t[b] = IsIdentByte(byte(b))
	}
	return t
}()

// identifiersIn returns the bits (of want) of the names that occur in src
// as whole identifiers.
func identifiersIn(src []byte, ns *nameSet, want uint64) uint64 {
	var got uint64
	for i := 0; i < len(src); {
		if !identByte[src[i]] {
			i++
			continue
		}
		j := i + 1
		for j < len(src) && identByte[src[j]] {
			j++
		}
		if n := j - i; ns.first[src[i]] && n >= ns.minLen && n <= ns.maxLen {
			if b := ns.bits[string(src[i:j])] & want; b != 0 {
				got |= b
				if got == want {
					return got
				}
			}
		}
		i = j
	}
	return got
}

// activeRules are the rules that can match a file, decided from its bytes,
// and the anchors found in it (scanned false when the file was not read
// for them).
func (l *Linter) activeRules(s Source) (active []*Rule, found anchorBits, scanned bool) {
	if l.AlwaysParse || mentionsGPU(s.Src) {
		set := l.anchorSet()
		found, scanned = set.scan(s.Src), true
		for _, r := range l.Rules {
			if l.enabled(s.Path, r.ID) && (l.AlwaysParse || r.applies(set, found)) {
				active = append(active, r)
			}
		}
	}
	return active, found, scanned
}

// parseFile parses and flattens a source, or returns nil when the parser
// gives up (cancelled).
func parseFile(ctx context.Context, parser *sitter.Parser, s Source, proj *Project) *File {
	tree, err := parser.ParseCtx(ctx, nil, s.Src)
	if err != nil || tree == nil {
		return nil
	}
	// The C tree is freed before the Go nodes are made, so a large file
	// holds one of the two at a time, not both.
	raw := copyRaw(tree.RootNode())
	tree.Close()
	if len(raw.raw) >= largeTree {
		trimCHeap()
	}
	flat := raw.build()
	f := newFile(s.Path, s.Src, flat)
	f.ctx = ctx
	f.project = proj
	f.precompute()
	return f
}

// check runs a job's rules on its parsed file (nil when not parsed) and
// applies suppressions.
func (l *Linter) check(ctx context.Context, j *job, f *File) []report.Finding {
	s := j.src
	sups := parseSuppressions(s.Src)
	active := j.active
	var diags []Diagnostic
	if f != nil {
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
			if ctx.Err() != nil {
				return nil
			}
			func() {
				defer func() {
					// A rule bug must not take the whole run down: report
					// it as a finding on the file and go on.
					if rec := recover(); rec != nil {
						diags = append(diags, Diagnostic{Rule: engineRule(CodeParseError), Start: 0, End: 0,
							Message: fmt.Sprintf("internal error in %s: %v", r.ID, rec)})
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
	if len(diags) > 0 {
		// noqa only silences: a file with nothing to report is not read
		// for it.
		diags = applyNoqa(f, parseNoqa(s.Src), diags)
	}
	out := make([]report.Finding, 0, len(diags))
	for _, d := range diags {
		out = append(out, toFinding(f, d))
	}
	return out
}

func dedupe(ds []Diagnostic) []Diagnostic {
	seen := map[[3]any]bool{}
	out := ds[:0]
	for _, d := range ds {
		k := [3]any{d.Rule.ID, d.Start, d.Message}
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
		m[r.ID] = r
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
	if len(rem) == 0 && d.Rule.Section("Fix") != "" {
		rem = []string{firstParagraph(d.Rule.Section("Fix"))}
	}
	return report.Finding{Rule: d.Rule.ID, Severity: d.Rule.Severity, Message: d.Message, Location: loc, Remedies: rem,
		Facts: map[string]any{"name": d.Rule.Name}}
}

func firstParagraph(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := bytes.Index([]byte(s), []byte("\n\n")); i >= 0 {
		return s[:i]
	}
	return s
}
