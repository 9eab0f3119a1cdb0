package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var visibleDevicesCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/visible-devices", Kind: report.KindProbe, Severity: report.Error,
		Title:   "CUDA_VISIBLE_DEVICES names GPUs that exist",
		Summary: "Resolves every entry of CUDA_VISIBLE_DEVICES (indices, GPU- and MIG- UUIDs) against the GPUs the driver lists. CUDA stops reading the list at the first entry that names no GPU, so \"5\" on a one-GPU machine hides everything and \"0,5,1\" exposes only GPU 0; code then fails with \"invalid device ordinal\" or finds no GPU.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "invalid-device-ordinal"},
			{Title: "Fix", Body: "Set CUDA_VISIBLE_DEVICES to indices or UUIDs that nvidia-smi -L lists, or unset it."},
		},
	},
	Run: runVisibleDevices,
}

// hidesOnPurpose is true for the idioms that hide every GPU on purpose ("" and -1).
func (v Visibility) hidesOnPurpose() bool {
	if strings.TrimSpace(v.Value) == "" {
		return true
	}
	if len(v.Entries) > 0 {
		n, err := strconv.Atoi(v.Entries[0].Text)
		return err == nil && n < 0
	}
	return false
}

func runVisibleDevices(f *Facts) Result {
	v := f.Visible
	if !v.Set {
		if f.NVML.Loaded {
			return pass("not set: %s visible", plural(len(f.NVML.GPUs), "GPU", "GPUs"))
		}
		return pass("not set")
	}
	if v.hidesOnPurpose() {
		return pass("%s hides every GPU (see env/cuda-available)", quoteEnv("CUDA_VISIBLE_DEVICES", v.Value))
	}
	var bad []VisibleEntry
	for _, e := range v.Entries {
		if e.Invalid != "" {
			bad = append(bad, e)
		}
	}
	if len(bad) == 0 {
		return pass("%s: %s visible", quoteEnv("CUDA_VISIBLE_DEVICES", v.Value), plural(v.Visible, "GPU", "GPUs"))
	}
	var what []string
	for _, e := range bad {
		what = append(what, fmt.Sprintf("%q (%s)", e.Text, e.Invalid))
	}
	have := "the driver could not be asked which GPUs exist"
	var valid []string
	if f.NVML.Loaded {
		var ids []string
		for _, g := range f.NVML.GPUs {
			ids = append(ids, strconv.Itoa(g.Index))
		}
		have = fmt.Sprintf("this machine has %s", plural(len(f.NVML.GPUs), "GPU", "GPUs"))
		if len(ids) > 0 {
			have += " (" + strings.Join(ids, ", ") + ")"
		}
		for _, e := range v.Entries {
			if e.Invalid == "" {
				valid = append(valid, e.Text)
			}
		}
	}
	msg := fmt.Sprintf("%s names %s, but %s; CUDA stops at the first invalid entry and exposes %s",
		quoteEnv("CUDA_VISIBLE_DEVICES", v.Value), strings.Join(what, ", "), have, plural(v.Visible, "GPU", "GPUs"))
	fd := finding(report.Error, msg)
	fd.Alternatives = []string{"cuda-unavailable"}
	fd.Evidence = []report.Evidence{ev(quoteEnv("CUDA_VISIBLE_DEVICES", v.Value))}
	fd.Facts["visible"] = v.Visible
	if len(valid) > 0 {
		fd.Remedies = append(fd.Remedies, "Name only GPUs that exist: export CUDA_VISIBLE_DEVICES="+strings.Join(valid, ","))
	} else if f.NVML.Loaded && len(f.NVML.GPUs) > 0 {
		fd.Remedies = append(fd.Remedies, "Name a GPU that exists, e.g. export CUDA_VISIBLE_DEVICES=0, or unset it: unset CUDA_VISIBLE_DEVICES")
	}
	fd.Remedies = append(fd.Remedies, "List the GPUs and their UUIDs: nvidia-smi -L (indices follow PCI order; set CUDA_DEVICE_ORDER=PCI_BUS_ID so CUDA numbers them the same way)")
	return failWith(fd)
}
