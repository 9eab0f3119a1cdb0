package pycheck

import "bytes"

// anchorSet finds which of up to 64 anchor strings occur in a file in one
// pass over its bytes: a table indexed by each byte pair points to the few
// anchors starting with that pair. Searching each anchor with bytes.Index
// instead cost a full scan per absent anchor, a tenth of the parse time.
type anchorSet struct {
	anchors []string
	index   map[string]int
	buckets [][]int
	table   []uint16 // byte pair -> 1 + bucket index, 0 for none
	// pairs has a bit per byte pair that starts an anchor: 8 KB that stay
	// in cache, read at every byte, where the 128 KB table is read only
	// at the few pairs that can match.
	pairs [256][4]uint64
	short uint64 // anchors of one byte (checked with IndexByte)
}

func newAnchorSet(rules []*Rule) *anchorSet {
	s := &anchorSet{index: map[string]int{}, table: make([]uint16, 1<<16)}
	add := func(a string) {
		if _, ok := s.index[a]; ok || a == "" || len(s.anchors) == 64 {
			return
		}
		i := len(s.anchors)
		s.index[a] = i
		s.anchors = append(s.anchors, a)
		if len(a) == 1 {
			s.short |= 1 << i
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
	for _, r := range rules {
		for _, a := range r.Anchors {
			add(a)
		}
		for _, a := range r.AlsoAnchors {
			add(a)
		}
	}
	return s
}

// mask returns the bits of the given anchors (all bits set for an anchor the
// set could not hold, so the rule is never wrongly skipped).
func (s *anchorSet) mask(anchors []string) (uint64, bool) {
	var m uint64
	for _, a := range anchors {
		i, ok := s.index[a]
		if !ok {
			return 0, false
		}
		m |= 1 << i
	}
	return m, true
}

// scan returns the bitmask of anchors present in src.
func (s *anchorSet) scan(src []byte) uint64 {
	var found uint64
	for i := range s.anchors {
		if s.short&(1<<i) != 0 && bytes.IndexByte(src, s.anchors[i][0]) >= 0 {
			found |= 1 << i
		}
	}
	all := uint64(1)<<len(s.anchors) - 1
	if len(s.anchors) == 64 {
		all = ^uint64(0)
	}
	for i := 0; i+1 < len(src); i++ {
		c0, c1 := src[i], src[i+1]
		if s.pairs[c0][c1>>6]&(1<<(c1&63)) == 0 {
			continue
		}
		b := s.table[uint16(c0)<<8|uint16(c1)]
		for _, a := range s.buckets[b-1] {
			if found&(1<<a) == 0 && bytes.HasPrefix(src[i:], []byte(s.anchors[a])) {
				found |= 1 << a
				if found == all {
					return found
				}
			}
		}
	}
	return found
}
