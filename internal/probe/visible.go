package probe

import (
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/nvml"
)

// VisibleEntry is one item of CUDA_VISIBLE_DEVICES, resolved against the
// GPUs the driver knows.
type VisibleEntry struct {
	Text string `json:"text"`
	// GPU is the NVML index it names, -1 when it names none.
	GPU int `json:"gpu"`
	// Why it is invalid ("" when valid).
	Invalid string `json:"invalid,omitempty"`
}

// Visibility is how CUDA_VISIBLE_DEVICES shapes what CUDA sees.
type Visibility struct {
	Set     bool           `json:"set"`
	Value   string         `json:"value"`
	Entries []VisibleEntry `json:"entries,omitempty"`
	// Visible is how many GPUs CUDA will expose: CUDA stops at the first
	// invalid entry, so "0,5,1" exposes only GPU 0.
	Visible int `json:"visible"`
	// HidesAll is true when the value leaves no GPU visible.
	HidesAll bool `json:"hides_all"`
}

// ParseVisible resolves CUDA_VISIBLE_DEVICES against the GPUs NVML lists
// (which ignores the variable). With no GPU list (no driver), entries are
// only checked for form.
func ParseVisible(value string, set bool, gpus []nvml.GPU, known bool) Visibility {
	v := Visibility{Set: set, Value: value, Visible: len(gpus)}
	if !set {
		return v
	}
	v.Visible = 0
	if strings.TrimSpace(value) == "" {
		v.HidesAll = true
		return v
	}
	stopped := false
	for _, raw := range strings.Split(value, ",") {
		text := strings.TrimSpace(raw)
		e := VisibleEntry{Text: text, GPU: -1}
		switch {
		case text == "":
			e.Invalid = "empty entry"
		case strings.HasPrefix(text, "GPU-") || strings.HasPrefix(text, "MIG-"):
			e.GPU, e.Invalid = matchUUID(text, gpus, known)
		default:
			n, err := strconv.Atoi(text)
			switch {
			case err != nil:
				e.Invalid = "neither an index nor a GPU-/MIG- UUID"
			case n < 0:
				e.Invalid = "negative index (the usual way to hide every GPU)"
			case known && n >= len(gpus):
				e.Invalid = "no such GPU"
			default:
				e.GPU = n
			}
		}
		if e.Invalid == "" && !stopped {
			v.Visible++
		} else if e.Invalid != "" {
			stopped = true
		}
		v.Entries = append(v.Entries, e)
	}
	v.HidesAll = v.Visible == 0
	return v
}

func matchUUID(text string, gpus []nvml.GPU, known bool) (int, string) {
	if !known {
		return -1, ""
	}
	match, n := -1, 0
	for _, g := range gpus {
		if g.UUID != "" && strings.HasPrefix(g.UUID, text) {
			match, n = g.Index, n+1
		}
		for _, m := range g.MIGDevices {
			if strings.HasPrefix(m.UUID, text) {
				match, n = g.Index, n+1
			}
		}
	}
	switch {
	case n == 0:
		return -1, "no GPU or MIG instance has this UUID"
	case n > 1:
		return -1, "ambiguous UUID prefix"
	}
	return match, ""
}

// VisibleGPUs are the NVML indices CUDA will use, in CUDA order.
func (v Visibility) VisibleGPUs(gpus []nvml.GPU) []int {
	if !v.Set {
		out := make([]int, len(gpus))
		for i := range gpus {
			out[i] = gpus[i].Index
		}
		return out
	}
	var out []int
	for _, e := range v.Entries {
		if e.Invalid != "" {
			break
		}
		if e.GPU >= 0 {
			out = append(out, e.GPU)
		}
	}
	return out
}
