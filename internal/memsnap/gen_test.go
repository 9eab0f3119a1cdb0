package memsnap

import (
	"fmt"
	"io"

	"github.com/cudadoctor/cudadoctor/internal/pickle/pickletest"
)

// ordered is a dict with its key order, for hand-written snapshots.
type ordered = pickletest.Ordered

func newPickleWriter(w io.Writer) *pickletest.Writer { return pickletest.NewWriter(w, 4) }

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
			p.List(o.LibraryDepth+2, func(i int) {
				p.Dict(func() {
					switch {
					case i < o.LibraryDepth/2:
						p.Str("name")
						p.Str(fmt.Sprintf("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc_%d(unsigned long, CUstream_st*)", i))
						p.Str("filename")
						p.Str("??")
						p.Str("line")
						p.Int(0)
					case i < o.LibraryDepth:
						p.Str("name")
						p.Str(fmt.Sprintf("forward_%d", i))
						p.Str("filename")
						p.Str("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py")
						p.Str("line")
						p.Int(int64(1000 + i))
					case i == o.LibraryDepth:
						p.Str("name")
						p.Str("train_step")
						p.Str("filename")
						p.Str("/work/train.py")
						p.Str("line")
						p.Int(int64(line))
					default:
						p.Str("name")
						p.Str("<module>")
						p.Str("filename")
						p.Str("/work/train.py")
						p.Str("line")
						p.Int(40)
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
			p.Dict(func() {
				p.Str("action")
				p.Str(action)
				if action != "oom" {
					p.Str("addr")
					p.Int(a)
				}
				p.Str("size")
				p.Int(size)
				p.Str("stream")
				p.Int(0)
				p.Str("time_us")
				p.Int(tt)
				if action == "oom" {
					p.Str("device_free")
					p.Int(1 << 20)
				}
				if !o.Pre211 {
					p.Str("compile_context")
					p.Str("N/A")
					p.Str("user_metadata")
					p.Str("")
				}
				p.Str("frames")
				if line > 0 {
					frames(line)()
				} else {
					p.List(0, nil)
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
	p.Dict(func() {
		p.Str("segments")
		p.List(len(liveBlocks), func(i int) {
			b := liveBlocks[i]
			size, state, allocated := b.size, "active_allocated", b.size
			if size < 0 {
				size, state, allocated = -size, "inactive", 0
			}
			p.Dict(func() {
				for _, f := range []struct {
					k string
					v int64
				}{{"device", 0}, {"address", b.addr}, {"total_size", size}, {"allocated_size", allocated},
					{"active_size", allocated}, {"requested_size", allocated}, {"stream", 0}} {
					p.Str(f.k)
					p.Int(f.v)
				}
				p.Str("segment_type")
				p.Str("large")
				p.Str("segment_pool_id")
				p.Tuple2(0, 0)
				p.Str("is_expandable")
				p.Bool(false)
				p.Str("frames")
				frames(b.line)()
				p.Str("blocks")
				p.List(1, func(int) {
					p.Dict(func() {
						p.Str("address")
						p.Int(b.addr)
						p.Str("size")
						p.Int(size)
						p.Str("requested_size")
						p.Int(size)
						p.Str("state")
						p.Str(state)
						p.Str("frames")
						frames(b.line)()
					})
				})
			})
		})
		p.Str("device_traces")
		p.List(1, func(int) {
			p.List(len(events), func(i int) { events[i]() })
		})
		p.Str("allocator_settings")
		p.Dict(func() {
			p.Str("PYTORCH_CUDA_ALLOC_CONF")
			p.Str("")
			p.Str("max_split_size")
			p.Int(-1)
			p.Str("garbage_collection_threshold")
			p.Float(0)
			p.Str("expandable_segments")
			p.Bool(false)
		})
		p.Str("external_annotations")
		p.List(0, nil)
	})
	return p.Finish()
}
