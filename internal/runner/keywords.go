package runner

import "bytes"

// keywordSet finds which lines of a chunk hold one of a few keywords with as
// few passes over the bytes as it can: each keyword is searched for by one
// of its bytes (its anchor), and keywords sharing an anchor share it (CUDA,
// NCCL and Root Cause are all found by their C). Where the processor has
// vector byte shuffles, one pass finds every anchor at once (a byte-class
// test, see classTable); elsewhere the chunk is searched in blocks small
// enough to stay in the first-level cache while every anchor's vectorised
// byte search runs over them. On ordinary output no anchor byte turns up
// and no line is looked at.
type keywordSet struct {
	anchors []anchorGroup
	maxLen  int
	// group maps a byte to 1 + the index of its anchor group, 0 for none.
	group [256]uint8
	// class holds the anchors and NUL (the sign of binary output), for
	// the one-pass search; nil without vector instructions.
	class *classTable
}

// classTable is a set of bytes in the form a vector byte shuffle tests 32
// bytes at a time: b is in it when lo[b&15] & hi[b>>4] is not zero. Each
// high nibble of the members gets a bit of its own, so with at most eight
// distinct high nibbles the set holds exactly its members; past eight,
// nibbles share bits and some other bytes are let through, which the
// caller's check of the byte found turns away. Both tables are held twice,
// one copy per 128-bit lane: nib[0:32] is lo, nib[32:64] is hi.
type classTable struct{ nib [64]byte }

func newClassTable(members []byte) *classTable {
	t := &classTable{}
	bitOf := map[byte]int{}
	for _, b := range members {
		hi, lo := b>>4, b&15
		bit, ok := bitOf[hi]
		if !ok {
			bit = len(bitOf) % 8
			bitOf[hi] = bit
		}
		for lane := 0; lane < 32; lane += 16 {
			t.nib[lane+int(lo)] |= 1 << bit
			t.nib[32+lane+int(hi)] |= 1 << bit
		}
	}
	return t
}

func (t *classTable) has(b byte) bool { return t.nib[b&15]&t.nib[32+b>>4] != 0 }

// indexScalar is indexClass a byte at a time, for the last bytes of a
// chunk that do not fill a vector.
func (t *classTable) indexScalar(s []byte) int {
	for i, b := range s {
		if t.has(b) {
			return i
		}
	}
	return -1
}

type anchorGroup struct {
	b   byte
	kws []anchored
}

// anchored is a keyword and the offset of its anchor byte in it.
type anchored struct {
	kw  []byte
	off int
}

// scanBlock is the stretch of a chunk searched for every anchor in turn.
const scanBlock = 16 << 10

// newKeywordSet picks the anchors greedily: among the bytes other than
// lower-case letters, digits and spaces, which fill ordinary output, the one
// found in the most keywords not yet covered; a keyword made only of those
// is anchored on its byte shared most.
func newKeywordSet(kws [][]byte) *keywordSet {
	ks := &keywordSet{}
	left := make([][]byte, 0, len(kws))
	for _, kw := range kws {
		if len(kw) > 0 {
			left = append(left, kw)
			ks.maxLen = max(ks.maxLen, len(kw))
		}
	}
	for len(left) > 0 {
		var best byte
		bestScore := -1
		for c := 0; c < 256; c++ {
			n := 0
			for _, kw := range left {
				if bytes.IndexByte(kw, byte(c)) >= 0 {
					n++
				}
			}
			if n == 0 {
				continue
			}
			score := n
			if !commonByte(byte(c)) {
				score += 1000
			}
			if score > bestScore {
				best, bestScore = byte(c), score
			}
		}
		g := anchorGroup{b: best}
		rest := left[:0]
		for _, kw := range left {
			if i := bytes.IndexByte(kw, best); i >= 0 {
				g.kws = append(g.kws, anchored{kw: kw, off: i})
			} else {
				rest = append(rest, kw)
			}
		}
		left = rest
		ks.anchors = append(ks.anchors, g)
		ks.group[best] = uint8(len(ks.anchors))
	}
	if vectorClass && len(ks.anchors) > 0 {
		members := []byte{0}
		for _, g := range ks.anchors {
			members = append(members, g.b)
		}
		ks.class = newClassTable(members)
	}
	return ks
}

func commonByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ' ' || c == '\n'
}

// scan appends to starts the start of every line of full that holds a
// keyword, in no particular order and possibly repeated, and counts the
// newlines of full. binary says full is binary data (see binaryChunk): its
// lines are only counted, as in random bytes every anchor turns up every
// few hundred bytes and the search would be the wrapper's main cost.
func (ks *keywordSet) scan(full []byte, starts []int) (_ []int, newlines int, binary bool) {
	if ks.class == nil {
		if binaryChunk(full) {
			return starts, bytes.Count(full, []byte{'\n'}), true
		}
		starts, newlines = ks.scanAnchors(full, starts)
		return starts, newlines, false
	}
	// One pass over full finds every anchor and NUL; text holds no NUL,
	// so binary data is told by its first one, without a pass of its own.
	newlines = bytes.Count(full, []byte{'\n'})
	checkedNUL := false
	for pos := 0; ; {
		i := indexClass(full[pos:], ks.class)
		if i < 0 {
			return starts, newlines, false
		}
		at := pos + i
		pos = at + 1
		c := full[at]
		if c == 0 && !checkedNUL {
			if binaryChunk(full) {
				return starts, newlines, true
			}
			checkedNUL = true
		}
		g := ks.group[c]
		if g == 0 {
			continue
		}
		for _, k := range ks.anchors[g-1].kws {
			s := at - k.off
			if s < 0 || s+len(k.kw) > len(full) || !bytes.Equal(full[s:s+len(k.kw)], k.kw) {
				continue
			}
			starts = append(starts, bytes.LastIndexByte(full[:s], '\n')+1)
		}
	}
}

// scanAnchors is scan without vector byte classes: the chunk is searched in
// blocks, for each anchor in turn, and its newlines are counted while each
// block is in cache.
func (ks *keywordSet) scanAnchors(full []byte, starts []int) ([]int, int) {
	newlines := 0
	for lo := 0; lo < len(full); lo += scanBlock {
		hi := min(lo+scanBlock, len(full))
		newlines += bytes.Count(full[lo:hi], []byte{'\n'})
		// A keyword starting in [lo, hi) has its anchor before hi+maxLen-1.
		win := full[lo:min(hi+ks.maxLen-1, len(full))]
		for gi := range ks.anchors {
			g := &ks.anchors[gi]
			for off := 0; ; {
				i := bytes.IndexByte(win[off:], g.b)
				if i < 0 {
					break
				}
				at := lo + off + i
				off += i + 1
				for _, k := range g.kws {
					s := at - k.off
					if s < lo || s >= hi || s+len(k.kw) > len(full) || !bytes.Equal(full[s:s+len(k.kw)], k.kw) {
						continue
					}
					starts = append(starts, bytes.LastIndexByte(full[:s], '\n')+1)
				}
			}
		}
	}
	return starts, newlines
}
