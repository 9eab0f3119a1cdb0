package pickle

import (
	"fmt"
	"math"
	"strconv"
)

// Plain turns decoded values into ordinary Go values (map[string]any, []any,
// string, int64, float64, bool, []byte and nil) for consumers small enough
// not to need a Sealer, such as Flight Recorder dumps.
//
// A container shared by memo references is converted once and every
// reference gets the same Go value, so sharing costs nothing twice; each
// value converted is charged to the decoder's work budget (Decoder.Charge).
// Nesting deeper than MaxDepth, and a container inside itself, are
// *LimitErrors ("depth", "self-reference"): the result is a tree.
type Plain struct {
	d        *Decoder
	maxDepth int
	done     map[Value]any
	open     map[Value]bool
}

// NewPlain returns a converter for values of d, refusing to nest deeper
// than maxDepth.
func NewPlain(d *Decoder, maxDepth int) *Plain {
	return &Plain{d: d, maxDepth: maxDepth, done: map[Value]any{}, open: map[Value]bool{}}
}

// Value converts v, found depth levels below the root. Dict keys that are
// integers become their decimal string; other non-string keys are dropped.
func (p *Plain) Value(v Value, depth int) (any, error) {
	d := p.d
	if err := d.Charge(1); err != nil {
		return nil, err
	}
	switch v.Kind {
	case KindNone:
		return nil, nil
	case KindBool:
		return v.N != 0, nil
	case KindInt:
		return v.N, nil
	case KindFloat:
		return d.floats[v.N], nil
	case KindBigInt:
		f := d.floats[v.N]
		if math.IsInf(f, 0) {
			return nil, d.fail(d.r.off, "integer too large for a float")
		}
		return f, nil
	case KindStr:
		return d.strs[v.N], nil
	case KindBytes:
		return d.bytes[v.N], nil
	case KindList, KindTuple, KindDict:
	default:
		return nil, d.fail(d.r.off, "cannot convert a %s to plain data", v.Kind)
	}
	if out, ok := p.done[v]; ok {
		return out, nil
	}
	if p.open[v] {
		return nil, &LimitError{Limit: "self-reference", Offset: d.r.off,
			Msg: fmt.Sprintf("a %s contains itself", v.Kind)}
	}
	if depth > p.maxDepth {
		return nil, &LimitError{Limit: "depth", Offset: d.r.off,
			Msg: fmt.Sprintf("values nest more than %d levels deep", p.maxDepth)}
	}
	p.open[v] = true
	defer delete(p.open, v)
	var out any
	if v.Kind == KindDict {
		kvs := d.Entries(v)
		m := make(map[string]any, len(kvs))
		for _, kv := range kvs {
			var k string
			switch kv.Key.Kind {
			case KindStr:
				k = d.strs[kv.Key.N]
			case KindInt:
				k = strconv.FormatInt(kv.Key.N, 10)
			default:
				continue
			}
			pv, err := p.Value(kv.Val, depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = pv
		}
		out = m
	} else {
		items := d.Items(v)
		s := make([]any, len(items))
		for i, it := range items {
			pv, err := p.Value(it, depth+1)
			if err != nil {
				return nil, err
			}
			s[i] = pv
		}
		out = s
	}
	p.done[v] = out
	return out, nil
}
