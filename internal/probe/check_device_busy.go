package probe

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/nvml"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

var deviceBusyCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/device-busy", Kind: report.KindProbe, Severity: report.Error,
		Title:   "GPUs accept new CUDA processes (compute mode, MIG)",
		Summary: "Reads each visible GPU's compute mode and MIG state. Prohibited mode refuses every CUDA context; Exclusive_Process lets one process in, so a second one (another rank, a DataLoader worker touching CUDA) gets \"all CUDA-capable devices are busy or unavailable\"; MIG enabled without instances leaves nothing to run on.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "device-busy"},
			{Title: "Fix", Body: "Set the compute mode back to Default (sudo nvidia-smi -i N -c DEFAULT), stop the process holding an exclusive GPU, or create MIG instances."},
		},
	},
	Run: runDeviceBusy,
}

func procList(ps []nvml.Process) string {
	var parts []string
	for i, p := range ps {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-3))
			break
		}
		name := p.Name
		if name == "" {
			name = "?"
		}
		parts = append(parts, fmt.Sprintf("pid %d %s (%s)", p.PID, name, gib(p.UsedMemory)))
	}
	return strings.Join(parts, ", ")
}

func runDeviceBusy(f *Facts) Result {
	if !f.NVML.Loaded {
		return skip("no driver")
	}
	gpus := f.visibleGPUs()
	if len(gpus) == 0 {
		return skip("no visible GPU")
	}
	var fs []report.Finding
	for _, g := range gpus {
		id := fmt.Sprintf("GPU %d (%s)", g.Index, g.Name)
		switch g.ComputeMode {
		case "Prohibited":
			fd := finding(report.Error, id+" is in Prohibited compute mode: no process can create a CUDA context on it",
				fmt.Sprintf("sudo nvidia-smi -i %d -c DEFAULT", g.Index))
			fd.Evidence = []report.Evidence{ev("compute mode: Prohibited")}
			fs = append(fs, fd)
		case "Exclusive_Process", "Exclusive_Thread":
			if len(g.Processes) > 0 {
				fd := finding(report.Error, fmt.Sprintf("%s is in %s compute mode and already held by %s: another process gets \"all CUDA-capable devices are busy or unavailable\"", id, g.ComputeMode, procList(g.Processes)),
					fmt.Sprintf("Stop the holder (kill %d) or use another GPU (CUDA_VISIBLE_DEVICES)", g.Processes[0].PID),
					fmt.Sprintf("Or allow sharing: sudo nvidia-smi -i %d -c DEFAULT", g.Index))
				fd.Evidence = []report.Evidence{ev("compute mode: " + g.ComputeMode)}
				fs = append(fs, fd)
			} else {
				fd := finding(report.Warning, fmt.Sprintf("%s is in %s compute mode: only one process may use it, so multi-process jobs (several ranks, CUDA in DataLoader workers) fail with \"busy or unavailable\"", id, g.ComputeMode),
					fmt.Sprintf("If more than one process must share it: sudo nvidia-smi -i %d -c DEFAULT", g.Index))
				fd.Evidence = []report.Evidence{ev("compute mode: " + g.ComputeMode)}
				fs = append(fs, fd)
			}
		}
		if g.MIGMode == "Enabled" && len(g.MIGDevices) == 0 {
			fd := finding(report.Error, id+" has MIG enabled but no MIG instance exists: CUDA has nothing to run on",
				fmt.Sprintf("Create instances: sudo nvidia-smi mig -i %d -cgi <profile> -C (list profiles with nvidia-smi mig -lgip)", g.Index),
				fmt.Sprintf("Or disable MIG: sudo nvidia-smi -i %d -mig 0 (then reset the GPU)", g.Index))
			fd.Evidence = []report.Evidence{ev("MIG mode: Enabled, instances: 0")}
			fs = append(fs, fd)
		}
		if g.MIGPending != "" && g.MIGMode != "" && g.MIGPending != g.MIGMode {
			fd := finding(report.Warning, fmt.Sprintf("%s has a pending MIG mode change (%s -> %s) that needs a GPU reset", id, g.MIGMode, g.MIGPending),
				fmt.Sprintf("sudo nvidia-smi -r -i %d (with no process on the GPU)", g.Index))
			fs = append(fs, fd)
		}
	}
	if len(fs) > 0 {
		return failWith(fs...)
	}
	modes := map[string]bool{}
	for _, g := range gpus {
		m := g.ComputeMode
		if m == "" {
			m = "unknown"
		}
		modes[m] = true
	}
	var ms []string
	for m := range modes {
		ms = append(ms, m)
	}
	return pass("compute mode %s on %s", strings.Join(ms, "/"), plural(len(gpus), "GPU", "GPUs"))
}
