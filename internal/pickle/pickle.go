// Package pickle decodes Python pickle streams (protocols 2 to 5) into plain
// data without executing anything, compactly enough for gigabyte inputs. It is
// the one reader of untrusted pickles: memory snapshots and Flight Recorder
// dumps both go through it.
//
// Only data opcodes are accepted: None, booleans, integers, floats, strings,
// bytes, tuples, lists, dicts and sets, with the memo. Anything that would
// name a Python class or call a function (GLOBAL, REDUCE, BUILD, ...) is an
// error naming what the pickle asked for, except for a short list of
// harmless list builders that PyTorch's own pickler emits.
//
// Values are small handles (Value) into tables owned by the Decoder. A Sealer
// may turn finished dicts and lists into its own compact objects as soon as
// they are complete, so that a large input never lives in memory as a tree of
// generic containers.
package pickle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind says what a Value holds.
type Kind uint8

const (
	KindInvalid Kind = iota
	KindNone
	KindBool
	KindInt
	// KindBigInt is an integer that does not fit in int64; only its nearest
	// float64 is kept (Float reads it). Neither snapshots nor dumps need one.
	KindBigInt
	KindFloat
	KindStr
	KindBytes
	KindTuple
	KindList
	KindDict
	// KindSealed is an object a Sealer made; N is the sealer's own index.
	KindSealed
)

var kindNames = [...]string{"invalid", "None", "bool", "int", "bigint", "float", "str", "bytes", "tuple", "list", "dict", "sealed"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Value is a handle to a decoded Python value. Ints and bools live in N,
// floats as their bits, strings, bytes, containers and sealed objects as an
// index into the Decoder's tables.
type Value struct {
	Kind Kind
	N    int64
}

// KV is one entry of a dict, in pickle order.
type KV struct{ Key, Val Value }

// Sealer turns completed containers into compact objects. It is called once a
// dict or list can no longer change (when it becomes an element of another
// container, or is the final result); returning ok=false keeps it generic.
type Sealer interface {
	SealDict(d *Decoder, kvs []KV) (v Value, ok bool)
	SealList(d *Decoder, items []Value) (v Value, ok bool)
}

// Limits bound what a hostile or corrupt input can make the decoder, and
// the consumers walking its values, allocate and do.
type Limits struct {
	// MaxString is the longest string or bytes value accepted.
	MaxString int
	// MaxStack is the deepest the value stack may grow.
	MaxStack int
	// MaxContainers bounds the lists, tuples and dicts alive at once
	// (sealed and released ones do not count): each costs tens of bytes for
	// one byte of input.
	MaxContainers int
	// WorkPerByte and BaseWork bound the work consumers report with Charge:
	// at most BaseWork + WorkPerByte units per byte read so far. A memo
	// reference is a few bytes but may stand for a list of millions of
	// values; charging the walk over what it refers to keeps a small file
	// from costing more than a large one.
	WorkPerByte int64
	BaseWork    int64
}

// DefaultLimits are generous for memory snapshots: a real snapshot stays
// far below each (its walks are a few units per byte).
var DefaultLimits = Limits{MaxString: 256 << 20, MaxStack: 1 << 24, MaxContainers: 1 << 23, WorkPerByte: 64, BaseWork: 1 << 22}

// LimitError is a Limits bound the input ran into; Limit names it.
type LimitError struct {
	Limit  string
	Offset int64
	Msg    string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("pickle: %s at byte %d (%s limit)", e.Msg, e.Offset, e.Limit)
}

// Error is a decoding failure with the byte offset of the offending opcode.
type Error struct {
	Offset int64
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("pickle: %s at byte %d", e.Msg, e.Offset) }

// ErrTruncated is wrapped by errors caused by the input ending early.
var ErrTruncated = errors.New("the file ends in the middle of the pickle (truncated?)")

type container struct {
	items []Value // list and tuple elements
	kvs   []KV    // dict entries
	memo  int32   // memo slot holding this container (-1: none)
	// sealTried: the sealer declined it once. A container is complete
	// when it first becomes an element, so asking again (for every memo
	// reference to it) would only repeat the walk.
	sealTried bool
	// sealed is what the sealer made of it, for handles to it still on
	// the stack (memo references in the same batch) until the slot is
	// reused.
	sealed Value
	// gen distinguishes successive uses of a recycled slot, so that a stale
	// handle never reaches a newer container.
	gen  uint32
	done bool // sealed or released
}

// Decoder holds the tables every Value points into.
type Decoder struct {
	r      *reader
	lim    Limits
	sealer Sealer

	// limitErr is the first limit a container allocation or a consumer's
	// Charge ran into; the opcode loop stops on it.
	limitErr error
	work     int64

	strs     []string
	strIndex map[string]int32
	bytes    [][]byte
	floats   []float64
	conts    []container
	free     []int32
	memo     memo
	stack    []Value
	marks    []int
	proto    int
}

// NewDecoder returns a decoder reading from r. sealer may be nil.
func NewDecoder(r io.Reader, sealer Sealer, lim Limits) *Decoder {
	if lim.MaxString <= 0 {
		lim.MaxString = DefaultLimits.MaxString
	}
	if lim.MaxStack <= 0 {
		lim.MaxStack = DefaultLimits.MaxStack
	}
	if lim.MaxContainers <= 0 {
		lim.MaxContainers = DefaultLimits.MaxContainers
	}
	if lim.WorkPerByte <= 0 {
		lim.WorkPerByte = DefaultLimits.WorkPerByte
	}
	if lim.BaseWork <= 0 {
		lim.BaseWork = DefaultLimits.BaseWork
	}
	return &Decoder{r: newReader(r), lim: lim, sealer: sealer, strIndex: map[string]int32{}}
}

// Charge records n units of work a consumer does because of the data (one
// unit per value visited). Once the total exceeds the budget (Limits'
// WorkPerByte and BaseWork) it returns a *LimitError, and so does Decode
// from then on: a Sealer, which cannot return errors, just charges.
func (d *Decoder) Charge(n int) error {
	if d.limitErr != nil {
		return d.limitErr
	}
	d.work += int64(n)
	if d.work > d.lim.BaseWork+d.lim.WorkPerByte*d.r.off {
		d.limitErr = &LimitError{Limit: "work", Offset: d.r.off,
			Msg: fmt.Sprintf("the data refers to shared values so often that reading it would take more than %d steps per byte of input", d.lim.WorkPerByte)}
	}
	return d.limitErr
}

// Protocol is the protocol announced by the PROTO opcode (0 when absent).
func (d *Decoder) Protocol() int { return d.proto }

// Str returns the string a KindStr value holds ("" for other kinds).
func (d *Decoder) Str(v Value) string {
	if v.Kind != KindStr {
		return ""
	}
	return d.strs[v.N]
}

// StrID returns the interned id of a string value (-1 for other kinds), for
// cheap comparisons with InternedID.
func (d *Decoder) StrID(v Value) int32 {
	if v.Kind != KindStr {
		return -1
	}
	return int32(v.N)
}

// InternedID returns the id of s if the input contained it, or -1.
func (d *Decoder) InternedID(s string) int32 {
	if id, ok := d.strIndex[s]; ok {
		return id
	}
	return -1
}

// Bytes returns the content of a KindBytes value.
func (d *Decoder) Bytes(v Value) []byte {
	if v.Kind != KindBytes {
		return nil
	}
	return d.bytes[v.N]
}

// Int returns an integer or bool value; ok is false for other kinds.
func (d *Decoder) Int(v Value) (int64, bool) {
	switch v.Kind {
	case KindInt, KindBool:
		return v.N, true
	}
	return 0, false
}

// Float returns a float or integer value as float64.
func (d *Decoder) Float(v Value) (float64, bool) {
	switch v.Kind {
	case KindFloat, KindBigInt:
		return d.floats[v.N], true
	case KindInt, KindBool:
		return float64(v.N), true
	}
	return 0, false
}

// Items returns the elements of a list or tuple (nil for other kinds). The
// slice belongs to the decoder.
func (d *Decoder) Items(v Value) []Value {
	if v.Kind != KindList && v.Kind != KindTuple {
		return nil
	}
	if c := d.cont(v); c != nil {
		return c.items
	}
	return nil
}

// Entries returns the entries of a dict, in order (nil for other kinds).
func (d *Decoder) Entries(v Value) []KV {
	if v.Kind != KindDict {
		return nil
	}
	if c := d.cont(v); c != nil {
		return c.kvs
	}
	return nil
}

// cont resolves a container handle; nil when it was sealed or released.
func (d *Decoder) cont(v Value) *container {
	idx := int(uint32(v.N))
	if idx >= len(d.conts) {
		return nil
	}
	c := &d.conts[idx]
	if c.done || c.gen != uint32(v.N>>32) {
		return nil
	}
	return c
}

func (d *Decoder) freeCont(v Value) {
	c := d.cont(v)
	if c == nil {
		return
	}
	// Keep the backing arrays while few slots are free: the next container
	// reuses them, which saves an allocation for each of the millions of
	// frame dicts. A writer that does not batch its APPENDS leaves many
	// finished containers at once; their arrays are dropped.
	if len(d.free) < 4096 {
		c.items, c.kvs = c.items[:0], c.kvs[:0]
	} else {
		c.items, c.kvs = nil, nil
	}
	c.done = true
	d.free = append(d.free, int32(uint32(v.N)))
}

// Get looks a string key up in a dict value.
func (d *Decoder) Get(dict Value, key string) (Value, bool) {
	for _, kv := range d.Entries(dict) {
		if kv.Key.Kind == KindStr && d.strs[kv.Key.N] == key {
			return kv.Val, true
		}
	}
	return Value{}, false
}

// Release frees a container's storage once the caller has copied what it
// needs; later access to it returns nothing.
func (d *Decoder) Release(v Value) {
	if v.Kind == KindList || v.Kind == KindTuple || v.Kind == KindDict {
		if c := d.cont(v); c != nil {
			// The caller is done with it: drop the memory, not just the length.
			c.items, c.kvs = nil, nil
		}
		d.freeCont(v)
	}
}

// Decode runs the pickle to its STOP opcode and returns the result.
func (d *Decoder) Decode() (Value, error) {
	v, err := d.run()
	if err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			return Value{}, err
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Value{}, &Error{Offset: d.r.off, Msg: ErrTruncated.Error()}
		}
		return Value{}, err
	}
	return v, nil
}

// opcodes (pickletools names).
const (
	opMark           = '('
	opStop           = '.'
	opPop            = '0'
	opPopMark        = '1'
	opDup            = '2'
	opFloat          = 'F'
	opInt            = 'I'
	opBinInt         = 'J'
	opBinInt1        = 'K'
	opLong           = 'L'
	opBinInt2        = 'M'
	opNone           = 'N'
	opPersID         = 'P'
	opBinPersID      = 'Q'
	opReduce         = 'R'
	opString         = 'S'
	opBinString      = 'T'
	opShortBinString = 'U'
	opUnicode        = 'V'
	opBinUnicode     = 'X'
	opAppend         = 'a'
	opBuild          = 'b'
	opGlobal         = 'c'
	opDict           = 'd'
	opEmptyDict      = '}'
	opAppends        = 'e'
	opGet            = 'g'
	opBinGet         = 'h'
	opInst           = 'i'
	opLongBinGet     = 'j'
	opList           = 'l'
	opEmptyList      = ']'
	opObj            = 'o'
	opPut            = 'p'
	opBinPut         = 'q'
	opLongBinPut     = 'r'
	opSetItem        = 's'
	opTuple          = 't'
	opEmptyTuple     = ')'
	opSetItems       = 'u'
	opBinFloat       = 'G'

	opProto          = 0x80
	opNewObj         = 0x81
	opExt1           = 0x82
	opExt2           = 0x83
	opExt4           = 0x84
	opTuple1         = 0x85
	opTuple2         = 0x86
	opTuple3         = 0x87
	opNewTrue        = 0x88
	opNewFalse       = 0x89
	opLong1          = 0x8a
	opLong4          = 0x8b
	opBinBytes       = 'B'
	opShortBinBytes  = 'C'
	opShortBinUni    = 0x8c
	opBinUnicode8    = 0x8d
	opBinBytes8      = 0x8e
	opEmptySet       = 0x8f
	opAddItems       = 0x90
	opFrozenSet      = 0x91
	opNewObjEx       = 0x92
	opStackGlobal    = 0x93
	opMemoize        = 0x94
	opFrame          = 0x95
	opByteArray8     = 0x96
	opNextBuffer     = 0x97
	opReadOnlyBuffer = 0x98
)

// allowedGlobals are callables PyTorch's pickler emits around plain lists;
// REDUCE on them yields their first argument unchanged.
var allowedGlobals = map[string]bool{
	"torch.jit._pickle build_intlist":    true,
	"torch.jit._pickle build_floatlist":  true,
	"torch.jit._pickle build_boollist":   true,
	"torch.jit._pickle build_doublelist": true,
	"torch.jit._pickle build_strlist":    true,
	"torch.jit._pickle restore_type_tag": true,
}

func (d *Decoder) fail(off int64, format string, args ...any) error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func (d *Decoder) push(v Value) error {
	if len(d.stack) >= d.lim.MaxStack {
		return d.fail(d.r.off, "value stack deeper than %d", d.lim.MaxStack)
	}
	d.stack = append(d.stack, v)
	return nil
}

func (d *Decoder) pop(off int64) (Value, error) {
	n := len(d.stack)
	if n == 0 || (len(d.marks) > 0 && d.marks[len(d.marks)-1] >= n) {
		return Value{}, d.fail(off, "stack underflow")
	}
	v := d.stack[n-1]
	d.stack = d.stack[:n-1]
	return v, nil
}

func (d *Decoder) top(off int64) (*Value, error) {
	n := len(d.stack)
	if n == 0 || (len(d.marks) > 0 && d.marks[len(d.marks)-1] >= n) {
		return nil, d.fail(off, "stack underflow")
	}
	return &d.stack[n-1], nil
}

// popMark returns the values above the last mark and removes them and the mark.
func (d *Decoder) popMark(off int64) ([]Value, error) {
	if len(d.marks) == 0 {
		return nil, d.fail(off, "no mark on the stack")
	}
	m := d.marks[len(d.marks)-1]
	d.marks = d.marks[:len(d.marks)-1]
	items := d.stack[m:]
	d.stack = d.stack[:m]
	return items, nil
}

func (d *Decoder) newCont(k Kind, items []Value, kvs []KV) Value {
	if n := len(d.free); n > 0 {
		idx := d.free[n-1]
		d.free = d.free[:n-1]
		c := &d.conts[idx]
		gen := c.gen + 1
		if items == nil {
			items = c.items[:0]
		}
		if kvs == nil {
			kvs = c.kvs[:0]
		}
		*c = container{items: items, kvs: kvs, memo: -1, gen: gen}
		return Value{Kind: k, N: int64(idx) | int64(gen)<<32}
	}
	if len(d.conts) >= d.lim.MaxContainers && d.limitErr == nil {
		d.limitErr = &LimitError{Limit: "object count", Offset: d.r.off,
			Msg: fmt.Sprintf("more than %d lists, tuples and dicts alive at once", d.lim.MaxContainers)}
	}
	d.conts = append(d.conts, container{items: items, kvs: kvs, memo: -1})
	return Value{Kind: k, N: int64(len(d.conts) - 1)}
}

func (d *Decoder) internStr(b []byte) Value {
	if id, ok := d.strIndex[string(b)]; ok {
		return Value{Kind: KindStr, N: int64(id)}
	}
	s := string(b)
	id := int32(len(d.strs))
	d.strs = append(d.strs, s)
	d.strIndex[s] = id
	return Value{Kind: KindStr, N: int64(id)}
}

// seal finalises a container that just became an element of another one.
func (d *Decoder) seal(v Value) Value {
	if d.sealer == nil || (v.Kind != KindDict && v.Kind != KindList) {
		return v
	}
	c := d.cont(v)
	if c == nil {
		if idx := int(uint32(v.N)); idx < len(d.conts) {
			if f := &d.conts[idx]; f.gen == uint32(v.N>>32) && f.sealed.Kind != KindInvalid {
				return f.sealed
			}
		}
		return v
	}
	if c.sealTried {
		return v
	}
	c.sealTried = true
	var out Value
	var ok bool
	if v.Kind == KindDict {
		out, ok = d.sealer.SealDict(d, c.kvs)
	} else {
		out, ok = d.sealer.SealList(d, c.items)
	}
	if !ok {
		return v
	}
	if c.memo >= 0 {
		d.memo.set(int64(c.memo), out)
	}
	// Recycle the slot: sealed containers are the common case and the
	// table would otherwise grow with every frame of every stack.
	d.freeCont(v)
	c.sealed = out
	return out
}

func (d *Decoder) sealAll(vs []Value) {
	for i := range vs {
		vs[i] = d.seal(vs[i])
	}
}

func (d *Decoder) mutable(v Value, want Kind, off int64, op string) (*container, error) {
	if v.Kind != want {
		return nil, d.fail(off, "%s on a %s", op, v.Kind)
	}
	c := d.cont(v)
	if c == nil {
		return nil, d.fail(off, "%s on a finished %s", op, v.Kind)
	}
	return c, nil
}

func (d *Decoder) memoPut(idx int64, off int64) error {
	t, err := d.top(off)
	if err != nil {
		return err
	}
	n := d.memo.len()
	switch {
	case idx < 0 || idx > n:
		// Picklers number the memo densely; a gap is corruption.
		return d.fail(off, "memo index %d out of range", idx)
	case idx == n:
		d.memo.grow()
	}
	d.memo.set(idx, *t)
	if t.Kind == KindDict || t.Kind == KindList {
		if c := d.cont(*t); c != nil {
			c.memo = int32(idx)
		}
	}
	return nil
}

func (d *Decoder) memoGet(idx int64, off int64) error {
	if idx < 0 || idx >= d.memo.len() {
		return d.fail(off, "memo index %d was never stored", idx)
	}
	v := d.memo.get(idx)
	if v.Kind == KindInvalid {
		return d.fail(off, "memo index %d was never stored", idx)
	}
	return d.push(v)
}

func (d *Decoder) run() (Value, error) {
	r := d.r
	for {
		off := r.off
		var op byte
		var err error
		if r.pos < r.end {
			op = r.buf[r.pos]
			r.pos++
			r.off++
		} else {
			op, err = r.byte()
		}
		if err != nil {
			if off == 0 && errors.Is(err, io.EOF) {
				return Value{}, d.fail(0, "empty input")
			}
			return Value{}, err
		}
		switch op {
		case opProto:
			b, err := r.byte()
			if err != nil {
				return Value{}, err
			}
			if b > 5 {
				return Value{}, d.fail(off, "unsupported pickle protocol %d", b)
			}
			d.proto = int(b)
		case opFrame:
			if _, err := r.n(8); err != nil {
				return Value{}, err
			}
		case opStop:
			v, err := d.pop(off)
			if err != nil {
				return Value{}, err
			}
			return d.seal(v), nil
		case opMark:
			// A mark is kept as a position in the stack, not as a value.
			if len(d.marks) >= d.lim.MaxStack {
				return Value{}, d.fail(off, "too many marks")
			}
			d.marks = append(d.marks, len(d.stack))
		case opPop:
			if len(d.marks) > 0 && d.marks[len(d.marks)-1] == len(d.stack) {
				d.marks = d.marks[:len(d.marks)-1]
				continue
			}
			if _, err := d.pop(off); err != nil {
				return Value{}, err
			}
		case opPopMark:
			if _, err := d.popMark(off); err != nil {
				return Value{}, err
			}
		case opDup:
			t, err := d.top(off)
			if err != nil {
				return Value{}, err
			}
			if err := d.push(*t); err != nil {
				return Value{}, err
			}
		case opNone:
			err = d.push(Value{Kind: KindNone})
		case opNewTrue:
			err = d.push(Value{Kind: KindBool, N: 1})
		case opNewFalse:
			err = d.push(Value{Kind: KindBool, N: 0})
		case opBinInt:
			b, err2 := r.n(4)
			if err2 != nil {
				return Value{}, err2
			}
			err = d.push(Value{Kind: KindInt, N: int64(int32(binary.LittleEndian.Uint32(b)))})
		case opBinInt1:
			b, err2 := r.byte()
			if err2 != nil {
				return Value{}, err2
			}
			err = d.push(Value{Kind: KindInt, N: int64(b)})
		case opBinInt2:
			b, err2 := r.n(2)
			if err2 != nil {
				return Value{}, err2
			}
			err = d.push(Value{Kind: KindInt, N: int64(binary.LittleEndian.Uint16(b))})
		case opLong1, opLong4:
			var n int64
			if op == opLong1 {
				b, err2 := r.byte()
				if err2 != nil {
					return Value{}, err2
				}
				n = int64(b)
			} else {
				b, err2 := r.n(4)
				if err2 != nil {
					return Value{}, err2
				}
				n = int64(int32(binary.LittleEndian.Uint32(b)))
				if n < 0 {
					return Value{}, d.fail(off, "negative LONG4 length")
				}
			}
			if n > int64(d.lim.MaxString) {
				return Value{}, d.fail(off, "integer of %d bytes is too long", n)
			}
			b, err2 := r.n(int(n))
			if err2 != nil {
				return Value{}, err2
			}
			if v := decodeLong(b); v.Kind == KindBigInt {
				err = d.pushBig(bigLongFloat(b))
			} else {
				err = d.push(v)
			}
		case opInt, opLong:
			line, err2 := r.line(64)
			if err2 != nil {
				return Value{}, err2
			}
			v, ok := parseTextInt(line)
			if !ok {
				return Value{}, d.fail(off, "bad text integer %q", truncate(line))
			}
			if v.Kind == KindBigInt {
				f, _ := strconv.ParseFloat(strings.TrimSuffix(string(line), "L"), 64)
				err = d.pushBig(f)
			} else {
				err = d.push(v)
			}
		case opFloat:
			line, err2 := r.line(64)
			if err2 != nil {
				return Value{}, err2
			}
			var f float64
			if _, e := fmt.Sscanf(string(line), "%g", &f); e != nil {
				return Value{}, d.fail(off, "bad text float %q", truncate(line))
			}
			err = d.pushFloat(f)
		case opBinFloat:
			b, err2 := r.n(8)
			if err2 != nil {
				return Value{}, err2
			}
			err = d.pushFloat(math.Float64frombits(binary.BigEndian.Uint64(b)))
		case opShortBinUni, opShortBinString, opShortBinBytes:
			n, err2 := r.byte()
			if err2 != nil {
				return Value{}, err2
			}
			err = d.pushString(op, int64(n), off)
		case opBinUnicode, opBinString, opBinBytes:
			b, err2 := r.n(4)
			if err2 != nil {
				return Value{}, err2
			}
			n := int64(binary.LittleEndian.Uint32(b))
			if op == opBinString {
				n = int64(int32(uint32(n)))
			}
			err = d.pushString(op, n, off)
		case opBinUnicode8, opBinBytes8, opByteArray8:
			b, err2 := r.n(8)
			if err2 != nil {
				return Value{}, err2
			}
			u := binary.LittleEndian.Uint64(b)
			if u > math.MaxInt32 {
				return Value{}, d.fail(off, "string of %d bytes is too long", u)
			}
			err = d.pushString(op, int64(u), off)
		case opString, opUnicode:
			line, err2 := r.line(d.lim.MaxString)
			if err2 != nil {
				return Value{}, err2
			}
			if op == opString {
				if len(line) >= 2 && (line[0] == '\'' || line[0] == '"') && line[len(line)-1] == line[0] {
					line = line[1 : len(line)-1]
				}
			}
			err = d.push(d.internStr(line))
		case opEmptyTuple:
			err = d.push(d.newCont(KindTuple, nil, nil))
		case opTuple1, opTuple2, opTuple3:
			k := int(op - opTuple1 + 1)
			items := make([]Value, k)
			for i := k - 1; i >= 0; i-- {
				v, err2 := d.pop(off)
				if err2 != nil {
					return Value{}, err2
				}
				items[i] = v
			}
			d.sealAll(items)
			err = d.push(d.newCont(KindTuple, items, nil))
		case opTuple, opFrozenSet, opList:
			items, err2 := d.popMark(off)
			if err2 != nil {
				return Value{}, err2
			}
			cp := append([]Value(nil), items...)
			d.sealAll(cp)
			k := KindTuple
			if op == opList {
				k = KindList
			}
			err = d.push(d.newCont(k, cp, nil))
		case opEmptyList, opEmptySet:
			err = d.push(d.newCont(KindList, nil, nil))
		case opEmptyDict:
			err = d.push(d.newCont(KindDict, nil, nil))
		case opDict:
			items, err2 := d.popMark(off)
			if err2 != nil {
				return Value{}, err2
			}
			if len(items)%2 != 0 {
				return Value{}, d.fail(off, "odd number of items for a dict")
			}
			d.sealAll(items)
			kvs := make([]KV, len(items)/2)
			for i := range kvs {
				kvs[i] = KV{items[2*i], items[2*i+1]}
			}
			err = d.push(d.newCont(KindDict, nil, kvs))
		case opAppend:
			v, err2 := d.pop(off)
			if err2 != nil {
				return Value{}, err2
			}
			t, err2 := d.top(off)
			if err2 != nil {
				return Value{}, err2
			}
			c, err2 := d.mutable(*t, KindList, off, "APPEND")
			if err2 != nil {
				return Value{}, err2
			}
			c.items = append(c.items, d.seal(v))
		case opAppends, opAddItems:
			items, err2 := d.popMark(off)
			if err2 != nil {
				return Value{}, err2
			}
			t, err2 := d.top(off)
			if err2 != nil {
				return Value{}, err2
			}
			c, err2 := d.mutable(*t, KindList, off, "APPENDS")
			if err2 != nil {
				return Value{}, err2
			}
			d.sealAll(items)
			c.items = append(c.items, items...)
		case opSetItem:
			v, err2 := d.pop(off)
			if err2 != nil {
				return Value{}, err2
			}
			k, err2 := d.pop(off)
			if err2 != nil {
				return Value{}, err2
			}
			t, err2 := d.top(off)
			if err2 != nil {
				return Value{}, err2
			}
			c, err2 := d.mutable(*t, KindDict, off, "SETITEM")
			if err2 != nil {
				return Value{}, err2
			}
			c.kvs = append(c.kvs, KV{d.seal(k), d.seal(v)})
		case opSetItems:
			items, err2 := d.popMark(off)
			if err2 != nil {
				return Value{}, err2
			}
			if len(items)%2 != 0 {
				return Value{}, d.fail(off, "odd number of items for SETITEMS")
			}
			t, err2 := d.top(off)
			if err2 != nil {
				return Value{}, err2
			}
			c, err2 := d.mutable(*t, KindDict, off, "SETITEMS")
			if err2 != nil {
				return Value{}, err2
			}
			d.sealAll(items)
			for i := 0; i+1 < len(items); i += 2 {
				c.kvs = append(c.kvs, KV{items[i], items[i+1]})
			}
		case opMemoize:
			err = d.memoPut(d.memo.len(), off)
		case opBinPut:
			b, err2 := r.byte()
			if err2 != nil {
				return Value{}, err2
			}
			err = d.memoPut(int64(b), off)
		case opLongBinPut:
			b, err2 := r.n(4)
			if err2 != nil {
				return Value{}, err2
			}
			err = d.memoPut(int64(binary.LittleEndian.Uint32(b)), off)
		case opPut:
			line, err2 := r.line(32)
			if err2 != nil {
				return Value{}, err2
			}
			v, ok := parseTextInt(line)
			if !ok || v.Kind != KindInt {
				return Value{}, d.fail(off, "bad PUT index")
			}
			err = d.memoPut(v.N, off)
		case opBinGet:
			b, err2 := r.byte()
			if err2 != nil {
				return Value{}, err2
			}
			err = d.memoGet(int64(b), off)
		case opLongBinGet:
			b, err2 := r.n(4)
			if err2 != nil {
				return Value{}, err2
			}
			err = d.memoGet(int64(binary.LittleEndian.Uint32(b)), off)
		case opGet:
			line, err2 := r.line(32)
			if err2 != nil {
				return Value{}, err2
			}
			v, ok := parseTextInt(line)
			if !ok || v.Kind != KindInt {
				return Value{}, d.fail(off, "bad GET index")
			}
			err = d.memoGet(v.N, off)
		case opGlobal:
			mod, err2 := r.line(256)
			if err2 != nil {
				return Value{}, err2
			}
			name, err2 := r.line(256)
			if err2 != nil {
				return Value{}, err2
			}
			err = d.global(string(mod), string(name), off)
		case opStackGlobal:
			name, err2 := d.pop(off)
			if err2 != nil {
				return Value{}, err2
			}
			mod, err2 := d.pop(off)
			if err2 != nil {
				return Value{}, err2
			}
			if mod.Kind != KindStr || name.Kind != KindStr {
				return Value{}, d.fail(off, "STACK_GLOBAL needs two strings")
			}
			err = d.global(d.Str(mod), d.Str(name), off)
		case opReduce:
			args, err2 := d.pop(off)
			if err2 != nil {
				return Value{}, err2
			}
			fn, err2 := d.pop(off)
			if err2 != nil {
				return Value{}, err2
			}
			if fn.Kind != KindBytes || !allowedGlobals[string(d.bytes[fn.N])] || args.Kind != KindTuple {
				return Value{}, d.fail(off, "pickle calls a function (REDUCE); only plain data is accepted")
			}
			items := d.Items(args)
			if len(items) == 0 {
				return Value{}, d.fail(off, "%s called without arguments", d.bytes[fn.N])
			}
			err = d.push(items[0])
		case opPersID, opBinPersID:
			return Value{}, d.fail(off, "pickle refers to persistent objects (a tensor file?), which plain data never holds")
		case opBuild, opInst, opObj, opNewObj, opNewObjEx, opExt1, opExt2, opExt4:
			return Value{}, d.fail(off, "pickle builds Python objects (opcode 0x%02x); only plain data is accepted", op)
		case opNextBuffer, opReadOnlyBuffer:
			return Value{}, d.fail(off, "pickle uses out-of-band buffers, which a file cannot carry")
		default:
			return Value{}, d.fail(off, "unknown opcode 0x%02x (not a pickle, or a corrupt one)", op)
		}
		if err != nil {
			return Value{}, err
		}
		if d.limitErr != nil {
			return Value{}, d.limitErr
		}
	}
}

// global pushes an allowed callable as a bytes marker, or fails naming it.
func (d *Decoder) global(mod, name string, off int64) error {
	full := mod + " " + name
	if !allowedGlobals[full] {
		return d.fail(off, "pickle refers to Python class %s.%s; cudadoctor reads only plain data and never executes pickled code", truncate([]byte(mod)), truncate([]byte(name)))
	}
	d.bytes = append(d.bytes, []byte(full))
	return d.push(Value{Kind: KindBytes, N: int64(len(d.bytes) - 1)})
}

func (d *Decoder) pushFloat(f float64) error {
	d.floats = append(d.floats, f)
	return d.push(Value{Kind: KindFloat, N: int64(len(d.floats) - 1)})
}

// pushBig keeps an integer beyond int64 as its nearest float64, which is all
// a consumer could do with it.
func (d *Decoder) pushBig(f float64) error {
	d.floats = append(d.floats, f)
	return d.push(Value{Kind: KindBigInt, N: int64(len(d.floats) - 1)})
}

// bigLongFloat converts a little-endian two's-complement integer of any
// length to the nearest float64.
func bigLongFloat(b []byte) float64 {
	be := make([]byte, len(b))
	for i, c := range b {
		be[len(b)-1-i] = c
	}
	n := new(big.Int).SetBytes(be)
	if len(b) > 0 && b[len(b)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

func (d *Decoder) pushString(op byte, n int64, off int64) error {
	if n < 0 || n > int64(d.lim.MaxString) {
		return d.fail(off, "string of %d bytes is too long", n)
	}
	b, err := d.r.n(int(n))
	if err != nil {
		return err
	}
	switch op {
	case opShortBinUni, opBinUnicode, opBinUnicode8, opShortBinString, opBinString:
		return d.push(d.internStr(b))
	}
	d.bytes = append(d.bytes, append([]byte(nil), b...))
	return d.push(Value{Kind: KindBytes, N: int64(len(d.bytes) - 1)})
}

// decodeLong reads a little-endian two's-complement integer.
func decodeLong(b []byte) Value {
	if len(b) == 0 {
		return Value{Kind: KindInt}
	}
	if len(b) <= 8 {
		var u uint64
		for i := len(b) - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		if b[len(b)-1]&0x80 != 0 && len(b) < 8 {
			u |= ^uint64(0) << (8 * uint(len(b)))
		}
		return Value{Kind: KindInt, N: int64(u)}
	}
	// Longer encodings may still hold a small value (sign extension).
	neg := b[len(b)-1]&0x80 != 0
	ext := byte(0)
	if neg {
		ext = 0xff
	}
	for _, c := range b[8:] {
		if c != ext {
			return Value{Kind: KindBigInt}
		}
	}
	if (b[7]&0x80 != 0) != neg {
		return Value{Kind: KindBigInt}
	}
	return decodeLong(b[:8])
}

func parseTextInt(line []byte) (Value, bool) {
	s := string(line)
	if n := len(s); n > 0 && s[n-1] == 'L' {
		s = s[:n-1]
	}
	switch s {
	case "00":
		return Value{Kind: KindBool, N: 0}, true
	case "01":
		return Value{Kind: KindBool, N: 1}, true
	}
	bi, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return Value{}, false
	}
	if !bi.IsInt64() {
		return Value{Kind: KindBigInt}, true
	}
	return Value{Kind: KindInt, N: bi.Int64()}, true
}

func truncate(b []byte) string {
	more := ""
	if len(b) > 60 {
		b, more = b[:60], "..."
	}
	// A name taken from the pickle may hold any byte: an error stays one
	// line of plain text, whatever the file says.
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r < 0x20 || r == 0x7f || r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&sb, "\\x%02x", b[0])
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String() + more
}

// memo holds one entry per memoized object, which for a snapshot means tens
// of millions. It is split by field and stored in fixed chunks, so that it
// grows without ever copying itself.
type memo struct {
	kinds [][]Kind
	ns    [][]int64
	n     int64
}

const memoChunk = 1 << 14

func (m *memo) len() int64 { return m.n }

func (m *memo) grow() {
	if m.n%memoChunk == 0 {
		m.kinds = append(m.kinds, make([]Kind, memoChunk))
		m.ns = append(m.ns, make([]int64, memoChunk))
	}
	m.n++
}

func (m *memo) set(i int64, v Value) {
	m.kinds[i/memoChunk][i%memoChunk] = v.Kind
	m.ns[i/memoChunk][i%memoChunk] = v.N
}

func (m *memo) get(i int64) Value {
	return Value{Kind: m.kinds[i/memoChunk][i%memoChunk], N: m.ns[i/memoChunk][i%memoChunk]}
}

// reader is a buffered byte source tracking its offset; n returns a view
// valid until the next call.
type reader struct {
	src  io.Reader
	buf  []byte
	pos  int
	end  int
	off  int64
	big  []byte
	eof  bool
	rerr error
}

func newReader(r io.Reader) *reader { return &reader{src: r, buf: make([]byte, 64<<10)} }

func (r *reader) fill() {
	if r.eof {
		return
	}
	if r.pos > 0 {
		copy(r.buf, r.buf[r.pos:r.end])
		r.end -= r.pos
		r.pos = 0
	}
	for r.end < len(r.buf) && !r.eof {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.eof = true
			if err != io.EOF {
				r.rerr = err
			}
		}
		if n == 0 && err == nil {
			continue
		}
		break
	}
}

func (r *reader) err() error {
	if r.rerr != nil {
		return r.rerr
	}
	return io.ErrUnexpectedEOF
}

func (r *reader) byte() (byte, error) {
	if r.pos >= r.end {
		r.fill()
		if r.pos >= r.end {
			if r.off == 0 {
				return 0, io.EOF
			}
			return 0, r.err()
		}
	}
	b := r.buf[r.pos]
	r.pos++
	r.off++
	return b, nil
}

func (r *reader) n(n int) ([]byte, error) {
	if n <= len(r.buf) {
		for r.end-r.pos < n {
			before := r.end - r.pos
			r.fill()
			if r.end-r.pos == before {
				return nil, r.err()
			}
		}
		b := r.buf[r.pos : r.pos+n]
		r.pos += n
		r.off += int64(n)
		return b, nil
	}
	// Large values are read in steps so that a lying length in a truncated
	// file fails before allocating it all.
	r.big = r.big[:0]
	for len(r.big) < n {
		if r.pos >= r.end {
			r.fill()
			if r.pos >= r.end {
				return nil, r.err()
			}
		}
		k := min(n-len(r.big), r.end-r.pos)
		r.big = append(r.big, r.buf[r.pos:r.pos+k]...)
		r.pos += k
		r.off += int64(k)
	}
	return r.big, nil
}

// line reads up to a newline (excluded), failing beyond max bytes.
func (r *reader) line(max int) ([]byte, error) {
	var out []byte
	for {
		b, err := r.byte()
		if err != nil {
			if err == io.EOF {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if b == '\n' {
			return out, nil
		}
		if len(out) >= max {
			return nil, &Error{Offset: r.off, Msg: "text opcode argument too long"}
		}
		out = append(out, b)
	}
}
