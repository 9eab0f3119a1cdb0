package diagnose

import (
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
	`|\b(?:gpu|card|riser|psu|power supply|vram|video memory|graphics memory|gpu memory)\s+(?:is|was|seems|seems to be|might be|must be)\s+(?:faulty|defective|dying|damaged|broken)\b` +
	// A card the system lost while it worked, told by a person: "when a
	// gpu is lost", "one GPU got lost during the training" (NVML's own
	// "GPU is lost" message is the knowledge base's signature).
	`|\b(?:an?|one|the|my)\s+(?:gpu|card)\s+(?:is|was|gets|got|goes|went)\s+lost\b` +
	// A card that was there and left: "the GPU disappears from
	// nvidia-smi", "the card vanished from the system", "after a while
	// one GPU is missing from nvidia-smi".
	`|\b(?:gpus?|cards?)(?:\s*#?\d+)?\s+(?:(?:just|then|suddenly|randomly|simply|completely)\s+)?(?:disappear(?:s|ed)?|vanish(?:es|ed)?|(?:is|was|goes|went|are|were) missing)\s+(?:from|in)\s+(?:nvidia-smi|device manager|lspci|the (?:system|os)(?:\s*$|[.,;!)]|\s+(?:after|when|while|during|and|again|completely|randomly)\b))` +
	// The card's temperature told as reaching its critical level: "steadily
	// increase GPU junction temperature to near critical levels", "the GPU
	// temp hits critical", "approaching critical junction temp". Only
	// words that carry the rise sit between ("the GPU temperature never
	// gets near critical" is not one).
	`|\b(?:gpu|card|junction|hot ?spot|vram)\s+(?:junction\s+|core\s+|memory\s+)?temp(?:erature)?s?\s+(?:(?:steadily|quickly|slowly|always|then|keeps?)\s+)?(?:(?:is|was|are|were|gets?|got|goes|went|rises?|rose|climbs?|climbed|reach(?:es|ed)?|reaching|hits?|approach(?:es|ed|ing)?|increases?|increased|increasing)\s+)?(?:up\s+)?(?:to\s+|at\s+)?(?:near\s+|close to\s+|almost\s+)?(?:the\s+)?critical\b` +
	`|\bapproach(?:es|ed|ing)?\s+(?:the\s+)?critical\s+(?:gpu\s+|junction\s+|hot ?spot\s+)?temp(?:erature)?s?\b` +
	// "an unstable overclock", "undervolting of my graphics card".
	`|\bunstable\s+(?:overclock|undervolt|oc\b)|\b(?:my|the)\s+undervolt(?:ing)?\b|\bundervolting\s+(?:of\s+)?(?:my|the)\b` +
	// The failure put down to the clocks: "the GPU crashes due to high OC
	// values", "errors because of the overclock".
	`|\b(?:due to|because of|caused by)\s+(?:an?\s+|the\s+|my\s+|too\s+)?(?:high|aggressive|unstable|too high)?\s*(?:oc|overclock(?:s|ing)?)\b` +
	// The same statements in Chinese: the graphics card is broken or
	// faulty ("显卡坏了", "把我显卡给跑坏"), a hardware problem ("硬件问题").
	`|显卡[^。，,.!?！？\n没不无]{0,6}?(?:坏|故障|出问题|有问题)|硬件(?:问题|故障)`)

// hardwareClocksRE is a clock setting the report states: an overclock is
// a likely cause of a fault the GPU hides behind, but no failure by
// itself.
var hardwareClocksRE = lazyre.New(`(?i)` +
	// A clock offset the report states: "+125 MHz core", "+600 memory
	// clock", "+125 on Core GPU Boost Clock", "core clock: +150"; and
	// "the cards are overclocked", "Overclock: 100% power".
	`\+\s?\d{2,4}\s*(?:MHz\b|(?:on\s+)?(?:core|memory|mem)\b(?:\s+(?:gpu\s+)?(?:boost\s+)?clock\b|\s*(?:[,;)]|$)))` +
	`|\b(?:core|memory|mem)(?:\s+clock)?\s*(?:offset)?\s*[:=]\s*\+\d{2,4}\b` +
	`|\b(?:gpus?|cards?|it)\s+(?:is|are|was|were)\s+overclocked\b|^\s*overclock\s*:\s*\S` +
	// A card that fails at its overclock: "susceptible to hard memory
	// errors when overclocked", "errors only while overclocked", "I keep
	// that card less overclocked than the others".
	`|\b(?:when|while|if|once|less|more|heavily|slightly|too)\s+overclocked\b`)

// hardwareTraceRE is a trace the card leaves in the kernel log that is no
// failure by itself but tells a fault beside it apart from a program's bug:
// Xid 63, a DRAM row marked for remapping (or a page for retirement) after a
// memory error, whose recovery in NVIDIA's catalog is to go on. Beside an
// access fault or a failed launch it names the memory the kernel read.
//
// The card's link and heat leave such traces too. A corrected PCIe error
// (AER) is retried by the link and harmless alone, but beside an unknown
// error or a failed launch it shows a link that drops bits: a riser, a
// slot, a cable. A GPU at 90 °C or more is at the temperature where the
// board slows itself down (nvidia-smi -q's "HW Thermal Slowdown :
// Active"), told in an nvidia-smi table row ("| 30%   92C    P2 ...") or
// in prose ("the GPU temperature reaches 97C"); 80-89 °C is a card
// working hard within its limits and says nothing.
var hardwareTraceRE = lazyre.New(`NVRM: Xid \([^)]*\): 63,|\bRow Remapper: New row marked for remapping\b|\bDynamic Page Retirement: New retired page\b` +
	`|\bPCIe Bus Error: severity=Correct(?:ed|able)\b|\bAER: Correct(?:ed|able) error (?:received|message)\b` +
	`|^\|\s*(?:\d{1,3}%|N/A)\s+(?:9\d|1[0-2]\d)C\s+P\d{1,2}\b|\b[HS]W Thermal Slowdown\s*:\s*Active\b` +
	`|(?i:\b(?:gpu|card|core|hot ?spot|junction|vram|memory)\s+(?:temp(?:erature)?s?)\s*(?:(?:is|was|were|are|of|at|reach(?:es|ed)?|reaching|hits?|hitting|climbs?(?: to)?|climbed(?: to)?|rises to|rose to|(?:goes|went|gets|got) (?:up )?to|up to|[:=~])\s*)+(?:around |about |over |~)?(?:9\d|1[0-2]\d)(?:\.\d)?\s?°?\s?C\b)`)

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
	"overclock", "Overclock", " OC ", " oc ", "显卡", "硬件",
	"MHz", "clock", " lost", "disappear", "vanish", "missing", "emperature", "temp", "Temp", "TEMP", "Thermal", "AER", "PCIe Bus Error", "C  P", "Clock", ": +", ":+", "=+", "= +", "+1", "+2", "+3", "+4", "+5", "+6", "+7", "+8", "+9"}

// hardwareSurfaces are the classes a failing GPU hides behind: the access
// faults and failed launches of illegal-address, a misaligned address that
// memory too hot or clocked too high returns on one card and not on the
// next (the same kernel runs clean elsewhere), a launch the driver timed
// out and a kernel whose numbers came out NaN; and, in refineByHardwareWords,
// any error nothing else classifies (class other: the driver's unknown
// error, a miner's bare "[CUDA] ERROR gpu 0: ...cu: 487").
var hardwareSurfaces = map[string]bool{"illegal-address": true, "misaligned-address": true, "launch-timeout": true, "nonfinite": true}

// minerRE is a line of a cryptocurrency miner: its name, its pool protocol,
// its hash rate or one of its proof-of-work kernels. A miner runs one
// long-tested kernel around the clock on consumer cards that are commonly
// overclocked, undervolted and hung on risers, so when the driver answers
// such a miner with its unknown error (999, legacy 30: it could not say
// what failed) the card, its clocks or its power are the cause far more
// often than the miner. Only the unknown error is read this way: an
// illegal access or a failed launch from a miner is also what a new miner
// build's own bug looks like.
var minerRE = lazyre.New(`(?i)\b(?:ethminer|cudaminer|ccminer|xmr-?stak\w*|xmrig\w*|excavator|nbminer|t-rex|phoenixminer|lolminer|gminer|nheqminer|ewbf)\b` +
	`|\bCUDA mining\b|\bmining (?:rigs?|pools?|software)\b|\bstratum\b|\b\d+(?:\.\d+)?\s?(?:[kMG]H/s|Sol/s)\b` +
	`|\b(?:cuda_)?(?:cryptonight\w*|daggerhashimoto|ethash\w*|equihash|neoscrypt\w*|lyra2\w*|kawpow|autolykos\w*)\b|\bsalsa_kernel\b`)

// minerWords let the lines minerRE reads reach the parser; every line it
// matches holds one of them.
var minerWords = []string{"miner", "Miner", "MINER", "xmr", "excavator", "t-rex", "T-Rex", "ewbf", "EWBF", "mining", "stratum",
	"H/s", "Sol/s", "cryptonight", "daggerhashimoto", "ethash", "equihash", "neoscrypt", "lyra2", "Lyra2", "kawpow", "autolykos", "salsa_kernel"}

// unknownErrorRE is the driver's unknown error in its spellings.
var unknownErrorRE = lazyre.New(`(?i)\bunknown error\b|\bcudaErrorUnknown\b|\bCUDA_ERROR_UNKNOWN\b|\berror\W{0,3}(?:999|30)\b|\bcudaError 30\b|\(999\)`)

// minerUnknownError returns the index of the first line where a miner's
// unknown error shows, when the input is a miner's, or -1.
func minerUnknownError(texts []string) int {
	miner := false
	for _, t := range texts {
		if minerRE.MatchString(t) {
			miner = true
			break
		}
	}
	if !miner {
		return -1
	}
	for i, t := range texts {
		if unknownErrorRE.MatchString(t) {
			return i
		}
	}
	return -1
}

// hardwareStated returns the index of the first line that states a
// hardware cause or an overclock, or holds the card's memory trace, or -1.
func hardwareStated(texts []string) int {
	return statedBy(texts, hardwareCauseRE, hardwareUnitRE, hardwareClocksRE, hardwareTraceRE)
}

// hardwareFaultStated is hardwareStated without the clock settings and the
// memory traces: the statements that are a failure report by themselves.
func hardwareFaultStated(texts []string) int {
	return statedBy(texts, hardwareCauseRE, hardwareUnitRE)
}

// statedBy returns the index of the first line one of res matches where
// the words before the match do not deny it, or -1.
func statedBy(texts []string, res ...*lazyre.Regexp) int {
	for i, t := range texts {
		for _, re := range res {
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
	at, mined := -2, -2 // not looked for yet
	for _, i := range idx {
		f := &fs[i]
		if !hardwareSurfaces[f.Class] && f.Class != "other" {
			continue
		}
		if at == -2 {
			at = hardwareStated(texts)
		}
		if at >= 0 {
			f.Message = reroot(f, hw, name, lines[at]) + "; the report puts it down to the hardware: " + strings.TrimSpace(lines[at].Text)
			continue
		}
		if f.Class != "other" {
			continue
		}
		if mined == -2 {
			mined = minerUnknownError(texts)
		}
		if mined >= 0 {
			f.Message = reroot(f, hw, name, lines[mined]) + "; a miner's kernel got the driver's unknown error, which on mining cards is most often the card itself (its overclock, its riser or the power supply): " + strings.TrimSpace(lines[mined].Text)
		}
	}
}

// saysHardware: some parsed line of a source states a hardware cause or
// is gpu-burn's mark of a worker that died.
func saysHardware(lines []logparse.Line) bool {
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.Text
	}
	return hardwareFaultStated(texts) >= 0 || gpuBurnDied(texts) >= 0
}

// gpu-burn runs one worker per GPU and prints, in each progress line, a
// GPU's error count followed by "(DIED!)" once its worker stopped
// reporting. A worker that got going and then died under the stress load
// is the card failing under it (fallen off the bus, power, heat); one that
// never got going ("Couldn't init a GPU test: Error in \"load module\"")
// is a build or setup that does not fit the card, and its DIED marks say
// nothing of the hardware.
var gpuBurnDiedRE = lazyre.New(`\berrors:\s+-?\d+\s+\(DIED!\)`)

var gpuBurnInitRE = lazyre.New(`Couldn't init a GPU test`)

// gpuBurnTriggers let gpu-burn's lines reach the parser.
var gpuBurnTriggers = []string{"(DIED!)", "Couldn't init a GPU test"}

// gpuBurnDied returns the index of the first line where gpu-burn marks a
// worker that died after it started, or -1.
func gpuBurnDied(texts []string) int {
	at := -1
	for i, t := range texts {
		if gpuBurnInitRE.MatchString(t) {
			return -1
		}
		if at < 0 && gpuBurnDiedRE.MatchString(t) {
			at = i
		}
	}
	return at
}

// hardwareStatedFinding: where nothing else in a source is a failure, a
// line that states the hardware cause ("one of the GPUs on cn110 is not
// working", "the card crashes due to high OC values") is the report's
// failure itself, told in the words of the person who saw it.
func hardwareStatedFinding(k *kb.KB, name string, lines []logparse.Line, texts []string) (report.Finding, bool) {
	if f, ok := statedFinding(k, "hardware-fault", name, lines, hardwareFaultStated(texts), "the report puts it down to the hardware"); ok {
		return f, true
	}
	return statedFinding(k, "hardware-fault", name, lines, gpuBurnDied(texts), "gpu-burn lost a GPU's worker in the middle of the stress run, which is the card giving out under load (dmesg tells whether it fell off the bus)")
}
