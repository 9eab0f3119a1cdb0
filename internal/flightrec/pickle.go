package flightrec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// The one class a Flight Recorder pickle may name: torch's jit Pickler
// writes typed int lists as build_intlist(list). Anything else is refused,
// because unpickling arbitrary classes is how pickles run code.
const (
	intListModule = "torch.jit._pickle"
	intListName   = "build_intlist"
)

// Work allowed per byte of pickle, plus a base: converting a value shared by
// memo reference is cached, but each entry copies its frames and sizes, so a
// few bytes naming one long list from every entry would cost entries x list.
const (
	workPerByte = 8
	baseWork    = 1 << 20
)

// maxDepth bounds nesting when turning decoded values into plain Go values:
// real dumps nest five levels deep; a self-referencing list would nest forever.
const maxDepth = 32

// Pickle opcodes, by argument layout.
const (
	opProto          = 0x80
	opFrame          = 0x95
	opGlobal         = 'c'
	opShortBinString = 'U'
	opBinString      = 'T'
	opBinUnicode     = 'X'
	opShortBinBytes  = 'C'
	opBinBytes       = 'B'
	opShortBinUni    = 0x8c
	opBinUnicode8    = 0x8d
	opBinBytes8      = 0x8e
	opByteArray8     = 0x96
	opLong1          = 0x8a
	opLong4          = 0x8b
	opStop           = '.'
)

// fixedArg is the argument size of opcodes with a fixed-size argument
// (0 for none); opcodes absent from both tables are refused.
var fixedArg = map[byte]int{
	'(': 0, '.': 0, '0': 0, '1': 0, '2': 0, 'N': 0, 'R': 0, 'a': 0, 'd': 0, '}': 0,
	'e': 0, 'l': 0, ']': 0, 's': 0, 't': 0, ')': 0, 'u': 0, 0x85: 0, 0x86: 0, 0x87: 0,
	0x88: 0, 0x89: 0, 0x8f: 0, 0x90: 0, 0x91: 0, 0x94: 0,
	'J': 4, 'K': 1, 'M': 2, 'h': 1, 'j': 4, 'q': 1, 'r': 4, 'G': 8, opProto: 1, opFrame: 8,
}

// lineArg opcodes take newline-terminated text arguments (GLOBAL takes two).
var lineArg = map[byte]int{'F': 1, 'I': 1, 'L': 1, 'S': 1, 'V': 1, 'g': 1, 'p': 1, opGlobal: 2}

// counted opcodes carry a little-endian length of the given width, then that many bytes.
var counted = map[byte]int{
	opShortBinString: 1, opBinString: 4, opBinUnicode: 4, opShortBinBytes: 1, opBinBytes: 4,
	opShortBinUni: 1, opBinUnicode8: 8, opBinBytes8: 8, opByteArray8: 8, opLong1: 1, opLong4: 4,
}

// refused names the opcodes that load classes, call constructors or reach
// outside the stream, with why they have no place in a dump.
var refused = map[byte]string{
	'P': "a persistent id", 'Q': "a persistent id", 0x82: "an extension code", 0x83: "an extension code",
	0x84: "an extension code", 'i': "a class instance", 'o': "a class instance", 0x81: "a class instance",
	0x92: "a class instance", 0x93: "a class reference", 'b': "object state", 0x97: "an out-of-band buffer",
	0x98: "an out-of-band buffer",
}

// opKind classifies every opcode once, so the scan is a table lookup.
type opKind struct {
	class  byte // 0 unknown, 'f' fixed, 'l' lines, 'c' counted, 'r' refused
	n      int  // fixed size, line count, or width of the count
	reason string
}

var opTable = func() (t [256]opKind) {
	for op, n := range fixedArg {
		t[op] = opKind{class: 'f', n: n}
	}
	for op, n := range lineArg {
		t[op] = opKind{class: 'l', n: n}
	}
	for op, n := range counted {
		t[op] = opKind{class: 'c', n: n}
	}
	for op, why := range refused {
		t[op] = opKind{class: 'r', reason: why}
	}
	return t
}()

// scanPickle walks the opcode stream without building anything: it checks
// that every length fits in the data (so no allocation can exceed the input),
// that each opcode is known, and that the only class named is the jit int
// list builder. It returns the protocol.
func scanPickle(data []byte) (int, error) {
	proto := 0
	i := 0
	for i < len(data) {
		op := data[i]
		at := i
		i++
		k := &opTable[op]
		switch k.class {
		case 'r':
			return 0, fmt.Errorf("the pickle holds %s (opcode 0x%02x at byte %d); a Flight Recorder dump never does, and cudadoctor does not load objects", k.reason, op, at)
		case 'f':
			n := k.n
			if n > len(data)-i {
				return 0, errTruncated(at)
			}
			if op == opProto {
				proto = int(data[i])
				if proto > 5 {
					return 0, fmt.Errorf("unsupported pickle protocol %d", proto)
				}
			}
			if op == opFrame {
				// A frame only announces the size of what follows; its
				// opcodes are scanned in line.
				if binary.LittleEndian.Uint64(data[i:i+8]) > uint64(len(data)-i-8) {
					return 0, errTruncated(at)
				}
			}
			i += n
			if op == opStop {
				return proto, nil
			}
			continue
		case 'l':
			start := i
			for l := 0; l < k.n; l++ {
				j := bytes.IndexByte(data[i:], '\n')
				if j < 0 {
					return 0, errTruncated(at)
				}
				i += j + 1
			}
			if op == opGlobal {
				name := string(data[start : i-1])
				if name != intListModule+"\n"+intListName {
					return 0, fmt.Errorf("the pickle names class %q; only %s.%s belongs in a Flight Recorder dump, and cudadoctor loads nothing else",
						strings.ReplaceAll(name, "\n", "."), intListModule, intListName)
				}
			}
			continue
		case 'c':
			width := k.n
			if width > len(data)-i {
				return 0, errTruncated(at)
			}
			var n uint64
			switch width {
			case 1:
				n = uint64(data[i])
			case 4:
				n = uint64(binary.LittleEndian.Uint32(data[i:]))
			case 8:
				n = binary.LittleEndian.Uint64(data[i:])
			}
			i += width
			if n > uint64(len(data)-i) {
				return 0, errTruncated(at)
			}
			if (op == opLong1 || op == opLong4) && n == 0 {
				// Zero-length longs mean 0, but the decoder cannot read them.
				return 0, fmt.Errorf("unsupported empty long integer at byte %d", at)
			}
			i += int(n)
			continue
		}
		return 0, fmt.Errorf("unknown pickle opcode 0x%02x at byte %d", op, at)
	}
	return 0, errors.New("the pickle ends without its STOP opcode (truncated file?)")
}

func errTruncated(at int) error {
	return fmt.Errorf("the pickle is truncated (opcode at byte %d runs past the end)", at)
}

// intList is build_intlist: it returns its one list argument unchanged.
type intList struct{}

func (intList) Call(args ...interface{}) (interface{}, error) {
	if len(args) == 1 {
		if l, ok := args[0].(*types.List); ok {
			return l, nil
		}
	}
	return nil, errors.New("build_intlist expects one list")
}

// decodePickle turns a checked pickle into plain values: map[string]any,
// []any, string, int64, float64, bool and nil.
func decodePickle(data []byte) (v any, err error) {
	if _, err := scanPickle(data); err != nil {
		return nil, err
	}
	defer func() {
		// The decoder indexes its stacks without checks on some malformed
		// streams; a bad file must be an error, never a crash.
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("malformed pickle: %v", r)
		}
	}()
	u := pickle.NewUnpickler(bytes.NewReader(data))
	u.FindClass = func(module, name string) (interface{}, error) {
		if module == intListModule && name == intListName {
			return intList{}, nil
		}
		return nil, fmt.Errorf("refusing to load class %s.%s", module, name)
	}
	raw, err := u.Load()
	if err != nil {
		return nil, fmt.Errorf("malformed pickle: %w", err)
	}
	return plainDump(raw, len(data))
}

// plainDump converts a decoded dump; its entries, by far the bulk of it,
// become Entry values directly instead of one map each.
func plainDump(raw interface{}, size int) (any, error) {
	c := newConverter()
	budget := int64(baseWork) + workPerByte*int64(size)
	root, ok := raw.(*types.Dict)
	if !ok {
		return c.value(raw, 0)
	}
	m := make(map[string]any, root.Len())
	for _, kv := range *root {
		k, ok := kv.Key.(string)
		if !ok {
			continue
		}
		list, isList := kv.Value.(*types.List)
		if k != "entries" || !isList {
			v, err := c.value(kv.Value, 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
			continue
		}
		entries := make([]Entry, 0, list.Len())
		frames := map[*any][]Frame{}
		for _, item := range *list {
			ed, ok := item.(*types.Dict)
			if !ok {
				if _, err := c.value(item, 2); err != nil {
					return nil, err
				}
				continue
			}
			b := newEntryBuilder()
			b.frames = frames
			for _, f := range *ed {
				fk, ok := f.Key.(string)
				if !ok {
					continue
				}
				v, err := c.value(f.Value, 3)
				if err != nil {
					return nil, err
				}
				if budget -= copyCost(v); budget < 0 {
					return nil, fmt.Errorf("the pickle refers to shared values so often that reading it would take more than %d steps per byte of input (work limit)", workPerByte)
				}
				b.set(fk, v)
			}
			entries = append(entries, b.done())
		}
		m[k] = entries
	}
	return m, nil
}

// copyCost is what entryBuilder.set spends on a field: one unit per value
// and per element of a list or of its lists (frames, sizes, dtypes).
func copyCost(v any) int64 {
	l, ok := v.([]any)
	if !ok {
		return 1
	}
	n := int64(1 + len(l))
	for _, e := range l {
		if inner, ok := e.([]any); ok {
			n += int64(len(inner))
		}
	}
	return n
}

// converter turns the decoder's values into plain ones. It converts each
// shared dict or list once (dumps memoize frames and strings heavily), which
// also keeps a pickle of lists referencing lists from growing exponentially.
type converter struct {
	dicts  map[*types.Dict]map[string]any
	lists  map[*types.List][]any
	tuples map[*types.Tuple][]any
}

// newConverter returns a converter that refuses anything a dump cannot hold.
func newConverter() *converter {
	return &converter{dicts: map[*types.Dict]map[string]any{}, lists: map[*types.List][]any{}, tuples: map[*types.Tuple][]any{}}
}

func (c *converter) value(v interface{}, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("the pickle nests too deeply (self-referencing data?)")
	}
	switch x := v.(type) {
	case nil, string, bool, float64:
		return x, nil
	case int:
		return int64(x), nil
	case *big.Int:
		if x.IsInt64() {
			return x.Int64(), nil
		}
		// Out of range for any field we read: keep it as a float so the
		// value survives without overflowing.
		f, _ := new(big.Float).SetInt(x).Float64()
		if math.IsInf(f, 0) {
			return nil, errors.New("integer too large")
		}
		return f, nil
	case *types.Dict:
		if done, ok := c.dicts[x]; ok {
			return done, nil
		}
		m := make(map[string]any, x.Len())
		for _, e := range *x {
			k, ok := e.Key.(string)
			if !ok {
				if n, isInt := e.Key.(int); isInt {
					k = fmt.Sprint(n)
				} else {
					continue
				}
			}
			pv, err := c.value(e.Value, depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = pv
		}
		c.dicts[x] = m
		return m, nil
	case *types.List:
		if done, ok := c.lists[x]; ok {
			return done, nil
		}
		out, err := c.slice(*x, depth)
		if err != nil {
			return nil, err
		}
		c.lists[x] = out
		return out, nil
	case *types.Tuple:
		if done, ok := c.tuples[x]; ok {
			return done, nil
		}
		out, err := c.slice(*x, depth)
		if err != nil {
			return nil, err
		}
		c.tuples[x] = out
		return out, nil
	}
	return nil, fmt.Errorf("the pickle holds a %T, which a Flight Recorder dump never does", v)
}

func (c *converter) slice(xs []interface{}, depth int) ([]any, error) {
	out := make([]any, len(xs))
	for i, e := range xs {
		pv, err := c.value(e, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = pv
	}
	return out, nil
}
