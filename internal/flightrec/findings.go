package flightrec

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// composer turns an analysis into findings.
type composer struct {
	views   map[int]*rankView
	missing []int
	// unnamedMissing is set when other ranks' dumps are missing but this
	// dump's own rank is unknown, so they cannot be named.
	unnamedMissing bool
	descs          map[string]string
	ignored        []string
}

func (c *composer) pgLabel(pg string) string {
	if d := c.descs[pg]; d != "" && d != pg && d != "undefined" {
		return fmt.Sprintf("process group %s (%s)", pg, d)
	}
	return "process group " + pg
}

func rankLabel(r int) string {
	if r < 0 {
		return "rank ?"
	}
	return "rank " + strconv.Itoa(r)
}

// ranksLabel writes "rank 1" or "ranks 1-3,7".
func ranksLabel(rs []int) string {
	if len(rs) == 1 {
		return rankLabel(rs[0])
	}
	return "ranks " + compact(rs)
}

func compact(rs []int) string {
	rs = append([]int(nil), rs...)
	sort.Ints(rs)
	var parts []string
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(rs[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", rs[i], rs[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func site(e *Entry) string {
	if f, ok := UserFrame(e.Frames); ok {
		return fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
	}
	return ""
}

func origin(e *Entry) *report.Location {
	f, ok := UserFrame(e.Frames)
	if !ok {
		return nil
	}
	return &report.Location{Path: f.File, Line: f.Line, Function: f.Name}
}

func numel(sizes [][]int64) int64 {
	var n int64
	for _, s := range sizes {
		t := int64(1)
		for _, d := range s {
			t *= d
		}
		n += t
	}
	return n
}

func shape(e *Entry) string {
	s := fmt.Sprint(e.InputSizes)
	if n := numel(e.InputSizes); len(e.InputSizes) > 0 {
		s += fmt.Sprintf(" (%d elements)", n)
	}
	return s
}

func (c *composer) evidence(r int, e *Entry) report.Evidence {
	text := fmt.Sprintf("%s: %s #%d on %s, in %v %s, out %v, %s", rankLabel(r), e.ProfilingName, seqOf(e), c.pgLabel(e.PGName),
		e.InputSizes, strings.Join(e.InputDtypes, ","), e.OutputSizes, e.State)
	if s := site(e); s != "" {
		text += ", called at " + s
	}
	// No Path: a dump has no lines to point at; the finding's location
	// names the file.
	return report.Evidence{Text: text}
}

func seqOf(e *Entry) int64 {
	if e.IsP2P {
		return e.P2PSeq
	}
	return e.CollectiveSeq
}

// position says where a rank stands on a group (its entry at seq, or the
// last collective it made there) and, when it waits elsewhere, where.
func (c *composer) position(r int, pg string, seq int64) (string, *report.Location) {
	msg, loc := c.positionOn(r, pg, seq)
	var oldest *Entry
	for _, e := range c.views[r].pending {
		if oldest == nil || e.TimeCreatedNs < oldest.TimeCreatedNs {
			oldest = e
		}
	}
	if oldest != nil && !(oldest.PGName == pg && seqOf(oldest) == seq) {
		msg += fmt.Sprintf("; it waits in %s #%d of %s", oldest.Op(), seqOf(oldest), c.pgLabel(oldest.PGName))
		if s := site(oldest); s != "" {
			msg += " at " + s
		}
		if l := origin(oldest); l != nil {
			loc = l
		}
	}
	return msg, loc
}

func (c *composer) positionOn(r int, pg string, seq int64) (string, *report.Location) {
	v := c.views[r]
	if seq < 0 {
		var last *Entry
		for i := range v.dump.Entries {
			if e := &v.dump.Entries[i]; e.PGName == pg {
				last = e
			}
		}
		if last == nil {
			return "recorded nothing on " + c.pgLabel(pg), nil
		}
		msg := fmt.Sprintf("its last operation there was %s #%d (%s)", last.Op(), seqOf(last), last.State)
		if s := site(last); s != "" {
			msg += " at " + s
		}
		return msg, origin(last)
	}
	if e := v.coll[pg][seq]; e != nil {
		msg := fmt.Sprintf("entered %s #%d with %s %s (%s)", e.Op(), seq, shape(e), strings.Join(e.InputDtypes, ","), e.State)
		if s := site(e); s != "" {
			msg += " at " + s
		}
		return msg, origin(e)
	}
	var last *Entry
	for s, e := range v.coll[pg] {
		if s < seq && (last == nil || s > last.CollectiveSeq) {
			last = e
		}
	}
	if last == nil {
		return fmt.Sprintf("never entered #%d; it recorded no earlier collective on %s", seq, c.pgLabel(pg)), nil
	}
	msg := fmt.Sprintf("never entered #%d; its last collective there was %s #%d (%s)", seq, last.Op(), last.CollectiveSeq, last.State)
	if s := site(last); s != "" {
		msg += " at " + s
	}
	return msg, origin(last)
}

// related lists the other ranks' positions, folding ranks that stand in the
// same place into one line, then the ranks without a dump.
func (c *composer) related(skip []int, pg string, seq int64) []report.Related {
	skipped := map[int]bool{}
	for _, r := range skip {
		skipped[r] = true
	}
	type group struct {
		ranks []int
		loc   *report.Location
	}
	byMsg := map[string]*group{}
	var order []string
	for _, r := range keys(c.views) {
		if skipped[r] {
			continue
		}
		msg, loc := c.position(r, pg, seq)
		g := byMsg[msg]
		if g == nil {
			g = &group{loc: loc}
			byMsg[msg] = g
			order = append(order, msg)
		}
		g.ranks = append(g.ranks, r)
	}
	var out []report.Related
	for _, msg := range order {
		g := byMsg[msg]
		rel := report.Related{Message: msg, Location: g.loc, Class: Class}
		if len(g.ranks) == 1 && g.ranks[0] >= 0 {
			rel.Rank = report.IntPtr(g.ranks[0])
		} else {
			rel.Message = ranksLabel(g.ranks) + ": " + msg
		}
		out = append(out, rel)
	}
	if len(c.missing) > 0 {
		msg := "no Flight Recorder dump"
		if name := c.expectedName(c.missing[0]); name != "" {
			msg += fmt.Sprintf(" (expected a file such as %s)", name)
		}
		rel := report.Related{Message: msg}
		if len(c.missing) == 1 {
			rel.Rank = report.IntPtr(c.missing[0])
		} else {
			rel.Message = ranksLabel(c.missing) + ": " + msg
		}
		out = append(out, rel)
	}
	return out
}

func (c *composer) expectedName(rank int) string {
	for _, r := range keys(c.views) {
		if r < 0 || c.views[r].dump.Rank < 0 {
			continue
		}
		if n := siblingName(c.views[r].dump.Path, r, rank); n != "" {
			return n
		}
	}
	return ""
}

func (c *composer) missingClause() string {
	switch len(c.missing) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("; rank %d left no Flight Recorder dump", c.missing[0])
	}
	return fmt.Sprintf("; ranks %s left no Flight Recorder dump", compact(c.missing))
}

func (c *composer) baseFacts(e *Entry) map[string]any {
	f := map[string]any{
		"pg":             e.PGName,
		"nccl_op":        e.Op(),
		"input_sizes":    fmt.Sprint(e.InputSizes),
		"dtypes":         strings.Join(e.InputDtypes, ","),
		"timeout_ms":     e.TimeoutMs,
		"dumps":          len(c.views),
		"fr_version":     c.anyDump().Version,
		"profiling_name": e.ProfilingName,
	}
	if d := c.descs[e.PGName]; d != "" {
		f["pg_desc"] = d
	}
	if e.IsP2P {
		f["p2p_seq"] = e.P2PSeq
	} else {
		f["seq"] = e.CollectiveSeq
	}
	if len(c.missing) > 0 {
		f["dumps_missing"] = c.missing
	}
	if len(c.ignored) > 0 {
		f["dumps_ignored"] = c.ignored
	}
	return f
}

func (c *composer) anyDump() *Dump {
	return c.views[keys(c.views)[0]].dump
}

func (c *composer) divergenceFinding(d *divergence) report.Finding {
	odd := d.groups[0]
	rep := odd[0]
	e := d.entries[rep]
	pg := c.pgLabel(d.pg)
	what := "collective"
	relSeq := d.seq
	if d.p2p {
		what, relSeq = "point-to-point operation", -1
	}
	var msg string
	var remedies []string
	switch d.kind {
	case KindOp, KindSize, KindDtype:
		var parts []string
		for _, g := range d.groups {
			ge := d.entries[g[0]]
			what := ge.Op()
			switch d.kind {
			case KindSize:
				what += " on " + shape(ge)
			case KindDtype:
				what += " on " + strings.Join(ge.InputDtypes, ",")
			}
			p := ranksLabel(g) + " " + what
			if s := site(ge); s != "" {
				p += " at " + s
			}
			parts = append(parts, p)
		}
		noun := map[string]string{KindOp: "operation", KindSize: "tensor sizes", KindDtype: "dtypes"}[d.kind]
		msg = fmt.Sprintf("ranks disagree on the %s of %s #%d of %s: %s", noun, what, d.seq, pg, strings.Join(parts, "; "))
		switch {
		case d.kind == KindOp && d.p2p:
			remedies = []string{
				"Pair every send with a receive on its peer, in the same order on both sides; when two ranks exchange tensors, post both directions at once with dist.batch_isend_irecv (or isend/irecv) so neither waits for the other",
			}
		case d.kind == KindOp:
			remedies = []string{
				"Issue the same collectives in the same order on every rank of the group: look for rank-dependent branches around the call",
				"Rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL: it checks every collective's fingerprint across ranks before it runs and names the mismatch",
			}
		default:
			remedies = []string{
				"Pass tensors of the same shape and dtype on every rank: pad uneven last batches, or all_gather the sizes first and pad to the largest",
				"Rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL: it checks every collective's shapes and dtypes across ranks before it runs",
			}
		}
	case KindNotEntered:
		msg = fmt.Sprintf("%s entered %s #%d of %s but %s never did: the job hangs there until the NCCL watchdog fires",
			ranksLabel(odd), e.Op(), d.seq, pg, ranksLabel(d.notEntered))
		if s := site(e); s != "" {
			msg = fmt.Sprintf("%s called %s #%d of %s at %s but %s never did: the job hangs there until the NCCL watchdog fires",
				ranksLabel(odd), e.Op(), d.seq, pg, s, ranksLabel(d.notEntered))
		}
		if b := d.drift; b != nil {
			oe, ke := b.entries[b.odd[0]], b.entries[b.others[0]]
			msg += fmt.Sprintf("; they fell out of step at %s #%d, which %s called at %s while %s called at %s",
				oe.Op(), b.seq, ranksLabel(b.odd), site(oe), ranksLabel(b.others), site(ke))
		}
		msg += c.missingClause()
		remedies = []string{
			"Make every rank of the group reach this collective: look for rank-dependent branches, early exits or caught exceptions that skip it on some ranks",
			"If a rank stopped because it failed, its own log holds the root cause: run cudadoctor explain on every rank's log together with the dumps",
		}
	}
	f := report.Finding{
		Rule:     RuleDesync,
		Class:    Class,
		Severity: report.Error,
		Message:  msg,
		Location: &report.Location{Path: c.views[rep].dump.Path},
		Origin:   origin(e),
		Facts:    c.baseFacts(e),
		Remedies: remedies,
	}
	if b := d.drift; b != nil {
		// The call that shifted the pairing is the origin; the hang is
		// where it surfaced.
		oe := b.entries[b.odd[0]]
		if o := origin(oe); o != nil {
			if r := origin(e); r != nil && (r.Path != o.Path || r.Line != o.Line) {
				f.Reported = r
			}
			f.Origin = o
			rep = b.odd[0]
			f.Location = &report.Location{Path: c.views[rep].dump.Path}
		}
		f.Facts["drift_seq"] = b.seq
	}
	if rep >= 0 && c.views[rep].dump.Rank >= 0 {
		f.Rank = report.IntPtr(rep)
	}
	f.Facts["divergence"] = d.kind
	f.Facts["ranks_entered"] = keys(d.entries)
	if len(d.notEntered) > 0 {
		f.Facts["ranks_not_entered"] = d.notEntered
	}
	states := make([]string, 0, len(d.entries))
	for _, r := range keys(d.entries) {
		states = append(states, fmt.Sprintf("%d:%s", r, d.entries[r].State))
		if len(f.Evidence) < 8 {
			f.Evidence = append(f.Evidence, c.evidence(r, d.entries[r]))
		}
	}
	f.Facts["states"] = strings.Join(states, " ")
	f.Related = c.related([]int{rep}, d.pg, relSeq)
	return f
}

// pendingFinding reports an operation that never completed where the dumps
// at hand show no divergence: either the ranks that would show it left no
// dump, or every rank entered it and it still never finished.
func (c *composer) pendingFinding(e *Entry) report.Finding {
	var waiting []int
	for _, r := range keys(c.views) {
		v := c.views[r]
		for _, p := range v.pending {
			if p.PGName == e.PGName && p.IsP2P == e.IsP2P && seqOf(p) == seqOf(e) {
				waiting = append(waiting, r)
				break
			}
		}
	}
	rep := waiting[0]
	pg := c.pgLabel(e.PGName)
	kind := KindStuck
	rule := RuleStuck
	at := ""
	if s := site(e); s != "" {
		at = " at " + s
	}
	var msg string
	var remedies []string
	if len(c.missing) > 0 || c.unnamedMissing {
		kind = KindNoPeerDump
		rule = RuleDesync
		others, pro := "the other ranks", "they"
		if len(c.missing) > 0 {
			others, pro = ranksLabel(c.missing), pronoun(c.missing)
		}
		msg = fmt.Sprintf("%s waits in %s #%d of %s%s, which never completed; %s left no Flight Recorder dump, so %s most likely never made this call (or died before it)",
			ranksLabel(waiting), e.Op(), seqOf(e), pg, at, others, pro)
		remedies = []string{
			"Make every rank of the group reach this collective: look for rank-dependent branches, early exits or caught exceptions that skip it on some ranks",
			fmt.Sprintf("Collect the dumps of %s too (TORCH_FR_DUMP_TEMP_FILE, formerly TORCH_NCCL_DEBUG_INFO_TEMP_FILE, on every rank; TORCH_FR_DUMP_ON_TIMEOUT=1) to see where they stood", others),
			"If a rank died, its own log holds the root cause: run cudadoctor explain on every rank's log together with the dumps",
		}
	} else {
		msg = fmt.Sprintf("every rank entered %s #%d of %s%s and it never completed", e.Op(), seqOf(e), pg, at)
		remedies = []string{
			"Rerun with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET) to see the transport NCCL uses and where it stalls",
			"Check the kernel log for GPU faults (dmesg | grep -i xid) and the interconnect (nvidia-smi topo -m, NCCL_P2P_DISABLE=1 to rule out peer-to-peer)",
			"A rank killed while inside the collective leaves it pending on the others: check every rank's exit status",
		}
	}
	f := report.Finding{
		Rule:     rule,
		Class:    Class,
		Severity: report.Error,
		Message:  msg,
		Location: &report.Location{Path: c.views[rep].dump.Path},
		Origin:   origin(e),
		Facts:    c.baseFacts(e),
		Remedies: remedies,
	}
	if c.views[rep].dump.Rank >= 0 {
		f.Rank = report.IntPtr(rep)
	}
	f.Facts["divergence"] = kind
	f.Facts["state"] = e.State
	f.Facts["ranks_waiting"] = waiting
	for _, r := range waiting {
		if len(f.Evidence) >= 8 {
			break
		}
		for _, p := range c.views[r].pending {
			if p.PGName == e.PGName && p.IsP2P == e.IsP2P && seqOf(p) == seqOf(e) {
				f.Evidence = append(f.Evidence, c.evidence(r, p))
				break
			}
		}
	}
	seq := e.CollectiveSeq
	if e.IsP2P {
		seq = -1
	}
	f.Related = c.related([]int{rep}, e.PGName, seq)
	return f
}

func pronoun(rs []int) string {
	if len(rs) == 1 {
		return "it"
	}
	return "they"
}
