package diagnose

import (
	"slices"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Users write GPU names loosely: glued to their series or to the word GPU
// ("RTXA4000", "GPU2080"), in the plural ("4 RTXA4000s", "two A100s"), in
// lower case after a count ("8卡 a100", "a100x8", "8x a100"), or misspelt
// ("Telsa T4"). normaliseLooseGPU rewrites these to the spellings the name
// rewriting (expandGPUNames) and the facts reader know, before either
// runs; a line without them is returned unchanged.

var (
	// "RTXA4000" is the RTX A4000.
	gluedAmpereRE = lazyre.New(`(?i)\b(RTX)(A\d{4})`)
	// "GPU2080", "gpu3090": the word glued to a GeForce model number (not
	// "GPU0000:03:00.0", a PCI address).
	gluedGPUWordRE = lazyre.New(`(?i)\b(GPUs?)(` + strings.Join(geforceModels, "|") + `)\b`)
	// "RTX A4000s", "A100s", "K80s": a plural after a model number.
	pluralGPURE = lazyre.New(`(?i)\b((?:RTX|GTX)[\s-]?A?\d{3,4}(?:\s?(?:Ti|SUPER))?|[AHBV]100|A[456]000|A40|A800|H800|H200|K80|K40|P100|P40|T4)s\b`)
	// A data-center name after a count or a CJK counter ("8卡 a100",
	// "8x a100", "2 x v100") or before one ("a100x8", "A100*4").
	countedDCRE = lazyre.New(`(?i)(\d\s*(?:[x×*]|卡|块|張|张|台)\s*)([AHBV]100|A800|H800|H200|K80|P100)\b`)
	dcCountRE   = lazyre.New(`(?i)\b([AHBV]100|A800|H800|H200|K80|P100)(\s*[x×*]\s*\d+)\b`)
	// "Telsa", a common misspelling of Tesla.
	telsaRE = lazyre.New(`\b(?:Telsa|TELSA|telsa)\b`)
)

// looseGPUTriggers let lines naming a GPU only in these forms reach the
// parser (each at least minTrigger bytes).
var looseGPUTriggers = func() []string {
	out := []string{"Telsa ", "RTXA20", "RTXA40", "RTXA45", "RTXA50", "RTXA60", "rtxa40", "rtxa50", "rtxa60",
		"卡 a100", "卡a100", "卡 A100", "卡A100", "卡 v100", "卡V100", "卡 V100", "卡 h100", "卡H100", "卡 H100",
		"a100x", "A100x", "v100x", "V100x", "h100x", "H100x", "x a100", "x v100", "x h100",
		// Kepler data-center cards named without "Tesla" ("a Nvidia K80").
		"Nvidia K", "NVIDIA K", "nvidia k", " K80 ", " K80,", " K80.", " K80)", "(K80)", " K40 ", " K40m", " K40c", " K20 ", " K20m"}
	for _, m := range geforceModels {
		if len(m) == 4 {
			out = append(out, "GPU"+m, "gpu"+m)
		}
	}
	for i, t := range out {
		if len(t) < minTrigger {
			out[i] = " " + t
		}
	}
	return out
}()

// modelWords: a line holds one of these (lower case) or names no model
// the plural and count rewrites read.
var modelWords = []string{"rtx", "gtx", "100", "000", "a40", "800", "200", "k80", "k40", "p40", "t4s"}

func normaliseLooseGPU(l string) string {
	if !strings.ContainsAny(l, "0123456789") {
		return l
	}
	lower := strings.ToLower(l)
	if strings.Contains(lower, "telsa") {
		l = telsaRE.ReplaceAllString(l, "Tesla")
	}
	if strings.Contains(lower, "rtxa") {
		l = gluedAmpereRE.ReplaceAllString(l, "$1 $2")
	}
	if strings.Contains(lower, "gpu") {
		l = gluedGPUWordRE.ReplaceAllString(l, "$1 $2")
	}
	if !slices.ContainsFunc(modelWords, func(w string) bool { return strings.Contains(lower, w) }) {
		return l
	}
	l = pluralGPURE.ReplaceAllString(l, "$1")
	l = countedDCRE.ReplaceAllStringFunc(l, func(m string) string {
		sub := countedDCRE.FindStringSubmatch(m)
		return sub[1] + "NVIDIA " + strings.ToUpper(sub[2])
	})
	return dcCountRE.ReplaceAllStringFunc(l, func(m string) string {
		sub := dcCountRE.FindStringSubmatch(m)
		return "NVIDIA " + strings.ToUpper(sub[1]) + " " + strings.TrimSpace(sub[2])
	})
}
