package logparse

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Python 3.11's exception groups (asyncio.TaskGroup, anyio and trio in
// serving stacks) print their tracebacks inside a frame:
//
//   - Exception Group Traceback (most recent call last):
//     |   File "/app/server.py", line 10, in main
//     | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
//     +-+---------------- 1 ----------------
//     | Traceback (most recent call last):
//     |   File "/app/worker.py", line 5, in run
//     | torch.OutOfMemoryError: CUDA out of memory. ...
//     +------------------------------------
//
// Taking the frame away leaves ordinary tracebacks, one per exception, for
// the traceback parser; the CUDA failure is usually a sub-exception's.
var (
	groupHeadRE = lazyre.New(`^\s*\+ Exception Group Traceback \(most recent call last\):`)
	// groupRuleRE: the rule before each sub-exception ("+-+---- 1 ----",
	// "+---------------- ... ----------------") and the closing one.
	groupRuleRE = lazyre.New(`^\s*\+[-+]+(?: (?:\d+|\.\.\.) -+)?\s*$`)
	groupLineRE = lazyre.New(`^\s*\| ?`)
)

// exceptionGroup returns s without an exception group's frame, blank for a
// rule; outside a group s is returned unchanged.
func (p *parser) exceptionGroup(s string) string {
	if !p.inGroup {
		if !strings.Contains(s, "+ Exception Group Traceback") || !groupHeadRE.MatchString(s) {
			return s
		}
		p.inGroup = true
		return strings.Replace(s, "+ ", "", 1)
	}
	if groupRuleRE.MatchString(s) {
		return ""
	}
	if loc := groupLineRE.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	if groupHeadRE.MatchString(s) {
		return strings.Replace(s, "+ ", "", 1)
	}
	p.inGroup = false
	return s
}
