package probe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var hardwareCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/hardware", Kind: report.KindProbe, Severity: report.Error,
		Title:   "no hardware faults (ECC, row remapping, Xid, throttling)",
		Summary: "Reads ECC counters, retired pages and remapped rows from NVML, active hardware clock slowdowns, and the NVIDIA Xid lines in the kernel log since boot. Uncorrectable memory errors, failed remapping and critical Xids (48, 64, 74, 79, 95, 119...) mean the GPU, not your code, is at fault.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "hardware-fault"},
			{Title: "Fix", Body: "Reset the GPU (nvidia-smi -r -i N) or reboot as the finding says; recurring faults need hardware service."},
		},
	},
	Run: runHardware,
}

var slowdownReasons = map[string]string{
	"hw_slowdown": "hardware slowdown", "hw_thermal_slowdown": "thermal slowdown",
	"hw_power_brake_slowdown": "power-brake slowdown", "sw_thermal_slowdown": "software thermal slowdown",
}

func runHardware(f *Facts) Result {
	var fs []report.Finding
	for _, g := range f.NVML.GPUs {
		id := fmt.Sprintf("GPU %d (%s)", g.Index, g.Name)
		if e := g.ECC; e != nil && e.Enabled {
			if e.VolatileUncorrected > 0 {
				fd := finding(report.Error, fmt.Sprintf("%s has %d uncorrectable ECC errors since the driver loaded", id, e.VolatileUncorrected),
					fmt.Sprintf("Stop work on it and reset it: sudo nvidia-smi -r -i %d (or reboot)", g.Index),
					"If errors come back, run diagnostics (dcgmi diag -r 3) and contact hardware support")
				fd.Evidence = []report.Evidence{ev(fmt.Sprintf("volatile uncorrected ECC: %d", e.VolatileUncorrected))}
				fs = append(fs, fd)
			} else if e.AggregateUncorrected > 0 {
				fd := finding(report.Warning, fmt.Sprintf("%s has had %d uncorrectable ECC errors in its lifetime", id, e.AggregateUncorrected),
					fmt.Sprintf("Watch it: nvidia-smi -q -d ECC,ROW_REMAPPER -i %d; recurring errors need hardware service", g.Index))
				fd.Evidence = []report.Evidence{ev(fmt.Sprintf("aggregate uncorrected ECC: %d", e.AggregateUncorrected))}
				fs = append(fs, fd)
			}
		}
		if r := g.RemappedRows; r != nil {
			if r.Failure {
				fd := finding(report.Error, id+" failed to remap a memory row: its memory is no longer reliable",
					fmt.Sprintf("Reset it (sudo nvidia-smi -r -i %d); if the failure stays, the board needs service", g.Index))
				fd.Evidence = []report.Evidence{ev("remapped rows: failure occurred")}
				fs = append(fs, fd)
			} else if r.Pending {
				fd := finding(report.Warning, id+" has a memory row remapping pending: it takes effect after a GPU reset",
					fmt.Sprintf("Reset it when idle: sudo nvidia-smi -r -i %d", g.Index))
				fd.Evidence = []report.Evidence{ev("remapped rows: pending")}
				fs = append(fs, fd)
			}
		}
		if p := g.RetiredPages; p != nil && p.Pending {
			fd := finding(report.Warning, fmt.Sprintf("%s has retired pages pending (%d double-bit, %d single-bit): they take effect after a driver reload", id, p.DoubleBit, p.SingleBit),
				fmt.Sprintf("Reset it when idle: sudo nvidia-smi -r -i %d", g.Index))
			fs = append(fs, fd)
		}
		var slow []string
		for _, r := range g.ThrottleReasons {
			if s, ok := slowdownReasons[r]; ok {
				slow = append(slow, s)
			}
		}
		if len(slow) > 0 {
			fd := finding(report.Warning, fmt.Sprintf("%s is throttled right now: %s", id, strings.Join(slow, ", ")),
				fmt.Sprintf("Check temperature and power: nvidia-smi -q -d TEMPERATURE,POWER,PERFORMANCE -i %d; check cooling and power cabling", g.Index))
			fs = append(fs, fd)
		}
	}
	fs = append(fs, xidFindings(f)...)
	if len(fs) > 0 {
		return failWith(fs...)
	}
	msg := "no ECC, row-remapping or throttling problem"
	if len(f.NVML.GPUs) == 0 {
		msg = "no GPU counters to read"
	}
	switch {
	case f.KernelLog != "":
		msg += fmt.Sprintf("; no Xid in the kernel log (%s)", f.KernelLog)
	case f.KernelLogError != "":
		msg += "; kernel log not readable (run as root to include Xid errors)"
	}
	return pass("%s", msg)
}

// xidFindings folds the Xid lines into one finding per Xid number.
func xidFindings(f *Facts) []report.Finding {
	type group struct {
		xid   int
		lines []string
		pcis  map[string]bool
	}
	groups := map[int]*group{}
	for _, x := range f.Xids {
		g := groups[x.Xid]
		if g == nil {
			g = &group{xid: x.Xid, pcis: map[string]bool{}}
			groups[x.Xid] = g
		}
		g.lines = append(g.lines, x.Line)
		if x.PCI != "" {
			g.pcis[x.PCI] = true
		}
	}
	var ids []int
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	var fs []report.Finding
	for _, id := range ids {
		g := groups[id]
		sev, meaning, action := XidMeaning(id)
		var pcis []string
		for p := range g.pcis {
			pcis = append(pcis, p)
		}
		sort.Strings(pcis)
		where := strings.Join(pcis, ", ")
		gpuArg := "<gpu>"
		if len(pcis) == 1 {
			if i := gpuForPCI(f, pcis[0]); i >= 0 {
				where = fmt.Sprintf("GPU %d (%s)", i, pcis[0])
				gpuArg = strconv.Itoa(i)
			}
		}
		msg := fmt.Sprintf("kernel log: Xid %d on %s (%s since boot): %s", id, where, plural(len(g.lines), "time", "times"), meaning)
		action = strings.ReplaceAll(action, "<gpu>", gpuArg)
		fd := finding(sev, msg, strings.ToUpper(action[:1])+action[1:])
		if sev == report.Info {
			fd.Class = "other"
		}
		last := g.lines[len(g.lines)-1]
		fd.Evidence = []report.Evidence{{Text: last, Count: len(g.lines)}}
		fd.Facts["xid"] = id
		fs = append(fs, fd)
	}
	return fs
}

// gpuForPCI finds the GPU whose PCI address the driver printed in an Xid
// ("PCI:0000:2b:00" against NVML's "00000000:2B:00.0"); -1 when none.
func gpuForPCI(f *Facts, pci string) int {
	want := pciKey(strings.TrimPrefix(pci, "PCI:"))
	for _, g := range f.NVML.GPUs {
		if want != "" && pciKey(g.PCIBusID) == want {
			return g.Index
		}
	}
	return -1
}

// pciKey normalises domain:bus:device, dropping the function and leading zeros.
func pciKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return ""
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 16, 32)
		if err != nil {
			return ""
		}
		parts[i] = strconv.FormatUint(n, 16)
	}
	return strings.Join(parts, ":")
}
