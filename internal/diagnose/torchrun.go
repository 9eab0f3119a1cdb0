package diagnose

import (
	"strconv"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// torchrun's "Root Cause (first observed failure)" is the first child its
// agent saw exit, not the one that failed first: a rank SIGKILLed while
// the others wait in a collective is often reaped after a waiting rank's
// watchdog has already aborted it (SIGABRT). reconcileTorchrun reads the
// summary against the ranks' own logs, so the root is a rank that failed by
// itself, and gives the agent's rank-less "failed (exitcode ...)" line its
// rank from the summary.

// agentFailedRE is the agent's line about a child that exited.
var agentFailedRE = lazyre.New(`failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)`)

// reconcileTorchrun moves the summaries' Root mark to the rank that really
// failed first, names the rank of agent lines, and adds a host-killed
// finding for a root rank killed by SIGKILL that left no line of its own.
func (e *Engine) reconcileTorchrun(bs []*built, sums []summaryRef) []*built {
	if len(sums) == 0 {
		return bs
	}
	byPID := map[int]int{}
	for _, s := range sums {
		for _, f := range s.ev.Summary.Failures {
			if f.PID > 0 && f.Rank >= 0 {
				byPID[f.PID] = f.Rank
			}
		}
	}
	for _, b := range bs {
		if b.fail.rank >= 0 {
			continue
		}
		if r, ok := agentRank(b.fail, byPID); ok {
			b.fail.rank = r
			b.f.Rank = report.IntPtr(r)
		}
	}
	for _, s := range sums {
		sum := s.ev.Summary
		root := sum.Root()
		if root == nil || !aborted(root, bs) {
			continue
		}
		for i := range sum.Failures {
			f := &sum.Failures[i]
			if f == root || aborted(f, bs) || !(f.ExitCode == -9 || hasRealError(f.Rank, bs)) {
				continue
			}
			root.Root, f.Root = false, true
			if f.ExitCode == -9 && !hasOwnFinding(f.Rank, bs) {
				if b := e.killedFinding(s.src, f); b != nil {
					bs = append(bs, b)
				}
			}
			break
		}
	}
	// A summary pasted on its own (users often quote only the "Root Cause"
	// block) is the only evidence that its root rank was killed: give that
	// rank its finding, or its rank to the finding its lines already made.
	for _, s := range sums {
		root := s.ev.Summary.Root()
		if root == nil || root.ExitCode != -9 || len(root.Traceback) == 0 {
			continue
		}
		if b := findingAt(bs, root.Traceback[0].N); b != nil {
			if b.fail.rank < 0 && root.Rank >= 0 {
				b.fail.rank = root.Rank
				b.f.Rank = report.IntPtr(root.Rank)
			}
			continue
		}
		if hasOwnFinding(root.Rank, bs) {
			continue
		}
		if b := e.killedFinding(s.src, root); b != nil {
			bs = append(bs, b)
		}
	}
	return bs
}

// findingAt is the finding whose evidence holds log line n, if any.
func findingAt(bs []*built, n int) *built {
	for _, b := range bs {
		for _, ev := range b.f.Evidence {
			if ev.Line == n {
				return b
			}
		}
	}
	return nil
}

// agentRank is the rank of a failure made of the agent's line, found by
// the pid the summary lists.
func agentRank(f *failure, byPID map[int]int) (int, bool) {
	for _, ev := range f.events {
		for _, l := range ev.Lines {
			if m := agentFailedRE.FindStringSubmatch(l.Text); m != nil {
				pid, _ := strconv.Atoi(m[3])
				r, ok := byPID[pid]
				return r, ok
			}
		}
	}
	return 0, false
}

// aborted says whether a rank ended only because of another's failure:
// terminated by the agent (SIGTERM), or aborted (SIGABRT) by the NCCL
// watchdog with nothing but timeouts in its log.
func aborted(f *logparse.RankFailure, bs []*built) bool {
	switch f.ExitCode {
	case -15:
		return !hasRealError(f.Rank, bs)
	case -6:
		return !hasRealError(f.Rank, bs) && hasVictim(f.Rank, bs)
	}
	return false
}

func hasRealError(rank int, bs []*built) bool {
	for _, b := range bs {
		if b.fail.rank == rank && !b.victim && b.f.Severity == report.Error {
			return true
		}
	}
	return false
}

func hasVictim(rank int, bs []*built) bool {
	for _, b := range bs {
		if b.fail.rank == rank && b.victim {
			return true
		}
	}
	return false
}

// hasOwnFinding: a finding of the rank other than a timeout.
func hasOwnFinding(rank int, bs []*built) bool {
	for _, b := range bs {
		if b.fail.rank == rank && b.f.Class != "nccl-error" {
			return true
		}
	}
	return false
}

// killedFinding classifies the summary entry of a rank killed by SIGKILL
// ("Signal 9 (SIGKILL) received by PID n") as the knowledge base would the
// same line anywhere in the log.
func (e *Engine) killedFinding(src *source, f *logparse.RankFailure) *built {
	if len(f.Traceback) == 0 {
		return nil
	}
	ev := &logparse.Event{Kind: logparse.KindMessage, Source: src.name, Rank: f.Rank, Line: f.Traceback[0].N,
		EndLine: f.Traceback[len(f.Traceback)-1].N, Lines: f.Traceback, Count: 1}
	fail := &failure{src: src, rank: f.Rank, events: []*logparse.Event{ev}}
	b := e.build(fail, textOf(fail), map[string]classified{})
	if b == nil || b.f.Class != "host-killed" {
		return nil
	}
	return b
}
