package diagnose

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// A failing GPU rarely says so itself: the program sees "an illegal memory
// access", "unspecified launch failure", "unknown error" or a launch that
// timed out, the same words a bug in a kernel produces. What tells the two
// apart is what the report states around the error: that the card is faulty
// or dying, that the fault is the hardware's, that an overclock or an
// undervolt is unstable. Such a statement in the same input makes the
// hardware the root, with that line as evidence.

// hardwareCauseRE is a statement that the hardware is at fault. It names the
// cause positively; a line that negates it (hardwareNegatedRE before the
// match) is not one: "I don't think it is a hardware issue".
var hardwareCauseRE = lazyre.New(`(?i)` +
	// "It's likely a hardware issue", "turned out to be a hardware problem",
	// "indeed some sort of hardware issue".
	`\b(?:likely|probably|possibly|must be|seems to be|looks like|it'?s|it is|it was|turned out to be|indeed|a|an)\s+(?:an?\s+|some (?:sort|kind) of\s+)?(?:gpu\s+)?(?:hardware|hw)(?:[ -]related)?\s+(?:issue|problem|fault|failure|defect|error|bug)s?\b` +
	// "a faulty card", "defective GPU", "the riser is broken".
	`|\b(?:faulty|defective|failing|dying|damaged|broken)\s+(?:gpus?|cards?|graphics cards?|video cards?|risers?|psus?|power suppl(?:y|ies)|vram|hardware)\b` +
	`|\b(?:gpu|card|riser|psu|power supply)\s+(?:is|was|seems|seems to be|might be|must be)\s+(?:faulty|defective|dying|damaged|broken)\b` +
	// "an unstable overclock", "undervolting of my graphics card".
	`|\bunstable\s+(?:overclock|undervolt|oc\b)|\b(?:my|the)\s+undervolt(?:ing)?\b|\bundervolting\s+(?:of\s+)?(?:my|the)\b` +
	// A clock offset the report states: "+125 MHz core", "+600 memory
	// clock", "+125 on Core GPU Boost Clock", "core clock: +150"; and
	// "the cards are overclocked", "Overclock: 100% power".
	`|\+\s?\d{2,4}\s*(?:MHz\b|(?:on\s+)?(?:core|memory|mem)\b(?:\s+(?:gpu\s+)?(?:boost\s+)?clock\b|\s*(?:[,;)]|$)))` +
	`|\b(?:core|memory|mem)(?:\s+clock)?\s*(?:offset)?\s*[:=]\s*\+\d{2,4}\b` +
	`|\b(?:gpus?|cards?|it)\s+(?:is|are|was|were)\s+overclocked\b|^\s*overclock\s*:\s*\S` +
	// The same statements in Chinese: the graphics card is broken or
	// faulty ("显卡坏了", "把我显卡给跑坏"), a hardware problem ("硬件问题").
	`|显卡[^。，,.!?！？\n没不无]{0,6}?(?:坏|故障|出问题|有问题)|硬件(?:问题|故障)`)

// hardwareNegatedRE: the words before a statement that deny it.
var hardwareNegatedRE = lazyre.New(`(?i)(?:\bnot|n't|\bno|\bnever|\bruled? out|\bexclude[ds]?)\b[^.;!?]*$|(?:不是|并非|不像|没有|排除)[^。；！？]*$`)

// hardwareWords let the lines hardwareCauseRE reads reach the parser;
// every line it matches holds one of them. They are a person's words about
// the machine ("a faulty card", "+125 MHz core", "显卡坏了"), which only a
// paste holds, and several are short or common in program output: only
// pastes are searched for them (logparse.NewPrefilter's prose), so the scan
// of a long log stays as fast as its other triggers allow.
var hardwareWords = []string{"hardware", "Hardware", "HARDWARE", "faulty", "Faulty", "defective", "Defective",
	"failing", "dying ", "damaged", "broken", "Broken", "unstable", "Unstable", "undervolt", "Undervolt",
	"overclocked", "Overclock", "显卡", "硬件",
	"MHz", "clock", "Clock", ": +", ":+", "=+", "= +", "+1", "+2", "+3", "+4", "+5", "+6", "+7", "+8", "+9"}

// hardwareSurfaces are the classes a failing GPU hides behind: the access
// faults and failed launches of illegal-address, a launch the driver timed
// out, a kernel whose numbers came out NaN, and the driver's unknown error.
var hardwareSurfaces = map[string]bool{"illegal-address": true, "launch-timeout": true, "nonfinite": true}

// unknownStatuses are the CUDA statuses of an "other" finding that a GPU
// failing under load produces (cudaErrorUnknown, 999; 30 before CUDA 10).
var unknownStatuses = map[string]bool{"cudaErrorUnknown": true, "CUDA_ERROR_UNKNOWN": true}

// hardwareStated returns the index of the first line that states a
// hardware cause, or -1.
func hardwareStated(texts []string) int {
	for i, t := range texts {
		for _, re := range []*lazyre.Regexp{hardwareCauseRE, hardwareUnitRE} {
			for _, m := range re.FindAllStringIndex(t, -1) {
				if !hardwareNegatedRE.MatchString(t[:m[0]]) {
					return i
				}
			}
		}
	}
	return -1
}

// refineByHardwareWords makes hardware-fault the root of the findings a
// failing GPU hides behind when a line of the same input states the
// hardware cause.
func refineByHardwareWords(k *kb.KB, name string, lines []logparse.Line, texts []string, fs []report.Finding, idx []int) {
	hw, ok := k.Class("hardware-fault")
	if !ok {
		return
	}
	at := -2 // not looked for yet
	for _, i := range idx {
		f := &fs[i]
		if !hardwareSurfaces[f.Class] && (f.Class != "other" || !unknownStatuses[fmt.Sprint(f.Facts["status"])]) {
			continue
		}
		if at == -2 {
			at = hardwareStated(texts)
		}
		if at < 0 {
			return
		}
		f.Message = reroot(f, hw, name, lines[at]) + "; the report puts it down to the hardware: " + strings.TrimSpace(lines[at].Text)
	}
}
