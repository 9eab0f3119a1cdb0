// Package pycheck finds CUDA, asynchronous-execution and mixed-precision
// hazards in Python source: it parses each file once with tree-sitter and
// hands it to a fixed set of rules.
package pycheck

import (
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Rule is one check. Rules are plain values listed in an explicit registry;
// nothing registers itself.
type Rule struct {
	// RuleDoc is the rule's documentation: its code (ID, e.g. CD101), kebab
	// name, severity, title, summary, the sections Why, Example and Fix,
	// and references that cite the real behaviour the rule rests on (a
	// fixture of testdata/gpu, a PyTorch document, an error message).
	report.RuleDoc
	// Anchors are byte strings at least one of which a file must contain for
	// the rule to look at it; they keep rules off files that cannot match.
	Anchors []string
	// AlsoAnchors, when set, must match too (one of them): a second cheap
	// condition for rules whose first anchors are common ("+=").
	AlsoAnchors []string
	// Follows, when set, also gives the rule a file that names a project
	// function whose summary it accepts, in place of AlsoAnchors when the
	// rule has them and of Anchors otherwise: the anchor is in the helper
	// (non_blocking=True inside to_host), the hazard in the caller.
	Follows func(s *FuncSummary) bool
	// Check inspects one parsed file and reports through the pass.
	Check func(p *Pass)
}

// applies checks the rule's anchors against the anchors found in a file.
func (r *Rule) applies(set *anchorSet, found anchorBits) bool {
	for _, group := range [][]string{r.Anchors, r.AlsoAnchors} {
		if len(group) == 0 {
			continue
		}
		m, ok := set.mask(group)
		if ok && !found.any(m) {
			return false
		}
	}
	return true
}

// Engine-owned codes: findings about the linting itself rather than about
// the user's program.
const (
	CodeParseError         = "CD001"
	CodeUnusedSuppression  = "CD002"
	CodeInvalidSuppression = "CD003"
)

// EngineRules documents the findings the engine itself emits.
func EngineRules() []*Rule {
	return []*Rule{
		{RuleDoc: report.RuleDoc{
			ID: CodeParseError, Name: "syntax-error", Kind: report.KindLint, Severity: report.Info,
			Title:   "File could not be fully parsed",
			Summary: "The Python parser found a syntax error; the rules ran on what it could recover, so findings in this file may be missing. It is a notice, not a warning: the grammar lint parses with can lag behind CPython's (it rejects some valid code, such as a starred expression of a tuple in a return), and only CPython can say the file is wrong. It also marks a file lint did not check at all: code nested deeper than CPython compiles, or a file over 16 MiB found in a directory (generated data, as a rule; named on the command line, such a file is an error).",
			Sections: []report.DocSection{
				{Title: "Why", Body: "A file with a syntax error will not import, and hazards in the unparsed part cannot be checked."},
				{Title: "Example", Body: "def f(:\n    pass"},
				{Title: "Fix", Body: "python -m py_compile FILE says whether it is a real syntax error, and names it; if CPython accepts the file, the parser's grammar lags behind it, and the rules could not check that part."},
			},
			References: []string{"https://tree-sitter.github.io/tree-sitter/using-parsers#error-recovery (how unparsable regions are isolated)"},
		}},
		{RuleDoc: report.RuleDoc{
			ID: CodeUnusedSuppression, Name: "unused-suppression", Kind: report.KindLint, Severity: report.Warning,
			Title:   "Suppression comment that suppresses nothing",
			Summary: "A `# cudadoctor: ignore[CODE] reason` comment names a rule that reported nothing on its line.",
			Sections: []report.DocSection{
				{Title: "Why", Body: "Stale suppressions hide future findings on the line and mislead readers about a hazard that is gone."},
				{Title: "Example", Body: "x = 1  # cudadoctor: ignore[CD101] copied synchronously"},
				{Title: "Fix", Body: "Delete the comment, or the codes in it that no longer fire."},
			},
			References: []string{"https://docs.astral.sh/ruff/rules/unused-noqa/ (the same idea in ruff)"},
		}},
		{RuleDoc: report.RuleDoc{
			ID: CodeInvalidSuppression, Name: "invalid-suppression", Kind: report.KindLint, Severity: report.Warning,
			Title:   "Suppression comment without codes or reason",
			Summary: "A suppression must name the codes it silences and say why: `# cudadoctor: ignore[CD101] synchronised by the caller`.",
			Sections: []report.DocSection{
				{Title: "Why", Body: "A suppression without a reason cannot be reviewed; one without codes would silence everything."},
				{Title: "Example", Body: "dst = src.cpu(non_blocking=True)  # cudadoctor: ignore[CD101]"},
				{Title: "Fix", Body: "Add the codes in brackets and a short reason after them."},
			},
			References: []string{"https://docs.astral.sh/ruff/linter/#error-suppression (the comment syntax users know)"},
		}},
	}
}
