package kb

import (
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
		for i, ex := range c.Examples.Match {
			v, ok := k.Classify(strings.Split(ex.Text, "\n"))
			if !ok || v.Class.ID != c.ID {
				got := "nothing"
				if ok {
					got = v.Class.ID
				}
				t.Errorf("%s match example %d (%s): classified as %s", c.ID, i, ex.Source, got)
			}
		}
		for i, ex := range c.Examples.NoMatch {
			if v, ok := k.Classify(strings.Split(ex.Text, "\n")); ok && v.Class.ID == c.ID {
				t.Errorf("%s no_match example %d (%s): classified as %s", c.ID, i, ex.Source, c.ID)
			}
		}
	}
}
