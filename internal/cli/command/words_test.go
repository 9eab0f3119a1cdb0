package command

import (
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"explain", "explain", 0},
		{"explian", "explain", 1}, // a transposition is one typo
		{"expalin", "explain", 1},
		{"envv", "env", 1},
		{"", "lint", 4},
		{"memroy", "memory", 1},
		{"rules", "run", 3},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	ids := []string{"oom", "oom-fragmentation", "device-assert-index", "device-assert-target", "nccl-timeout", "CD101"}
	for _, c := range []struct {
		word string
		want []string
	}{
		{"oom-fragmentaton", []string{"oom-fragmentation"}},
		{"device-assert", []string{"device-assert-index", "device-assert-target"}},
		{"cd101", []string{"CD101"}},
		{"nccl-timeuot", []string{"nccl-timeout"}},
		{"zzzzzzzz", nil},
	} {
		got := Suggest(c.word, ids, 5)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("Suggest(%q) = %v, want %v", c.word, got, c.want)
		}
	}
}
