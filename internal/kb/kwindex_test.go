package kb

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestKeywordIndexMatchesEveryLine runs Matches (keywords found in one
// pass) and the plain per-signature check side by side on every line of
// the fixture logs, and on each line joined with the next: they must
// agree, matches and order.
func TestKeywordIndexMatchesEveryLine(t *testing.T) {
	k := MustDefault()
	plain := func(line string) []Match {
		var out []Match
		for _, c := range k.Classes {
			for i := range c.Signatures {
				if m, ok := c.Signatures[i].match(line); ok {
					m.Class = c
					out = append(out, m)
				}
			}
		}
		return out
	}
	var files []string
	for _, g := range []string{"../../testdata/explain/*.log", "../../testdata/explain/*/*.log", "../../testdata/gpu/logs/*/*.log"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("only %d fixture logs found", len(files))
	}
	lines, matched := 0, 0
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() > 256<<10 {
			continue // the big generated logs repeat the small ones' lines
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ls := strings.Split(string(data), "\n")
		for i, l := range ls {
			cands := []string{l}
			if j, ok := joinedWithNext(ls, i); ok {
				cands = append(cands, j)
			}
			for _, c := range cands {
				want, got := plain(c), k.Matches(c)
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("%s:%d: the keyword index changed the matches of %q\nwant %v\ngot  %v", f, i+1, c, want, got)
				}
				lines++
				if len(want) > 0 {
					matched++
				}
			}
		}
	}
	if matched < 100 {

		t.Fatalf("only %d of %d lines matched a signature: the comparison proves little", matched, lines)
	}
}
