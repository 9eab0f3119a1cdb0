package diagnose

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Two failures are often reported with no error line at all. A person
// says the GPU is not seen ("GPU not detected", "it does not detect my
// GPU", "no CUDA devices found"), or a tool counts none ("detected 0 total
// GPU device(s)"): that is CUDA being unavailable, told in words. And
// TensorRT's builder, short of device memory, logs a warning for every
// tactic it skips ("Tactic Device request: 66048MB Available: 32510MB.
// Device memory is insufficient to use tactic."); a build that ends in
// those warnings ran out of memory, while one that goes on built its
// engine without the tactics. Both answer only where nothing else in the
// source failed (standaloneFinding).

// unseenGPURE is a statement that no GPU is seen.
var unseenGPURE = lazyre.New(`(?i)` +
	// "GPU not detected", "the GPU is not being recognized", "CUDA not
	// found".
	`\b(?:gpus?|cuda|graphics cards?|video cards?)\s+(?:is\s+|was\s+|are\s+|were\s+)?not\s+(?:being\s+)?(?:detected|found|recogni[sz]ed|visible)\b` +
	// "does not detect my GPU", "can't find the GPU", "won't see any GPU".
	`|\b(?:doesn'?t|didn'?t|don'?t|can'?t|cannot|couldn'?t|won'?t|(?:does|did|do|can|could|will)\s+not)\s+(?:detect|find|see|recogni[sz]e)\s+(?:my\s+|the\s+|any\s+)?(?:nvidia\s+)?(?:gpus?|graphics cards?|video cards?)\b` +
	// "no GPU found", "No compatible GPU found", "no CUDA devices
	// available", "No GPU being used", "No GPU or other accelerator
	// detected".
	`|\b(?:no|zero)\s+(?:compatible\s+|cuda[- ]capable\s+|nvidia\s+|cuda\s+)?(?:gpus?|gpu devices?|cuda devices?)(?:\s+or\s+(?:other\s+)?accelerators?)?\s+(?:were\s+|was\s+|is\s+|are\s+)?(?:found|detected|available|visible|being used)\b` +
	// "run.py fails to detect the gpu", "unable to find any GPU".
	`|\b(?:fail(?:s|ed)?|unable)\s+to\s+(?:detect|find|see|recogni[sz]e)\s+(?:my\s+|the\s+|any\s+)?(?:nvidia\s+)?(?:gpus?|graphics cards?|video cards?)\b` +
	// A tool's count: "detected 0 total GPU device(s)".
	`|\bdetected\s+0\s+(?:total\s+)?(?:gpus?|cuda)\b`)

// unseenGPUAsideRE are the words around such a statement that keep it
// from reporting a failure: a condition or a denial before it ("if no GPU
// is found, ...", "it's not that the GPU is not detected"), a test suite
// skipping GPU cases, a question ("Why is no GPU found?" in a FAQ).
var unseenGPUAsideRE = lazyre.New(`(?i)(?:\b(?:if|when|whenever|unless|whether|in case|not|never)\b[^.;!?]*$)`)

var unseenGPUSkipRE = lazyre.New(`(?i)\bskip|\?\s*$`)

// unseenGPUWords let the lines unseenGPURE reads reach the parser; every
// line it matches holds one of them. A person writes them, so only pastes
// are searched for them (logparse.NewPrefilter's prose).
var unseenGPUWords = []string{"not detected", "not found", "not recogni", "not visible", "not being",
	"detect my", "detect the", "detect any", "detect GPU", "detect gpu", "find my", "find the GPU", "find any",
	"see my", "see the GPU", "see any", "GPU found", "GPUs found", "gpu found", "gpus found", "GPU detected",
	"GPUs detected", "gpu detected", "devices found", "devices available", "GPU being used", "GPU available",
	"GPUs available", "detected 0", "Detected 0", "accelerator detected", "to detect", "to find"}

// unseenGPUStated returns the index of the first line that states no GPU
// is seen, or -1.
func unseenGPUStated(texts []string) int {
	for i, t := range texts {
		if unseenGPUSkipRE.MatchString(t) {
			continue
		}
		for _, m := range unseenGPURE.FindAllStringIndex(t, -1) {
			if !unseenGPUAsideRE.MatchString(t[:m[0]]) {
				return i
			}
		}
	}
	return -1
}

// unseenGPUFinding: where nothing else in a source failed, a line that
// states that no GPU is seen is the report's failure.
func unseenGPUFinding(k *kb.KB, name string, lines []logparse.Line, texts []string) (report.Finding, bool) {
	return statedFinding(k, "cuda-unavailable", name, lines, unseenGPUStated(texts), "the report says so")
}

// tacticMemoryRE is TensorRT's builder skipping a tactic for want of
// device memory, in its two lines ("Tactic Device request: N MB
// Available: M MB. Device memory is insufficient to use tactic.",
// "Skipping tactic 3 due to insufficient memory on requested size of N
// detected for tactic 4.", which TensorRT 8.0-8.4 spelt "insuficient").
var tacticMemoryRE = lazyre.New(`Device memory is insufficient to use tactic|Skipping tactic \S+ due to insuff?icient memory`)

// tacticRequestRE reads the request and what was free.
var tacticRequestRE = lazyre.New(`Tactic Device request: (\d+ ?MB),? Available: (\d+ ?MB)`)

// tacticAdviceRE is the advice the builder prints after a skipped tactic.
var tacticAdviceRE = lazyre.New(`Try decreasing the workspace size`)

// tacticTriggers let the builder's lines reach the parser.
var tacticTriggers = []string{"Device memory is insufficient to use tactic", "due to insufficient memory", "due to insuficient memory", "Try decreasing the workspace size"}

// tacticMemoryMin is how many of the builder's memory lines make a build
// that ran short, not a single tactic too large for the card.
const tacticMemoryMin = 2

// tacticMemoryFinding: a source whose last line is one of the builder's
// warnings of a tactic skipped for want of device memory (or the advice
// that follows one), with at least tacticMemoryMin of them, ends in a build
// that ran out of memory. A line after them (the build going on, its
// engine written) leaves them the warnings they are.
func tacticMemoryFinding(k *kb.KB, s *source, lines []logparse.Line, texts []string) (report.Finding, bool) {
	if s.track == nil {
		return report.Finding{}, false
	}
	last := finalText(s.track.tail)
	if !tacticMemoryRE.MatchString(last) && !tacticAdviceRE.MatchString(last) {
		return report.Finding{}, false
	}
	first, n := -1, 0
	for i, t := range texts {
		// The parser may join the builder's lines, which end in a full
		// stop, into one.
		if c := len(tacticMemoryRE.FindAllStringIndex(t, -1)); c > 0 {
			if first < 0 {
				first = i
			}
			n += c
		}
	}
	if n < tacticMemoryMin {
		return report.Finding{}, false
	}
	msg := "TensorRT's builder ran short of GPU memory for its tactics and the log ends there"
	if m := tacticRequestRE.FindStringSubmatch(strings.Join(texts[first:], "\n")); m != nil {
		msg = fmt.Sprintf("TensorRT's builder ran short of GPU memory for its tactics (one asked for %s with %s free) and the log ends there", m[1], m[2])
	}
	return standingFinding(k, "oom", s.name, msg, lines[first])
}

// finalText is the last line of tail that holds more than white space.
func finalText(tail []byte) string {
	t := strings.TrimRight(string(tail), " \t\r\n")
	if i := strings.LastIndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// saysStated: some parsed line of a source may state one of these
// failures (a cheap test before the source's facts are read).
func saysStated(lines []logparse.Line) bool {
	for _, l := range lines {
		if tacticMemoryRE.MatchString(l.Text) || unseenGPURE.MatchString(l.Text) {
			return true
		}
	}
	return false
}
