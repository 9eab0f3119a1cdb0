// Package pickletest writes pickles laid out as Python's and torch's
// picklers write them (memoized strings, batched APPENDS, memo references
// for shared values), so tests and benchmarks can build memory snapshots and
// Flight Recorder dumps without Python.
package pickletest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
)

// Tuple is a pickled tuple.
type Tuple []any

// IntList is a list torch's jit Pickler wraps in build_intlist.
type IntList []any

// Ordered is a dict written in the order given: {key, value} pairs, the
// key a string.
type Ordered [][2]any

// Writer writes one pickle. Protocol 2 memoizes with BINPUT/LONG_BINPUT, as
// torch::jit::Pickler does for Flight Recorder dumps; protocol 4 with
// MEMOIZE, as Python's pickler does for memory snapshots.
type Writer struct {
	w     *bufio.Writer
	proto int
	strs  map[string]int
	// N is the number of memo slots used so far: the index the next
	// memoized value gets.
	N int
}

// NewWriter starts a pickle of the given protocol (2 or 4) on w.
func NewWriter(w io.Writer, proto int) *Writer {
	p := &Writer{w: bufio.NewWriterSize(w, 1<<16), proto: proto, strs: map[string]int{}}
	p.Op(0x80, byte(proto))
	return p
}

// Encode pickles a tree of Go values (see Value) with the given protocol.
func Encode(v any, proto int) []byte {
	var b bytes.Buffer
	p := NewWriter(&b, proto)
	p.Value(v)
	if err := p.Finish(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Op writes raw opcode bytes.
func (p *Writer) Op(b ...byte) { p.w.Write(b) }

// Memoize stores the value on top of the stack in the next memo slot.
func (p *Writer) Memoize() {
	switch {
	case p.proto >= 4:
		p.Op(0x94)
	case p.N < 256:
		p.Op('q', byte(p.N))
	default:
		p.Op('r')
		p.w.Write(binary.LittleEndian.AppendUint32(nil, uint32(p.N)))
	}
	p.N++
}

// Get pushes memo slot i.
func (p *Writer) Get(i int) {
	if i < 256 {
		p.Op('h', byte(i))
		return
	}
	p.Op('j')
	p.w.Write(binary.LittleEndian.AppendUint32(nil, uint32(i)))
}

// Str writes a string, or a reference to its first occurrence.
func (p *Writer) Str(s string) {
	if i, ok := p.strs[s]; ok {
		p.Get(i)
		return
	}
	if len(s) < 256 && p.proto >= 4 {
		p.Op(0x8c, byte(len(s)))
	} else {
		p.Op('X')
		p.w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	}
	p.w.WriteString(s)
	p.strs[s] = p.N
	p.Memoize()
}

// Int writes an integer in the shortest form Python's pickler uses.
func (p *Writer) Int(v int64) {
	switch {
	case v >= 0 && v < 256:
		p.Op('K', byte(v))
	case v >= 0 && v < 65536:
		p.Op('M', byte(v), byte(v>>8))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		p.Op('J')
		p.w.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	default:
		p.Op(0x8a, 8)
		p.w.Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
	}
}

// Bool writes True or False.
func (p *Writer) Bool(v bool) {
	if v {
		p.Op(0x88)
	} else {
		p.Op(0x89)
	}
}

// Float writes a BINFLOAT.
func (p *Writer) Float(f float64) {
	p.Op('G')
	p.w.Write(binary.BigEndian.AppendUint64(nil, math.Float64bits(f)))
}

// Dict writes a memoized dict whose entries body writes (key, value, ...).
func (p *Writer) Dict(body func()) {
	p.Op('}')
	p.Memoize()
	p.Op('(')
	body()
	p.Op('u')
}

// List writes a memoized list of n items: APPEND for one item, APPENDS in
// batches of 1000 otherwise, as Python's pickler does.
func (p *Writer) List(n int, item func(i int)) {
	p.Op(']')
	p.Memoize()
	if n == 1 {
		item(0)
		p.Op('a')
		return
	}
	for start := 0; start < n; start += 1000 {
		p.Op('(')
		for i := start; i < min(n, start+1000); i++ {
			item(i)
		}
		p.Op('e')
	}
}

// Tuple2 writes a memoized pair of integers.
func (p *Writer) Tuple2(a, b int64) {
	p.Int(a)
	p.Int(b)
	p.Op(0x86)
	p.Memoize()
}

// Finish writes STOP and flushes.
func (p *Writer) Finish() error {
	p.Op('.')
	return p.w.Flush()
}

// Value writes a tree of nil, bool, int, int64, float64, string, Tuple,
// IntList, []any, Ordered and map[string]any (keys sorted).
func (p *Writer) Value(v any) {
	switch x := v.(type) {
	case nil:
		p.Op('N')
	case bool:
		p.Bool(x)
	case int:
		p.Int(int64(x))
	case int64:
		p.Int(x)
	case float64:
		p.Float(x)
	case string:
		p.Str(x)
	case Tuple:
		if len(x) == 2 {
			p.Value(x[0])
			p.Value(x[1])
			p.Op(0x86)
			p.Memoize()
			return
		}
		p.Op('(')
		for _, e := range x {
			p.Value(e)
		}
		p.Op('t')
		p.Memoize()
	case IntList:
		p.w.WriteString("ctorch.jit._pickle\nbuild_intlist\n")
		p.Memoize()
		p.Value([]any(x))
		p.Op(0x85, 'R')
		p.Memoize()
	case []any:
		p.List(len(x), func(i int) { p.Value(x[i]) })
	case Ordered:
		p.Dict(func() {
			for _, e := range x {
				p.Str(e[0].(string))
				p.Value(e[1])
			}
		})
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		p.Dict(func() {
			for _, k := range keys {
				p.Str(k)
				p.Value(x[k])
			}
		})
	default:
		panic(fmt.Sprintf("cannot pickle %T", v))
	}
}
