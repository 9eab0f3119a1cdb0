// Package memsnap reads PyTorch CUDA memory snapshots (the pickles written by
// torch.cuda.memory._dump_snapshot) and turns them into findings: the peak,
// the sites holding memory, growth across iterations, fragmentation and the
// out-of-memory event.
package memsnap

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/pickle"
)

// Action is what a trace entry records.
type Action uint8

const (
	ActionOther Action = iota
	ActionAlloc
	ActionFreeRequested
	ActionFreeCompleted
	ActionSegmentAlloc
	ActionSegmentFree
	ActionSegmentMap
	ActionSegmentUnmap
	ActionSnapshot
	ActionOOM
)

var actionNames = map[string]Action{
	"alloc": ActionAlloc, "free_requested": ActionFreeRequested, "free_completed": ActionFreeCompleted,
	"segment_alloc": ActionSegmentAlloc, "segment_free": ActionSegmentFree, "segment_map": ActionSegmentMap,
	"segment_unmap": ActionSegmentUnmap, "snapshot": ActionSnapshot, "oom": ActionOOM,
}

func (a Action) String() string {
	for k, v := range actionNames {
		if v == a {
			return k
		}
	}
	return "other"
}

// BlockState is the allocator's state of a block.
type BlockState uint8

const (
	StateUnknown BlockState = iota
	StateActiveAllocated
	// StatePendingFree is freed by the program but still awaiting stream
	// events; PyTorch's docstring calls it active_awaiting_free, the code
	// emits active_pending_free.
	StatePendingFree
	StateInactive
)

// Frame is one stack frame as recorded. C++ frames have Line 0 and an
// empty or "??" filename.
type Frame struct {
	Name, Filename string
	Line           int
}

// NoStack marks an entry or block recorded without frames.
const NoStack int32 = -1

// TraceEntry is one event of a device's allocation history.
type TraceEntry struct {
	Action Action
	// Stack is an index into Snapshot.Stacks, or NoStack.
	Stack      int32
	Addr       int64
	Size       int64
	Stream     int64
	TimeUS     int64
	DeviceFree int64 // oom only
}

// Block is a piece of a segment.
type Block struct {
	Address   int64
	Size      int64
	Requested int64
	State     BlockState
	Stack     int32
}

// Segment is one cudaMalloc'd (or mapped) range of the caching allocator.
type Segment struct {
	Device        int
	Address       int64
	TotalSize     int64
	AllocatedSize int64
	ActiveSize    int64
	RequestedSize int64
	Stream        int64
	Type          string // "large" or "small"
	PoolID        [2]int64
	Expandable    bool
	Stack         int32
	Blocks        []Block
}

// Setting is one allocator setting, in the order the snapshot lists them.
type Setting struct {
	Name  string
	Value string
}

// Snapshot is a decoded memory snapshot. Fields missing from the file (older
// PyTorch versions, history not recorded) stay empty.
type Snapshot struct {
	Segments []Segment
	// Traces holds each device's history ring, oldest first.
	Traces [][]TraceEntry
	// Settings are the allocator settings (PyTorch 2.3 and later).
	Settings []Setting
	// ExpandableSegments is the expandable_segments setting when known.
	ExpandableSegments *bool
	AllocConf          string

	Frames []Frame
	// Stacks are frame-index lists, innermost frame first.
	Stacks [][]int32
	// HasFrames says whether any stack was recorded at all.
	HasFrames bool
}

// ErrNotSnapshot is wrapped when a pickle holds something else.
var ErrNotSnapshot = errors.New("not a PyTorch memory snapshot")

// sealed kinds, in the top byte of a sealed value's N.
const (
	tagFrame = iota + 1
	tagStack
	tagEntry
	tagEntries
	tagBlock
	tagBlocks
)

func sealed(tag int, idx int) pickle.Value {
	return pickle.Value{Kind: pickle.KindSealed, N: int64(tag)<<56 | int64(idx)}
}

func unseal(v pickle.Value) (tag int, idx int) {
	if v.Kind != pickle.KindSealed {
		return 0, 0
	}
	return int(v.N >> 56), int(v.N & (1<<56 - 1))
}

type frameKey struct {
	name, file int32
	line       int64
}

// builder is the pickle.Sealer that turns frames, stacks, trace entries and
// blocks into the compact model while the pickle streams in.
type builder struct {
	snap      *Snapshot
	frameIdx  map[frameKey]int32
	stackIdx  map[uint64][]int32 // hash -> candidate stack ids
	entries   []TraceEntry
	ranges    [][2]int // tagEntries: [start, end) in entries
	blocks    []Block
	blkRanges [][2]int

	// key ids, resolved lazily once the strings appear
	keys map[string]int32
	tmp  []int32
	// The frame keys, cached: they are looked at for every frame dict.
	nameK, fileK, lineK int32
}

func newBuilder() *builder {
	return &builder{snap: &Snapshot{}, frameIdx: map[frameKey]int32{}, stackIdx: map[uint64][]int32{}, keys: map[string]int32{},
		nameK: -1, fileK: -1, lineK: -1}
}

// key returns the interned id of a key string (-1 until it has been seen).
func (b *builder) key(d *pickle.Decoder, s string) int32 {
	if id, ok := b.keys[s]; ok {
		return id
	}
	id := d.InternedID(s)
	if id >= 0 {
		b.keys[s] = id
	}
	return id
}

func (b *builder) SealDict(d *pickle.Decoder, kvs []pickle.KV) (pickle.Value, bool) {
	if len(kvs) == 0 || len(kvs) > 16 {
		return pickle.Value{}, false
	}
	// Frames are by far the most common dict: check them first and cheaply.
	if len(kvs) == 3 {
		if b.nameK < 0 || b.fileK < 0 || b.lineK < 0 {
			b.nameK, b.fileK, b.lineK = b.key(d, "name"), b.key(d, "filename"), b.key(d, "line")
		}
		nameK, fileK, lineK := b.nameK, b.fileK, b.lineK
		var fk frameKey
		found := 0
		for _, kv := range kvs {
			id := d.StrID(kv.Key)
			switch {
			case id == nameK && kv.Val.Kind == pickle.KindStr:
				fk.name = d.StrID(kv.Val)
				found++
			case id == fileK && kv.Val.Kind == pickle.KindStr:
				fk.file = d.StrID(kv.Val)
				found++
			case id == lineK && kv.Val.Kind == pickle.KindInt:
				fk.line = kv.Val.N
				found++
			}
		}
		if found == 3 {
			fi, ok := b.frameIdx[fk]
			if !ok {
				fi = int32(len(b.snap.Frames))
				b.snap.Frames = append(b.snap.Frames, Frame{Name: d.Str(pickle.Value{Kind: pickle.KindStr, N: int64(fk.name)}),
					Filename: d.Str(pickle.Value{Kind: pickle.KindStr, N: int64(fk.file)}), Line: int(fk.line)})
				b.frameIdx[fk] = fi
			}
			return sealed(tagFrame, int(fi)), true
		}
	}
	var action, state pickle.Value
	actionK, stateK := b.key(d, "action"), b.key(d, "state")
	for _, kv := range kvs {
		switch d.StrID(kv.Key) {
		case actionK:
			action = kv.Val
		case stateK:
			state = kv.Val
		}
	}
	if action.Kind == pickle.KindStr {
		return b.sealEntry(d, action, kvs), true
	}
	if state.Kind == pickle.KindStr {
		return b.sealBlock(d, state, kvs), true
	}
	return pickle.Value{}, false
}

func (b *builder) stackOf(v pickle.Value) int32 {
	if tag, idx := unseal(v); tag == tagStack {
		return int32(idx)
	}
	return NoStack
}

func (b *builder) sealEntry(d *pickle.Decoder, action pickle.Value, kvs []pickle.KV) pickle.Value {
	e := TraceEntry{Action: actionNames[d.Str(action)], Stack: NoStack}
	for _, kv := range kvs {
		n, isInt := d.Int(kv.Val)
		switch d.Str(kv.Key) {
		case "addr":
			if isInt {
				e.Addr = n
			}
		case "size":
			if isInt {
				e.Size = n
			}
		case "stream":
			if isInt {
				e.Stream = n
			}
		case "time_us":
			if isInt {
				e.TimeUS = n
			}
		case "device_free":
			if isInt {
				e.DeviceFree = n
			}
		case "frames":
			e.Stack = b.stackOf(kv.Val)
		}
	}
	b.entries = append(b.entries, e)
	return sealed(tagEntry, len(b.entries)-1)
}

var stateNames = map[string]BlockState{
	"active_allocated": StateActiveAllocated, "active_pending_free": StatePendingFree,
	"active_awaiting_free": StatePendingFree, "inactive": StateInactive,
}

func (b *builder) sealBlock(d *pickle.Decoder, state pickle.Value, kvs []pickle.KV) pickle.Value {
	bl := Block{State: stateNames[d.Str(state)], Stack: NoStack}
	for _, kv := range kvs {
		n, isInt := d.Int(kv.Val)
		switch d.Str(kv.Key) {
		case "address":
			if isInt {
				bl.Address = n
			}
		case "size":
			if isInt {
				bl.Size = n
			}
		case "requested_size":
			if isInt {
				bl.Requested = n
			}
		case "frames":
			bl.Stack = b.stackOf(kv.Val)
		case "history":
			// PyTorch 2.0 kept per-block allocation histories instead of frames.
			if bl.Stack == NoStack {
				items := d.Items(kv.Val)
				// Blocks may share one history list: each walk is charged.
				d.Charge(len(items))
				for i := len(items) - 1; i >= 0 && bl.Stack == NoStack; i-- {
					d.Charge(len(d.Entries(items[i])))
					if f, ok := d.Get(items[i], "frames"); ok {
						bl.Stack = b.stackOf(f)
					}
				}
			}
		}
	}
	b.blocks = append(b.blocks, bl)
	return sealed(tagBlock, len(b.blocks)-1)
}

func (b *builder) SealList(d *pickle.Decoder, items []pickle.Value) (pickle.Value, bool) {
	if len(items) == 0 {
		return pickle.Value{}, false
	}
	d.Charge(len(items))
	first, _ := unseal(items[0])
	for _, it := range items {
		if tag, _ := unseal(it); tag != first || tag == 0 {
			return pickle.Value{}, false
		}
	}
	switch first {
	case tagFrame:
		return sealed(tagStack, int(b.internStack(items))), true
	case tagEntry:
		return sealed(tagEntries, rangeOf(items, &b.entries, &b.ranges)), true
	case tagBlock:
		return sealed(tagBlocks, rangeOf(items, &b.blocks, &b.blkRanges)), true
	}
	return pickle.Value{}, false
}

// rangeOf records a list of sealed items as a range of their table. Lists
// are nearly always contiguous runs; others are copied to the end.
func rangeOf[T any](items []pickle.Value, table *[]T, ranges *[][2]int) int {
	_, start := unseal(items[0])
	contiguous := true
	for i, it := range items {
		if _, idx := unseal(it); idx != start+i {
			contiguous = false
			break
		}
	}
	if !contiguous {
		start = len(*table)
		for _, it := range items {
			_, idx := unseal(it)
			*table = append(*table, (*table)[idx])
		}
	}
	*ranges = append(*ranges, [2]int{start, start + len(items)})
	return len(*ranges) - 1
}

func (b *builder) internStack(items []pickle.Value) int32 {
	b.tmp = b.tmp[:0]
	for _, it := range items {
		_, idx := unseal(it)
		b.tmp = append(b.tmp, int32(idx))
	}
	// FNV-1a over the frame ids; collisions are resolved by comparing.
	sum := uint64(14695981039346656037)
	for _, f := range b.tmp {
		sum ^= uint64(uint32(f))
		sum *= 1099511628211
	}
	for _, id := range b.stackIdx[sum] {
		if slices.Equal(b.snap.Stacks[id], b.tmp) {
			return id
		}
	}
	id := int32(len(b.snap.Stacks))
	b.snap.Stacks = append(b.snap.Stacks, slices.Clone(b.tmp))
	b.stackIdx[sum] = append(b.stackIdx[sum], id)
	b.snap.HasFrames = true
	return id
}

// Decode reads a snapshot pickle. Errors name what is wrong with the input
// in one line; they never come from a panic.
func Decode(r io.Reader) (*Snapshot, error) {
	b := newBuilder()
	d := pickle.NewDecoder(r, b, pickle.Limits{})
	root, err := d.Decode()
	if err != nil {
		return nil, err
	}
	return b.finish(d, root)
}

func (b *builder) finish(d *pickle.Decoder, root pickle.Value) (*Snapshot, error) {
	s := b.snap
	var segs, traces, settings pickle.Value
	switch root.Kind {
	case pickle.KindDict:
		segs, _ = d.Get(root, "segments")
		traces, _ = d.Get(root, "device_traces")
		settings, _ = d.Get(root, "allocator_settings")
		if segs.Kind == pickle.KindInvalid && traces.Kind == pickle.KindInvalid {
			return nil, fmt.Errorf("%w: the pickle is a dict without 'segments' or 'device_traces'", ErrNotSnapshot)
		}
	case pickle.KindList:
		// torch.cuda.memory_snapshot() returns the segment list alone.
		segs = root
	default:
		if tag, _ := unseal(root); tag == tagBlocks || tag == tagEntries {
			return nil, fmt.Errorf("%w: the pickle holds a bare list of blocks or trace entries", ErrNotSnapshot)
		}
		return nil, fmt.Errorf("%w: the pickle holds a %s", ErrNotSnapshot, root.Kind)
	}
	// Segments and traces are walked by the analysis once per reference:
	// a list shared by many segments or devices (memo references, a few
	// bytes each) is charged for every walk it will cost.
	for _, sv := range d.Items(segs) {
		if sv.Kind != pickle.KindDict {
			return nil, fmt.Errorf("%w: a segment is a %s, not a dict", ErrNotSnapshot, sv.Kind)
		}
		seg := b.segment(d, sv)
		if err := d.Charge(1 + len(d.Entries(sv)) + len(seg.Blocks)); err != nil {
			return nil, err
		}
		s.Segments = append(s.Segments, seg)
	}
	for _, tv := range d.Items(traces) {
		tag, idx := unseal(tv)
		switch {
		case tag == tagEntries:
			r := b.ranges[idx]
			if err := d.Charge(1 + r[1] - r[0]); err != nil {
				return nil, err
			}
			s.Traces = append(s.Traces, b.entries[r[0]:r[1]:r[1]])
		case tv.Kind == pickle.KindList && len(d.Items(tv)) == 0:
			s.Traces = append(s.Traces, nil)
		default:
			return nil, fmt.Errorf("%w: device_traces holds a %s instead of a list of trace entries", ErrNotSnapshot, tv.Kind)
		}
	}
	for _, kv := range d.Entries(settings) {
		name := d.Str(kv.Key)
		if name == "" {
			continue
		}
		s.Settings = append(s.Settings, Setting{Name: name, Value: render(d, kv.Val)})
		if err := d.Charge(len(s.Settings[len(s.Settings)-1].Value)); err != nil {
			return nil, err
		}
		switch name {
		case "expandable_segments":
			if kv.Val.Kind == pickle.KindBool {
				v := kv.Val.N != 0
				s.ExpandableSegments = &v
			}
		case "PYTORCH_CUDA_ALLOC_CONF":
			s.AllocConf = d.Str(kv.Val)
		}
	}
	return s, nil
}

func (b *builder) segment(d *pickle.Decoder, sv pickle.Value) Segment {
	seg := Segment{Stack: NoStack}
	for _, kv := range d.Entries(sv) {
		n, isInt := d.Int(kv.Val)
		switch d.Str(kv.Key) {
		case "device":
			seg.Device = int(n)
		case "address":
			seg.Address = n
		case "total_size":
			seg.TotalSize = n
		case "allocated_size":
			seg.AllocatedSize = n
		case "active_size":
			seg.ActiveSize = n
		case "requested_size":
			seg.RequestedSize = n
		case "stream":
			seg.Stream = n
		case "segment_type":
			seg.Type = d.Str(kv.Val)
		case "is_expandable":
			seg.Expandable = isInt && n != 0
		case "segment_pool_id":
			if it := d.Items(kv.Val); len(it) == 2 {
				seg.PoolID[0], _ = d.Int(it[0])
				seg.PoolID[1], _ = d.Int(it[1])
			}
		case "frames":
			seg.Stack = b.stackOf(kv.Val)
		case "blocks":
			if tag, idx := unseal(kv.Val); tag == tagBlocks {
				r := b.blkRanges[idx]
				seg.Blocks = b.blocks[r[0]:r[1]:r[1]]
			}
		}
	}
	// Block addresses are implicit in some versions: each follows the last.
	addr := seg.Address
	for i := range seg.Blocks {
		if seg.Blocks[i].Address == 0 {
			seg.Blocks[i].Address = addr
		}
		addr = seg.Blocks[i].Address + seg.Blocks[i].Size
	}
	if seg.AllocatedSize == 0 {
		for _, bl := range seg.Blocks {
			if bl.State == StateActiveAllocated {
				seg.AllocatedSize += bl.Size
			}
		}
	}
	return seg
}

// Bounds on a rendered setting: a real one is a number, a string or a short
// list; a hostile one may nest forever or share one list a billion times.
const (
	maxSettingLen   = 1024
	maxSettingDepth = 32
)

// render prints a setting value the way Python would show it: a container
// that contains itself is shown as [...] or {...}, and a value longer than
// maxSettingLen is cut with "...".
func render(d *pickle.Decoder, v pickle.Value) string {
	r := renderer{d: d, open: map[pickle.Value]bool{}}
	r.value(v, 0)
	if r.sb.Len() > maxSettingLen {
		return r.sb.String()[:maxSettingLen] + "..."
	}
	return r.sb.String()
}

type renderer struct {
	d    *pickle.Decoder
	sb   strings.Builder
	open map[pickle.Value]bool // containers on the path being printed
}

func (r *renderer) value(v pickle.Value, depth int) {
	// Stopping once the cut is certain bounds the walk, not just the text.
	if r.sb.Len() > maxSettingLen {
		return
	}
	switch v.Kind {
	case pickle.KindNone:
		r.sb.WriteString("None")
	case pickle.KindBool:
		if v.N != 0 {
			r.sb.WriteString("True")
		} else {
			r.sb.WriteString("False")
		}
	case pickle.KindInt:
		r.sb.WriteString(strconv.FormatInt(v.N, 10))
	case pickle.KindFloat:
		f, _ := r.d.Float(v)
		r.sb.WriteString(fmt.Sprint(f))
	case pickle.KindStr:
		r.sb.WriteString(r.d.Str(v))
	case pickle.KindList, pickle.KindTuple, pickle.KindDict:
		opening, closing := "[", "]"
		if v.Kind == pickle.KindDict {
			opening, closing = "{", "}"
		}
		if r.open[v] || depth >= maxSettingDepth {
			r.sb.WriteString(opening + "..." + closing)
			return
		}
		r.open[v] = true
		defer delete(r.open, v)
		r.sb.WriteString(opening)
		if v.Kind == pickle.KindDict {
			for i, kv := range r.d.Entries(v) {
				if i > 0 {
					r.sb.WriteString(", ")
				}
				if r.sb.Len() > maxSettingLen {
					break
				}
				r.value(kv.Key, depth+1)
				r.sb.WriteString(": ")
				r.value(kv.Val, depth+1)
			}
		} else {
			for i, it := range r.d.Items(v) {
				if i > 0 {
					r.sb.WriteString(", ")
				}
				if r.sb.Len() > maxSettingLen {
					break
				}
				r.value(it, depth+1)
			}
		}
		r.sb.WriteString(closing)
	default:
		r.sb.WriteString("?")
	}
}
