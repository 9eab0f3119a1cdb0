package kb

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/oom"
)

// Verdict is the knowledge base's decision about the lines of one failure.
type Verdict struct {
	// Class is the root class decided.
	Class *Class
	// Surface is the class the primary line named before refinement (equal
	// to Class when nothing refined it).
	Surface *Class
	// Primary is the index (into the lines given) of the line that named the failure.
	Primary int
	// Signature is the signature that fired on the primary line.
	Signature *Signature
	// Evidence are indexes of every line that matched a signature of Class
	// or Surface, or a refinement's evidence, in line order.
	Evidence []int
	// Facts are the named regex groups and parsed facts of the matching
	// lines: the primary line's first, then the others in line order (first
	// wins), plus whatever the fact parsers derived.
	Facts map[string]string
	// Why explains each refinement step, in order.
	Why []string
	// Alternatives are other plausible root classes when nothing settled it.
	Alternatives []Alternative
	// Async: CUDA reports this failure asynchronously, so the traceback's
	// line is probably not where it happened.
	Async bool
}

// Predicate is a named piece of refinement logic that data cannot express.
// It reads the facts gathered from the failure's lines.
type Predicate func(facts map[string]string) bool

// PredicateNames lists the registry (for validation and docs).
func PredicateNames() []string {
	out := make([]string, 0, len(predicates))
	for n := range predicates {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// factParsers turn a matching line into more facts than a regex can name.
var factParsers = map[string]func(lines []string, i int) map[string]string{
	"kernel_assert":  func(lines []string, i int) map[string]string { return parseKernelAssert(lines[i]) },
	"startup_memory": parseStartupMemory,
	"oom": func(lines []string, i int) map[string]string {
		m, ok := oom.Parse(oomMessageText(lines, i))
		if !ok {
			return nil
		}
		f := oom.Facts(m)
		// Human-readable twins of the byte counts, for remedies' {holes}.
		for _, k := range []string{"requested", "capacity", "free", "other_processes", "allocated", "reserved_unallocated", "allowed"} {
			if b, err := strconv.ParseInt(f[k+"_bytes"], 10, 64); err == nil {
				f[k] = oom.Format(b)
			}
		}
		return f
	},
}

// parseKernelAssert reads the line a failing device assert() prints,
// "<file>:<line>: <function>: block: [x,y,z], thread: [x,y,z] Assertion
// `<condition>` failed.", with string operations: the flood of such lines
// makes this the hottest parse, and regexes with leading lazy groups are
// two orders of magnitude slower here.
func parseKernelAssert(line string) map[string]string {
	bi := strings.Index(line, ": block: [")
	if bi < 0 {
		return nil
	}
	f := map[string]string{}
	head := line[:bi]
	// The source is the token ending in ":<digits>: " (paths have no spaces).
	for i := 0; i < len(head); i++ {
		if head[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(head) && head[j] >= '0' && head[j] <= '9' {
			j++
		}
		if j == i+1 || j+1 >= len(head) || head[j] != ':' || head[j+1] != ' ' {
			continue
		}
		start := strings.LastIndexByte(head[:i], ' ') + 1
		f["kernel_src"] = head[start:i]
		f["kernel_line"] = head[i+1 : j]
		f["kernel"] = head[j+2:]
		break
	}
	rest := line[bi+len(": block: ["):]
	if e := strings.IndexByte(rest, ']'); e >= 0 {
		f["block"] = rest[:e]
		rest = rest[e:]
	}
	if ti := strings.Index(rest, "thread: ["); ti >= 0 {
		rest = rest[ti+len("thread: ["):]
		if e := strings.IndexByte(rest, ']'); e >= 0 {
			f["thread"] = rest[:e]
		}
	}
	if ai := strings.Index(line, "Assertion `"); ai >= 0 {
		a := line[ai+len("Assertion `"):]
		if e := strings.LastIndex(a, "` failed"); e >= 0 {
			f["assertion"] = a[:e]
		}
	}
	return f
}

// oomMessageText joins an OOM line with the lines that continue it: pasted
// reports and some loggers wrap the long message. It stops at the next OOM
// message, a traceback, or after three lines.
func oomMessageText(lines []string, i int) string {
	text := lines[i]
	for j := i + 1; j < len(lines) && j <= i+3; j++ {
		l := strings.TrimSpace(lines[j])
		if l == "" || strings.Contains(l, "CUDA out of memory") || strings.HasPrefix(l, "Traceback") || strings.HasPrefix(l, "File ") {
			break
		}
		text += " " + l
	}
	return text
}

// messageBuilders write a class's one-line verdict from the facts when they
// allow a more specific sentence than the class's default.
var messageBuilders = map[string]func(facts map[string]string) (string, bool){
	"oom":               oomMessage,
	"oom-fragmentation": oomMessage,
}

func oomMessage(f map[string]string) (string, bool) {
	m, ok := oom.FromFacts(f)
	if !ok {
		return "", false
	}
	return oom.Verdict(m), true
}

type hit struct {
	line int
	m    Match
}

// Classify decides the root class of one failure from its lines. It
// returns false when no primary signature fires on any line.
//
// Order of decision: every primary match is a candidate (a signature with
// `requires` counts only when some line matches it); the candidate earliest
// in the precedence order wins, the earliest line breaking ties; then the
// winner's refinements are tried in file order (the first whose predicate
// holds or whose evidence regex matches any line wins) and, transitively,
// the refined class's own.
func (k *KB) Classify(lines []string) (Verdict, bool) {
	var hits []hit
	for i, l := range lines {
		ms := k.Matches(l)
		for _, m := range ms {
			hits = append(hits, hit{i, m})
		}
		for _, m := range k.wrappedMatches(lines, i, ms) {
			hits = append(hits, hit{i, m})
		}
		for _, m := range k.statusMatches(lines, i) {
			hits = append(hits, hit{i, m})
		}
	}
	firstError := firstErrorLine(lines, hits)
	// Notices count only where nothing failed.
	best := -1
	for _, notes := range []bool{false, true} {
		for i, h := range hits {
			s := h.m.Signature
			if s.Strength != Primary || (s.Note != "") != notes || !s.requirementMet(lines) || !repeated(hits, s) || (s.Yields && firstError < h.line) {
				continue
			}
			if best < 0 || k.Rank(h.m.Class.ID) < k.Rank(hits[best].m.Class.ID) {
				best = i
			}
		}
		if best >= 0 {
			break
		}
	}
	if best < 0 {
		return Verdict{}, false
	}
	win := hits[best]
	v := Verdict{Class: win.m.Class, Surface: win.m.Class, Primary: win.line, Signature: win.m.Signature, Facts: map[string]string{}}
	addFacts(v.Facts, win, lines)
	for _, h := range hits {
		addFacts(v.Facts, h, lines)
	}
	runtimeErrorFacts(lines, v.Facts)
	frameworkFact(lines, v.Facts)
	normaliseFacts(v.Facts)
	refinedBy := map[int]bool{}
	// A notice is what its line says, nothing deeper.
	for steps := 0; steps < len(k.Classes) && !v.Notice(); steps++ {
		next, why, evidence := k.refineOnce(v.Class, lines, v.Facts)
		if next == nil {
			break
		}
		v.Why = append(v.Why, why)
		for _, e := range evidence {
			refinedBy[e] = true
		}
		v.Class = next
	}
	set := map[int]bool{v.Primary: true}
	for _, h := range hits {
		if h.m.Class == v.Class || h.m.Class == v.Surface {
			set[h.line] = true
		}
	}
	for e := range refinedBy {
		set[e] = true
	}
	for i := range set {
		v.Evidence = append(v.Evidence, i)
	}
	sort.Ints(v.Evidence)
	switch {
	case v.Notice():
	case v.Class == v.Surface:
		v.Alternatives = readingsAgainst(k.alternativesFor(v.Class), v.Facts)
	default:
		// A refinement reads the facts beside the message; when they
		// misled it, the message's own class is the answer, so it comes
		// first among the others.
		v.Alternatives = []Alternative{{Class: v.Surface.ID}}
		for _, a := range k.alternativesFor(v.Class) {
			if a.Class != v.Surface.ID {
				v.Alternatives = append(v.Alternatives, a)
			}
		}
	}
	v.Async = v.Class.Async
	if v.Class == v.Surface && v.Signature.Async != nil {
		v.Async = *v.Signature.Async
	}
	return v, true
}

// raisedLineRE is a Python exception line: an error the process reported
// itself, whatever its class. Lines are read behind a launcher's rank
// prefix (logparse.StripRank), as the parser reads them.
var raisedLineRE = lazyre.New(`^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)(?::|$)`)

// raisedLine: the line reports an exception of its own.
func raisedLine(l string) bool {
	_, rest := logparse.StripRank(l)
	return raisedLineRE.MatchString(rest)
}

// firstErrorLine is the index of the first line that reports an error of
// its own: an exception line or a primary signature's match, other than a
// notice or a wording that only says how the process ended (Yields); a
// line holding such a wording is none. len(lines) when there is none, or
// when no such wording matched (the answer is then never asked).
func firstErrorLine(lines []string, hits []hit) int {
	if !slices.ContainsFunc(hits, func(h hit) bool { return h.m.Signature.Yields }) {
		return len(lines)
	}
	yields := map[int]bool{}
	errs := map[int]bool{}
	for _, h := range hits {
		s := h.m.Signature
		switch {
		case s.Yields:
			yields[h.line] = true
		case s.Strength == Primary && s.Note == "":
			errs[h.line] = true
		}
	}
	for i, l := range lines {
		if !yields[i] && (errs[i] || raisedLine(l)) {
			return i
		}
	}
	return len(lines)
}

// wrappedMatches are the signatures that fire only when line i is joined
// with the next: a message hard-wrapped by a terminal, a paste or the
// program itself ("...used to compile\n    PyTorch (11.3)"). Signatures
// already firing on line i, or on the next line alone, are not repeated.
func (k *KB) wrappedMatches(lines []string, i int, onLine []Match) []Match {
	var out []Match
	var next []Match
	nextDone := false
	for _, joined := range joinsWithNext(lines, i) {
		for _, m := range k.Matches(joined) {
			if hasSignature(onLine, m.Signature) || hasSignature(out, m.Signature) {
				continue
			}
			if !nextDone {
				next, nextDone = k.Matches(lines[i+1]), true
			}
			if hasSignature(next, m.Signature) {
				continue
			}
			out = append(out, m)
		}
	}
	return out
}

// joinsWithNext are the ways line i and the next read as one line: with a
// space between them (joinedWithNext), and, where line i may be a
// terminal's cut (as wide as a terminal, ending and followed by no blank),
// also with nothing between them, since a terminal cuts inside a word or
// a number ("CANCELLED AT 2026-01-06T22:02:4" / "8 ***").
//
// A word wider than a re-flowing tool's width (a path, a URL) stands on a
// line of its own, the message going on around it ("THCudaCheck FAIL" /
// "file=/scratch/.../THCGeneral.c" / "line=70 error=30 : unknown error"):
// line i is then also read with the next two.
func joinsWithNext(lines []string, i int) []string {
	joined, ok := joinedWithNext(lines, i)
	if !ok {
		return nil
	}
	out := []string{joined}
	if glued, ok := gluedWithNext(lines, i); ok {
		out = append(out, glued)
	}
	if i+2 < len(lines) && loneWord(lines[i], lines[i+1], lines[i+2]) {
		out = append(out, joined+" "+strings.TrimSpace(lines[i+2]))
	}
	return out
}

// loneWord: word, a line of one word, was put on a line of its own by a
// re-flow: it did not fit behind line, and the next line's first word
// did not fit behind it.
func loneWord(line, word, next string) bool {
	word, next = strings.TrimSpace(word), strings.TrimSpace(next)
	if len(word) < minLoneWord || strings.ContainsAny(word, " \t") || next == "" || next[0] == '|' {
		return false
	}
	first, _, _ := strings.Cut(next, " ")
	return utf8.RuneCountInString(strings.TrimSpace(line))+1+utf8.RuneCountInString(word) > minReflowWidth &&
		utf8.RuneCountInString(word)+1+utf8.RuneCountInString(first) > minReflowWidth
}

// minLoneWord, minReflowWidth: tools re-flow pastes at 64 to 100 columns
// (see logparse's unwrap); a word of at least minLoneWord bytes that a
// line's text and the next word overflow any of them with was put on a
// line of its own.
const minLoneWord, minReflowWidth = 40, 64

// minCutWidth: no terminal is narrower than 80 columns; a shorter line
// was not cut by one.
const minCutWidth = 80

func gluedWithNext(lines []string, i int) (string, bool) {
	l, next := lines[i], lines[i+1]
	if utf8.RuneCountInString(l) < minCutWidth || next == "" || l[len(l)-1] == ' ' || l[len(l)-1] == '\t' || next[0] == ' ' || next[0] == '\t' {
		return "", false
	}
	return l + next, true
}

// joinedWithNext is line i and the next as one line, the way a reader
// undoes a hard wrap; false when either is blank or there is no next line.
func joinedWithNext(lines []string, i int) (string, bool) {
	if i+1 >= len(lines) || strings.TrimSpace(lines[i]) == "" || strings.TrimSpace(lines[i+1]) == "" {
		return "", false
	}
	return strings.TrimRight(lines[i], " \t") + " " + strings.TrimSpace(lines[i+1]), true
}

func hasSignature(ms []Match, s *Signature) bool {
	for _, m := range ms {
		if m.Signature == s {
			return true
		}
	}
	return false
}

func addFacts(facts map[string]string, h hit, lines []string) {
	for name, val := range h.m.Groups {
		if _, ok := facts[name]; !ok {
			facts[name] = val
		}
	}
	if h.m.Signature.Parse == "" {
		return
	}
	for name, val := range factParsers[h.m.Signature.Parse](lines, h.line) {
		if _, ok := facts[name]; !ok {
			facts[name] = val
		}
	}
}

var (
	cudaErrorNameRE = lazyre.New("Search for `(cudaError[A-Za-z]+)'")
	cudaErrorTextRE = lazyre.New(`(?:CUDA error|CUDA driver error|cuda runtime error \(\d+\)) ?: ([a-z][^.\n]*?[a-z])(?: at [^ ]*[/\\]| \(|\.|$)`)
)

// Framework is the framework the failure's log comes from: the framework
// fact where the lines named JAX or TensorFlow, else PyTorch.
func (v Verdict) Framework() string {
	if f := v.Facts["framework"]; f != "" {
		return f
	}
	return "pytorch"
}

var (
	// PyTorch/XLA prints XLA's statuses too; it is PyTorch.
	torchXLARE = lazyre.New(`\btorch_xla\b`)
	// JAX's Python client: its package names, its error type, its
	// settings, and the old path of XLA's Python client inside TensorFlow's
	// tree that early jaxlib printed, and the external/org_tensorflow/
	// prefix that jaxlib builds (to 2022) put before every XLA and stream
	// executor path (TensorFlow prints those paths bare), and external/xla/,
	// where jaxlib builds from 2023 on keep OpenXLA's sources (TensorFlow's
	// own copy is external/local_xla/).
	jaxRE = lazyre.New(`\bjax(?:lib)?\b|XlaRuntimeError|XLA_PYTHON_CLIENT_|xla/python/|external/org_tensorflow/|external/xla/xla/`)
	// TensorFlow: its package, its exception, its GPU allocator, its copy
	// of XLA's sources.
	tensorflowRE = lazyre.New(`\btensorflow\b|ResourceExhaustedError|\bGPU_\d+_bfc\b|bfc_allocator|TF_FORCE_GPU_ALLOW_GROWTH|external/local_xla/`)
)

// frameworkFact records a JAX or TensorFlow failure as such (framework=jax,
// framework=tensorflow), so that remedies speak that framework's settings.
func frameworkFact(lines []string, f map[string]string) {
	text := strings.Join(lines, "\n")
	switch {
	case torchXLARE.MatchString(text):
	case jaxRE.MatchString(text):
		f["framework"] = "jax"
	case tensorflowRE.MatchString(text):
		f["framework"] = "tensorflow"
	}
}

// runtimeErrorFacts records the CUDA error a failure reports: the runtime's
// name (PyTorch 2.9+ prints "Search for `cudaErrorXxx'") and the error
// string, whichever class the failure is, so reports can show both.
func runtimeErrorFacts(lines []string, f map[string]string) {
	for _, l := range lines {
		if _, ok := f["cuda_error"]; !ok && strings.Contains(l, "Search for `cudaError") {
			if m := cudaErrorNameRE.FindStringSubmatch(l); m != nil {
				f["cuda_error"] = m[1]
			}
		}
		if _, ok := f["cuda_error_message"]; !ok && (strings.Contains(l, "CUDA error") || strings.Contains(l, "cuda runtime error") || strings.Contains(l, "CUDA driver error")) {
			if m := cudaErrorTextRE.FindStringSubmatch(l); m != nil {
				f["cuda_error_message"] = m[1]
			}
		}
	}
}

var (
	kernelParamsRE = lazyre.New(`[(<\[].*$`)
	kernelPrefixRE = lazyre.New(`^(?:(?:void|static|__global__|inline)\s+)+`)
)

// normaliseFacts shortens a kernel's printed C++ signature ("void
// at::native::indexSelectLargeIndex<float, ...>(...) [with T = float]") to
// its name, keeping the namespace-free identifier users search for.
func normaliseFacts(f map[string]string) {
	// The driver's CUDA version is printed as 1000*major + 10*minor.
	if v, err := strconv.Atoi(f["driver_cuda_version"]); err == nil && v >= 1000 {
		f["driver_cuda"] = fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
	}
	if k, ok := f["kernel"]; ok {
		k = strings.ReplaceAll(k, "(anonymous namespace)::", "")
		k = kernelPrefixRE.ReplaceAllString(strings.TrimSpace(k), "")
		k = kernelParamsRE.ReplaceAllString(k, "")
		if i := strings.LastIndex(k, "::"); i >= 0 && i+2 < len(k) {
			k = k[i+2:]
		}
		if k != "" {
			f["kernel"] = k
		}
	}
}

// repeated says a signature with Repeats matched that many distinct lines
// among the failure's hits.
func repeated(hits []hit, s *Signature) bool {
	if s.Repeats <= 1 {
		return true
	}
	n, last := 0, -1
	for _, h := range hits {
		if h.m.Signature == s && h.line != last {
			n, last = n+1, h.line
		}
	}
	return n >= s.Repeats
}

func (s *Signature) requirementMet(lines []string) bool {
	if s.requiresRE == nil {
		return true
	}
	for _, l := range lines {
		if s.requiresRE.MatchString(l) {
			return true
		}
	}
	return false
}

func (k *KB) refineOnce(c *Class, lines []string, facts map[string]string) (*Class, string, []int) {
	for i := range c.Refine {
		r := &c.Refine[i]
		if r.When != "" {
			p, ok := predicates[r.When]
			if ok && p(facts) {
				return k.byID[r.To], r.Why, nil
			}
			continue
		}
		if r.Evidence == "" {
			continue
		}
		var ev []int
		for j, l := range lines {
			if r.EvidenceMatches(l) {
				ev = append(ev, j)
			}
		}
		if len(ev) > 0 {
			return k.byID[r.To], r.Why, ev
		}
	}
	return nil, "", nil
}

// checkPredicates is part of Load's validation: a `when:` must name a
// registered predicate.
func (k *KB) checkPredicates() error {
	for _, c := range k.Classes {
		for _, r := range c.Refine {
			if r.When != "" {
				if _, ok := predicates[r.When]; !ok {
					return fmt.Errorf("knowledge base %s: refinement to %s names unknown predicate %q", c.ID, r.To, r.When)
				}
			}
		}
		for _, r := range c.Remedies {
			if r.When != "" {
				if _, ok := predicates[r.When]; !ok {
					return fmt.Errorf("knowledge base %s: remedy names unknown predicate %q", c.ID, r.When)
				}
			}
			for _, fw := range r.Frameworks {
				if !slices.Contains(Frameworks, fw) {
					return fmt.Errorf("knowledge base %s: remedy names unknown framework %q", c.ID, fw)
				}
			}
		}
	}
	return nil
}

// Holds evaluates a named predicate (false when unknown).
func Holds(name string, facts map[string]string) bool {
	p, ok := predicates[name]
	return ok && p(facts)
}

// Message is the one-line verdict: written from the facts where the class
// has a builder (OOM numbers), else the first of the class's messages whose
// {fact} holes the facts fill, else the class's verdict.
func (v Verdict) Message() string {
	if v.Class == nil {
		return ""
	}
	if v.Notice() {
		if s, ok := Fill(v.Signature.Note, v.Facts); ok {
			return strings.TrimSpace(s)
		}
		return strings.TrimSpace(holeRE.ReplaceAllString(v.Signature.Note, "it"))
	}
	if b, ok := messageBuilders[v.Class.ID]; ok {
		if s, ok := b(v.Facts); ok {
			return s
		}
	}
	for _, m := range v.Class.Messages {
		if s, ok := Fill(m, v.Facts); ok {
			return strings.TrimSpace(s)
		}
	}
	if s, ok := Fill(v.Class.Verdict, v.Facts); ok {
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(holeRE.ReplaceAllString(v.Class.Verdict, ""))
}

// Notice says the verdict rests on a wording that is routine on its own
// (a signature with a note): an info finding, not a failure.
func (v Verdict) Notice() bool { return v.Signature != nil && v.Signature.Note != "" }

// Remedies are the class's remedies for this failure: those whose `when`
// predicate holds and whose placeholders extra (the engine's {origin},
// {command}) or the facts can fill, in file order.
func (v Verdict) Remedies(extra map[string]string) []string {
	if v.Class == nil || v.Notice() {
		return nil
	}
	vals := make(map[string]string, len(v.Facts)+len(extra))
	for k, x := range v.Facts {
		vals[k] = x
	}
	for k, x := range extra {
		if x != "" {
			vals[k] = x
		}
	}
	var out []string
	fw := v.Framework()
	for _, r := range v.Class.Remedies {
		if r.When != "" && !Holds(r.When, v.Facts) {
			continue
		}
		if len(r.Frameworks) > 0 && !slices.Contains(r.Frameworks, fw) {
			continue
		}
		if s, ok := Fill(r.Text, vals); ok {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

var holeRE = lazyre.New(`\{([a-z_][a-z0-9_]*)\}`)

// Fill replaces every {name} in text with vals[name]; false when one has no value.
func Fill(text string, vals map[string]string) (string, bool) {
	ok := true
	s := holeRE.ReplaceAllStringFunc(text, func(h string) string {
		name := h[1 : len(h)-1]
		if x, found := vals[name]; found && x != "" {
			return x
		}
		ok = false
		return h
	})
	return s, ok
}

// ContextWords are the fixed texts that let the lines context refinements
// read reach the parser.
func (k *KB) ContextWords() []string {
	var out []string
	for _, c := range k.Classes {
		for _, r := range c.Refine {
			out = append(out, r.Words...)
		}
	}
	return out
}

// RefineByContext tries the context refinements of class id against every
// line of an input (prose included) and returns the class it refines to
// and the index of the line that showed it. status is the finding's
// canonical status ("" when it has none), which a refinement's
// unless_status may rule out.
func (k *KB) RefineByContext(id, status string, lines []string) (*Class, int) {
	c, ok := k.byID[id]
	if !ok {
		return nil, -1
	}
	for i := range c.Refine {
		r := &c.Refine[i]
		if r.contextRE == nil || (r.unlessRE != nil && status != "" && r.unlessRE.MatchString(status)) {
			continue
		}
		for j, l := range lines {
			if r.contextRE.MatchString(l) {
				return k.byID[r.To], j
			}
		}
	}
	return nil, -1
}
