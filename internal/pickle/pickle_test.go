package pickle

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/pickle/pickletest"
)

// toPlain converts a decoded value into the shape testdata/*.json uses
// (written by Python from the same objects).
func toPlain(d *Decoder, v Value) any {
	switch v.Kind {
	case KindNone, KindBigInt:
		return nil
	case KindBool:
		return v.N != 0
	case KindInt:
		return json.Number(strconv.FormatInt(v.N, 10))
	case KindFloat:
		f, _ := d.Float(v)
		return map[string]any{"float": f}
	case KindStr:
		return d.Str(v)
	case KindBytes:
		return map[string]any{"bytes": hex.EncodeToString(d.Bytes(v))}
	case KindList, KindTuple:
		out := []any{}
		for _, it := range d.Items(v) {
			out = append(out, toPlain(d, it))
		}
		return out
	case KindDict:
		out := []any{}
		for _, kv := range d.Entries(v) {
			out = append(out, []any{toPlain(d, kv.Key), toPlain(d, kv.Val)})
		}
		return map[string]any{"dict": out}
	}
	return "?" + v.Kind.String()
}

func loadExpected(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return floatsToFloat64(v)
}

func floatsToFloat64(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["float"].(json.Number); ok && len(x) == 1 {
			f, _ := n.Float64()
			return map[string]any{"float": f}
		}
		for k, e := range x {
			x[k] = floatsToFloat64(e)
		}
	case []any:
		for i, e := range x {
			x[i] = floatsToFloat64(e)
		}
	}
	return v
}

func TestDecodeMatchesPython(t *testing.T) {
	want := loadExpected(t, "testdata/sample.json")
	for _, p := range []int{2, 3, 4, 5} {
		name := "testdata/sample_p" + strconv.Itoa(p) + ".pickle"
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d := NewDecoder(f, nil, Limits{})
			v, err := d.Decode()
			if err != nil {
				t.Fatal(err)
			}
			if d.Protocol() != p {
				t.Errorf("protocol %d, want %d", d.Protocol(), p)
			}
			if diff := cmp.Diff(want, toPlain(d, v)); diff != "" {
				t.Errorf("decoded value differs from Python's (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("extra_p5", func(t *testing.T) {
		b, _ := os.ReadFile("testdata/extra_p5.pickle")
		d := NewDecoder(bytes.NewReader(b), nil, Limits{})
		v, err := d.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(loadExpected(t, "testdata/extra.json"), toPlain(d, v)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestDecodeErrors(t *testing.T) {
	sample, err := os.ReadFile("testdata/sample_p4.pickle")
	if err != nil {
		t.Fatal(err)
	}
	global, err := os.ReadFile("testdata/global.pickle")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, input, want string
	}{
		{"empty", "", "empty input"},
		{"text", "\x00hello world\n", "unknown opcode"},
		{"truncated", string(sample[:len(sample)/2]), "truncated"},
		{"truncated in a string", string(sample[:40]), "truncated"},
		{"class", string(global), "refers to Python class collections.OrderedDict"},
		// STACK_GLOBAL takes its names from strings, which may hold a
		// line break (found by FuzzDecode): the error names it escaped.
		{"class with a line break", "\x80\x04\x8c\x03a\nb\x8c\x01x\x93.", `Python class a\x0ab.x;`},
		{"reduce", "\x80\x02N)R.", "REDUCE"},
		{"build", "\x80\x02}b.", "builds Python objects"},
		{"persistent id", "\x80\x02X\x01\x00\x00\x00aQ.", "persistent"},
		{"future protocol", "\x80\x09N.", "protocol 9"},
		{"underflow", "\x80\x04a.", "stack underflow"},
		{"stop on empty", "\x80\x04.", "stack underflow"},
		{"bad memo", "\x80\x04h\x05.", "never stored"},
		{"far memo", "\x80\x04Nr\xff\xff\xff\x7f.", "out of range"},
		{"append to dict", "\x80\x04}Na.", "APPEND on a dict"},
		{"setitem on list", "\x80\x04]NNs.", "SETITEM on a list"},
		{"odd setitems", "\x80\x04}(Nu.", "odd number"},
		{"no mark", "\x80\x04]e.", "no mark"},
		{"huge string", "\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f", "too long"},
		{"lying length", "\x80\x04X\xff\xff\xff\x0fabc", "truncated"},
		{"buffer", "\x80\x05\x97.", "out-of-band"},
		{"no stop", "\x80\x04N", "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tt.input), nil, Limits{})
			_, err := d.Decode()
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *pickle.Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestAllowedBuilderReturnsItsList(t *testing.T) {
	// GLOBAL torch.jit._pickle build_intlist, then REDUCE on ([1, 2],)
	in := "\x80\x02ctorch.jit._pickle\nbuild_intlist\n]K\x01K\x02\x86\x85R."
	in = strings.Replace(in, "]K\x01K\x02\x86\x85", "(K\x01K\x02l\x85", 1)
	d := NewDecoder(strings.NewReader(in), nil, Limits{})
	v, err := d.Decode()
	if err != nil {
		t.Fatal(err)
	}
	got := toPlain(d, v)
	want := []any{json.Number("1"), json.Number("2")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// countingSealer turns every {"k": int} dict into a sealed value.
type countingSealer struct{ sealed, lists int }

func (s *countingSealer) SealDict(d *Decoder, kvs []KV) (Value, bool) {
	if len(kvs) == 1 && d.Str(kvs[0].Key) == "k" {
		s.sealed++
		return Value{Kind: KindSealed, N: kvs[0].Val.N}, true
	}
	return Value{}, false
}

func (s *countingSealer) SealList(d *Decoder, items []Value) (Value, bool) {
	if len(items) > 0 && items[0].Kind == KindSealed {
		s.lists++
		return Value{Kind: KindSealed, N: -int64(len(items))}, true
	}
	return Value{}, false
}

func TestSealerReplacesFinishedContainers(t *testing.T) {
	f, err := os.Open("testdata/sample_p4.pickle")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := &countingSealer{}
	d := NewDecoder(f, s, Limits{})
	v, err := d.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if s.sealed != 1200 || s.lists != 1 {
		t.Errorf("sealed %d dicts and %d lists, want 1200 and 1", s.sealed, s.lists)
	}
	big, ok := d.Get(v, "big")
	if !ok || big.Kind != KindSealed || big.N != -1200 {
		t.Errorf("big = %+v, want the sealed list", big)
	}
	// Recycled slots must not leak into later containers.
	if live := len(d.conts) - len(d.free); live > 40 {
		t.Errorf("%d live containers after sealing, want few", live)
	}
}

// FuzzDecode is the one fuzz target of the decoder: its corpus holds the
// sample pickles (written by Python), real Flight Recorder dumps, and
// hostile shapes (a list inside itself, memo-shared nests, one long list
// named from everywhere; kept small, as the fuzzer mutates better small
// inputs). Each input is read both ways consumers read it:
// through a Sealer walk, and converted whole by Plain under a work budget.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"sample_p2", "sample_p4", "extra_p5", "global"} {
		b, err := os.ReadFile("testdata/" + name + ".pickle")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, path := range []string{
		"../../testdata/gpu/artifacts/n1_flight_recorder_rank_0.pickle",
		"../../testdata/gpu/dist/n8_group_desync/fr_rank_1",
	} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	for _, b := range hostileSeeds() {
		f.Add(b)
	}
	f.Add([]byte("\x80\x04}(Nu."))
	f.Add([]byte("\x80\x02ctorch.jit._pickle\nbuild_intlist\n(K\x01l\x85R."))
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := Limits{MaxString: 1 << 16, MaxStack: 1 << 12, WorkPerByte: 8, BaseWork: 1 << 16}
		d := NewDecoder(bytes.NewReader(b), &countingSealer{}, lim)
		v, err := d.Decode()
		if err != nil {
			checkErr(t, err)
			return
		}
		budget := 10000
		walkBounded(d, v, &budget)

		d = NewDecoder(bytes.NewReader(b), nil, lim)
		if v, err = d.Decode(); err != nil {
			checkErr(t, err)
			return
		}
		if _, err := NewPlain(d, 32).Value(v, 0); err != nil {
			checkErr(t, err)
		}
	})
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	var pe *Error
	var le *LimitError
	if !errors.As(err, &pe) && !errors.As(err, &le) {
		t.Fatalf("error %v is neither a *pickle.Error nor a *pickle.LimitError", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error spans lines: %q", err)
	}
}

// hostileSeeds are the shapes that made earlier readers crash or grow
// without bound: L = [L]; x = [x]*10 nine levels deep (297 bytes standing
// for 10^9 values); one 2,000-item list named 2,000 times.
func hostileSeeds() [][]byte {
	var out [][]byte
	var buf bytes.Buffer
	p := pickletest.NewWriter(&buf, 4)
	p.Op(']')
	p.Memoize()
	p.Get(p.N - 1)
	p.Op('a')
	p.Finish()
	out = append(out, bytes.Clone(buf.Bytes()))

	buf.Reset()
	p = pickletest.NewWriter(&buf, 4)
	p.Op(']')
	p.Memoize()
	p.Int(1)
	p.Op('a')
	for range 9 {
		prev := p.N - 1
		p.Op('0', ']')
		p.Memoize()
		p.Op('(')
		for range 10 {
			p.Get(prev)
		}
		p.Op('e')
	}
	p.Finish()
	out = append(out, bytes.Clone(buf.Bytes()))

	buf.Reset()
	p = pickletest.NewWriter(&buf, 2)
	p.List(2000, func(i int) {
		if i == 0 {
			p.List(2000, func(j int) { p.Int(int64(j)) })
			return
		}
		p.Get(1)
	})
	p.Finish()
	out = append(out, bytes.Clone(buf.Bytes()))
	return out
}

// walkBounded visits at most budget values, whatever the input's sharing.
func walkBounded(d *Decoder, v Value, budget *int) {
	if *budget <= 0 {
		return
	}
	*budget--
	d.Str(v)
	d.Float(v)
	for _, it := range d.Items(v) {
		walkBounded(d, it, budget)
	}
	for _, kv := range d.Entries(v) {
		walkBounded(d, kv.Key, budget)
		walkBounded(d, kv.Val, budget)
	}
}

func TestLimits(t *testing.T) {
	// 200 empty lists left on the stack: each is a live container.
	lists := append([]byte("\x80\x04("), append(bytes.Repeat([]byte("]"), 200), "l."...)...)
	d := NewDecoder(bytes.NewReader(lists), nil, Limits{MaxContainers: 100})
	_, err := d.Decode()
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "object count" || !strings.Contains(err.Error(), "object count limit") {
		t.Errorf("containers: got %v, want the object count limit", err)
	}
	if _, err := NewDecoder(bytes.NewReader(lists), nil, Limits{}).Decode(); err != nil {
		t.Errorf("default limits: %v", err)
	}

	// Work charged by a consumer counts against the bytes read so far.
	d = NewDecoder(bytes.NewReader([]byte("\x80\x04N.")), nil, Limits{WorkPerByte: 2, BaseWork: 10})
	if _, err := d.Decode(); err != nil {
		t.Fatal(err)
	}
	if err := d.Charge(10 + 2*4); err != nil {
		t.Errorf("within budget: %v", err)
	}
	if err := d.Charge(1); !errors.As(err, &le) || le.Limit != "work" {
		t.Errorf("over budget: got %v, want the work limit", err)
	}
}

func TestSharedHandlesSeeSealedValue(t *testing.T) {
	// [L, L] where L=[1] is memoized and referenced in the same APPENDS
	// batch: the second handle must reach what the sealer made of L.
	data := []byte("\x80\x04]\x94(]\x94K\x01ah\x01e.")
	d := NewDecoder(bytes.NewReader(data), intListSealer{}, Limits{})
	v, err := d.Decode()
	if err != nil {
		t.Fatal(err)
	}
	items := d.Items(v)
	if len(items) != 2 || items[0] != items[1] || items[0].Kind != KindSealed {
		t.Errorf("items %v, want the same sealed value twice", items)
	}
}

// intListSealer seals lists of integers.
type intListSealer struct{}

func (intListSealer) SealDict(*Decoder, []KV) (Value, bool) { return Value{}, false }
func (intListSealer) SealList(_ *Decoder, items []Value) (Value, bool) {
	if len(items) == 0 || items[0].Kind != KindInt {
		return Value{}, false
	}
	return Value{Kind: KindSealed, N: int64(len(items))}, true
}

func TestPlainBudgets(t *testing.T) {
	seeds := hostileSeeds()
	plain := func(b []byte, lim Limits) (any, error) {
		d := NewDecoder(bytes.NewReader(b), nil, lim)
		v, err := d.Decode()
		if err != nil {
			return nil, err
		}
		return NewPlain(d, 32).Value(v, 0)
	}
	var le *LimitError
	if _, err := plain(seeds[0], Limits{}); !errors.As(err, &le) || le.Limit != "self-reference" {
		t.Errorf("L = [L]: got %v, want the self-reference limit", err)
	}
	// The nest converts each level once: ten references to the level
	// below share its one Go value, so the work stays small.
	v, err := plain(seeds[1], Limits{WorkPerByte: 1, BaseWork: 1000})
	if err != nil {
		t.Fatalf("memo-shared nest: %v", err)
	}
	top := v.([]any)
	if len(top) != 10 || &top[0].([]any)[0] != &top[9].([]any)[0] {
		t.Errorf("shared levels were copied: %v", top[:1])
	}
	// Depth: 40 nested lists.
	deep := append([]byte("\x80\x04"), bytes.Repeat([]byte("]"), 40)...)
	deep = append(deep, bytes.Repeat([]byte("a"), 39)...)
	deep = append(deep, '.')
	if _, err := plain(deep, Limits{}); !errors.As(err, &le) || le.Limit != "depth" {
		t.Errorf("40 levels: got %v, want the depth limit", err)
	}
	// 2,000 references to one 2,000-item list convert it once: within
	// one unit of work per byte.
	if _, err := plain(seeds[2], Limits{WorkPerByte: 1, BaseWork: 10}); err != nil {
		t.Errorf("shared long list: %v", err)
	}
	// Every value converted is charged: 31 values (a list of 30 Nones,
	// 35 bytes) on top of 10 units a consumer spent exceed 1 + 1 per byte.
	nones := append(append([]byte("\x80\x04("), bytes.Repeat([]byte("N"), 30)...), 'l', '.')
	d := NewDecoder(bytes.NewReader(nones), nil, Limits{BaseWork: 1, WorkPerByte: 1})
	nv, err := d.Decode()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Charge(10); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPlain(d, 32).Value(nv, 0); !errors.As(err, &le) || le.Limit != "work" {
		t.Errorf("31 values over a budget of 36 less 10: got %v, want the work limit", err)
	}
}
