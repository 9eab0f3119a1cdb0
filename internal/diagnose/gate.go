package diagnose

import (
	"bytes"
	"fmt"
	"io"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Words are not a verdict. A healthy run prints "'loss': nan" once during
// loss-scale warm-up, catches an exception and goes on, or dumps its
// environment with an error code in it; none of that is the failure of the
// run. The gate asks the rest of the input for evidence: a loss that stays
// non-finite, or a run that did not finish. It sees what the prefilter
// never passes to the parser (ordinary progress lines, the last lines of
// the log) through a reader that watches the bytes going by.

// tailKeep is how much of the end of an input the tracker keeps.
const tailKeep = 4 << 10

// maxLossLine bounds the last loss line the tracker keeps.
const maxLossLine = 1 << 10

// tracker counts an input's lines, remembers its last line that speaks of
// a loss, and keeps its last bytes. Its cost is one bytes.Count and one
// vectorised search per read, and one backward search in a read that
// speaks of a loss.
type tracker struct {
	r     io.Reader
	lines int // newlines seen so far

	lossText []byte // the last line holding "loss"/"Loss", possibly cut
	lossLine int    // its 1-based line number, 0 when none
	lossOpen bool   // the line continues in the next read
	// rankLoss is the last loss line of each rank, for inputs whose loss
	// lines carry a launcher's rank prefix: one rank's loss going on says
	// nothing of another's.
	rankLoss map[int]rankLossLine

	tail []byte

	mem      map[string]*memSeries // memory readings by line template
	memBytes int64                 // bytes seen, for memSampled
	sample   memSampling           // which reads the memory scan looks at
	key      []byte                // scratch for a line's template

	finished *finishedLine // finishedAt's answer, once asked

	long longLines // lines longer than the parser reads
}

// finishedLine is where the input says the run finished (line 0: it does not).
type finishedLine struct {
	line int
	text string
}

func (t *tracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.see(p[:n])
	}
	return n, err
}

func (t *tracker) see(b []byte) {
	if t.lossOpen {
		end := bytes.IndexByte(b, '\n')
		part := b
		if end >= 0 {
			part = b[:end]
			t.lossOpen = false
		}
		if room := maxLossLine - len(t.lossText); room > 0 {
			t.lossText = append(t.lossText, part[:min(room, len(part))]...)
		}
	}
	at := lastLoss(b)
	if at >= 0 {
		start := bytes.LastIndexByte(b[:at], '\n') + 1
		var prefix []byte
		if start == 0 && len(t.tail) > 0 {
			// The line began in an earlier read.
			if i := bytes.LastIndexByte(t.tail, '\n'); i >= 0 || len(t.tail) < tailKeep {
				prefix = t.tail[i+1:]
			}
		}
		end := bytes.IndexByte(b[at:], '\n')
		line := b[start:]
		t.lossOpen = end < 0
		if end >= 0 {
			line = b[start : at+end]
		}
		t.lossText = append(append(t.lossText[:0], prefix...), line[:min(len(line), maxLossLine)]...)
		t.lossLine = t.lines + bytes.Count(b[:start], []byte{'\n'}) + 1
		t.seeRankLoss(b, start, line)
	}
	if t.memSampled(len(b)) {
		t.seeMemory(b, t.lines+1, len(t.tail) == 0 || t.tail[len(t.tail)-1] == '\n')
	}
	t.long.see(b, t.lines)
	t.lines += bytes.Count(b, []byte{'\n'})
	if len(b) >= tailKeep {
		// Copy only what the tail keeps, not every byte of the input.
		t.tail = append(t.tail[:0], b[len(b)-tailKeep:]...)
		return
	}
	t.tail = append(t.tail, b...)
	if len(t.tail) > tailKeep {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-tailKeep:]...)
	}
}

// lastLoss is the offset of the last "loss" or "Loss" in b, or -1. A
// forward search (vectorised) rules most reads out; only a read that
// holds the word is searched backwards, once, for "oss".
func lastLoss(b []byte) int {
	if bytes.Index(b, []byte("oss")) < 0 {
		return -1
	}
	for end := len(b); ; {
		i := bytes.LastIndex(b[:end], []byte("oss"))
		if i < 0 {
			return -1
		}
		if i > 0 && (b[i-1] == 'l' || b[i-1] == 'L') {
			return i - 1
		}
		end = i // no "oss" starts at i-1 or i-2, since b[i] is 'o'
	}
}

// finiteLossRE is a progress line's loss with a finite value.
var finiteLossRE = lazyre.New(`(?i)loss\w*['"]?\s*(?:[:=]|is)?\s*(?:tensor\()?[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?\b`)

// nonfiniteWordRE is a non-finite value on a line.
var nonfiniteWordRE = lazyre.New(`(?i)\b(?:nan|-?inf|infinity)\b`)

// rankLossLine is one rank's last loss line.
type rankLossLine struct {
	line int
	text string
}

const (
	// maxLossRanks bounds the ranks whose loss lines are kept.
	maxLossRanks = 1024
	// rankLossScan bounds the loss lines one read is searched back for,
	// and rankLossStale ends the search sooner.
	rankLossScan  = 256
	rankLossStale = 16
)

// seeRankLoss records, when a read's last loss line (line, starting at
// start in b) carries a rank prefix, the last loss line of each rank in
// the read: the read is searched back from that line.
func (t *tracker) seeRankLoss(b []byte, start int, line []byte) {
	rank, _ := logparse.StripRank(string(line[:min(len(line), 96)]))
	if rank < 0 {
		return
	}
	if t.rankLoss == nil {
		t.rankLoss = map[int]rankLossLine{}
	}
	seen := map[int]bool{}
	n := t.lines + bytes.Count(b[:start], []byte{'\n'}) + 1
	stale := 0 // loss lines in a row of ranks already seen in this read
	for i := 0; ; i++ {
		if !seen[rank] {
			if _, kept := t.rankLoss[rank]; kept || len(t.rankLoss) < maxLossRanks {
				t.rankLoss[rank] = rankLossLine{n, string(line[:min(len(line), maxLossLine)])}
			}
			seen[rank] = true
			stale = 0
		} else {
			stale++
		}
		// Every read of a long training log is full of loss lines: once a
		// run of them names no new rank, the ranks of this read are known.
		if i == rankLossScan || stale == rankLossStale || start == 0 {
			return
		}
		at := lastLoss(b[:start-1])
		if at < 0 {
			return
		}
		end := start - 1
		start = bytes.LastIndexByte(b[:at], '\n') + 1
		n -= bytes.Count(b[start:end+1], []byte{'\n'})
		if e := bytes.IndexByte(b[at:end+1], '\n'); e >= 0 {
			end = at + e
		}
		line = b[start:end]
		if rank, _ = logparse.StripRank(string(line[:min(len(line), 96)])); rank < 0 {
			return
		}
	}
}

// lossRecovered says the input's last loss line comes after line and
// reports a finite value: the loss did not stay non-finite. Where loss
// lines carry ranks, the last one of the given rank is asked.
func (t *tracker) lossRecovered(line, rank int) (int, string, bool) {
	if t == nil {
		return 0, "", false
	}
	lossLine, text := t.lossLine, string(t.lossText)
	if rank >= 0 && len(t.rankLoss) > 0 {
		own := t.rankLoss[rank]
		lossLine, text = own.line, own.text
	}
	if lossLine <= line {
		return 0, "", false
	}
	if !finiteLossRE.MatchString(text) || nonfiniteWordRE.MatchString(text) {
		return 0, "", false
	}
	return lossLine, text, true
}

// finishedRE is a line that says a run ended as planned.
var finishedRE = lazyre.New(`(?i)training (?:is )?(?:complete|completed|done|finished)\b|\bdone training\b|finished training|Trainer\.fit` + "`" + ` stopped|exits successfully|\btrain_runtime\b|Reached max steps|Total training time|Evaluation finished|Inferencing complete`)

// unfinishedRE is a line near the end that says the run did not end well.
var unfinishedRE = lazyre.New(`Traceback \(most recent call last\)|\w+Error\b|\berror:|Exception\b|exit(?:ed with)? code:? [1-9-]|exitcode\s*:\s*-?[1-9]|return code = -?[1-9]|\bKilled\b|CANCELLED|Segmentation fault|core dumped|SIGTERM|SIGKILL|SIGABRT|Aborted`)

// finishedAt is the line number of the last "finished" line in the input's
// tail when nothing after it says the run failed, 0 otherwise. The answer
// is worked out once per input, however many findings ask.
func (t *tracker) finishedAt() (int, string) {
	if t == nil {
		return 0, ""
	}
	if t.finished == nil {
		line, text := t.findFinished()
		t.finished = &finishedLine{line, text}
	}
	return t.finished.line, t.finished.text
}

// finishedWords are lower-case words of which every finishedRE match holds
// one: a tail without any of them cannot match, and the case-folding
// regexp (slow on a few KiB) is not run. The only non-ASCII letter that
// folds into one of their letters is the long s (U+017F), which sends a
// tail to the regexp.
var finishedWords = [][]byte{[]byte("train"), []byte("exits successfully"), []byte("reached max steps"), []byte("evaluation finished"), []byte("inferencing complete")}

func (t *tracker) findFinished() (int, string) {
	lower := bytes.ToLower(t.tail)
	any := bytes.Contains(t.tail, []byte("ſ"))
	for _, w := range finishedWords {
		any = any || bytes.Contains(lower, w)
	}
	if !any {
		return 0, ""
	}
	locs := finishedRE.FindAllIndex(t.tail, -1)
	if len(locs) == 0 {
		return 0, ""
	}
	at := locs[len(locs)-1][0]
	start := bytes.LastIndexByte(t.tail[:at], '\n') + 1
	if unfinishedRE.Match(t.tail[start:]) {
		return 0, ""
	}
	end := bytes.IndexByte(t.tail[at:], '\n')
	text := t.tail[start:]
	if end >= 0 {
		text = t.tail[start : at+end]
	}
	after := bytes.Count(t.tail[start:], []byte{'\n'})
	if len(t.tail) > 0 && t.tail[len(t.tail)-1] != '\n' {
		after++ // the last line has no newline but is still a line
	}
	return t.lines + boolInt(len(t.tail) > 0 && t.tail[len(t.tail)-1] != '\n') - after + 1, string(text)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gate drops or softens findings the rest of their input contradicts.
func gate(bs []*built) []*built {
	out := bs[:0]
	for _, b := range bs {
		t := b.fail.src.track
		last := evidenceEnd(b)
		if b.class != nil && b.class.ID == "nonfinite" && !b.verdict.Notice() && rootException(b.fail) == nil {
			if at, text, ok := t.lossRecovered(last, b.fail.rank); ok {
				softenRecovered(b, at, text) // a non-finite step the run got over
				out = append(out, b)
				continue
			}
		}
		if b.f.Severity >= report.Warning {
			if at, text := t.finishedAt(); at > last {
				b.f.Severity = report.Info
				b.f.Message = fmt.Sprintf("the run went on and finished (line %d: %q), so this did not stop it: %s", at, firstWords(text, 12), b.f.Message)
				b.f.Remedies = nil
			}
		}
		out = append(out, b)
	}
	return out
}

// evidenceEnd is the last log line the finding rests on. Later events of
// its failure (a progress line the prefilter let through) do not count.
func evidenceEnd(b *built) int {
	n := 0
	if b.f.Location != nil && b.f.Location.Path == b.fail.src.name {
		n = b.f.Location.Line
	}
	for _, ev := range b.f.Evidence {
		if ev.Path == b.fail.src.name && ev.Line > n {
			n = ev.Line
		}
	}
	if n == 0 {
		n = lastLine(b.fail)
	}
	return n
}
