package logparse

import (
	"bytes"
	"encoding/binary"
	"sort"
)

// Prefilter finds the lines of a buffer that contain any of a fixed set of
// substrings without looking at most bytes: it samples one 4-byte window
// every `stride` bytes and checks it against a bitset of every 4-gram of
// every pattern (a sampled Wu-Manber filter). Every occurrence of a pattern
// of length L spans L-3 consecutive windows, so sampling with a stride of at
// most L-3 cannot miss it. Patterns too short for the sampled table are
// searched with bytes.Index.
type Prefilter struct {
	stride  int
	bits    [1 << 16 / 64]uint64
	start   [1<<16 + 1]int32 // CSR index of entries per hash
	entries []pfEntry
	pats    [][]byte
	short   [][]byte
}

type pfEntry struct {
	pat int32 // index into pats
	off int32 // offset of the 4-gram inside the pattern
}

// minSampled is the shortest pattern the sampled table takes; shorter ones
// cost one bytes.Index pass each, so there should be few.
const minSampled = 8

// NewPrefilter builds the filter once for a pattern set.
func NewPrefilter(patterns []string) *Prefilter {
	p := &Prefilter{}
	seen := map[string]bool{}
	minLen := 1 << 30
	for _, s := range patterns {
		if s == "" || seen[s] || bytes.IndexByte([]byte(s), '\n') >= 0 {
			continue
		}
		seen[s] = true
		if len(s) < minSampled {
			p.short = append(p.short, []byte(s))
			continue
		}
		p.pats = append(p.pats, []byte(s))
		if len(s) < minLen {
			minLen = len(s)
		}
	}
	if len(p.pats) == 0 {
		p.stride = 1
		return p
	}
	p.stride = minLen - 3
	type kv struct {
		h uint32
		e pfEntry
	}
	var all []kv
	for i, s := range p.pats {
		for off := 0; off+4 <= len(s); off++ {
			h := hash4(s[off:])
			all = append(all, kv{h, pfEntry{int32(i), int32(off)}})
			p.bits[h>>6] |= 1 << (h & 63)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].h < all[j].h })
	p.entries = make([]pfEntry, len(all))
	for i, a := range all {
		p.entries[i] = a.e
		p.start[a.h+1]++
	}
	for i := 1; i < len(p.start); i++ {
		p.start[i] += p.start[i-1]
	}
	return p
}

func hash4(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 0x9E3779B1) >> 16
}

// Cursor remembers, for one buffer, where each short pattern occurs next,
// so repeated Next calls over a buffer stay linear.
type Cursor struct {
	p    *Prefilter
	buf  []byte
	next []int // per short pattern: absolute index of next occurrence, -1 none, -2 unknown
}

// Cursor starts a scan of buf.
func (p *Prefilter) Cursor(buf []byte) *Cursor {
	c := &Cursor{p: p, buf: buf, next: make([]int, len(p.short))}
	for i := range c.next {
		c.next[i] = -2
	}
	return c
}

// Next returns the start of the first line at or after from (a line start)
// that contains a pattern, or -1. The buffer holds whole lines.
func (c *Cursor) Next(from int) int {
	p, buf := c.p, c.buf
	best := -1
	for k, s := range p.short {
		if c.next[k] == -2 || (c.next[k] >= 0 && c.next[k] < from) {
			if i := bytes.Index(buf[from:], s); i >= 0 {
				c.next[k] = from + i
			} else {
				c.next[k] = -1
			}
		}
		if n := c.next[k]; n >= 0 {
			ls := lineStart(buf, n, from)
			if best < 0 || ls < best {
				best = ls
			}
		}
	}
	if len(p.pats) == 0 {
		return best
	}
	end := len(buf) - 4
	if best >= 0 {
		end = best - 4
	}
	stride := p.stride
	bits := &p.bits
	for i := from; i <= end; i += stride {
		h := (binary.LittleEndian.Uint32(buf[i:]) * 0x9E3779B1) >> 16
		if bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		if p.verify(buf, i, from) {
			ls := lineStart(buf, i, from)
			if best < 0 || ls < best {
				best = ls
			}
			return best
		}
	}
	return best
}

// verify checks the patterns whose 4-gram hashes to the window at i.
func (p *Prefilter) verify(buf []byte, i, from int) bool {
	h := hash4(buf[i:])
	for _, e := range p.entries[p.start[h]:p.start[h+1]] {
		s := int(e.off)
		at := i - s
		if at < from {
			continue
		}
		pat := p.pats[e.pat]
		if at+len(pat) <= len(buf) && bytes.Equal(buf[at:at+len(pat)], pat) {
			return true
		}
	}
	return false
}

func lineStart(buf []byte, i, floor int) int {
	j := bytes.LastIndexByte(buf[floor:i], '\n')
	if j < 0 {
		return floor
	}
	return floor + j + 1
}
