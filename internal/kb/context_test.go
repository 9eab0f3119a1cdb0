package kb

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// A context refinement needs the words that bring its lines to the
// parser, long enough not to slow the pre-filter.
func TestContextRefinementRules(t *testing.T) {
	base := func(r Refinement) *Class {
		c := &Class{RuleDoc: report.RuleDoc{ID: "x-y", Title: "t", Summary: "s", Severity: 3, References: []string{"u"}}, Verdict: "v",
			Signatures: []Signature{{ID: "a", Keywords: []string{"boom!"}, Regex: "boom!", Strength: Primary}},
			Remedies:   []Remedy{{Text: "r"}},
			Examples:   Examples{Match: []Example{{Text: "boom!", Source: "s"}}, NoMatch: []Example{{Text: "ok", Source: "s"}}}}
		r.To, r.Why = "x-z", "because"
		c.Refine = []Refinement{r}
		return c
	}
	for _, tc := range []struct {
		r    Refinement
		want string
	}{
		{Refinement{Context: "labels"}, "go together"},
		{Refinement{Context: "labels", Words: []string{"label"}}, "shorter than 6"},
		{Refinement{Context: "labels", Evidence: "x", Words: []string{"labels"}}, "exactly one"},
		{Refinement{Context: "labels", Words: []string{" labels"}}, ""},
	} {
		err := base(tc.r).compile()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.r, err, tc.want)
		}
	}
}

func TestRefineByContext(t *testing.T) {
	k := MustDefault()
	to, at := k.RefineByContext("device-assert-other", "", []string{"RuntimeError: CUDA error: device-side assert triggered", "model_args.num_labels = 3"})
	if to == nil || to.ID != "device-assert-target" || at != 1 {
		t.Errorf("got %v at %d", to, at)
	}
	if to, _ := k.RefineByContext("device-assert-other", "", []string{"RuntimeError: CUDA error: device-side assert triggered"}); to != nil {
		t.Errorf("refined without words: %v", to.ID)
	}
	if to, _ := k.RefineByContext("oom", "", []string{"num_labels = 3"}); to != nil {
		t.Errorf("a class without context refinements was refined: %v", to.ID)
	}
	for _, w := range k.ContextWords() {
		if len(w) < 6 {
			t.Errorf("context word %q is too short", w)
		}
	}
}
