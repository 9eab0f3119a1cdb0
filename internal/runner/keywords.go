package runner

import "bytes"

// keywordSet finds which lines of a chunk hold one of a few keywords with as
// few passes over the bytes as it can: each keyword is searched for by one
// of its bytes (its anchor), keywords sharing an anchor share the pass that
// finds it (CUDA, NCCL and Root Cause are all found by their C), and the
// chunk is searched in blocks small enough to stay in the first-level cache
// while every anchor's vectorised byte search runs over them. On ordinary
// output no anchor byte turns up and no line is looked at.
type keywordSet struct {
	anchors []anchorGroup
	maxLen  int
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
	}
	return ks
}

func commonByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == ' ' || c == '\n'
}

// scan appends to starts the start of every line of full that holds a
// keyword, in no particular order and possibly repeated, and counts the
// newlines of full while each block is in cache.
func (ks *keywordSet) scan(full []byte, starts []int) ([]int, int) {
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
