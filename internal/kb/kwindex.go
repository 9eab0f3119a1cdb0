package kb

import (
	"encoding/binary"
	"strings"
)

// kwIndex finds which signature keywords a line holds in one pass over
// the line, instead of a strings.Contains per keyword per signature: the
// knowledge base has some 400 signatures, nearly each with a keyword of
// its own, and every line of every failure (and every joined pair) is
// matched against all of them.
type kwIndex struct {
	sigs  []sigRef
	words int // distinct keywords
	// Keywords of four bytes or more, by their first four bytes; bits is
	// a filter over a 16-bit hash of those, to skip most positions
	// without a map lookup.
	bits  [1 << 16 / 64]uint64
	heads map[uint32][]kwText
	// Shorter keywords are searched for one by one.
	short []kwText
}

// sigRef is one signature in Matches' order, with its keywords' ids: per
// keyword, the ids of its spellings (KeywordSpellings).
type sigRef struct {
	class *Class
	sig   *Signature
	kw    [][]int
}

type kwText struct {
	id   int
	text string
}

func kwHash(w uint32) uint32 { return (w * 0x9E3779B1) >> 16 }

func newKWIndex(classes []*Class) *kwIndex {
	ix := &kwIndex{heads: map[uint32][]kwText{}}
	ids := map[string]int{}
	for _, c := range classes {
		for i := range c.Signatures {
			s := &c.Signatures[i]
			r := sigRef{class: c, sig: s}
			for _, group := range s.KeywordSpellings() {
				var alt []int
				for _, kw := range group {
					id, ok := ids[kw]
					if !ok {
						id = len(ids)
						ids[kw] = id
						t := kwText{id, kw}
						if len(kw) < 4 {
							ix.short = append(ix.short, t)
						} else {
							w := binary.LittleEndian.Uint32([]byte(kw[:4]))
							h := kwHash(w)
							ix.bits[h>>6] |= 1 << (h & 63)
							ix.heads[w] = append(ix.heads[w], t)
						}
					}
					alt = append(alt, id)
				}
				r.kw = append(r.kw, alt)
			}
			ix.sigs = append(ix.sigs, r)
		}
	}
	ix.words = len(ids)
	return ix
}

// scan marks in present (a bitset of at least words bits, zeroed) every
// keyword line holds.
func (ix *kwIndex) scan(line string, present []uint64) {
	for i := 0; i+4 <= len(line); i++ {
		w := uint32(line[i]) | uint32(line[i+1])<<8 | uint32(line[i+2])<<16 | uint32(line[i+3])<<24
		h := kwHash(w)
		if ix.bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, t := range ix.heads[w] {
			if strings.HasPrefix(line[i:], t.text) {
				present[t.id>>6] |= 1 << (t.id & 63)
			}
		}
	}
	for _, t := range ix.short {
		if strings.Contains(line, t.text) {
			present[t.id>>6] |= 1 << (t.id & 63)
		}
	}
}

// holds: a spelling of every keyword of r is marked in present.
func (r *sigRef) holds(present []uint64) bool {
	for _, alt := range r.kw {
		found := false
		for _, id := range alt {
			if present[id>>6]&(1<<(id&63)) != 0 {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
