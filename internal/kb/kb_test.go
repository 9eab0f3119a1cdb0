package kb

import (
	"fmt"
	"strings"
	"testing"
)

// TestExamples runs the real classifier over every example of every class:
// each match example must be decided as its class, no no_match example may be.
func TestExamples(t *testing.T) {
	k, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Classes) == 0 {
		t.Fatal("knowledge base is empty")
	}
	for _, c := range k.Classes {
		for _, kind := range []struct {
			name   string
			exs    []Example
			notice bool
		}{{"match", c.Examples.Match, false}, {"notice", c.Examples.Notice, true}} {
			for i, ex := range kind.exs {
				v, ok := k.Classify(strings.Split(ex.Text, "\n"))
				if !ok || v.Class.ID != c.ID || v.Notice() != kind.notice {
					got := "nothing"
					if ok {
						got = fmt.Sprintf("%s (notice %v)", v.Class.ID, v.Notice())
					}
					t.Errorf("%s %s example %d (%s): classified as %s", c.ID, kind.name, i, ex.Source, got)
				}
			}
		}
		for i, ex := range c.Examples.NoMatch {
			if v, ok := k.Classify(strings.Split(ex.Text, "\n")); ok && v.Class.ID == c.ID {
				t.Errorf("%s no_match example %d (%s): classified as %s", c.ID, i, ex.Source, c.ID)
			}
		}
	}
}
