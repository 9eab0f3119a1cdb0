package diagnose

import (
	"slices"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Users name their GPU the short way in prose: "GPU: 3080", "on a 4090",
// "my 2080ti", "4x A6000 cards", "A100-SXM4". The pasted-facts reader
// knows a GPU by its full product name, so such a line is rewritten to the
// full name ("RTX 3080", "NVIDIA A6000") before the facts are read; the
// architecture checks then judge it as they judge a collect_env line.
//
// A bare number is a GPU only next to a GPU word or a possessive phrase:
// "step 3080", "1080p", "1080 x 720", a port or a PID are not.

// geforceModels are the GeForce model numbers a bare number may name (GTX
// 750 to RTX 5090, x50-x90 only: "RTX 4000"-"RTX 8000" are workstation
// cards a bare number cannot tell from anything else). The pattern, the
// prefilter's triggers and the gate before the patterns all read them.
var geforceModels = []string{"750", "760", "770", "780", "950", "960", "970", "980",
	"1050", "1060", "1070", "1080", "1650", "1660", "2060", "2070", "2080",
	"3050", "3060", "3070", "3080", "3090", "4050", "4060", "4070", "4080", "4090",
	"5050", "5060", "5070", "5080", "5090"}

// gpuModel is the short form of a GPU: a GeForce model number or a
// data-center name.
var gpuModel = `((?:` + strings.Join(geforceModels, "|") + `)(?:\s?(?:ti|super))?|` +
	`[AHB]100|[AH]800|H200|B200|V100|P100|P40|K80|A[4-6]000|A40|L40s?|A10g?|T4|L4)`

var (
	// "GPU: 3080", "gpu is 2080ti", "Graphics card: 1660 super", "VGA 1080",
	// "GPU(s): 2x 3090", "nvidia 3090".
	gpuAfterWordRE = lazyre.New(`(?i)\b(?:gpus?|cards?|graphics|vga|device|nvidia)(?:\(s\))?\s*(?:is|are|:|=|-)?\s*(?:an?\s+|\d\s*x\s*)?` + gpuModel + `s?\b`)
	// "3080 GPU", "two 3090s cards", "A6000 (48GB) gpu".
	gpuBeforeWordRE = lazyre.New(`(?i)\b` + gpuModel + `s?\s*(?:\(\d+\s*gb\)\s*)?(?:gpus?|cards?|graphics)\b`)
	// "on a 4090", "with my 2080 Ti", "using 8 A100s", "have two 3090s".
	gpuPhraseRE = lazyre.New(`(?i)\b(?:on|with|using|have|has|got|own|bought|in)\s+(?:an?|my|the|our|one|two|four|eight|\d+\s*x?)\s+` + gpuModel + `s?\b`)
	// "I use 3060.", "we have 2 3090s", "I am using 2080 Ti right now": a
	// bare number after a first-person subject and a verb of owning or
	// using; with no article it is a GPU only where the phrase ends after
	// it (gpuSubjectEndRE), so "I have 1080 images" is not one.
	gpuSubjectRE    = lazyre.New(`(?i)\b(?:i|we)(?:\s+am|'m|\s+are|'re)?\s+(?:use|using|have|had|got|own|bought|run|running|tried|trying)\s+(?:an?\s+|my\s+|one\s+|two\s+|four\s+|eight\s+|\d\s*x?\s*)?` + gpuModel + `s?\b`)
	gpuSubjectEndRE = lazyre.New(`(?i)^\s*(?:$|[.,;:!?)(/]|(?:gpus?|cards?|graphics|right|now|and|but|with|on|in|for|which|that|here|too|as|at|to)\b)`)
	// Chinese and Korean prose glues the number to its words: "我有一个3060
	// 和一个4070", "物理机：4090", "3090으로 업그레이드", "切换到4090上"
	// (after a counter, "use", "is", a colon or "card"; before a Korean
	// particle, "on" or "graphics card").
	gpuCJKBeforeRE = lazyre.New(`(?:个|块|张|台|用|是|：|卡)\s*` + gpuModel + `s?\b`)
	gpuCJKAfterRE  = lazyre.New(`(?i)\b` + gpuModel + `(?:으로|로|에서|를|을|이|가|는|은|에|上|显卡|顯卡)`)
	// nvidia-smi tables of older drivers name data-center cards without
	// "NVIDIA": "|   0  A100-SXM4-40GB  On |", "Tesla" is gone since.
	gpuFormFactorRE = lazyre.New(`\b([AHB]100|[AH]800|H200|B200)[-\s](?:SXM|PCIE)`)
	// What follows a number that is not a GPU: "1080p", "1080 x 720",
	// "2080.5", "3090:1", "1080 MB".
	notAfterGPURE = lazyre.New(`(?i)^(?:p\b|\s*[x×*]\s*\d|[.:,]\d|\s*(?:mhz|mb|mib|ms|px|k\b))`)
)

// gpuWordTriggers let the lines naming a GPU the short way reach the
// parser: the forms gpuAfterWordRE and friends read, for each GeForce model
// number (a data-center name carries its own trigger: "A100-S", "NVIDIA A").
var gpuWordTriggers = func() []string {
	var out []string
	for _, m := range geforceModels {
		out = append(out, "GPU:"+m, "GPU: "+m, "gpu:"+m, "gpu: "+m, "a "+m, "my "+m, m+" GPU", m+" gpu", m+"ti", m+"Ti", m+" Ti", m+" card",
			"use "+m, "using "+m, "have "+m)
	}
	out = append(out, "A100-S", "A100-P", "H100-S", "H100-P", "A800-S", "H800-P", "A6000", "A5000", "A4000")
	for _, m := range geforceModels {
		if len(m) == 4 {
			out = append(out, "个"+m, "："+m, "是"+m, "用"+m, m+"으로", m+"를", m+"에서", m+"上", m+"显卡")
		}
	}
	// A capability printed without a name the table knows (the probe's
	// readArchLine reads these lines).
	out = append(out, "compute capability", "Min Comp Cap", "(arch=", " minor: ", "get_device_capability")
	// A trigger shorter than minTrigger would slow every scan: the short
	// ones ("a 950", "A6000") are taken with the space before them.
	for i, t := range out {
		if len(t) < minTrigger {
			out[i] = " " + t
		}
	}
	return out
}()

// expandGPUNames rewrites the short GPU names of one line to the names the
// facts reader knows, and returns the line unchanged when it has none.
func expandGPUNames(l string) string {
	if !strings.ContainsAny(l, "0123456789") {
		return l
	}
	out := l
	w := newGPUWords(out)
	for _, g := range gpuNameREs {
		if !w.may(g.words) {
			continue
		}
		re := g.re
		var b strings.Builder
		last := 0
		for _, m := range re.FindAllStringSubmatchIndex(out, -1) {
			lo, hi := m[2], m[3]
			if notAfterGPURE.MatchString(out[m[1]:]) || namedBefore(out[:lo], out[lo:hi]) ||
				g.end != nil && !g.end.MatchString(out[m[1]:]) {
				continue
			}
			b.WriteString(out[last:lo])
			b.WriteString(fullGPUName(out[lo:hi]))
			last = hi
		}
		if last > 0 {
			b.WriteString(out[last:])
			out = b.String()
			w = newGPUWords(out)
		}
	}
	if !strings.Contains(out, "SXM") && !strings.Contains(out, "PCIE") {
		return out
	}
	return gpuFormFactorRE.ReplaceAllStringFunc(out, func(m string) string {
		if i := strings.Index(out, m); i >= 0 && namedBefore(out[:i], m) {
			return m
		}
		return "NVIDIA " + m
	})
}

// gpuNameREs are the rewriting patterns in the order they run, each with
// the lower-case words one of which it needs besides a model (none: the
// model alone) and, where set, what the text after a match must begin with.
var gpuNameREs = []struct {
	re    *lazyre.Regexp
	words []string
	end   *lazyre.Regexp
}{
	{gpuAfterWordRE, []string{"gpu", "card", "graphics", "vga", "device", "nvidia"}, nil},
	{gpuBeforeWordRE, []string{"gpu", "card", "graphics"}, nil},
	{gpuPhraseRE, nil, nil},
	{gpuSubjectRE, []string{"i ", "we ", "i'm", "we're"}, gpuSubjectEndRE},
	// Read only on lines with non-ASCII bytes, which the word gate always
	// lets through.
	{gpuCJKBeforeRE, []string{"\x80"}, nil},
	{gpuCJKAfterRE, []string{"\x80"}, nil},
}

// gpuModelWords: every name gpuModel matches holds one of these, in lower
// case. Most lines with a digit hold none, and the three case-folding
// patterns above are then not run on them.
var gpuModelWords = append(slices.Clone(geforceModels),
	"a100", "h100", "b100", "a800", "h800", "h200", "b200", "v100", "p100", "p40", "k80",
	"a4000", "a5000", "a6000", "a40", "l40", "a10", "t4", "l4")

// gpuWords is a line as the model and word gates read it: all is set for
// a line with non-ASCII bytes, which is always read (two of them fold to
// 'k' and 's' in a case-insensitive pattern).
type gpuWords struct {
	lower string
	model bool
	all   bool
}

func newGPUWords(l string) gpuWords {
	for i := 0; i < len(l); i++ {
		if l[i] >= 0x80 {
			return gpuWords{all: true}
		}
	}
	w := gpuWords{lower: strings.ToLower(l)}
	for _, m := range gpuModelWords {
		if strings.Contains(w.lower, m) {
			w.model = true
			break
		}
	}
	return w
}

// may: the line may hold a model and one of words (any when words is nil).
func (w gpuWords) may(words []string) bool {
	if w.all {
		return true
	}
	if !w.model {
		return false
	}
	if words == nil {
		return true
	}
	for _, x := range words {
		if strings.Contains(w.lower, x) {
			return true
		}
	}
	return false
}

// seriesBeforeRE: the number already follows its series ("RTX 3080",
// "GeForce 1080"), so it is whole; a data-center name is whole after its
// brand too ("Tesla V100", "NVIDIA A100"), a GeForce number is not
// ("nvidia 3090" is the RTX 3090).
var (
	seriesBeforeRE = lazyre.New(`(?i)(?:rtx|gtx|geforce|quadro|titan|gt|mx)[\s-]?$`)
	brandBeforeRE  = lazyre.New(`(?i)(?:rtx|tesla|nvidia)[\s-]?$`)
)

func namedBefore(before, model string) bool {
	if model[0] >= '0' && model[0] <= '9' {
		return seriesBeforeRE.MatchString(before)
	}
	return brandBeforeRE.MatchString(before)
}

// fullGPUName: "3080" is an RTX 3080, "1080ti" a GTX 1080 Ti, "a6000" an
// NVIDIA A6000.
func fullGPUName(model string) string {
	if model[0] < '0' || model[0] > '9' {
		return "NVIDIA " + strings.ToUpper(model)
	}
	n := 0
	for n < len(model) && model[n] >= '0' && model[n] <= '9' {
		n++
	}
	num, rest := model[:n], strings.TrimSpace(model[n:])
	series := "RTX "
	if len(num) == 3 || num[0] == '1' {
		series = "GTX "
	}
	if rest != "" {
		rest = " " + strings.ToUpper(rest[:1]) + strings.ToLower(rest[1:])
	}
	return series + num + rest
}

// gpuFailure: the finding is a failure on the GPU itself, a class of its
// own or an unclassified error that carries a CUDA or library status. A
// build that runs the GPU through PTX explains only such a failure: an
// OSError after TensorFlow's PTX warning on an H100 is not one.
func gpuFailure(f *report.Finding) bool {
	if f.Class != "other" {
		return true
	}
	_, ok := f.Facts["status"]
	return ok
}
