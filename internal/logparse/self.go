package logparse

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// A log can hold cudadoctor's own words: `cudadoctor run` prints its
// diagnosis and status lines into the same stream as the program's output
// (a CI job log, srun's combined output). Those words quote the program's
// lines and are not evidence of their own: read again, a quoted assertion
// would count twice. The program's lines they quote are in the log anyway.

// ownHeaderRE is the first line of a finding in cudadoctor's text output.
var ownHeaderRE = lazyre.New(`^(?:error|warning|info)\[[a-z][a-z0-9/-]*\] \S`)

// ownStatusPrefix starts run's status lines ("cudadoctor: re-running ...").
const ownStatusPrefix = "cudadoctor: "

// ownTriggers bring the headers to the parser, so that their block can
// swallow the indented lines that follow.
var ownTriggers = []string{"error[", "warning["}

// selfBlock swallows one or more rendered findings: the header, its
// indented lines, and blank lines between findings.
type selfBlock struct{ lastN int }

func (b *selfBlock) inherits() bool { return false }
func (b *selfBlock) last() int      { return b.lastN }
func (b *selfBlock) finish(*parser) {}

func (b *selfBlock) feed(_ *parser, l pline) bool {
	msg := l.Msg
	if strings.TrimSpace(msg) == "" || indentOf(msg) >= 2 || ownHeaderRE.MatchString(msg) {
		b.lastN = l.N
		return true
	}
	return false
}

// isOwn says whether a line is cudadoctor's own: a structure of its own
// that ends whatever message or traceback came before it.
func isOwn(msg string) bool {
	return strings.HasPrefix(msg, ownStatusPrefix) || ownHeaderRE.MatchString(msg)
}

// ownLine says whether a line that no open block took is cudadoctor's
// own, and opens the block that swallows a rendered finding.
func (p *parser) ownLine(l pline) bool {
	if strings.HasPrefix(l.Msg, ownStatusPrefix) {
		return true
	}
	if ownHeaderRE.MatchString(l.Msg) {
		p.blocks[l.Rank] = &selfBlock{lastN: l.N}
		return true
	}
	return false
}
