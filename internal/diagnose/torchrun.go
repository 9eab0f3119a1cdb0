package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
	// block) is the only evidence of what ended its root rank: a SIGKILL,
	// or the worker's traceback that torchrun copied from its error file
	// (@record). Give that rank its finding, or its rank to the finding
	// its lines already made.
	for _, s := range sums {
		root := s.ev.Summary.Root()
		if root == nil || len(root.Traceback) == 0 {
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
		if b := e.summaryFinding(s.src, root); b != nil {
			bs = append(bs, b)
		}
	}
	if !slices.ContainsFunc(bs, func(b *built) bool { return !launcherOnly(b) }) {
		// Only the launcher's word that a worker failed: still a failure,
		// told with what the summary says of the rank.
		if b := e.childFailedFinding(sums[0]); b != nil {
			return []*built{b}
		}
	}
	return bs
}

// launcherOnly is a finding made of nothing but torchrun's exception line,
// which says a child failed and not why.
func launcherOnly(b *built) bool {
	return b.f.Class == "other" && len(b.f.Evidence) == 1 && strings.Contains(b.f.Evidence[0].Text, "ChildFailedError")
}

// childFailedFinding is the finding for a torchrun summary when no rank's
// own error is in the input: a paste of the summary alone, or a worker that
// printed its error somewhere else. It says which rank ended how, quotes
// the summary, and asks for what would name the cause.
func (e *Engine) childFailedFinding(s summaryRef) *built {
	ev := s.ev
	if len(ev.Lines) == 0 {
		return nil
	}
	what, ref, rank := "a worker failed", ev.Lines[0], -1
	if root := ev.Summary.Root(); root != nil && root.Rank >= 0 {
		rank = root.Rank
		if root.Signal != "" {
			what = fmt.Sprintf("rank %d was ended by %s", root.Rank, root.Signal)
		} else {
			what = fmt.Sprintf("rank %d exited with code %d", root.Rank, root.ExitCode)
		}
	}
	fail := &failure{src: s.src, rank: rank, events: []*logparse.Event{ev}}
	b := &built{fail: fail, time: fail.time(), suspect: -1}
	b.f = report.Finding{Rule: "other", Class: "other", Severity: report.Warning,
		Message:  "torchrun reports that " + what + ", but the input holds no error of the worker's own",
		Evidence: []report.Evidence{{Path: s.src.name, Line: ref.N, Text: ref.Text}},
		Location: &report.Location{Path: s.src.name, Line: ref.N},
		Remedies: childFailedRemedies}
	if rank >= 0 {
		b.f.Rank = report.IntPtr(rank)
	}
	for _, a := range e.KB.OtherAlternatives() {
		b.f.Alternatives = append(b.f.Alternatives, a.Class)
	}
	return b
}

// childFailedRemedies ask for the worker's own error, which torchrun's
// summary does not carry unless the script records it.
var childFailedRemedies = []string{
	"The failing worker printed its own error before torchrun's summary: give cudadoctor the job's whole output (every rank's, or the per-rank log files of --log-dir / --tee), not only the summary.",
	"torchrun copies a worker's traceback into the summary only when the script's entry point is decorated with @record (from torch.distributed.elastic.multiprocessing.errors import record); add it and re-run.",
	unknownRemedies[0],
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
	if b := e.summaryFinding(src, f); b != nil && b.f.Class == "host-killed" {
		return b
	}
	return nil
}

// summaryFinding classifies a summary entry's traceback field: a signal
// line, or the worker's own traceback from its error file.
func (e *Engine) summaryFinding(src *source, f *logparse.RankFailure) *built {
	if len(f.Traceback) == 0 {
		return nil
	}
	ev := &logparse.Event{Kind: logparse.KindMessage, Source: src.name, Rank: f.Rank, Line: f.Traceback[0].N,
		EndLine: f.Traceback[len(f.Traceback)-1].N, Lines: f.Traceback, Count: 1}
	fail := &failure{src: src, rank: f.Rank, events: []*logparse.Event{ev}}
	return e.build(fail, textOf(fail), map[string]classified{})
}
