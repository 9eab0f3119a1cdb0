package flightrec

import (
	"fmt"
	"sort"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// KindOrder is a deadlock across process groups: two ranks issued
// collectives on different groups in different orders, so each waits in a
// group the other has not reached yet. Matching by group and sequence id
// alone blames whichever call comes first in time; only each rank's program
// order (its record ids across all groups) shows where they parted.
const KindOrder = "cross-group-order"

// collKey names one collective: process group and sequence id.
type collKey struct {
	pg  string
	seq int64
}

// orderBreak is where two ranks' program orders first part.
type orderBreak struct {
	// ranks[0] is the rank whose call the other skipped or postponed: its
	// call is the origin. next[i] is the call ranks[i] made at the break,
	// prev the last call both made before it (nil when none is recorded).
	ranks [2]int
	next  [2]*Entry
	prev  *Entry
	// postponed is set when ranks[1] made next[0] later, after its own
	// next call, rather than never.
	postponed bool
}

// programOrder is a rank's collectives on the given groups in the order it
// issued them.
func programOrder(v *rankView, pgs map[string]bool) []*Entry {
	var out []*Entry
	for i := range v.dump.Entries {
		e := &v.dump.Entries[i]
		if !e.IsP2P && pgs[e.PGName] {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].RecordID != out[j].RecordID {
			return out[i].RecordID < out[j].RecordID
		}
		return out[i].TimeCreatedNs < out[j].TimeCreatedNs
	})
	return out
}

func keyOf(e *Entry) collKey { return collKey{e.PGName, e.CollectiveSeq} }

// crossGroupOrder checks whether a not-entered divergence is really two
// ranks waiting on different groups: rank a entered the diverging
// collective, rank b never did because it waits, pending, in a collective of
// another group that a has not made at that point of its program.
func crossGroupOrder(d *divergence, views map[int]*rankView, members map[string]map[int]bool) *orderBreak {
	if d.kind != KindNotEntered || d.p2p || len(d.groups) == 0 || len(d.notEntered) == 0 {
		return nil
	}
	a, b := d.groups[0][0], d.notEntered[0]
	va, vb := views[a], views[b]
	if va == nil || vb == nil {
		return nil
	}
	// Only groups both belong to order their calls against each other.
	shared := map[string]bool{}
	for pg, m := range members {
		if m[a] && m[b] {
			shared[pg] = true
		}
	}
	if len(shared) < 2 {
		return nil
	}
	oa, obs := programOrder(va, shared), programOrder(vb, shared)
	posB := make(map[collKey]int, len(obs))
	for i, e := range obs {
		posB[keyOf(e)] = i
	}
	// Rings drop the oldest entries: start both walks at a's oldest call
	// that b still holds.
	ia, ib := -1, -1
	for i, e := range oa {
		if j, ok := posB[keyOf(e)]; ok {
			ia, ib = i, j
			break
		}
	}
	if ia < 0 {
		return nil
	}
	for ; ia < len(oa) && ib < len(obs); ia, ib = ia+1, ib+1 {
		ea, eb := oa[ia], obs[ib]
		if keyOf(ea) == keyOf(eb) {
			continue
		}
		if ea.PGName == eb.PGName || ea.Completed() || eb.Completed() {
			return nil
		}
		// b never reached a's call on its group, and a has not got past
		// b's call on b's group.
		if ea.CollectiveSeq <= vb.last[ea.PGName] {
			return nil
		}
		laterA := va.coll[eb.PGName][eb.CollectiveSeq]
		if laterA != nil && laterA.Completed() {
			return nil
		}
		laterB := vb.coll[ea.PGName][ea.CollectiveSeq]
		ob := &orderBreak{ranks: [2]int{a, b}, next: [2]*Entry{ea, eb}}
		if ia > 0 {
			ob.prev = oa[ia-1]
		}
		// Who skipped? Direct evidence first: a rank that made the other's
		// call later postponed it. Failing that, the rank whose step from
		// its previous call site to this one is new on it broke the pattern
		// both followed before.
		swap := false
		switch {
		case laterA != nil && laterB == nil:
			swap, ob.postponed = true, true
		case laterB != nil && laterA == nil:
			ob.postponed = true
		default:
			na, nb := novelStep(oa, ia), novelStep(obs, ib)
			switch {
			case na && !nb:
				swap = true
			case !na && !nb, na && nb:
				swap = b < a
			}
		}
		if swap {
			ob.ranks[0], ob.ranks[1] = b, a
			ob.next[0], ob.next[1] = eb, ea
		}
		return ob
	}
	return nil
}

// novelStep says whether the step from the call before order[i] to
// order[i] (by call site) never happened earlier in the rank's record.
func novelStep(order []*Entry, i int) bool {
	if i == 0 {
		return false
	}
	from, to := site(order[i-1]), site(order[i])
	if from == "" || to == "" {
		return false
	}
	for j := 1; j < i; j++ {
		if site(order[j-1]) == from && site(order[j]) == to {
			return false
		}
	}
	return true
}

// orderFinding reports a cross-group ordering deadlock. The origin is the
// call the other rank skipped or postponed; both ranks' next calls and where
// each waits are named.
func (c *composer) orderFinding(ob *orderBreak) report.Finding {
	r0, r1 := ob.ranks[0], ob.ranks[1]
	e0, e1 := ob.next[0], ob.next[1]
	after := ""
	if ob.prev != nil {
		after = fmt.Sprintf("after %s #%d of %s, ", ob.prev.Op(), ob.prev.CollectiveSeq, c.pgLabel(ob.prev.PGName))
	}
	msg := fmt.Sprintf("ranks issued collectives on different process groups in different orders and deadlocked: %s%s called %s next while %s called %s",
		after, rankLabel(r0), c.callLabel(e0), rankLabel(r1), c.callLabel(e1))
	if ob.postponed {
		msg += fmt.Sprintf("; %s made %s #%d of %s only after that", rankLabel(r1), e0.Op(), e0.CollectiveSeq, c.pgLabel(e0.PGName))
	} else {
		msg += fmt.Sprintf("; %s never made %s #%d of %s", rankLabel(r1), e0.Op(), e0.CollectiveSeq, c.pgLabel(e0.PGName))
	}
	var waits []string
	for _, r := range []int{r0, r1} {
		if w := c.waitingIn(r); w != nil {
			waits = append(waits, fmt.Sprintf("%s waits in %s #%d of %s", rankLabel(r), w.Op(), w.CollectiveSeq, c.pgLabel(w.PGName)))
		}
	}
	if len(waits) == 2 {
		msg += " (" + waits[0] + ", " + waits[1] + ", each for a call the other has not made)"
	}
	msg += c.missingClause()
	remedies := []string{
		"Issue collectives on all process groups in the same order on every rank: each group runs its operations in issue order and a rank waits for one before the next, so a call skipped or reordered on one group blocks the other ranks on another",
		fmt.Sprintf("Look for a rank-dependent branch around %s that skips or moves the call on some ranks", orDash(site(e0))),
		"Rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL: it checks each group's collectives across ranks before they run and names the first mismatch",
	}
	f := report.Finding{
		Rule:     RuleDesync,
		Class:    Class,
		Severity: report.Error,
		Message:  msg,
		Location: &report.Location{Path: c.views[r0].dump.Path},
		Origin:   origin(e0),
		Facts:    c.baseFacts(e0),
		Remedies: remedies,
	}
	if c.views[r0].dump.Rank >= 0 {
		f.Rank = report.IntPtr(r0)
	}
	f.Facts["divergence"] = KindOrder
	f.Facts["other_rank"] = r1
	f.Facts["other_pg"] = e1.PGName
	f.Facts["other_seq"] = e1.CollectiveSeq
	f.Facts["postponed"] = ob.postponed
	if !ob.postponed {
		f.Facts["ranks_not_entered"] = []int{r1}
	}
	f.Evidence = []report.Evidence{c.evidence(r0, e0), c.evidence(r1, e1)}
	f.Related = c.related([]int{r0}, e0.PGName, e0.CollectiveSeq)
	return f
}

func orDash(s string) string {
	if s == "" {
		return "the call"
	}
	return s
}

// waitingIn is the oldest operation rank r still waits in.
func (c *composer) waitingIn(r int) *Entry {
	var oldest *Entry
	for _, e := range c.views[r].pending {
		if oldest == nil || e.TimeCreatedNs < oldest.TimeCreatedNs {
			oldest = e
		}
	}
	return oldest
}

func (c *composer) callLabel(e *Entry) string {
	s := fmt.Sprintf("%s #%d of %s", e.Op(), e.CollectiveSeq, c.pgLabel(e.PGName))
	if at := site(e); at != "" {
		s += " at " + at
	}
	return s
}
