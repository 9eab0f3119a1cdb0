package diagnose

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// forkChildLine is a line Python's multiprocessing prints only for a child
// process: the header of a child's uncaught exception ("Process
// ForkPoolWorker-1:", "Process Process-2:"), a fork-context child's name,
// or a Pool's relay of a worker's traceback. On Linux the default start
// method before Python 3.14 is fork, so such a child inherits the parent's
// CUDA state and cannot use it.
var forkChildLine = lazyre.New(`^\s*Process (?:Fork(?:Pool|Process)?\w*|Process)-\d+:\s*$|\bForkPoolWorker-\d+\b|\bForkProcess-\d+\b|\bmultiprocessing\.pool\.RemoteTraceback\b`)

// initializationErrors are the status names of CUDA's "initialization
// error" (runtime error 3, driver CUDA_ERROR_NOT_INITIALIZED): the status
// a CUDA call returns in a child forked after the parent initialised CUDA.
var initializationErrors = map[string]bool{
	"cudaErrorInitializationError": true,
	"CUDA_ERROR_NOT_INITIALIZED":   true,
}

// refineForkChild makes fork-reinit the root of a cuda-unavailable finding
// whose status is the initialization error when the same log shows that the
// failure happened in a multiprocessing child. The traceback's own frames
// are judged by the knowledge base's refinement; this pass reads the lines
// around it, where Python names the child before the child's traceback.
// A GPU that is missing in a child ("no CUDA-capable device") is not a
// fork problem and keeps its class.
func refineForkChild(k *kb.KB, s *source, lines []logparse.Line, fs []report.Finding, idx []int) {
	to, ok := k.Class("fork-reinit")
	if !ok {
		return
	}
	child, found := childLine(s, lines)
	if !found {
		return
	}
	for _, i := range idx {
		f := &fs[i]
		if f.Class != "cuda-unavailable" || !initializationErrors[fmt.Sprint(f.Facts["cuda_error"])] {
			continue
		}
		f.Message = reroot(f, to, s.name, child)
	}
}

// childLine is the first line of the input that shows a multiprocessing
// child: a traceback relayed from another process (the parser marks
// RemoteTraceback and a DataLoader worker's "Original Traceback" as
// remote), or one of forkChildLine's lines.
func childLine(s *source, lines []logparse.Line) (logparse.Line, bool) {
	for i := range s.events {
		ev := &s.events[i]
		for _, e := range ev.Chain {
			if e.Remote && len(ev.Lines) > 0 {
				return ev.Lines[0], true
			}
		}
	}
	for _, l := range lines {
		if forkChildLine.MatchString(l.Text) {
			return l, true
		}
	}
	return logparse.Line{}, false
}

// forkChildTriggers let the lines forkChildLine reads reach the parser.
var forkChildTriggers = []string{"ForkPoolWorker", "ForkProcess-", "Process Process-", "pool.RemoteTraceback"}
