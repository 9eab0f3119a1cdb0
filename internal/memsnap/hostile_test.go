package memsnap

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/pickle"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// hostileShape describes a snapshot whose few bytes stand for far more data
// through memo references, or which contains itself.
type hostileShape struct {
	// SelfRef puts L = [L] in allocator_settings.
	SelfRef bool
	// NestDepth levels of x = [x]*NestFanout in allocator_settings.
	NestDepth, NestFanout int
	// TraceRefs references to one TraceLen-entry trace list in device_traces.
	TraceLen, TraceRefs int
	// SegmentRefs segments, each on its own device, sharing one
	// BlockLen-block list.
	BlockLen, SegmentRefs int
}

// writeHostile writes the shape the way Python's pickler writes shared
// objects: once, memoized, then BINGET/LONG_BINGET for every reference.
func writeHostile(o hostileShape) []byte {
	var buf bytes.Buffer
	p := newPickleWriter(&buf)
	entry := func(i int) {
		p.Value(ordered{{"action", "alloc"}, {"addr", int64(i) * 512}, {"size", 512}, {"stream", 0}, {"time_us", int64(i)}})
	}
	block := func(i int) {
		p.Value(ordered{{"address", int64(i) * 512}, {"size", 512}, {"requested_size", 512}, {"state", "active_allocated"}})
	}
	// shared writes a list of refs references to one list of n items.
	shared := func(refs, n int, item func(int), wrap func(ref func())) {
		p.Op(']')
		p.Memoize()
		if refs == 0 {
			return
		}
		p.Op('(')
		id := -1
		wrap(func() { id = p.N; p.List(n, item) })
		for i := 1; i < refs; i++ {
			if i%1000 == 0 { // batched as Python's pickler does
				p.Op('e', '(')
			}
			wrap(func() { p.Get(id) })
		}
		p.Op('e')
	}
	p.Dict(func() {
		p.Str("segments")
		shared(o.SegmentRefs, o.BlockLen, block, func(blocks func()) {
			p.Dict(func() {
				p.Str("device")
				p.Int(int64(p.N)) // a distinct device for every segment
				p.Str("total_size")
				p.Int(int64(o.BlockLen) * 512)
				p.Str("blocks")
				blocks()
			})
		})
		p.Str("device_traces")
		shared(o.TraceRefs, o.TraceLen, entry, func(trace func()) { trace() })
		p.Str("allocator_settings")
		p.Dict(func() {
			if o.SelfRef {
				p.Str("self")
				p.Op(']')
				p.Memoize()
				p.Get(p.N - 1)
				p.Op('a')
			}
			if o.NestDepth > 0 {
				p.Str("nest")
				p.Op(']')
				p.Memoize()
				p.Int(1)
				p.Op('a')
				for range o.NestDepth {
					prev := p.N - 1
					p.Op('0') // the previous level is reached through the memo only
					p.Op(']')
					p.Memoize()
					p.Op('(')
					for range max(o.NestFanout, 1) {
						p.Get(prev)
					}
					p.Op('e')
				}
			}
		})
	})
	p.Finish()
	return buf.Bytes()
}

func TestSelfReferencingSetting(t *testing.T) {
	s, err := Decode(bytes.NewReader(writeHostile(hostileShape{SelfRef: true})))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Settings) != 1 || s.Settings[0].Value != "[[...]]" {
		t.Errorf("settings %+v, want self shown as Python does, [[...]]", s.Settings)
	}
}

func TestMemoSharedNestIsCut(t *testing.T) {
	// Nine levels of x = [x]*10: 297 bytes for a billion leaves.
	data := writeHostile(hostileShape{NestDepth: 9, NestFanout: 10})
	s, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Settings) != 1 || len(s.Settings[0].Value) > maxSettingLen+3 || !bytes.HasSuffix([]byte(s.Settings[0].Value), []byte("...")) {
		t.Errorf("nest setting is %d bytes, want it cut at %d", len(s.Settings[0].Value), maxSettingLen)
	}
}

func TestSharedListsHitWorkLimit(t *testing.T) {
	for name, o := range map[string]hostileShape{
		"traces": {TraceLen: 10000, TraceRefs: 100000},
		"blocks": {BlockLen: 10000, SegmentRefs: 20000},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(writeHostile(o)))
			var le *pickle.LimitError
			if !errors.As(err, &le) || le.Limit != "work" {
				t.Fatalf("got %v, want the work limit", err)
			}
		})
	}
}

func TestModestSharingStillDecodes(t *testing.T) {
	// A handful of devices sharing one history is odd but cheap: no limit.
	s, err := Decode(bytes.NewReader(writeHostile(hostileShape{TraceLen: 100, TraceRefs: 4, BlockLen: 10, SegmentRefs: 3})))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Traces) != 4 || len(s.Segments) != 3 {
		t.Fatalf("%d traces, %d segments", len(s.Traces), len(s.Segments))
	}
	if as := Analyze(s); len(as) != 7 {
		t.Errorf("%d devices analysed, want 7", len(as))
	}
}

// FuzzHostileShapes builds snapshots of shared and self-referencing
// structures from a few numbers: decoding and analysis must end in a result
// or a limit error, with work bounded by the input's size.
func FuzzHostileShapes(f *testing.F) {
	f.Add(true, uint8(9), uint8(10), uint16(10000), uint32(100000), uint16(0), uint32(0))
	f.Add(false, uint8(0), uint8(0), uint16(0), uint32(0), uint16(10000), uint32(20000))
	f.Add(false, uint8(40), uint8(2), uint16(3), uint32(70), uint16(2), uint32(50))
	f.Fuzz(func(t *testing.T, self bool, depth, fanout uint8, traceLen uint16, traceRefs uint32, blockLen uint16, segRefs uint32) {
		o := hostileShape{SelfRef: self, NestDepth: int(depth), NestFanout: int(fanout),
			TraceLen: int(traceLen), TraceRefs: int(traceRefs % (1 << 18)), BlockLen: int(blockLen), SegmentRefs: int(segRefs % (1 << 18))}
		data := writeHostile(o)
		s, err := Decode(bytes.NewReader(data))
		if err != nil {
			var le *pickle.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		var walked int64
		for _, tr := range s.Traces {
			walked += int64(len(tr))
		}
		for _, seg := range s.Segments {
			walked += int64(len(seg.Blocks))
		}
		if limit := pickle.DefaultLimits.BaseWork + pickle.DefaultLimits.WorkPerByte*int64(len(data)); walked > limit {
			t.Fatalf("%d entries and blocks to walk from %d bytes", walked, len(data))
		}
		as := Analyze(s)
		fs := Findings(s, as, "f")
		var out bytes.Buffer
		if err := WriteHTML(&out, &report.Report{Findings: fs}, s, as, "f"); err != nil {
			t.Fatal(err)
		}
	})
}
