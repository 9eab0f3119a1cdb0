package memsnap

import (
	"fmt"
	"path"
	"sort"

	"github.com/cudadoctor/cudadoctor/internal/usercode"
)

// Site is where memory was allocated: the first frame of the user's own
// code in the allocation stack.
type Site struct {
	// Frame is the chosen frame; nil for the two special sites below.
	Frame *Frame
	// Label is "file.py:LINE" or a description of a special site.
	Label string
}

// Special site labels.
const (
	labelBefore  = "(allocated before the history starts)"
	labelNoStack = "(no stack recorded)"
)

// SiteStat is what one site holds at the peak and how it behaved over the
// recorded history.
type SiteStat struct {
	Site       int // index into DeviceAnalysis.Sites
	PeakBytes  int64
	PeakBlocks int
	// Allocs and AllocBytes count the allocations recorded in the history.
	Allocs     int
	AllocBytes int64
	// Retained is what the history's allocations still hold at the end.
	Retained       int64
	RetainedBlocks int
	// Runs counts how often the allocation sequence came back to this site
	// after allocating elsewhere: the number of loop iterations it ran in.
	Runs int
}

// Growth is a site whose memory piles up across iterations.
type Growth struct {
	Site         int
	PerIteration int64
	Retained     int64
	Iterations   int
}

// OOM is the recorded out-of-memory event.
type OOM struct {
	Requested  int64
	DeviceFree int64
	Allocated  int64 // allocated when it happened
	Reserved   int64
	Site       int // -1 when the event has no stack
	TimeUS     int64
	Event      int // index of the event in the history
	Count      int // OOM events recorded
}

// Fragmentation describes the cached but unused memory at the end.
type Fragmentation struct {
	Reserved, Allocated int64
	// LargestFree is the largest inactive block of any segment.
	LargestFree int64
	// Trapped is inactive memory in segments that also hold live blocks:
	// torch.cuda.empty_cache() cannot return it.
	Trapped         int64
	TrappedSegments int
	Segments        int
}

// Timeline is a downsampled history of allocated and reserved memory, with
// the allocated part split by the top sites (the last series is the rest).
type Timeline struct {
	// X is microseconds since the first event, or the event number when the
	// history has no timestamps.
	X       []int64
	XIsTime bool
	// T0 is the time of the first event (microseconds) when XIsTime.
	T0         int64
	Allocated  []int64
	Reserved   []int64
	SiteLabels []string
	SiteBytes  [][]int64 // [series][point]
}

// DeviceAnalysis is everything the findings and the HTML report need about
// one device.
type DeviceAnalysis struct {
	Device     int
	HasHistory bool
	HasFrames  bool
	Events     int

	FinalAllocated, FinalReserved int64
	PeakAllocated, PeakReserved   int64
	// PeakEvent is the index of the event after which the peak was reached
	// (-1: before the history starts, len(events)-1 at most).
	PeakEvent int

	Sites []Site
	// Top are the sites live at the peak, largest first.
	Top        []SiteStat
	Growth     []Growth
	Iterations int
	OOM        *OOM
	Frag       Fragmentation
	Timeline   Timeline
}

// TopSeries is how many sites the timeline shows separately.
const TopSeries = 6

// MaxTimelinePoints bounds the size of the timeline (and of the HTML file).
const MaxTimelinePoints = 2000

// Analyze studies every device that has segments or history.
func Analyze(s *Snapshot) []*DeviceAnalysis {
	// Segments are grouped once: looking through all of them for each
	// device would cost devices x segments.
	devices := map[int][]int{}
	for i, seg := range s.Segments {
		devices[seg.Device] = append(devices[seg.Device], i)
	}
	for i, tr := range s.Traces {
		if len(tr) > 0 {
			if _, ok := devices[i]; !ok {
				devices[i] = nil
			}
		}
	}
	var ids []int
	for d := range devices {
		ids = append(ids, d)
	}
	sort.Ints(ids)
	var out []*DeviceAnalysis
	for _, d := range ids {
		out = append(out, analyzeDevice(s, d, devices[d]))
	}
	return out
}

type live struct {
	size     int64
	site     int32
	inWindow bool
}

type siteTable struct {
	s       *Snapshot
	sites   []Site
	byFrame map[int32]int32
	byStack map[int32]int32
}

func newSiteTable(s *Snapshot) *siteTable {
	t := &siteTable{s: s, byFrame: map[int32]int32{}, byStack: map[int32]int32{}}
	t.sites = []Site{{Label: labelBefore}, {Label: labelNoStack}}
	return t
}

const (
	siteBefore  int32 = 0
	siteNoStack int32 = 1
)

func (t *siteTable) of(stack int32) int32 {
	if stack == NoStack || int(stack) >= len(t.s.Stacks) {
		return siteNoStack
	}
	if id, ok := t.byStack[stack]; ok {
		return id
	}
	fi := UserFrame(t.s.Frames, t.s.Stacks[stack])
	id := siteNoStack
	if fi >= 0 {
		var ok bool
		if id, ok = t.byFrame[fi]; !ok {
			f := &t.s.Frames[fi]
			id = int32(len(t.sites))
			t.sites = append(t.sites, Site{Frame: f, Label: fmt.Sprintf("%s:%d", path.Base(f.Filename), f.Line)})
			t.byFrame[fi] = id
		}
	}
	t.byStack[stack] = id
	return id
}

// UserFrame picks the frame an allocation is attributed to: the innermost
// Python frame outside PyTorch, installed packages and the standard library;
// failing that the innermost Python frame; -1 when there is none.
func UserFrame(frames []Frame, stack []int32) int32 {
	fallback := int32(-1)
	for _, fi := range stack {
		if int(fi) >= len(frames) {
			continue
		}
		f := &frames[fi]
		if !isPythonFrame(f) {
			continue
		}
		if fallback < 0 {
			fallback = fi
		}
		if usercode.IsUser(f.Filename) {
			return fi
		}
	}
	return fallback
}

func isPythonFrame(f *Frame) bool {
	if f.Line <= 0 || f.Filename == "" || f.Filename == "??" {
		return false
	}
	switch path.Ext(f.Filename) {
	case ".cpp", ".cc", ".cu", ".c", ".h", ".hpp", ".cuh", ".cxx":
		return false
	}
	return true
}

func isSegmentAdd(a Action) bool    { return a == ActionSegmentAlloc || a == ActionSegmentMap }
func isSegmentRemove(a Action) bool { return a == ActionSegmentFree || a == ActionSegmentUnmap }

func analyzeDevice(s *Snapshot, dev int, segments []int) *DeviceAnalysis {
	a := &DeviceAnalysis{Device: dev, HasFrames: s.HasFrames, PeakEvent: -1}
	var events []TraceEntry
	if dev < len(s.Traces) {
		events = s.Traces[dev]
	}
	a.Events = len(events)
	a.HasHistory = len(events) > 0
	sites := newSiteTable(s)

	// The state at the end: live blocks and reserved segments.
	final := map[int64]live{}
	for _, i := range segments {
		seg := &s.Segments[i]
		a.FinalReserved += seg.TotalSize
		a.Frag.Segments++
		var active, inactive int64
		for _, b := range seg.Blocks {
			switch b.State {
			case StateActiveAllocated, StatePendingFree:
				final[b.Address] = live{size: b.Size, site: sites.of(b.Stack)}
				a.FinalAllocated += b.Size
				active += b.Size
			case StateInactive:
				inactive += b.Size
				a.Frag.LargestFree = max(a.Frag.LargestFree, b.Size)
			}
		}
		if len(seg.Blocks) == 0 {
			// Without blocks (very old snapshots) the segment totals are all we have.
			a.FinalAllocated += seg.AllocatedSize
			active = seg.AllocatedSize
			inactive = seg.TotalSize - seg.AllocatedSize
		}
		if active > 0 && inactive > 0 {
			a.Frag.Trapped += inactive
			a.Frag.TrappedSegments++
		}
	}
	a.Frag.Reserved, a.Frag.Allocated = a.FinalReserved, a.FinalAllocated

	// Walk the history backwards from the end to find the state it started
	// from. The trace records requested sizes for small allocations while
	// blocks are rounded up, so an allocation that is still live at the end
	// is counted with its block's size: the replay then ends exactly in the
	// final state.
	r := newReplay(events, final, a.FinalReserved, sites)

	// Forward: totals, the peak, the OOM event, and what each site allocated.
	stats := map[int32]*SiteStat{}
	stat := func(id int32) *SiteStat {
		st, ok := stats[id]
		if !ok {
			st = &SiteStat{Site: int(id)}
			stats[id] = st
		}
		return st
	}
	a.PeakAllocated, a.PeakReserved = r.alloc, r.res
	lastAllocSite := int32(-1)
	for i := range events {
		e := &events[i]
		r.apply(i)
		switch e.Action {
		case ActionAlloc:
			id := r.live[e.Addr].site
			st := stat(id)
			st.Allocs++
			st.AllocBytes += r.eff[i]
			if id != lastAllocSite {
				st.Runs++
				lastAllocSite = id
			}
		case ActionOOM:
			if a.OOM == nil {
				a.OOM = &OOM{}
			}
			a.OOM.Count++
			a.OOM.Requested, a.OOM.DeviceFree = e.Size, e.DeviceFree
			a.OOM.Allocated, a.OOM.Reserved, a.OOM.TimeUS, a.OOM.Event = r.alloc, r.res, e.TimeUS, i
			a.OOM.Site = -1
			if e.Stack != NoStack {
				a.OOM.Site = int(sites.of(e.Stack))
			}
		}
		if r.alloc > a.PeakAllocated {
			a.PeakAllocated, a.PeakEvent = r.alloc, i
		}
		a.PeakReserved = max(a.PeakReserved, r.res)
	}
	for _, l := range r.live {
		if l.inWindow {
			st := stat(l.site)
			st.Retained += l.size
			st.RetainedBlocks++
		}
	}

	// Replay up to the peak for what each site held there.
	r.reset()
	for i := 0; i <= a.PeakEvent; i++ {
		r.apply(i)
	}
	for _, l := range r.live {
		st := stat(l.site)
		st.PeakBytes += l.size
		st.PeakBlocks++
	}
	a.Sites = sites.sites
	for _, st := range stats {
		if st.PeakBytes > 0 {
			a.Top = append(a.Top, *st)
		}
	}
	sort.Slice(a.Top, func(i, j int) bool {
		if a.Top[i].PeakBytes != a.Top[j].PeakBytes {
			return a.Top[i].PeakBytes > a.Top[j].PeakBytes
		}
		return a.Top[i].Site < a.Top[j].Site
	})
	a.findGrowth(stats)
	r.reset()
	a.timeline(r)
	return a
}

// findGrowth flags sites whose allocations outlive their iteration: more
// than two iterations' worth of them are still held at the end.
func (a *DeviceAnalysis) findGrowth(stats map[int32]*SiteStat) {
	var total int64
	for id, st := range stats {
		if id == siteBefore || id == siteNoStack || st.Runs < 3 || st.RetainedBlocks < 3 {
			continue
		}
		perIter := st.AllocBytes / int64(st.Runs)
		if st.Retained <= 2*perIter || st.Retained*100 < a.PeakAllocated {
			continue
		}
		a.Growth = append(a.Growth, Growth{Site: int(id), PerIteration: st.Retained / int64(st.Runs), Retained: st.Retained, Iterations: st.Runs})
		total += st.Retained
	}
	// Growth that explains little of the peak is ordinary caching, not a leak.
	if len(a.Growth) == 0 || total*10 < a.PeakAllocated {
		a.Growth = nil
		return
	}
	sort.Slice(a.Growth, func(i, j int) bool {
		if a.Growth[i].Retained != a.Growth[j].Retained {
			return a.Growth[i].Retained > a.Growth[j].Retained
		}
		return a.Growth[i].Site < a.Growth[j].Site
	})
	a.Iterations = a.Growth[0].Iterations
}

// GrowthPerIteration sums the per-iteration growth of every growing site.
func (a *DeviceAnalysis) GrowthPerIteration() int64 {
	var n int64
	for _, g := range a.Growth {
		n += g.PerIteration
	}
	return n
}

// replay steps through a device's history, tracking the live blocks.
type replay struct {
	events []TraceEntry
	sites  *siteTable
	// eff is the size each event counts with (see newReplay).
	eff        []int64
	start      map[int64]live
	alloc0     int64
	res0       int64
	live       map[int64]live
	alloc, res int64
}

func newReplay(events []TraceEntry, final map[int64]live, finalReserved int64, sites *siteTable) *replay {
	r := &replay{events: events, sites: sites, eff: make([]int64, len(events)), res0: finalReserved}
	start := make(map[int64]live, len(final))
	for k, v := range final {
		start[k] = v
	}
	for i := len(events) - 1; i >= 0; i-- {
		e := &events[i]
		r.eff[i] = e.Size
		switch {
		case e.Action == ActionAlloc:
			if l, ok := start[e.Addr]; ok {
				r.eff[i] = l.size
				delete(start, e.Addr)
			}
		case e.Action == ActionFreeCompleted:
			start[e.Addr] = live{size: e.Size, site: siteBefore}
		case isSegmentAdd(e.Action):
			r.res0 -= e.Size
		case isSegmentRemove(e.Action):
			r.res0 += e.Size
		}
	}
	for _, l := range start {
		r.alloc0 += l.size
	}
	r.start = start
	r.reset()
	return r
}

func (r *replay) reset() {
	r.live = make(map[int64]live, len(r.start))
	for k, v := range r.start {
		r.live[k] = v
	}
	r.alloc, r.res = r.alloc0, r.res0
}

// apply performs event i and returns the block it removed, if any.
func (r *replay) apply(i int) (removed live, added live) {
	e := &r.events[i]
	switch {
	case e.Action == ActionAlloc:
		if old, ok := r.live[e.Addr]; ok {
			// A block freed outside the ring: drop it before reusing the address.
			r.alloc -= old.size
			removed = old
		}
		added = live{size: r.eff[i], site: r.sites.of(e.Stack), inWindow: true}
		r.live[e.Addr] = added
		r.alloc += added.size
	case e.Action == ActionFreeCompleted:
		if old, ok := r.live[e.Addr]; ok {
			r.alloc -= old.size
			delete(r.live, e.Addr)
			removed = old
		}
	case isSegmentAdd(e.Action):
		r.res += e.Size
	case isSegmentRemove(e.Action):
		r.res -= e.Size
	}
	return removed, added
}

func (a *DeviceAnalysis) timeline(r *replay) {
	events := r.events
	tl := &a.Timeline
	// Series: the top sites at the peak, then everything else.
	seriesOf := map[int32]int{}
	for _, st := range a.Top {
		if len(seriesOf) == TopSeries {
			break
		}
		seriesOf[int32(st.Site)] = len(seriesOf)
		tl.SiteLabels = append(tl.SiteLabels, a.Sites[st.Site].Label)
	}
	other := len(tl.SiteLabels)
	tl.SiteLabels = append(tl.SiteLabels, "other")
	series := func(id int32) int {
		if k, ok := seriesOf[id]; ok {
			return k
		}
		return other
	}
	cur := make([]int64, len(tl.SiteLabels))
	for _, v := range r.live {
		cur[series(v.site)] += v.size
	}
	var t0 int64
	tl.XIsTime = len(events) > 0
	for _, e := range events {
		if e.TimeUS <= 0 {
			tl.XIsTime = false
			break
		}
	}
	if tl.XIsTime {
		t0 = events[0].TimeUS
		tl.T0 = t0
	}
	points := len(events) + 1
	bucket := (points + MaxTimelinePoints - 1) / MaxTimelinePoints
	tl.SiteBytes = make([][]int64, len(tl.SiteLabels))
	bestA := int64(-1)
	var bestX, bestR int64
	best := make([]int64, len(cur))
	emit := func() {
		tl.X = append(tl.X, bestX)
		tl.Allocated = append(tl.Allocated, bestA)
		tl.Reserved = append(tl.Reserved, bestR)
		for k := range best {
			tl.SiteBytes[k] = append(tl.SiteBytes[k], best[k])
		}
		bestA = -1
	}
	consider := func(p int, x int64) {
		last := p == points-1
		if r.alloc > bestA {
			bestA, bestX, bestR = r.alloc, x, r.res
			copy(best, cur)
		}
		if (p+1)%bucket == 0 || last {
			bestIsLast := bestX == x
			emit()
			// The end state is always drawn, even when its bucket peaked earlier.
			if last && !bestIsLast {
				bestA, bestX, bestR = r.alloc, x, r.res
				copy(best, cur)
				emit()
			}
		}
	}
	consider(0, 0)
	for i := range events {
		removed, added := r.apply(i)
		if removed.size > 0 {
			cur[series(removed.site)] -= removed.size
		}
		if added.size > 0 {
			cur[series(added.site)] += added.size
		}
		x := int64(i + 1)
		if tl.XIsTime {
			x = events[i].TimeUS - t0
		}
		consider(i+1, x)
	}
}
