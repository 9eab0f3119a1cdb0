package flightrec

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/usercode"
)

// The rules this package reports; both diagnose the class nccl-error.
const (
	RuleDesync = "flightrec/desync"
	RuleStuck  = "flightrec/stuck"
	Class      = "nccl-error"
)

// Kinds of divergence, in facts["divergence"].
const (
	KindOp         = "op-mismatch"
	KindSize       = "size-mismatch"
	KindDtype      = "dtype-mismatch"
	KindNotEntered = "not-entered"
	KindNoPeerDump = "peer-dumps-missing"
	KindStuck      = "all-entered-not-completed"
)

// sizeChecked are the collectives whose tensors must have the same shape on
// every rank; gathers, scatters and all-to-all legitimately differ.
var sizeChecked = map[string]bool{
	"all_reduce": true, "allreduce": true, "broadcast": true, "reduce": true, "all_gather": true,
	"allgather": true, "_allgather_base": true, "all_gather_into_tensor": true, "allgather_into_tensor_coalesced": true,
	"reduce_scatter": true, "_reduce_scatter_base": true, "reduce_scatter_tensor": true,
	"reduce_scatter_tensor_coalesced": true, "allreduce_coalesced": true, "barrier": true,
}

// rankView is one rank's dump indexed for matching.
type rankView struct {
	dump *Dump
	// coll maps process group -> collective sequence id -> entry.
	coll map[string]map[int64]*Entry
	// last is the highest collective sequence id the rank enqueued per group.
	last map[string]int64
	// first is the lowest sequence id still in the ring per group: below it
	// the rank's history is unknown.
	first map[string]int64
	// p2p and p2pLast index point-to-point operations by p2p sequence id.
	p2p     map[string]map[int64]*Entry
	p2pLast map[string]int64
	pending []*Entry
}

// divergence is where the ranks stopped agreeing.
type divergence struct {
	kind string
	pg   string
	seq  int64
	// groups holds the ranks that entered, split by what they called; the
	// first group is the odd one out.
	groups     [][]int
	notEntered []int
	p2p        bool
	entries    map[int]*Entry
	time       int64
	// drift, when set, is where the ranks' call sites first parted: the
	// call that put them out of step, long before one of them hung.
	drift *siteBreak
}

// siteBreak is a sequence id at which one group of ranks called from a
// line they had never used on this group before while the others repeated
// a call site they had used.
type siteBreak struct {
	seq     int64
	odd     []int
	others  []int
	entries map[int]*Entry
}

// Analyze matches the dumps' collectives across ranks and reports the first
// divergence: a collective some ranks never entered, or entered with another
// op, shape or dtype. With no divergence it reports the oldest operation
// still pending, and names the ranks whose dumps are missing. Dumps that
// record nothing pending and agree yield no finding.
func Analyze(dumps []*Dump) ([]report.Finding, error) {
	if len(dumps) == 0 {
		return nil, errors.New("no Flight Recorder dumps")
	}
	views, ignored, err := index(dumps)
	if err != nil {
		return nil, err
	}
	expected := map[int]bool{}
	members := map[string]map[int]bool{}
	descs := map[string]string{}
	for r, v := range views {
		expected[r] = true
		for name, pg := range v.dump.PGs {
			if members[name] == nil {
				members[name] = map[int]bool{}
			}
			for _, m := range pg.Ranks {
				members[name][m] = true
				expected[m] = true
			}
			if pg.Desc != "" {
				descs[name] = pg.Desc
			}
		}
		for name := range v.coll {
			if members[name] == nil {
				members[name] = map[int]bool{}
			}
			// A rank that recorded work on a group is one of its members,
			// whatever pg_config says (older dumps lack it).
			members[name][r] = true
		}
	}
	for _, v := range views {
		for i := range v.dump.Entries {
			e := &v.dump.Entries[i]
			if e.PGDesc != "" && descs[e.PGName] == "" {
				descs[e.PGName] = e.PGDesc
			}
		}
	}
	var missing []int
	unnamed := false
	if views[-1] != nil {
		// One dump without a rank: the others are missing, but which
		// ranks they are cannot be told.
		unnamed = len(expected) > 1
	} else {
		for r := range expected {
			if views[r] == nil {
				missing = append(missing, r)
			}
		}
		sort.Ints(missing)
	}

	var first *divergence
	for _, pg := range sortedKeys(members) {
		for _, d := range []*divergence{firstDivergence(pg, members[pg], views), firstP2PDivergence(pg, members[pg], views)} {
			if d != nil && (first == nil || d.time < first.time) {
				first = d
			}
		}
	}
	c := &composer{views: views, missing: missing, unnamedMissing: unnamed, descs: descs, ignored: ignored}
	if first != nil {
		if ob := crossGroupOrder(first, views, members); ob != nil {
			return []report.Finding{c.orderFinding(ob)}, nil
		}
		return []report.Finding{c.divergenceFinding(first)}, nil
	}
	if p := oldestPending(views); p != nil {
		return []report.Finding{c.pendingFinding(p)}, nil
	}
	return []report.Finding{}, nil
}

// index keys the dumps by rank. A rank given twice keeps its pickle (which
// carries stacks) over its JSON form, else the first.
func index(dumps []*Dump) (map[int]*rankView, []string, error) {
	views := map[int]*rankView{}
	var ignored []string
	for _, d := range dumps {
		r := d.Rank
		if r < 0 {
			if len(dumps) > 1 {
				return nil, nil, fmt.Errorf("cannot tell which rank wrote %s: keep the names torch gives the dumps (<prefix><rank>, e.g. nccl_trace_rank_3)", d.Path)
			}
			r = -1
		}
		if old := views[r]; old != nil {
			if old.dump.Format == "json" && d.Format == "pickle" {
				ignored = append(ignored, old.dump.Path)
			} else {
				ignored = append(ignored, d.Path)
				continue
			}
		}
		views[r] = newView(d)
	}
	return views, ignored, nil
}

func newView(d *Dump) *rankView {
	v := &rankView{dump: d, coll: map[string]map[int64]*Entry{}, last: map[string]int64{}, first: map[string]int64{},
		p2p: map[string]map[int64]*Entry{}, p2pLast: map[string]int64{}}
	pgOfID := map[int64]string{}
	for i := range d.Entries {
		e := &d.Entries[i]
		pgOfID[e.PGID] = e.PGName
		if !e.Completed() {
			v.pending = append(v.pending, e)
		}
		if e.IsP2P {
			m := v.p2p[e.PGName]
			if m == nil {
				m = map[int64]*Entry{}
				v.p2p[e.PGName] = m
			}
			m[e.P2PSeq] = e
			if e.P2PSeq > v.p2pLast[e.PGName] {
				v.p2pLast[e.PGName] = e.P2PSeq
			}
			continue
		}
		m := v.coll[e.PGName]
		if m == nil {
			m = map[int64]*Entry{}
			v.coll[e.PGName] = m
		}
		m[e.CollectiveSeq] = e
		if e.CollectiveSeq > v.last[e.PGName] {
			v.last[e.PGName] = e.CollectiveSeq
		}
		if f, ok := v.first[e.PGName]; !ok || e.CollectiveSeq < f {
			v.first[e.PGName] = e.CollectiveSeq
		}
	}
	// pg_status knows the last enqueued collective even when the ring no
	// longer holds it; it is keyed by group id, entries name the group.
	for id, st := range d.Status {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			continue
		}
		name, ok := pgOfID[n]
		if !ok {
			if _, known := d.PGs[id]; !known {
				continue
			}
			name = id
		}
		if st.LastEnqueued > v.last[name] {
			v.last[name] = st.LastEnqueued
		}
	}
	return v
}

// seqsOf is the sorted union of the sequence ids of the ranks' indexes that
// keep accepts (all of them when keep is nil).
func seqsOf(indexes []map[int64]*Entry, keep func(int64) bool) []int64 {
	set := map[int64]bool{}
	for _, idx := range indexes {
		for s := range idx {
			if keep == nil || keep(s) {
				set[s] = true
			}
		}
	}
	seqs := make([]int64, 0, len(set))
	for s := range set {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	return seqs
}

// firstDivergence walks one process group's collectives in sequence order.
func firstDivergence(pg string, members map[int]bool, views map[int]*rankView) *divergence {
	var ranks []int
	var indexes []map[int64]*Entry
	for r := range members {
		if v := views[r]; v != nil {
			ranks = append(ranks, r)
			indexes = append(indexes, v.coll[pg])
		}
	}
	sort.Ints(ranks)
	seqs := seqsOf(indexes, nil)
	for _, seq := range seqs {
		d := &divergence{pg: pg, seq: seq, entries: map[int]*Entry{}}
		pending := false
		for _, r := range ranks {
			v := views[r]
			if e := v.coll[pg][seq]; e != nil {
				d.entries[r] = e
				if !e.Completed() {
					pending = true
				}
				if d.time == 0 || e.TimeCreatedNs < d.time {
					d.time = e.TimeCreatedNs
				}
			} else if seq > v.last[pg] {
				d.notEntered = append(d.notEntered, r)
			}
		}
		for _, check := range []struct {
			kind string
			key  func(*Entry) string
		}{
			{KindOp, func(e *Entry) string { return e.Op() }},
			{KindSize, sizeKey},
			{KindDtype, func(e *Entry) string { return strings.Join(e.InputDtypes, ",") }},
		} {
			if groups := split(d.entries, check.key); len(groups) > 1 {
				d.kind = check.kind
				d.groups = orderGroups(groups, d.entries, views, pg)
				return d
			}
		}
		if len(d.notEntered) > 0 && pending {
			d.kind = KindNotEntered
			d.groups = [][]int{keys(d.entries)}
			d.drift = siteDrift(pg, ranks, views, seq)
			return d
		}
	}
	return nil
}

// siteDrift finds, before seq, the first collective the ranks entered from
// different lines where exactly one group's line was new on its ranks: an
// extra (or missing) call there shifts every later pairing by one, and the
// hang surfaces only at the end. Lines that differ by design (rank 0 takes
// another branch every step) are new on both sides the first time and on
// neither later, so they never qualify.
func siteDrift(pg string, ranks []int, views map[int]*rankView, before int64) *siteBreak {
	seen := map[int]map[string]bool{}
	for _, r := range ranks {
		seen[r] = map[string]bool{}
	}
	var indexes []map[int64]*Entry
	for _, r := range ranks {
		indexes = append(indexes, views[r].coll[pg])
	}
	seqs := seqsOf(indexes, func(s int64) bool { return s < before })
	for _, seq := range seqs {
		bySite := map[string][]int{}
		entries := map[int]*Entry{}
		for _, r := range ranks {
			e := views[r].coll[pg][seq]
			if e == nil {
				continue
			}
			f, ok := UserFrame(e.Frames)
			if !ok {
				continue
			}
			site := fmt.Sprintf("%s:%d", f.File, f.Line)
			bySite[site] = append(bySite[site], r)
			entries[r] = e
		}
		if len(bySite) == 2 {
			var novel, known []int
			for site, rs := range bySite {
				isNew := true
				for _, r := range rs {
					isNew = isNew && !seen[r][site]
				}
				if isNew {
					novel = append(novel, rs...)
				} else {
					known = append(known, rs...)
				}
			}
			if len(novel) > 0 && len(known) > 0 {
				sort.Ints(novel)
				sort.Ints(known)
				return &siteBreak{seq: seq, odd: novel, others: known, entries: entries}
			}
		}
		for site, rs := range bySite {
			for _, r := range rs {
				seen[r][site] = true
			}
		}
	}
	return nil
}

// firstP2PDivergence matches point-to-point operations of a two-rank group
// by p2p sequence id: a send must meet a receive of the same shape. With more
// ranks the ids do not pair up (each rank counts its own peers' operations),
// so such groups are left to the pending-operation report.
func firstP2PDivergence(pg string, members map[int]bool, views map[int]*rankView) *divergence {
	ranks := keys(members)
	if len(ranks) != 2 || views[ranks[0]] == nil || views[ranks[1]] == nil {
		return nil
	}
	seqs := seqsOf([]map[int64]*Entry{views[ranks[0]].p2p[pg], views[ranks[1]].p2p[pg]}, nil)
	for _, seq := range seqs {
		d := &divergence{pg: pg, seq: seq, entries: map[int]*Entry{}, p2p: true}
		pending := false
		for _, r := range ranks {
			v := views[r]
			if e := v.p2p[pg][seq]; e != nil {
				d.entries[r] = e
				pending = pending || !e.Completed()
				if d.time == 0 || e.TimeCreatedNs < d.time {
					d.time = e.TimeCreatedNs
				}
			} else if seq > v.p2pLast[pg] {
				d.notEntered = append(d.notEntered, r)
			}
		}
		if len(d.entries) == 2 {
			a, b := d.entries[ranks[0]], d.entries[ranks[1]]
			switch {
			case p2pKind(a) == p2pKind(b):
				d.kind = KindOp
			case fmt.Sprint(a.InputSizes, a.OutputSizes) != fmt.Sprint(b.OutputSizes, b.InputSizes) &&
				fmt.Sprint(a.InputSizes) != fmt.Sprint(b.InputSizes):
				d.kind = KindSize
			case a.InputDtypes != nil && b.InputDtypes != nil && strings.Join(a.InputDtypes, ",") != strings.Join(b.InputDtypes, ","):
				d.kind = KindDtype
			}
			if d.kind != "" {
				d.groups = [][]int{{ranks[1]}, {ranks[0]}}
				return d
			}
		}
		if len(d.notEntered) > 0 && pending {
			d.kind = KindNotEntered
			d.groups = [][]int{keys(d.entries)}
			return d
		}
	}
	return nil
}

// p2pKind is "send" or "recv" from a profiling name such as "nccl:send 0->1".
func p2pKind(e *Entry) string {
	op := e.Op()
	if i := strings.IndexAny(op, " _"); i >= 0 {
		return op[:i]
	}
	return op
}

func sizeKey(e *Entry) string {
	if !sizeChecked[e.Op()] {
		return ""
	}
	return fmt.Sprint(e.InputSizes, e.OutputSizes)
}

// split groups the ranks by key; an empty key matches anything.
func split(entries map[int]*Entry, key func(*Entry) string) [][]int {
	byKey := map[string][]int{}
	for _, r := range keys(entries) {
		k := key(entries[r])
		byKey[k] = append(byKey[k], r)
	}
	if len(byKey) < 2 {
		return nil
	}
	out := make([][]int, 0, len(byKey))
	for _, rs := range byKey {
		out = append(out, rs)
	}
	return out
}

// orderGroups puts the odd group first: the smallest; between equals, the
// one that made an extra call (the others' call here is its next one); then
// the one whose call site is new on its rank (the others repeat a call they
// made before); failing that, the group without the lowest rank.
func orderGroups(groups [][]int, entries map[int]*Entry, views map[int]*rankView, pg string) [][]int {
	novel := func(g []int) bool {
		r := g[0]
		e := entries[r]
		f, ok := UserFrame(e.Frames)
		if !ok {
			return false
		}
		for s, prev := range views[r].coll[pg] {
			if s >= e.CollectiveSeq {
				continue
			}
			if pf, ok := UserFrame(prev.Frames); ok && pf.File == f.File && pf.Line == f.Line {
				return false
			}
		}
		return true
	}
	// skipped says whether group g's call at this sequence id is the one
	// the other group's ranks make next: then g's ranks skipped a call the
	// others made here, and the others' call is the odd one.
	skipped := func(g, other []int) bool {
		e := entries[g[0]]
		next := views[other[0]].coll[pg][e.CollectiveSeq+1]
		return next != nil && next.Op() == e.Op() && sizeKey(next) == sizeKey(e)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		if sa, sb := skipped(a, b), skipped(b, a); sa != sb {
			return sb
		}
		if na, nb := novel(a), novel(b); na != nb {
			return na
		}
		return a[0] > b[0]
	})
	return groups
}

// oldestPending is the earliest-created operation not completed on some rank.
func oldestPending(views map[int]*rankView) *Entry {
	var best *Entry
	for _, r := range keys(views) {
		for _, e := range views[r].pending {
			if best == nil || e.TimeCreatedNs < best.TimeCreatedNs {
				best = e
			}
		}
	}
	return best
}

// UserFrame is the innermost frame outside torch, site-packages and the
// standard library: the line of the program that issued the collective.
func UserFrame(frames []Frame) (Frame, bool) {
	for _, f := range frames {
		if usercode.IsUser(f.File) {
			return f, true
		}
	}
	return Frame{}, false
}

func keys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
