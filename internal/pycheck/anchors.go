package pycheck

import (
	"bytes"
	"fmt"
)

// anchorWords is the width of an anchorBits in 64-bit words: the
// pre-filter holds MaxAnchors distinct anchors.
const anchorWords = 4

// MaxAnchors is how many distinct anchors the pre-filter holds; a rule set
// with more is refused by newAnchorSet (a rule whose anchor did not fit
// would never be skipped, and the set of files parsed, with the cross-file
// summaries taken from them, would change for every rule).
const MaxAnchors = 64 * anchorWords

// anchorBits has one bit per anchor of an anchorSet. It is a value (no
// allocation per file) and compares with ==.
type anchorBits [anchorWords]uint64

func (b *anchorBits) set(i int)     { b[i>>6] |= 1 << (i & 63) }
func (b anchorBits) has(i int) bool { return b[i>>6]&(1<<(i&63)) != 0 }
func (b anchorBits) any(m anchorBits) bool {
	for w := range b {
		if b[w]&m[w] != 0 {
			return true
		}
	}
	return false
}

// anchorSet finds which of up to MaxAnchors anchor strings occur in a file
// in one pass over its bytes: a table indexed by each byte pair points to
// the few anchors starting with that pair. Searching each anchor with
// bytes.Index instead cost a full scan per absent anchor, a tenth of the
// parse time.
type anchorSet struct {
	anchors []string
	index   map[string]int
	buckets [][]int
	table   []uint16 // byte pair -> 1 + bucket index, 0 for none
	// pairs has a bit per byte pair that starts an anchor: 8 KB that stay
	// in cache, read at every byte, where the 128 KB table is read only
	// at the few pairs that can match.
	pairs [256][4]uint64
	short []int      // anchors of one byte (checked with IndexByte)
	all   anchorBits // every anchor's bit
}

// newAnchorSet gathers the rules' anchors; it fails when they are more
// than MaxAnchors, rather than leave one out.
func newAnchorSet(rules []*Rule) (*anchorSet, error) {
	s := &anchorSet{index: map[string]int{}, table: make([]uint16, 1<<16)}
	for _, r := range rules {
		for _, a := range append(append([]string{}, r.Anchors...), r.AlsoAnchors...) {
			if _, ok := s.index[a]; ok || a == "" {
				continue
			}
			if len(s.anchors) == MaxAnchors {
				return nil, fmt.Errorf("pycheck: more than %d distinct rule anchors (%s: %q)", MaxAnchors, r.ID, a)
			}
			s.add(a)
		}
	}
	return s, nil
}

func (s *anchorSet) add(a string) {
	i := len(s.anchors)
	s.index[a] = i
	s.anchors = append(s.anchors, a)
	s.all.set(i)
	if len(a) == 1 {
		s.short = append(s.short, i)
		return
	}
	key := uint16(a[0])<<8 | uint16(a[1])
	s.pairs[a[0]][a[1]>>6] |= 1 << (a[1] & 63)
	if s.table[key] == 0 {
		s.buckets = append(s.buckets, nil)
		s.table[key] = uint16(len(s.buckets))
	}
	b := s.table[key] - 1
	s.buckets[b] = append(s.buckets[b], i)
}

// mask returns the bits of the given anchors (false for an anchor the set
// does not hold, so the rule is never wrongly skipped).
func (s *anchorSet) mask(anchors []string) (anchorBits, bool) {
	var m anchorBits
	for _, a := range anchors {
		i, ok := s.index[a]
		if !ok {
			return anchorBits{}, false
		}
		m.set(i)
	}
	return m, true
}

// scan returns the bits of the anchors present in src.
func (s *anchorSet) scan(src []byte) anchorBits {
	var found anchorBits
	for _, i := range s.short {
		if bytes.IndexByte(src, s.anchors[i][0]) >= 0 {
			found.set(i)
		}
	}
	for i := 0; i+1 < len(src); i++ {
		c0, c1 := src[i], src[i+1]
		if s.pairs[c0][c1>>6]&(1<<(c1&63)) == 0 {
			continue
		}
		b := s.table[uint16(c0)<<8|uint16(c1)]
		for _, a := range s.buckets[b-1] {
			if !found.has(a) && bytes.HasPrefix(src[i:], []byte(s.anchors[a])) {
				found.set(a)
				if found == s.all {
					return found
				}
			}
		}
	}
	return found
}
