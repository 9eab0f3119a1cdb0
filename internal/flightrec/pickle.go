package flightrec

import (
	"bytes"

	"github.com/cudadoctor/cudadoctor/internal/pickle"
)

// The decoder's budgets for a dump. Converting a value shared by memo
// reference is done once, but each entry copies its frames and sizes, so a
// few bytes naming one long list from every entry would cost entries x list:
// the copies are charged too, at most workPerByte units per byte plus a base
// (real dumps use under 0.1 per byte).
const (
	workPerByte = 8
	baseWork    = 1 << 20
	// maxDepth bounds nesting: real dumps nest five levels deep.
	maxDepth = 32
	// maxContainers bounds the lists, tuples and dicts a dump may hold: a
	// ring of a million entries with their sizes and stacks stays below it.
	maxContainers = 1 << 25
)

// decodePickle turns a Flight Recorder pickle into plain values:
// map[string]any, []any, string, int64, float64, bool and nil, with the
// entries, by far the bulk of it, as []Entry.
func decodePickle(data []byte) (any, error) {
	d := pickle.NewDecoder(bytes.NewReader(data), nil, pickle.Limits{
		WorkPerByte: workPerByte, BaseWork: baseWork, MaxContainers: maxContainers,
	})
	root, err := d.Decode()
	if err != nil {
		return nil, err
	}
	p := pickle.NewPlain(d, maxDepth)
	if root.Kind != pickle.KindDict {
		return p.Value(root, 0)
	}
	kvs := d.Entries(root)
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		k := d.Str(kv.Key)
		if kv.Key.Kind != pickle.KindStr {
			continue
		}
		if k != "entries" || kv.Val.Kind != pickle.KindList {
			v, err := p.Value(kv.Val, 1)
			if err != nil {
				return nil, err
			}
			m[k] = v
			continue
		}
		entries, err := decodeEntries(d, p, kv.Val)
		if err != nil {
			return nil, err
		}
		m[k] = entries
	}
	return m, nil
}

// decodeEntries reads each entry dict field by field into an Entry, without
// a map per entry.
func decodeEntries(d *pickle.Decoder, p *pickle.Plain, list pickle.Value) ([]Entry, error) {
	items := d.Items(list)
	entries := make([]Entry, 0, len(items))
	frames := map[*any][]Frame{}
	for _, item := range items {
		if item.Kind != pickle.KindDict {
			if _, err := p.Value(item, 2); err != nil {
				return nil, err
			}
			continue
		}
		b := newEntryBuilder()
		b.frames = frames
		for _, f := range d.Entries(item) {
			if f.Key.Kind != pickle.KindStr {
				continue
			}
			v, err := p.Value(f.Val, 3)
			if err != nil {
				return nil, err
			}
			if err := d.Charge(copyCost(v)); err != nil {
				return nil, err
			}
			b.set(d.Str(f.Key), v)
		}
		entries = append(entries, b.done())
	}
	return entries, nil
}

// copyCost is what entryBuilder.set spends on a field: one unit per value
// and per element of a list or of its lists (frames, sizes, dtypes).
func copyCost(v any) int {
	l, ok := v.([]any)
	if !ok {
		return 1
	}
	n := 1 + len(l)
	for _, e := range l {
		if inner, ok := e.([]any); ok {
			n += len(inner)
		}
	}
	return n
}
