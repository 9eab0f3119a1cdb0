package explain

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		re   string
		want string
	}{
		{`exit(?:ed)? (?:code|status):? 137\b`, "exit| | 137"},
		{`CUDA out of memory\. Tried to allocate (?P<x>\d+)`, "CUDA out of memory. Tried to allocate "},
		{`(?i)killed`, ""},
		{`a|b`, ""},
	}
	for _, tt := range tests {
		if got := strings.Join(requiredLiterals(tt.re), "|"); got != tt.want {
			t.Errorf("requiredLiterals(%q) = %q, want %q", tt.re, got, tt.want)
		}
	}
}

// Every anchor must occur in every line its signature matches: test it on
// the knowledge base's own examples.
func TestAnchorsAreRequired(t *testing.T) {
	k := kb.MustDefault()
	for _, c := range k.Classes {
		for _, ex := range c.Examples.Match {
			for _, line := range strings.Split(ex.Text, "\n") {
				for _, m := range k.Matches(line) {
					a := anchors(&kb.KB{Classes: []*kb.Class{{Signatures: []kb.Signature{*m.Signature}}}})
					if len(a) != 1 || !strings.Contains(line, a[0]) {
						t.Errorf("%s/%s: anchor %q is not in the line it matches: %q", m.Class.ID, m.Signature.ID, a, line)
					}
				}
			}
		}
	}
}
