package kb

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCaseSpellings(t *testing.T) {
	tests := []struct {
		kw   string
		want []string
	}{
		{"UDA", []string{"UDA", "uda", "Uda"}},
		{" found", []string{" found", " FOUND", " Found"}},
		{"NVML", []string{"NVML", "nvml", "Nvml"}},
		{"nitiali", []string{"nitiali", "NITIALI", "Nitiali"}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, caseSpellings(tt.kw)); d != "" {
			t.Errorf("caseSpellings(%q) (-want +got):\n%s", tt.kw, d)
		}
	}
}

// A case-insensitive signature's keywords pass the wording in any case,
// through both the one-pass index and a single signature's match; a
// case-sensitive one's stay exact.
func TestKeywordsFoldWithTheRegex(t *testing.T) {
	fold := Signature{ID: "fold", Keywords: []string{"nitiali", "UDA"}, Regex: `(?i)CUDA initiali[sz]ation failed`, Strength: Primary}
	exact := Signature{ID: "exact", Keywords: []string{"nitiali", "UDA"}, Regex: `(?i:CUDA) initiali[sz]ation failed`, Strength: Primary}
	c := &Class{Signatures: []Signature{fold, exact}}
	for i := range c.Signatures {
		s := &c.Signatures[i]
		s.re = regexp.MustCompile(s.Regex)
		s.spellings = keywordSpellings(s)
	}
	k := &KB{Classes: []*Class{c}}
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"CUDA initialization failed", []string{"fold", "exact"}},
		{"cuda initialization failed", []string{"fold"}},
		{"Cuda Initialisation Failed", []string{"fold"}},
		{"CUDA INITIALIZATION FAILED", []string{"fold"}},
		{"NCCL INFO Initialized NET plugin", nil},
	} {
		var got []string
		for _, m := range k.Matches(tt.line) {
			got = append(got, m.Signature.ID)
			if _, ok := m.Signature.MatchString(tt.line); !ok {
				t.Errorf("%q: %s matched through the index but not alone", tt.line, m.Signature.ID)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, d)
		}
	}
}
