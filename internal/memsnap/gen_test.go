package memsnap

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// pickleWriter writes protocol-4 pickles the way Python's pickler does for
// snapshots: every string, dict and list memoized, repeated strings as BINGET.
type pickleWriter struct {
	w    *bufio.Writer
	memo map[string]int
	n    int
}

func newPickleWriter(w io.Writer) *pickleWriter {
	p := &pickleWriter{w: bufio.NewWriterSize(w, 1<<16), memo: map[string]int{}}
	p.w.Write([]byte{0x80, 4})
	return p
}

func (p *pickleWriter) op(b ...byte) { p.w.Write(b) }

func (p *pickleWriter) memoize() { p.op(0x94); p.n++ }

func (p *pickleWriter) get(i int) {
	if i < 256 {
		p.op('h', byte(i))
		return
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(i))
	p.op('j')
	p.w.Write(b[:])
}

func (p *pickleWriter) str(s string) {
	if i, ok := p.memo[s]; ok {
		p.get(i)
		return
	}
	if len(s) < 256 {
		p.op(0x8c, byte(len(s)))
	} else {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(len(s)))
		p.op('X')
		p.w.Write(b[:])
	}
	p.w.WriteString(s)
	p.memo[s] = p.n
	p.memoize()
}

func (p *pickleWriter) int(v int64) {
	switch {
	case v >= 0 && v < 256:
		p.op('K', byte(v))
	case v >= 0 && v < 65536:
		p.op('M', byte(v), byte(v>>8))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(int32(v)))
		p.op('J')
		p.w.Write(b[:])
	default:
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		p.op(0x8a, 8)
		p.w.Write(b[:])
	}
}

func (p *pickleWriter) bool(v bool) {
	if v {
		p.op(0x88)
	} else {
		p.op(0x89)
	}
}

func (p *pickleWriter) float(f float64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], math.Float64bits(f))
	p.op('G')
	p.w.Write(b[:])
}

// dict writes a dict whose entries body() produces (key, value, key, ...).
func (p *pickleWriter) dict(body func()) {
	p.op('}')
	p.memoize()
	p.op('(')
	body()
	p.op('u')
}

// list writes a list with APPEND for one item and APPENDS in batches of
// 1000 otherwise, as Python's pickler does.
func (p *pickleWriter) list(n int, item func(i int)) {
	p.op(']')
	p.memoize()
	if n == 1 {
		item(0)
		p.op('a')
		return
	}
	for start := 0; start < n; start += 1000 {
		p.op('(')
		for i := start; i < min(n, start+1000); i++ {
			item(i)
		}
		p.op('e')
	}
}

func (p *pickleWriter) tuple2(a, b int64) {
	p.int(a)
	p.int(b)
	p.op(0x86)
	p.memoize()
}

func (p *pickleWriter) finish() error {
	p.op('.')
	return p.w.Flush()
}

// ordered is a dict with its key order, for hand-written snapshots.
type ordered []kv

type kv struct {
	k string
	v any
}

type tuple [2]int64

// value writes a tree of Go values.
func (p *pickleWriter) value(v any) {
	switch x := v.(type) {
	case nil:
		p.op('N')
	case bool:
		p.bool(x)
	case int:
		p.int(int64(x))
	case int64:
		p.int(x)
	case float64:
		p.float(x)
	case string:
		p.str(x)
	case tuple:
		p.tuple2(x[0], x[1])
	case []any:
		p.list(len(x), func(i int) { p.value(x[i]) })
	case ordered:
		p.dict(func() {
			for _, e := range x {
				p.str(e.k)
				p.value(e.v)
			}
		})
	default:
		panic(fmt.Sprintf("value %T", v))
	}
}

// synthOptions shape a synthetic leaking training loop.
type synthOptions struct {
	Iterations int
	// TempPerIter allocations are freed in their iteration; LeakPerIter stay.
	TempPerIter, LeakPerIter int
	BlockSize                int64
	// LibraryDepth is the number of PyTorch and C++ frames above the user's.
	LibraryDepth int
	OOM          bool
	// Pre211 leaves out compile_context and user_metadata.
	Pre211 bool
}

// writeSynthetic writes a snapshot of a loop that allocates at train.py:12
// (kept, leaking) and train.py:11 (freed), with the model from train.py:5.
func writeSynthetic(w io.Writer, o synthOptions) error {
	p := newPickleWriter(w)
	frames := func(line int) func() {
		return func() {
			p.list(o.LibraryDepth+2, func(i int) {
				p.dict(func() {
					switch {
					case i < o.LibraryDepth/2:
						p.str("name")
						p.str(fmt.Sprintf("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc_%d(unsigned long, CUstream_st*)", i))
						p.str("filename")
						p.str("??")
						p.str("line")
						p.int(0)
					case i < o.LibraryDepth:
						p.str("name")
						p.str(fmt.Sprintf("forward_%d", i))
						p.str("filename")
						p.str("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py")
						p.str("line")
						p.int(int64(1000 + i))
					case i == o.LibraryDepth:
						p.str("name")
						p.str("train_step")
						p.str("filename")
						p.str("/work/train.py")
						p.str("line")
						p.int(int64(line))
					default:
						p.str("name")
						p.str("<module>")
						p.str("filename")
						p.str("/work/train.py")
						p.str("line")
						p.int(40)
					}
				})
			})
		}
	}
	type blk struct {
		addr, size int64
		line       int
	}
	var events []func()
	var liveBlocks []blk
	addr := int64(0x7f0000000000)
	t := int64(1_700_000_000_000_000)
	entry := func(action string, a, size int64, line int) func() {
		t++
		tt := t
		return func() {
			p.dict(func() {
				p.str("action")
				p.str(action)
				if action != "oom" {
					p.str("addr")
					p.int(a)
				}
				p.str("size")
				p.int(size)
				p.str("stream")
				p.int(0)
				p.str("time_us")
				p.int(tt)
				if action == "oom" {
					p.str("device_free")
					p.int(1 << 20)
				}
				if !o.Pre211 {
					p.str("compile_context")
					p.str("N/A")
					p.str("user_metadata")
					p.str("")
				}
				p.str("frames")
				if line > 0 {
					frames(line)()
				} else {
					p.list(0, nil)
				}
			})
		}
	}
	alloc := func(line int, keep bool) {
		a := addr
		addr += o.BlockSize
		events = append(events, entry("segment_alloc", a, o.BlockSize, line), entry("alloc", a, o.BlockSize, line))
		if keep {
			liveBlocks = append(liveBlocks, blk{a, o.BlockSize, line})
		} else {
			events = append(events, entry("free_requested", a, o.BlockSize, line), entry("free_completed", a, o.BlockSize, line))
			// The freed segment is cached: it stays reserved, inactive.
			liveBlocks = append(liveBlocks, blk{a, -o.BlockSize, line})
		}
	}
	for i := 0; i < 4; i++ {
		alloc(5, true)
	}
	for it := 0; it < o.Iterations; it++ {
		for k := 0; k < o.TempPerIter; k++ {
			alloc(11, false)
		}
		for k := 0; k < o.LeakPerIter; k++ {
			alloc(12, true)
		}
	}
	if o.OOM {
		events = append(events, entry("oom", 0, 4*o.BlockSize, 12))
	}
	p.dict(func() {
		p.str("segments")
		p.list(len(liveBlocks), func(i int) {
			b := liveBlocks[i]
			size, state, allocated := b.size, "active_allocated", b.size
			if size < 0 {
				size, state, allocated = -size, "inactive", 0
			}
			p.dict(func() {
				for _, f := range []struct {
					k string
					v int64
				}{{"device", 0}, {"address", b.addr}, {"total_size", size}, {"allocated_size", allocated},
					{"active_size", allocated}, {"requested_size", allocated}, {"stream", 0}} {
					p.str(f.k)
					p.int(f.v)
				}
				p.str("segment_type")
				p.str("large")
				p.str("segment_pool_id")
				p.tuple2(0, 0)
				p.str("is_expandable")
				p.bool(false)
				p.str("frames")
				frames(b.line)()
				p.str("blocks")
				p.list(1, func(int) {
					p.dict(func() {
						p.str("address")
						p.int(b.addr)
						p.str("size")
						p.int(size)
						p.str("requested_size")
						p.int(size)
						p.str("state")
						p.str(state)
						p.str("frames")
						frames(b.line)()
					})
				})
			})
		})
		p.str("device_traces")
		p.list(1, func(int) {
			p.list(len(events), func(i int) { events[i]() })
		})
		p.str("allocator_settings")
		p.dict(func() {
			p.str("PYTORCH_CUDA_ALLOC_CONF")
			p.str("")
			p.str("max_split_size")
			p.int(-1)
			p.str("garbage_collection_threshold")
			p.float(0)
			p.str("expandable_segments")
			p.bool(false)
		})
		p.str("external_annotations")
		p.list(0, nil)
	})
	return p.finish()
}
