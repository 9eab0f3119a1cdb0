// Package report is the shared vocabulary of every cudadoctor front end: a
// Report holds Findings, and renderers turn it into text, JSON or SARIF.
// It does no I/O and imports nothing of ours, so every package can use it.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// SchemaVersion is the version of the JSON document. Bump it on any breaking
// change to the JSON shape, with a migration note in CHANGELOG.md.
const SchemaVersion = 1

// Severity orders findings and drives --fail-on.
type Severity int

const (
	SeverityNone Severity = iota // used only by --fail-on never
	Info
	Warning
	Error
)

var severityNames = map[Severity]string{SeverityNone: "none", Info: "info", Warning: "warning", Error: "error"}

func (s Severity) String() string {
	if n, ok := severityNames[s]; ok {
		return n
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity accepts the names used in flags, YAML and JSON.
func ParseSeverity(s string) (Severity, error) {
	for k, v := range severityNames {
		if v == strings.ToLower(strings.TrimSpace(s)) {
			return k, nil
		}
	}
	return SeverityNone, fmt.Errorf("unknown severity %q (want error, warning or info)", s)
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Location is a place: a line of a log, a position in a source file, or a
// Python frame. Unknown fields stay zero and are omitted from JSON.
type Location struct {
	Path     string `json:"path,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	EndLine  int    `json:"end_line,omitempty"`
	Function string `json:"function,omitempty"`
	// Code is the source line as printed (traceback) or read (lint).
	Code string `json:"code,omitempty"`
}

// String renders "path:line:col" with the parts that are known.
func (l *Location) String() string {
	if l == nil {
		return ""
	}
	s := l.Path
	if l.Line > 0 {
		s += fmt.Sprintf(":%d", l.Line)
		if l.Column > 0 {
			s += fmt.Sprintf(":%d", l.Column)
		}
	}
	return s
}

// Evidence is an exact line (or value) that triggered a finding. Count > 1
// means the same line, folded, occurred Count times (device-assert floods).
type Evidence struct {
	Path  string `json:"path,omitempty"`
	Line  int    `json:"line,omitempty"`
	Text  string `json:"text"`
	Count int    `json:"count,omitempty"`
}

// Related is a secondary location with its own message: another rank's
// timeout caused by the primary failure, say.
type Related struct {
	Message  string    `json:"message"`
	Rank     *int      `json:"rank,omitempty"`
	Location *Location `json:"location,omitempty"`
	Class    string    `json:"class,omitempty"`
}

// Finding is one diagnosis, hazard or failed check.
type Finding struct {
	// Rule is the id of what fired: a taxonomy class (explain, run), a lint
	// code (CD101), a probe id (env/driver-version), a memory analysis id.
	Rule string `json:"rule"`
	// Class is the taxonomy class of the root cause as best established.
	Class string `json:"class,omitempty"`
	// Alternatives are other plausible root classes, most likely first.
	Alternatives []string `json:"alternatives"`
	// SettleBy says, for an alternative class, what would tell it apart
	// from Class; only alternatives with something specific to say have
	// an entry.
	SettleBy map[string]string `json:"settle_by,omitempty"`
	Severity Severity          `json:"severity"`
	Message  string            `json:"message"`
	Location *Location         `json:"location,omitempty"`
	// Origin is the user-code frame believed to cause the failure.
	Origin *Location `json:"origin,omitempty"`
	// Reported is where the traceback pointed, when it differs from Origin.
	Reported *Location      `json:"reported,omitempty"`
	Rank     *int           `json:"rank,omitempty"`
	Evidence []Evidence     `json:"evidence,omitempty"`
	Facts    map[string]any `json:"facts,omitempty"`
	Remedies []string       `json:"remedies,omitempty"`
	Related  []Related      `json:"related,omitempty"`
}

// MarshalJSON keeps alternatives an array (never null), as the contract says.
func (f Finding) MarshalJSON() ([]byte, error) {
	type plain Finding
	p := plain(f)
	if p.Alternatives == nil {
		p.Alternatives = []string{}
	}
	// An encoder, not json.Marshal: assertion texts and frames such as
	// "<module>" must stay readable, so HTML characters are not escaped.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// IntPtr is a convenience for optional integer fields such as Rank.
func IntPtr(i int) *int { return &i }

// RuleKind says which front end owns a rule.
type RuleKind string

const (
	KindClass  RuleKind = "class"
	KindLint   RuleKind = "lint"
	KindProbe  RuleKind = "probe"
	KindMemory RuleKind = "memory"
)

// RuleDoc is the one shape of a rule's documentation. Every source declares
// its rules in it: a knowledge-base class decodes into it from YAML, a lint
// rule, an environment check and the Flight Recorder and memory analyses
// write it as a Go literal. SARIF tool.driver.rules, `cudadoctor rules ID`
// and docs/rules.md all read these same values.
type RuleDoc struct {
	ID       string   `json:"id" yaml:"id"`
	Name     string   `json:"name,omitempty" yaml:"-"`
	Kind     RuleKind `json:"kind" yaml:"-"`
	Title    string   `json:"title" yaml:"title"`
	Severity Severity `json:"severity" yaml:"severity"`
	Summary  string   `json:"summary" yaml:"summary"`
	// Sections are ordered documentation blocks: "Why", "Example", "Fix"...
	// A knowledge-base class derives its own from its signatures, remedies
	// and examples when it is loaded.
	Sections   []DocSection `json:"sections,omitempty" yaml:"-"`
	References []string     `json:"references,omitempty" yaml:"references"`
}

// Section is the body of the first section with this title, "" when there
// is none.
func (d *RuleDoc) Section(title string) string {
	for _, s := range d.Sections {
		if s.Title == title {
			return s.Body
		}
	}
	return ""
}

// DocSection is one titled block of a rule's documentation.
type DocSection struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Tool names the producer. Commit is the source revision the binary was
// built from, when it was stamped in.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
}

// Producer is the tool every new report names. The command line sets it
// once, from the build stamp, before any report is made.
var Producer = Tool{Name: "cudadoctor"}

// Report is what every subcommand produces and every renderer consumes.
type Report struct {
	SchemaVersion int       `json:"schema_version"`
	Tool          Tool      `json:"tool"`
	Command       string    `json:"command"`
	Findings      []Finding `json:"findings"`
	// Inputs lists what was read (paths, "-" for stdin).
	Inputs      []string     `json:"inputs,omitempty"`
	Environment *Environment `json:"environment,omitempty"`
	Run         *RunInfo     `json:"run,omitempty"`
	// Rules documents every rule that can fire in this command; renderers
	// that need it (SARIF) read it, JSON leaves it out to stay small.
	Rules []RuleDoc `json:"-"`
}

// RunInfo is the `run` section of the JSON contract.
type RunInfo struct {
	Argv      []string   `json:"argv"`
	ExitCode  int        `json:"exit_code"`
	Signal    string     `json:"signal,omitempty"`
	DurationS float64    `json:"duration_s"`
	Rerun     *RerunInfo `json:"rerun,omitempty"`
	// Host and Ranks identify the node and distributed ranks a report of
	// `run --report-dir` covers, so reports of one job can be merged.
	Host  string `json:"host,omitempty"`
	Ranks []int  `json:"ranks,omitempty"`
	// StartedAt and EndedAt bound the first run (RFC 3339, UTC), so that
	// merged reports of one job can be ordered in time.
	StartedAt string `json:"started_at,omitempty"`
	EndedAt   string `json:"ended_at,omitempty"`
}

// RerunInfo describes the localisation re-run of `run`.
type RerunInfo struct {
	Mode      string   `json:"mode"` // "launch-blocking" or "sanitizer"
	Argv      []string `json:"argv,omitempty"`
	Env       []string `json:"env,omitempty"`
	ExitCode  int      `json:"exit_code"`
	DurationS float64  `json:"duration_s"`
	Skipped   string   `json:"skipped,omitempty"` // why it did not run
	TimedOut  bool     `json:"timed_out,omitempty"`
}

// New returns an empty report for a command.
func New(command, version string) *Report {
	tool := Producer
	if version != "" {
		tool.Version = version
	}
	return &Report{SchemaVersion: SchemaVersion, Tool: tool, Command: command, Findings: []Finding{}}
}

// MaxSeverity is the highest severity among the findings (SeverityNone if none).
func (r *Report) MaxSeverity() Severity {
	max := SeverityNone
	for _, f := range r.Findings {
		if f.Severity > max {
			max = f.Severity
		}
	}
	return max
}

// RuleByID finds the documentation of a rule.
func (r *Report) RuleByID(id string) (RuleDoc, bool) {
	for _, ri := range r.Rules {
		if ri.ID == id {
			return ri, true
		}
	}
	return RuleDoc{}, false
}

// SortFindings orders findings by severity (highest first), keeping the
// producer's order among equals: the producer knows which failure is primary.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Severity > fs[j].Severity })
}
