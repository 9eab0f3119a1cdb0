package render

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// ANSI styles; used only when Options.Color is set (a TTY without NO_COLOR,
// or --color always).
const (
	AnsiReset  = "\x1b[0m"
	AnsiBold   = "\x1b[1m"
	AnsiDim    = "\x1b[2m"
	AnsiRed    = "\x1b[31m"
	AnsiYellow = "\x1b[33m"
	AnsiCyan   = "\x1b[36m"
	AnsiGreen  = "\x1b[32m"
)

// Styler colours text with ANSI codes when On (a terminal without NO_COLOR,
// or --color always) and leaves it plain otherwise.
type Styler struct{ On bool }

// Wrap styles text with an ANSI code.
func (s Styler) Wrap(code, text string) string {
	if !s.On || text == "" {
		return text
	}
	return code + text + AnsiReset
}

// Severity is a severity's name in its colour.
func (s Styler) Severity(sev report.Severity) string {
	switch sev {
	case report.Error:
		return s.Wrap(AnsiBold+AnsiRed, "error")
	case report.Warning:
		return s.Wrap(AnsiBold+AnsiYellow, "warning")
	default:
		return s.Wrap(AnsiBold+AnsiCyan, "info")
	}
}

// Text writes the human report: per finding a headline, where it was seen,
// where it comes from, the evidence, and what to do.
func Text(w io.Writer, r *report.Report, opts Options) error {
	tw := &Printer{w: w}
	st := Styler{On: opts.Color}
	if len(r.Findings) == 0 {
		tw.Printf("%s\n", st.Wrap(AnsiGreen, opts.nothingFound()))
		return tw.err
	}
	for i, f := range r.Findings {
		if i > 0 {
			tw.Printf("\n")
		}
		WriteFinding(tw, st, &f, opts)
	}
	if len(r.Findings) > 1 {
		tw.Printf("\n%s\n", st.Wrap(AnsiDim, SummaryLine(r.Findings)))
	}
	return tw.err
}

// SummaryLine counts findings by severity: "3 findings: 1 error, 2 warnings".
func SummaryLine(fs []report.Finding) string {
	counts := map[report.Severity]int{}
	for _, f := range fs {
		counts[f.Severity]++
	}
	var parts []string
	for _, s := range []report.Severity{report.Error, report.Warning, report.Info} {
		if n := counts[s]; n > 0 {
			name := s.String()
			if n > 1 {
				name += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	return fmt.Sprintf("%d findings: %s", len(fs), strings.Join(parts, ", "))
}

// WriteFinding writes one finding as the text views show it: headline,
// where, origin, evidence, facts and fixes.
func WriteFinding(tw *Printer, st Styler, f *report.Finding, opts Options) {
	tw.Printf("%s[%s] %s\n", st.Severity(f.Severity), st.Wrap(AnsiBold, f.Rule), st.Wrap(AnsiBold, f.Message))
	if f.Class != "" && f.Class != f.Rule {
		tw.Printf("  class:     %s\n", f.Class)
	}
	if f.Location != nil {
		where := f.Location.String()
		if f.Rank != nil {
			// The line may be another rank's report about this one (a
			// rank that waited for it): say so, or the header reads wrong.
			if w, ok := f.Facts["waiting_rank"].(int); ok && w != *f.Rank {
				where += fmt.Sprintf(" (rank %d, reported by rank %d)", *f.Rank, w)
			} else {
				where += fmt.Sprintf(" (rank %d)", *f.Rank)
			}
		}
		tw.Printf("  %s %s\n", st.Wrap(AnsiCyan, "-->"), where)
	} else if f.Rank != nil {
		tw.Printf("  rank:      %d\n", *f.Rank)
	}
	if f.Origin != nil {
		tw.Printf("  origin:    %s%s\n", f.Origin.String(), funcSuffix(f.Origin))
		if f.Origin.Code != "" {
			tw.Printf("             %s\n", st.Wrap(AnsiBold, f.Origin.Code))
		}
	}
	if f.Reported != nil {
		tw.Printf("  reported:  %s%s\n", f.Reported.String(), funcSuffix(f.Reported))
		if f.Reported.Code != "" {
			tw.Printf("             %s\n", f.Reported.Code)
		}
	}
	if len(f.Evidence) > 0 {
		tw.Printf("  evidence:\n")
		for _, e := range f.Evidence {
			prefix := ""
			if e.Path != "" || e.Line > 0 {
				prefix = fmt.Sprintf("%s:%d: ", e.Path, e.Line)
			}
			text := TrimLine(e.Text, opts.Width, len(prefix)+6)
			suffix := ""
			if e.Count > 1 {
				suffix = st.Wrap(AnsiDim, fmt.Sprintf("  (x%d)", e.Count))
			}
			tw.Printf("    %s%s%s\n", st.Wrap(AnsiDim, prefix), text, suffix)
		}
	}
	if parts := textFacts(f.Facts); len(parts) > 0 {
		tw.Printf("  facts:     %s\n", strings.Join(parts, ", "))
	}
	if len(f.Alternatives) > 0 {
		tw.Printf("  could also be: %s\n", strings.Join(f.Alternatives, ", "))
		for _, alt := range f.Alternatives {
			if s := f.SettleBy[alt]; s != "" {
				tw.Printf("    %s: %s\n", alt, s)
			}
		}
	}
	for _, rel := range f.Related {
		where := rel.Location.String()
		if rel.Rank != nil {
			where = strings.TrimSpace(fmt.Sprintf("rank %d %s", *rel.Rank, where))
		}
		tw.Printf("  related:   %s%s\n", rel.Message, optParen(where))
	}
	if len(f.Remedies) > 0 {
		tw.Printf("  %s\n", st.Wrap(AnsiGreen, "fix:"))
		for i, rem := range f.Remedies {
			lines := strings.Split(rem, "\n")
			tw.Printf("    %d. %s\n", i+1, lines[0])
			for _, l := range lines[1:] {
				tw.Printf("       %s\n", l)
			}
		}
	}
}

func funcSuffix(l *report.Location) string {
	if l.Function == "" {
		return ""
	}
	return " in " + l.Function
}

func optParen(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func TrimLine(s string, width, indent int) string {
	if width <= 0 || len(s)+indent <= width || width-indent < 20 {
		return s
	}
	return s[:width-indent-1] + "…"
}

// Printer keeps the first write error so renderers stay linear.
type Printer struct {
	w   io.Writer
	err error
}

// NewPrinter prints to w.
func NewPrinter(w io.Writer) *Printer { return &Printer{w: w} }

// Err is the first write error.
func (e *Printer) Err() error { return e.err }

// Printf prints unless an earlier write failed.
func (e *Printer) Printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}

// hiddenFacts are facts for programs, not readers: flags the rest of the
// text already explains (the asynchronous-reporting note) and parts other
// facts or the evidence carry.
var hiddenFacts = map[string]bool{
	"reported_asynchronously": true,
	"launch_blocking":         true,
	"oom_form":                true,
	"cuda_error_message":      true,
	"kernel_line":             true,
	"block":                   true,
	"thread":                  true,
}

// textFacts is the readable subset of a finding's facts, sorted by name:
// sizes in human units, one entry per quantity (a size printed by the log
// wins over its byte count, which alone is shown as a size), no internal
// flags. JSON and SARIF keep every fact.
func textFacts(facts map[string]any) []string {
	shown := map[string]string{}
	for k, v := range facts {
		if hiddenFacts[k] || compound(v) {
			continue
		}
		// A quantity in bytes, not an order ("rank_by_bytes").
		if base, ok := strings.CutSuffix(k, "_bytes"); ok && !strings.HasPrefix(k, "rank_") {
			if _, dup := facts[base]; dup {
				continue
			}
			if n, ok := asInt(v); ok {
				shown[base] = humanBytes(n)
				continue
			}
		}
		if k == "kernel_src" {
			if line, ok := facts["kernel_line"]; ok {
				v = fmt.Sprintf("%v:%v", v, line)
			}
		}
		shown[k] = fmt.Sprint(v)
	}
	keys := make([]string, 0, len(shown))
	for k := range shown {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+shown[k])
	}
	return parts
}

// compound reports a list or map fact (per-site tables, histograms): too
// long for one line, and the evidence lists what matters of it.
func compound(v any) bool {
	if v == nil {
		return false
	}
	k := reflect.TypeOf(v).Kind()
	return k == reflect.Slice || k == reflect.Array || k == reflect.Map
}

func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), n == float64(int64(n))
	}
	return 0, false
}

// humanBytes prints a byte count the way PyTorch's messages do.
func humanBytes(n int64) string {
	f := float64(n)
	switch {
	case n < 0:
		return fmt.Sprintf("%d bytes", n)
	case n <= 1024:
		return fmt.Sprintf("%d bytes", n)
	case n <= 1<<20:
		return fmt.Sprintf("%.2f KiB", f/(1<<10))
	case n <= 1<<30:
		return fmt.Sprintf("%.2f MiB", f/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", f/(1<<30))
}
