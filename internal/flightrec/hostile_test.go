package flightrec

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// sharedFramesPickle writes a protocol-2 dump of entries that all name one
// list of frames by memo reference, as Python's pickler writes [fs]*n.
func sharedFramesPickle(entries, frames int, selfRef bool) []byte {
	var b bytes.Buffer
	memo := 0
	put := func() int {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(memo))
		b.WriteByte('r')
		b.Write(n[:])
		memo++
		return memo - 1
	}
	get := func(id int) {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(id))
		b.WriteByte('j')
		b.Write(n[:])
	}
	str := func(s string) {
		var n [4]byte
		binary.LittleEndian.PutUint32(n[:], uint32(len(s)))
		b.WriteByte('X')
		b.Write(n[:])
		b.WriteString(s)
	}
	b.WriteString("\x80\x02}")
	put()
	b.WriteByte('(')
	str("version")
	str("2.4")
	if selfRef {
		// pg_config: {"0": {"ranks": L}} with L = [L]
		str("pg_config")
		b.WriteString("}(")
		str("0")
		b.WriteString("}(")
		str("ranks")
		b.WriteByte(']')
		get(put())
		b.WriteString("auu")
	}
	str("entries")
	b.WriteByte(']')
	put()
	framesID := -1
	for i := range entries {
		if i%1000 == 0 {
			b.WriteByte('(')
		}
		b.WriteString("}(")
		str("record_id")
		b.WriteString("J")
		binary.Write(&b, binary.LittleEndian, int32(i))
		str("profiling_name")
		str("nccl:all_reduce")
		str("frames")
		if framesID < 0 {
			b.WriteByte(']')
			framesID = put()
			b.WriteByte('(')
			for l := range frames {
				b.WriteString("}(")
				str("name")
				str("f")
				str("filename")
				str("a.py")
				str("line")
				b.WriteString("J")
				binary.Write(&b, binary.LittleEndian, int32(l))
				b.WriteByte('u')
			}
			b.WriteByte('e')
		} else {
			get(framesID)
		}
		b.WriteByte('u')
		if i%1000 == 999 || i == entries-1 {
			b.WriteByte('e')
		}
	}
	b.WriteString("u.")
	return b.Bytes()
}

func TestSharedFramesHitWorkLimit(t *testing.T) {
	data := sharedFramesPickle(100000, 10000, false)
	_, err := DecodeBytes(data, "nccl_trace_rank_0")
	if err == nil || !strings.Contains(err.Error(), "work limit") {
		t.Fatalf("got %v, want the work limit", err)
	}
	// A little sharing is fine.
	d, err := DecodeBytes(sharedFramesPickle(20, 50, false), "nccl_trace_rank_0")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 20 || len(d.Entries[19].Frames) != 50 {
		t.Errorf("%d entries, last with %d frames", len(d.Entries), len(d.Entries[len(d.Entries)-1].Frames))
	}
}

func TestSelfReferencingDump(t *testing.T) {
	_, err := DecodeBytes(sharedFramesPickle(1, 1, true), "nccl_trace_rank_0")
	if err == nil || !strings.Contains(err.Error(), "self-reference") {
		t.Fatalf("got %v, want the self-reference error", err)
	}
}
