package diagnose

import (
	"fmt"
	"sort"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// arrange orders findings most important first, folds repeats of one
// failure, and, for a distributed job, names the root-cause rank and turns
// the other ranks' timeouts and kills into related entries of it.
func (e *Engine) arrange(bs []*built, sums []summaryRef, cmd string, inputs int) []report.Finding {
	ranks := map[int]bool{}
	for _, b := range bs {
		if b.fail.rank >= 0 {
			ranks[b.fail.rank] = true
		}
	}
	var rootRank = -1
	var root *logparse.RankFailure
	for _, s := range sums {
		if r := s.ev.Summary.Root(); r != nil && root == nil {
			root = r
			rootRank = r.Rank
		}
		for _, f := range s.ev.Summary.Failures {
			ranks[f.Rank] = true
		}
	}
	distributed := len(ranks) > 1 || len(sums) > 0

	// Importance: errors first; a real error before a rank that only timed
	// out or was killed; torchrun's root-cause rank; then the earliest.
	sort.SliceStable(bs, func(i, j int) bool {
		a, b := bs[i], bs[j]
		if a.f.Severity != b.f.Severity {
			return a.f.Severity > b.f.Severity
		}
		if distributed {
			if a.victim != b.victim {
				return !a.victim
			}
			ar, br := a.fail.rank == rootRank && rootRank >= 0, b.fail.rank == rootRank && rootRank >= 0
			if ar != br {
				return ar
			}
			if a.time != "" && b.time != "" && a.time != b.time && a.fail.src != b.fail.src {
				return a.time < b.time
			}
		}
		if a.fail.src.index != b.fail.src.index {
			return a.fail.src.index < b.fail.src.index
		}
		return a.fail.firstLine() < b.fail.firstLine()
	})

	var out []*built
	for _, b := range bs {
		b.finish(cmd, len(ranks))
		merged := false
		for _, p := range out {
			if p.f.Class != b.f.Class && !(distributed && b.victim && p.f.Severity == report.Error) {
				continue
			}
			sameProcess := p.fail.src == b.fail.src && p.fail.rank == b.fail.rank
			if sameProcess && p.f.Class == b.f.Class {
				merged = true // the same failure reported again
				break
			}
			if distributed && b.fail.rank != p.fail.rank {
				p.f.Related = append(p.f.Related, relatedOf(b))
				merged = true
				break
			}
			if !distributed && p.f.Class == b.f.Class {
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, b)
		}
	}
	// torchrun's summary names ranks that died without a word in the log
	// (stopped by SIGTERM once another rank failed): they are consequences.
	if len(out) > 0 && out[0].f.Severity == report.Error {
		p := out[0]
		if lr, local := p.f.Facts["local_rank"].(int); p.f.Rank == nil && root != nil && root.Rank >= 0 && (!local || lr == root.LocalRank) {
			// The log's lines carry no global rank prefix: torchrun's
			// summary says whose failure this is (and maps a local rank
			// to its global one).
			p.f.Rank = report.IntPtr(root.Rank)
		}
		seen := map[int]bool{}
		if p.f.Rank != nil {
			seen[*p.f.Rank] = true
		}
		for _, r := range p.f.Related {
			if r.Rank != nil {
				seen[*r.Rank] = true
			}
		}
		for _, s := range sums {
			for _, f := range s.ev.Summary.Failures {
				if seen[f.Rank] || f.Rank < 0 {
					continue
				}
				seen[f.Rank] = true
				p.f.Related = append(p.f.Related, report.Related{
					Message:  exitMessage(f, root),
					Rank:     report.IntPtr(f.Rank),
					Location: &report.Location{Path: s.src.name, Line: f.Line},
				})
			}
		}
		if root != nil && p.f.Rank != nil && *p.f.Rank == root.Rank {
			p.f.Facts = ensure(p.f.Facts)
			p.f.Facts["exit_code"] = root.ExitCode
			if root.Signal != "" {
				p.f.Facts["signal"] = root.Signal
			}
			if root.Host != "" {
				p.f.Facts["host"] = root.Host
			}
		}
	}
	live := liveRanks(bs, sums)
	res := make([]report.Finding, 0, len(out))
	for _, b := range out {
		if len(b.f.Alternatives) > 0 {
			if ok, _ := evidenceSettles(&b.f, live); ok {
				b.f.Alternatives = nil
			}
		}
		res = append(res, b.f)
	}
	return res
}

func exitMessage(f logparse.RankFailure, root *logparse.RankFailure) string {
	how := fmt.Sprintf("exited with code %d", f.ExitCode)
	if f.Signal != "" {
		how = fmt.Sprintf("was killed by %s (exit code %d)", f.Signal, f.ExitCode)
	}
	if root != nil && root.Rank != f.Rank {
		return fmt.Sprintf("rank %d %s after rank %d failed: a consequence, not a cause", f.Rank, how, root.Rank)
	}
	return fmt.Sprintf("rank %d %s", f.Rank, how)
}

func relatedOf(b *built) report.Related {
	r := report.Related{Message: b.f.Message, Location: b.f.Location, Class: b.f.Class}
	switch {
	case b.fail.rank >= 0 && b.fail.localRank():
		r.Message = fmt.Sprintf("local rank %d: %s", b.fail.rank, b.f.Message)
	case b.fail.rank >= 0:
		r.Rank = report.IntPtr(b.fail.rank)
		r.Message = fmt.Sprintf("rank %d: %s", b.fail.rank, b.f.Message)
	}
	if b.victim {
		r.Message += " (a consequence of the failure above)"
	}
	return r
}
