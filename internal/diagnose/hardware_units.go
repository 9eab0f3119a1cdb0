package diagnose

import "github.com/cudadoctor/cudadoctor/internal/lazyre"

// A failing card also shows itself by comparison, without anyone naming the
// hardware: of several rigs running the same miner only one keeps crashing,
// one of a node's identical GPUs keeps faulting, the job runs fine on the
// other cards, or replacing the card, its riser or the power supply made the
// error go away. The program is the same on every unit, so the unit that
// fails is the cause. Comparisons between GPU models ("fine on an A100,
// fails on an H100") are not among these: a kernel built or tuned for one
// architecture fails on another for reasons of its own.
var hardwareUnitRE = lazyre.New(`(?i)` +
	// "Of my 4 mining rigs only one is crashing consistently."
	`\bonly one (?:of (?:them|my|the|our)(?: \w+){0,3} )?(?:is|keeps|was|kept) (?:crashing|failing|faulting|erroring|dying|dropping)` +
	// "one of the GPUs on cn110 keeps crashing", "one of my 8 cards is faulty".
	`|\bone of (?:my|the|our) (?:\d+ |\w+ )?(?:gpus?|cards?|graphics cards?|rigs?|nodes?|machines?|servers?)\b[^.\n]{0,30}?\b(?:is|keeps|was) (?:crashing|failing|faulty|dying|broken|dropping|not working|lost)` +
	// The error itself put on one unit of several: "I keep on getting one
	// of the GPUs giving this error", "one of my cards throws the same
	// error".
	`|\bone of (?:my|the|our) (?:\d+ )?(?:gpus?|cards?|graphics cards?|rigs?)\s+(?:keeps |kept |always |still )?(?:giving|gives|gave|throwing|throws|threw|showing|shows|reporting|reports|producing|produces) (?:this|that|the|an|the same) (?:error|err|crash|fault)` +
	// An error told as happening on one unit of several, the place right
	// after the error: "I'm having this cuda error (err_no=30) issue on one
	// of my gpu", "the error shows up on one of the cards" (not "the error
	// does not happen on one of my GPUs only"); and "I got 3 gpu's on my system and one is
	// lost from time to time".
	`|\b(?:errors?|issues?|problems?|crash(?:es)?|faults?|failures?)(?:\s+(?:shows? up|showed up|appears?|appeared|occurs?|occurred|happens?|happened))?\s+on (?:only )?one of (?:my|the|our) (?:\d+ )?(?:gpus?|gpu's|cards?|graphics cards?|rigs?)\b` +
	`|\b\d+ (?:gpus?|gpu's|cards?)\b[^.\n]{0,40}?\band one (?:of them )?(?:is|was|gets|keeps|kept) (?:lost|crashing|failing|dropping|falling off)\b` +
	// "it only happens on GPU 3", "this only occurs on one node", "only
	// on one of my GPUs": the fault follows one unit of several.
	`|\bonly (?:ever )?(?:happens?|happened|occurs?|occurred|fails?|failed|crashes|crashed|shows? up|appears?)\s+(?:on|with)\s+(?:one (?:of (?:my|the|our) )?(?:\d+ )?(?:gpus?|cards?|nodes?|machines?|servers?|rigs?)\b|a single (?:gpu|card|node|machine)\b|(?:gpu|card|node)\s*#?\d+\b)` +
	`|\bon (?:one|a single) (?:gpu|card|node|machine) only\b` +
	// "the GPU which keeps crashing has oc -502", "the card that kept
	// dropping out": one unit named among others by its failing.
	`|\bthe (?:gpu|card|graphics card) (?:which|that) (?:keeps|kept) (?:crashing|failing|dropping|falling)` +
	// "the same script runs fine on the other GPUs", "works fine on a spare card".
	`|\b(?:works?|runs?|ran|worked) (?:fine|ok|okay|perfectly|well|without (?:errors?|issues?|problems?)) on (?:the other|a spare|the spare|the second) (?:identical |same )?(?:gpus?|cards?|rigs?|nodes?|machines?)\b` +
	// "on the same hardware a RTX 3060 Ti works fine".
	`|\bon the same (?:hardware|machine|rig|system|computer|motherboard)\b[^.\n]{0,40}?\bworks? fine` +
	// "replacing the riser fixed it", "after swapping the GPU the error went away".
	`|\b(?:replac(?:ed|ing)|swapp(?:ed|ing)|return(?:ed|ing)) (?:the|my|our|that|a) (?:\w+ )?(?:gpus?|cards?|graphics cards?|risers?|psus?|power suppl(?:y|ies))\b[^.\n]{0,60}?\b(?:fix(?:ed|es)|solv(?:ed|es)|resolv(?:ed|es)|no longer|went away|stopped|is gone)` +
	// "换了张显卡没问题了" (another card of the same model, and it works).
	`|换了(?:一)?(?:张|块|个)?(?:显卡|电源|供电)[^。\n]{0,15}?(?:没问题|好了|正常|解决)`)

// hardwareUnitWords let the lines hardwareUnitRE reads reach the parser,
// as hardwareWords do for hardwareCauseRE; every line it matches holds one.
var hardwareUnitWords = []string{"only one", "Only one", "one of my", "one of the", "one of our", "One of my", "One of the", "One of our",
	" fine on", " ok on", " okay on", "perfectly on", " well on", " on the other", " on a spare", " on the spare", " on the second",
	"same hardware", "same machine", "same rig", "same system", "same computer", "same motherboard",
	"eplaced", "eplacing", "wapped", "wapping", "eturned", "eturning", "换了", "keeps crashing", "kept crashing",
	"keeps failing", "kept failing", "only happen", "only occur", "only fail", "only crash", "only show", "only appear",
	"Only happen", "Only occur", "Only fail", "Only crash", "Only show", "Only appear",
	"only ever", "on one of", "On one of", "and one ", "GPU only", "gpu only", "card only", "node only", "machine only", "keeps dropping", "kept dropping", "keeps falling", "kept falling"}
