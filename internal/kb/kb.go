// Package kb loads and validates the knowledge base: one YAML file per
// taxonomy class (data/<id>.yaml), embedded in the binary, plus the explicit
// precedence order (data/precedence.yaml). It also matches log lines against
// the classes' signatures; deciding what the matches mean is package explain's job.
package kb

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/par"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

//go:embed data/*.yaml
var dataFS embed.FS

// Strength says how much a signature establishes on its own.
type Strength string

const (
	// Primary: the line names a failure by itself ("CUDA out of memory").
	Primary Strength = "primary"
	// Context: the line only supports or refines a failure found elsewhere
	// (a kernel assertion text, "Tried to allocate", a cuBLAS call name).
	Context Strength = "context"
)

// Signature recognises one wording of a class in a single log line.
type Signature struct {
	// ID is unique within the class; evidence and tests name it.
	ID string `yaml:"id"`
	// Keywords must all occur in the line (exact, case-sensitive substrings).
	// They are the cheap pre-filter that keeps the regex off most lines, so
	// pick the rarest fixed text of the wording.
	Keywords []string `yaml:"keywords"`
	// Regex is RE2, matched against the line after ANSI codes and rank
	// prefixes are stripped. Named groups become facts of the finding.
	Regex    string   `yaml:"regex"`
	Strength Strength `yaml:"strength"`
	// Versions documents where the wording comes from ("PyTorch 1.13-2.0").
	Versions string `yaml:"versions,omitempty"`
	// Requires is an RE2 regex that some line of the same failure must
	// match for a primary match of this signature to count: for wordings
	// that name this class only in a context ("invalid argument" from a
	// kernel launch).
	Requires string `yaml:"requires,omitempty"`
	// Unless is an RE2 regex that, when it matches the same line, cancels
	// the match: for wordings that also occur in harmless warnings.
	Unless string `yaml:"unless,omitempty"`
	// UnlessScope "sentence" limits Unless to the sentence that holds the
	// match, for a person's prose: a paragraph pasted as one line states
	// one thing and denies another ("The PC reboots during training. No
	// crash in games, though."). Left out, Unless reads the whole line, as
	// a program's message needs ("ran out of memory ... The caller
	// indicates that this is not a failure").
	UnlessScope string `yaml:"unless_scope,omitempty"`
	// Repeats, when above 1, is how many lines of the same failure must
	// match for a primary match to count: for wordings that are routine
	// once (a loss scaler backing off during warm-up) and a failure only
	// when they keep coming.
	Repeats int `yaml:"repeats,omitempty"`
	// Yields marks a wording that says how a process ended, not why: a
	// launcher killing its children once one of them died, a scheduler
	// cancelling the job, an agent stopped by a signal. Its match counts
	// only when no earlier line of the same failure reports an error of
	// its own (a Python exception line, or another signature's primary
	// match): that error is then the failure, and this line its echo.
	Yields bool `yaml:"yields,omitempty"`
	// Async overrides the class's Async flag for this wording (a CPU-side
	// index error is reported where it happens; the device-side assert of
	// the same class is not).
	Async *bool `yaml:"async,omitempty"`
	// Parse names a registered fact parser (classify.go's factParsers) run
	// on the matching line; its facts join the regex groups. "oom" reads
	// every number of a caching-allocator OOM message (with up to three
	// continuation lines); "kernel_assert" reads a device assert() line.
	Parse string `yaml:"parse,omitempty"`
	// Note, when set, makes this wording a notice rather than a failure:
	// routine where it stands alone (a warn_only determinism warning, a
	// loss scaler backing off once), worth explaining when it is all a
	// log holds. Its match wins only when no other primary signature
	// fires, and the finding is info with Note (its {fact} holes filled
	// from the facts) as its message and no remedies.
	Note string `yaml:"note,omitempty"`

	re         *regexp.Regexp
	requiresRE *regexp.Regexp
	// spellings are the keywords' spellings (KeywordSpellings).
	spellings [][]string
	unlessRE  *regexp.Regexp
}

// Refinement turns a finding of this class into a more specific root class
// when a named Go predicate holds or when some line of the same failure
// matches Evidence. Refinements are tried in file order; the first wins.
type Refinement struct {
	To       string `yaml:"to"`
	When     string `yaml:"when,omitempty"`
	Evidence string `yaml:"evidence,omitempty"`
	// Context is an RE2 regex that any line of the same input may match,
	// prose included: what the user wrote around a bare error ("4 labels",
	// "num_classes"). Such lines reach the parser only through Words, the
	// fixed texts (6 bytes or more, case-sensitive) one of which every
	// line Context matches contains. Context refinements are weaker than
	// the failure's own lines and run after them.
	Context string   `yaml:"context,omitempty"`
	Words   []string `yaml:"context_words,omitempty"`
	// UnlessStatus (an RE2 regex, with Context only) keeps a context
	// refinement off a finding whose canonical status (its status fact)
	// it matches. A status that judges the call's arguments
	// (CUDNN_STATUS_NOT_SUPPORTED) is returned before any memory is
	// sought, so words tying it to the batch size point at a size limit
	// of the library, not at a full card.
	UnlessStatus string `yaml:"unless_status,omitempty"`
	// Why is shown to the user: the sentence that justifies the refinement.
	Why string `yaml:"why"`

	evidenceRE *regexp.Regexp
	contextRE  *regexp.Regexp
	unlessRE   *regexp.Regexp
}

// Remedy is one concrete fix. Text may hold {fact} placeholders filled from
// the finding's facts; a remedy whose placeholders cannot be filled, or
// whose When predicate does not hold, is left out.
type Remedy struct {
	Text string `yaml:"text"`
	When string `yaml:"when,omitempty"`
	// Frameworks limits a remedy to logs of these frameworks (pytorch,
	// jax, tensorflow): a PyTorch setting is no fix for a JAX program.
	Frameworks []string `yaml:"frameworks,omitempty"`
}

// Frameworks a log can come from, as the framework fact names them; a log
// that shows none of the others is PyTorch's.
var Frameworks = []string{"pytorch", "jax", "tensorflow"}

// Example is a real log excerpt with its provenance.
type Example struct {
	Text   string `yaml:"text"`
	Source string `yaml:"source"`
}

// Examples are checked by the registry test: every Match example must be
// diagnosed as this class, no NoMatch example may be.
type Examples struct {
	Match   []Example `yaml:"match"`
	NoMatch []Example `yaml:"no_match"`
	// Notice examples are decided as the class through a signature with a
	// note: reported as info, not as a failure.
	Notice []Example `yaml:"notice,omitempty"`
}

// Class is one taxonomy class.
type Class struct {
	// RuleDoc is the class's documentation: id, title, severity, summary
	// (what the class means, in a paragraph) and references come from the
	// YAML; the kind and the sections are set when the class is loaded.
	report.RuleDoc `yaml:",inline"`
	// Verdict is the default one-line message; explain writes a more
	// specific one from the evidence where it can. May hold {fact} holes.
	Verdict string `yaml:"verdict"`
	// Messages are more specific one-line verdicts with {fact} holes; the
	// first whose holes the facts fill replaces Verdict (see
	// Verdict.Message).
	Messages []string `yaml:"messages,omitempty"`
	// Async marks classes whose errors CUDA reports asynchronously, so the
	// traceback line is probably not the origin.
	Async bool `yaml:"async,omitempty"`
	// Alternatives are the other root causes to name when nothing refines
	// this class, most likely first, with what would tell them apart.
	Alternatives []Alternative `yaml:"alternatives,omitempty"`
	Signatures   []Signature   `yaml:"signatures"`
	Refine       []Refinement  `yaml:"refine,omitempty"`
	// Cues are what a log shows, anywhere in it, when this class is the
	// hidden root behind another class's surface: they move this class
	// up among that finding's alternatives, never into its verdict.
	Cues     []Cue    `yaml:"cues,omitempty"`
	Remedies []Remedy `yaml:"remedies"`
	Examples Examples `yaml:"examples"`
}

// Cue is a wording that points to its class as a possible root: an RE2
// Pattern any line of the input may match (prose included), the fixed
// Words (6 bytes or more, case-sensitive) one of which every matching line
// contains, so that such lines reach the parser, and Why it points there.
type Cue struct {
	Pattern string   `yaml:"pattern"`
	Words   []string `yaml:"words"`
	Why     string   `yaml:"why"`

	re *regexp.Regexp
}

// Alternative is a plausible other root cause and the evidence that settles it.
type Alternative struct {
	Class    string `yaml:"class"`
	SettleBy string `yaml:"settle_by"`
}

// Precedence is the explicit order in which classes win when several match
// one failure: earlier beats later.
type Precedence struct {
	Order []string `yaml:"order"`
}

// KB is the loaded, validated knowledge base.
type KB struct {
	Classes []*Class // in precedence order
	byID    map[string]*Class
	rank    map[string]int
	status  *statusTable
	roots   map[string]map[string]int

	kwOnce sync.Once
	kw     *kwIndex // built on the first Matches
}

// Class returns the class with the given id.
func (k *KB) Class(id string) (*Class, bool) {
	c, ok := k.byID[id]
	return c, ok
}

// Rank is the position of a class in the precedence order (lower wins).
func (k *KB) Rank(id string) int {
	if r, ok := k.rank[id]; ok {
		return r
	}
	return len(k.rank) + 1
}

var (
	defaultOnce sync.Once
	defaultKB   *KB
	defaultErr  error
)

// Default loads the embedded knowledge base once.
func Default() (*KB, error) {
	defaultOnce.Do(func() { defaultKB, defaultErr = Load(dataFS, "data") })
	return defaultKB, defaultErr
}

// MustDefault is for tests and for code paths that run after Default has
// already been validated at start-up.
func MustDefault() *KB {
	k, err := Default()
	if err != nil {
		panic(err)
	}
	return k
}

// Load reads every <id>.yaml and precedence.yaml below dir and validates them.
func Load(fsys fs.FS, dir string) (*KB, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("knowledge base: %w", err)
	}
	k := &KB{byID: map[string]*Class{}, rank: map[string]int{}}
	var prec Precedence
	var statusYAML, rootsYAML []byte
	var names []string
	var files [][]byte
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		switch e.Name() {
		case "surface-roots.yaml":
			rootsYAML = b
		case "statuses.yaml":
			statusYAML = b
		case "precedence.yaml":
			if err := yaml.UnmarshalWithOptions(b, &prec, yaml.Strict()); err != nil {
				return nil, fmt.Errorf("knowledge base %s: %w", e.Name(), err)
			}
		default:
			names = append(names, e.Name())
			files = append(files, b)
		}
	}
	loaded, err := decodeClasses(names, files)
	if err != nil {
		return nil, err
	}
	for _, c := range loaded {
		k.byID[c.ID] = c
	}
	for i, id := range prec.Order {
		if _, dup := k.rank[id]; dup {
			return nil, fmt.Errorf("knowledge base precedence.yaml: %q listed twice", id)
		}
		if _, ok := k.byID[id]; !ok {
			return nil, fmt.Errorf("knowledge base precedence.yaml: %q has no data file", id)
		}
		k.rank[id] = i
	}
	for _, c := range loaded {
		if _, ok := k.rank[c.ID]; !ok {
			return nil, fmt.Errorf("knowledge base precedence.yaml: class %q is missing from the order", c.ID)
		}
		for _, r := range c.Refine {
			if _, ok := k.byID[r.To]; !ok {
				return nil, fmt.Errorf("knowledge base %s: refines to unknown class %q", c.ID, r.To)
			}
		}
		for _, a := range c.Alternatives {
			if _, ok := k.byID[a.Class]; !ok && a.Class != "other" {
				return nil, fmt.Errorf("knowledge base %s: unknown alternative %q", c.ID, a.Class)
			}
		}
	}
	if statusYAML != nil {
		t, err := loadStatuses(statusYAML, func(id string) bool { _, ok := k.byID[id]; return ok })
		if err != nil {
			return nil, fmt.Errorf("knowledge base statuses.yaml: %w", err)
		}
		k.status = t
	}
	if rootsYAML != nil {
		r, err := loadRoots(rootsYAML, func(id string) bool { _, ok := k.byID[id]; return ok })
		if err != nil {
			return nil, fmt.Errorf("knowledge base surface-roots.yaml: %w", err)
		}
		k.roots = r
	}
	sort.SliceStable(loaded, func(i, j int) bool { return k.rank[loaded[i].ID] < k.rank[loaded[j].ID] })
	k.Classes = loaded
	if err := k.checkPredicates(); err != nil {
		return nil, err
	}
	return k, nil
}

// decodeClasses decodes and compiles each class file, a few at a time:
// decoding YAML is most of the start-up of every command that reads logs,
// and the files are independent. The classes come back in the files'
// order, and the first error in that order is the one reported.
func decodeClasses(names []string, files [][]byte) ([]*Class, error) {
	classes := make([]*Class, len(files))
	errs := make([]error, len(files))
	par.Do(len(files), func(i int) { classes[i], errs[i] = decodeClass(names[i], files[i]) })
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return classes, nil
}

func decodeClass(name string, b []byte) (*Class, error) {
	var c Class
	if err := yaml.UnmarshalWithOptions(bytes.TrimSpace(b), &c, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", name, err)
	}
	if want := strings.TrimSuffix(name, ".yaml"); c.ID != want {
		return nil, fmt.Errorf("knowledge base %s: id %q must equal the file name %q", name, c.ID, want)
	}
	if err := c.compile(); err != nil {
		return nil, fmt.Errorf("knowledge base %s: %w", name, err)
	}
	c.document()
	return &c, nil
}

// genericKeywords would let most lines of a training log through the
// engine's pre-filter; a keyword must be rarer than these.
var genericKeywords = map[string]bool{"error": true, "cuda": true, "runtimeerror": true, "traceback": true,
	"failed": true, "warning": true, "exception": true, "gpu": true, "nccl": true, "loss": true, "torch": true}

var idRE = lazyre.New(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func (c *Class) compile() error {
	if !idRE.MatchString(c.ID) {
		return fmt.Errorf("id %q is not kebab-case", c.ID)
	}
	if c.Title == "" || c.Summary == "" || c.Verdict == "" {
		return fmt.Errorf("title, summary and verdict are required")
	}
	if c.Severity == report.SeverityNone {
		return fmt.Errorf("severity is required")
	}
	if len(c.Signatures) == 0 {
		return fmt.Errorf("no signatures")
	}
	if len(c.Remedies) == 0 || len(c.References) == 0 {
		return fmt.Errorf("remedies and references are required")
	}
	if len(c.Examples.Match) == 0 || len(c.Examples.NoMatch) == 0 {
		return fmt.Errorf("a class needs both match and no_match examples")
	}
	seen := map[string]bool{}
	for i := range c.Signatures {
		s := &c.Signatures[i]
		if s.ID == "" || seen[s.ID] {
			return fmt.Errorf("signature %d: missing or duplicate id %q", i, s.ID)
		}
		seen[s.ID] = true
		if s.Strength != Primary && s.Strength != Context {
			return fmt.Errorf("signature %s: strength must be primary or context", s.ID)
		}
		if len(s.Keywords) == 0 {
			return fmt.Errorf("signature %s: at least one keyword is required (it is the pre-filter)", s.ID)
		}
		re, err := regexp.Compile(s.Regex)
		if err != nil {
			return fmt.Errorf("signature %s: %w", s.ID, err)
		}
		s.re = re
		s.spellings = keywordSpellings(s)
		if s.Repeats < 0 || s.Repeats > 0 && s.Strength != Primary {
			return fmt.Errorf("signature %s: repeats must be positive, and only a primary signature repeats", s.ID)
		}
		if s.Requires != "" {
			if s.requiresRE, err = regexp.Compile(s.Requires); err != nil {
				return fmt.Errorf("signature %s requires: %w", s.ID, err)
			}
		}
		if s.UnlessScope != "" && (s.UnlessScope != "sentence" || s.Unless == "") {
			return fmt.Errorf("signature %s: unless_scope is \"sentence\" and goes with unless", s.ID)
		}
		if s.Unless != "" {
			if s.unlessRE, err = regexp.Compile(s.Unless); err != nil {
				return fmt.Errorf("signature %s unless: %w", s.ID, err)
			}
		}
		if s.Note != "" && s.Strength != Primary {
			return fmt.Errorf("signature %s: only a primary signature carries a note", s.ID)
		}
		if s.Parse != "" {
			if _, ok := factParsers[s.Parse]; !ok {
				return fmt.Errorf("signature %s: unknown fact parser %q", s.ID, s.Parse)
			}
		}
		// One keyword rare enough to pre-filter is required; a common word
		// beside it ("CUDA" with "nitiali") only narrows what passes.
		rare := false
		for _, kw := range s.Keywords {
			if len(kw) < 3 {
				return fmt.Errorf("signature %s: keyword %q is too short to pre-filter lines", s.ID, kw)
			}
			rare = rare || !genericKeywords[strings.ToLower(kw)]
		}
		if len(s.Keywords) > 0 && !rare {
			return fmt.Errorf("signature %s: keywords %q are too common to pre-filter lines", s.ID, s.Keywords)
		}
	}
	for i := range c.Cues {
		cu := &c.Cues[i]
		if cu.Pattern == "" || len(cu.Words) == 0 || cu.Why == "" {
			return fmt.Errorf("cue %d: pattern, words and why are required", i)
		}
		for _, w := range cu.Words {
			if len(w) < 6 {
				return fmt.Errorf("cue %d: word %q is shorter than 6 bytes", i, w)
			}
		}
		re, err := regexp.Compile(cu.Pattern)
		if err != nil {
			return fmt.Errorf("cue %d: %w", i, err)
		}
		cu.re = re
	}
	for i := range c.Refine {
		r := &c.Refine[i]
		n := 0
		for _, x := range []string{r.When, r.Evidence, r.Context} {
			if x != "" {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("refinement to %s: exactly one of when, evidence and context is required", r.To)
		}
		if (r.Context == "") != (len(r.Words) == 0) {
			return fmt.Errorf("refinement to %s: context and context_words go together", r.To)
		}
		for _, w := range r.Words {
			if len(w) < 6 {
				return fmt.Errorf("refinement to %s: context word %q is shorter than 6 bytes", r.To, w)
			}
		}
		if r.Context != "" {
			re, err := regexp.Compile(r.Context)
			if err != nil {
				return fmt.Errorf("refinement to %s: %w", r.To, err)
			}
			r.contextRE = re
		}
		if r.UnlessStatus != "" {
			if r.Context == "" {
				return fmt.Errorf("refinement to %s: unless_status goes with context", r.To)
			}
			re, err := regexp.Compile(r.UnlessStatus)
			if err != nil {
				return fmt.Errorf("refinement to %s: %w", r.To, err)
			}
			r.unlessRE = re
		}
		if r.Why == "" {
			return fmt.Errorf("refinement to %s: why is required", r.To)
		}
		if r.Evidence != "" {
			re, err := regexp.Compile(r.Evidence)
			if err != nil {
				return fmt.Errorf("refinement to %s: %w", r.To, err)
			}
			r.evidenceRE = re
		}
	}
	for _, ex := range append(append([]Example{}, c.Examples.Match...), c.Examples.NoMatch...) {
		if strings.TrimSpace(ex.Text) == "" || strings.TrimSpace(ex.Source) == "" {
			return fmt.Errorf("every example needs text and source")
		}
	}
	return nil
}

// Match is one signature that fired on one line.
type Match struct {
	Class     *Class
	Signature *Signature
	// Groups holds the regex's named groups that matched (non-empty).
	Groups map[string]string
}

// Matches reports every signature that fires on line.
func (k *KB) Matches(line string) []Match {
	k.kwOnce.Do(func() { k.kw = newKWIndex(k.Classes) })
	ix := k.kw
	var buf [16]uint64
	present := buf[:]
	if n := (ix.words + 63) / 64; n > len(buf) {
		present = make([]uint64, n)
	}
	ix.scan(line, present)
	var out []Match
	for i := range ix.sigs {
		r := &ix.sigs[i]
		if !r.holds(present) {
			continue
		}
		if m, ok := r.sig.matchRegex(line); ok {
			m.Class = r.class
			out = append(out, m)
		}
	}
	return out
}

func (s *Signature) match(line string) (Match, bool) {
	if !s.holdsKeywords(line) {
		return Match{}, false
	}
	return s.matchRegex(line)
}

// matchRegex is match once the keywords were found in line.
func (s *Signature) matchRegex(line string) (Match, bool) {
	loc := s.re.FindStringSubmatchIndex(line)
	if loc == nil {
		return Match{}, false
	}
	if s.unlessRE != nil {
		scope := line
		if s.UnlessScope == "sentence" {
			scope = sentenceAround(line, loc[0], loc[1])
		}
		if s.unlessRE.MatchString(scope) {
			return Match{}, false
		}
	}
	m := Match{Signature: s}
	for i, name := range s.re.SubexpNames() {
		if name != "" && loc[2*i] >= 0 && loc[2*i+1] > loc[2*i] {
			if m.Groups == nil {
				m.Groups = map[string]string{}
			}
			m.Groups[name] = line[loc[2*i]:loc[2*i+1]]
		}
	}
	return m, true
}

// sentenceAround returns the sentence of line that holds line[from:to]:
// an unless speaks of the statement it sits in, so a denial in another
// sentence of the same pasted paragraph ("The PC reboots during training.
// No crash in games though.") does not cancel it. A sentence ends at '.',
// '!' or '?' followed by a space, or at a full stop of CJK text; a version
// number ("12.0") or a path ("a.cu") does not end one. The terminator
// stays with its sentence, so an unless that looks for a question mark
// still sees it.
func sentenceAround(line string, from, to int) string {
	start := 0
	for i := from - 1; i > 0; i-- {
		if (line[i] == ' ' || line[i] == '\t') && isSentenceEnd(line[i-1]) {
			start = i + 1
			break
		}
	}
	end := len(line)
	for i := to; i < len(line); i++ {
		if isSentenceEnd(line[i]) && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			end = i + 1
			break
		}
	}
	if c := strings.LastIndex(line[start:from], "。"); c >= 0 {
		start += c + len("。")
	}
	if c := strings.Index(line[to:end], "。"); c >= 0 {
		end = to + c + len("。")
	}
	return line[start:end]
}

func isSentenceEnd(b byte) bool { return b == '.' || b == '!' || b == '?' }

// MatchString runs the signature on one line (exported for the engine and tests).
func (s *Signature) MatchString(line string) (map[string]string, bool) {
	m, ok := s.match(line)
	return m.Groups, ok
}

// EvidenceMatches reports whether a refinement's evidence regex matches line.
func (r *Refinement) EvidenceMatches(line string) bool {
	return r.evidenceRE != nil && r.evidenceRE.MatchString(line)
}

// Keywords returns every distinct keyword of every signature: the engine
// builds its one-pass pre-filter from them.
func (k *KB) Keywords() []string {
	set := map[string]bool{}
	for _, c := range k.Classes {
		for i := range c.Signatures {
			for _, group := range c.Signatures[i].KeywordSpellings() {
				for _, kw := range group {
					set[kw] = true
				}
			}
		}
	}
	out := make([]string, 0, len(set))
	for kw := range set {
		out = append(out, kw)
	}
	sort.Strings(out)
	return out
}

// RuleDocs documents every class for `cudadoctor rules` and SARIF.
func (k *KB) RuleDocs() []report.RuleDoc {
	out := make([]report.RuleDoc, 0, len(k.Classes))
	for _, c := range k.Classes {
		out = append(out, c.RuleDoc)
	}
	return out
}

// document completes the class's documentation from its data: what
// recognises it, what to do, and its first example.
func (c *Class) document() {
	c.Kind = report.KindClass
	c.Summary = strings.TrimSpace(c.Summary)
	c.Sections = nil
	var sigs []string
	for _, s := range c.Signatures {
		if s.Strength == Primary {
			if s.Note != "" {
				sigs = append(sigs, "- "+strings.Join(s.Keywords, " … ")+" (a notice, when nothing else failed)")
				continue
			}
			sigs = append(sigs, "- "+strings.Join(s.Keywords, " … "))
		}
	}
	if len(sigs) > 0 {
		c.Sections = append(c.Sections, report.DocSection{Title: "Recognised by", Body: strings.Join(sigs, "\n")})
	}
	var rems []string
	for _, r := range c.Remedies {
		// Holes read as <fact> in the documentation: they are filled from
		// the evidence when a finding is reported.
		rems = append(rems, "- "+holeRE.ReplaceAllString(strings.TrimSpace(r.Text), "<$1>"))
	}
	c.Sections = append(c.Sections, report.DocSection{Title: "What to do", Body: strings.Join(rems, "\n")})
	if len(c.Examples.Match) > 0 {
		c.Sections = append(c.Sections, report.DocSection{Title: "Example", Body: strings.TrimSpace(c.Examples.Match[0].Text) + "\n(" + c.Examples.Match[0].Source + ")"})
	}
}
