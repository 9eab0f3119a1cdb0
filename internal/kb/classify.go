package kb

import (
	"fmt"
	"sort"
)

// Verdict is the knowledge base's decision about the lines of one failure.
type Verdict struct {
	// Class is the root class decided.
	Class *Class
	// Surface is the class the primary line named before refinement (equal
	// to Class when nothing refined it).
	Surface *Class
	// Primary is the index (into the lines given) of the line that named the failure.
	Primary int
	// Evidence are indexes of every line that matched a signature of Class
	// or Surface, or a refinement's evidence, in line order.
	Evidence []int
	// Facts are the named regex groups of all matching lines (first wins),
	// plus whatever the predicates derived.
	Facts map[string]string
	// Why explains each refinement step, in order.
	Why []string
	// Alternatives are other plausible root classes when nothing settled it.
	Alternatives []Alternative
}

// Predicate is a named piece of refinement logic that data cannot express.
// It reads the facts gathered from the failure's lines.
type Predicate func(facts map[string]string) bool

// predicates is the registry that refinements' `when:` fields name.
// Each entry is unit-tested in predicates_test.go.
var predicates = map[string]Predicate{}

// PredicateNames lists the registry (for validation and docs).
func PredicateNames() []string {
	out := make([]string, 0, len(predicates))
	for n := range predicates {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Classify decides the root class of one failure from its lines. It
// returns false when no primary signature fires on any line.
//
// Order of decision: every primary match is a candidate; the candidate
// earliest in the precedence order wins; then the winner's refinements are
// tried in file order (the first whose predicate holds or whose evidence
// regex matches any line wins) and, transitively, the refined class's own.
func (k *KB) Classify(lines []string) (Verdict, bool) {
	type hit struct {
		line int
		m    Match
	}
	var hits []hit
	for i, l := range lines {
		for _, m := range k.Matches(l) {
			hits = append(hits, hit{i, m})
		}
	}
	best := -1
	for i, h := range hits {
		if h.m.Signature.Strength != Primary {
			continue
		}
		if best < 0 || k.Rank(h.m.Class.ID) < k.Rank(hits[best].m.Class.ID) {
			best = i
		}
	}
	if best < 0 {
		return Verdict{}, false
	}
	v := Verdict{Class: hits[best].m.Class, Surface: hits[best].m.Class, Primary: hits[best].line, Facts: map[string]string{}}
	for _, h := range hits {
		for name, val := range h.m.Groups {
			if _, ok := v.Facts[name]; !ok {
				v.Facts[name] = val
			}
		}
	}
	refinedBy := map[int]bool{}
	for steps := 0; steps < len(k.Classes); steps++ {
		next, why, evidence := k.refineOnce(v.Class, lines, v.Facts)
		if next == nil {
			break
		}
		v.Why = append(v.Why, why)
		for _, e := range evidence {
			refinedBy[e] = true
		}
		v.Class = next
	}
	set := map[int]bool{v.Primary: true}
	for _, h := range hits {
		if h.m.Class == v.Class || h.m.Class == v.Surface {
			set[h.line] = true
		}
	}
	for e := range refinedBy {
		set[e] = true
	}
	for i := range set {
		v.Evidence = append(v.Evidence, i)
	}
	sort.Ints(v.Evidence)
	if v.Class == v.Surface {
		v.Alternatives = v.Class.Alternatives
	}
	return v, true
}

func (k *KB) refineOnce(c *Class, lines []string, facts map[string]string) (*Class, string, []int) {
	for i := range c.Refine {
		r := &c.Refine[i]
		if r.When != "" {
			p, ok := predicates[r.When]
			if ok && p(facts) {
				return k.byID[r.To], r.Why, nil
			}
			continue
		}
		var ev []int
		for j, l := range lines {
			if r.EvidenceMatches(l) {
				ev = append(ev, j)
			}
		}
		if len(ev) > 0 {
			return k.byID[r.To], r.Why, ev
		}
	}
	return nil, "", nil
}

// checkPredicates is part of Load's validation: a `when:` must name a
// registered predicate.
func (k *KB) checkPredicates() error {
	for _, c := range k.Classes {
		for _, r := range c.Refine {
			if r.When != "" {
				if _, ok := predicates[r.When]; !ok {
					return fmt.Errorf("knowledge base %s: refinement to %s names unknown predicate %q", c.ID, r.To, r.When)
				}
			}
		}
		for _, r := range c.Remedies {
			if r.When != "" {
				if _, ok := predicates[r.When]; !ok {
					return fmt.Errorf("knowledge base %s: remedy names unknown predicate %q", c.ID, r.When)
				}
			}
		}
	}
	return nil
}

// Holds evaluates a named predicate (false when unknown).
func Holds(name string, facts map[string]string) bool {
	p, ok := predicates[name]
	return ok && p(facts)
}
