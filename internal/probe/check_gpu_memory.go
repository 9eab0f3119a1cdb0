package probe

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var gpuMemoryCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/gpu-memory", Kind: report.KindProbe, Severity: report.Error,
		Title:   "GPU memory is free for your program",
		Summary: "Reads each visible GPU's memory use and the processes holding it. When other processes (a stale job, a notebook kernel, another user) hold most of the memory, your program runs out of memory at sizes that normally fit.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "oom"},
			{Title: "Fix", Body: "Stop the processes holding the memory, or run on another GPU."},
		},
	},
	Run: runGPUMemory,
}

// Thresholds: warn when half the memory is taken, fail at 90%.
const (
	memWarnFraction  = 0.5
	memErrorFraction = 0.9
)

func runGPUMemory(f *Facts) Result {
	if !f.NVML.Loaded {
		return skip("no driver")
	}
	gpus := f.visibleGPUs()
	if len(gpus) == 0 {
		return skip("no visible GPU")
	}
	var fs []report.Finding
	var most float64
	for _, g := range gpus {
		if g.MemoryTotal == 0 {
			continue
		}
		frac := float64(g.MemoryUsed) / float64(g.MemoryTotal)
		if frac > most {
			most = frac
		}
		if frac < memWarnFraction {
			continue
		}
		sev := report.Warning
		if frac >= memErrorFraction {
			sev = report.Error
		}
		msg := fmt.Sprintf("GPU %d (%s) already has %s of %s in use (%.0f%%)", g.Index, g.Name, gib(g.MemoryUsed), gib(g.MemoryTotal), 100*frac)
		if len(g.Processes) > 0 {
			msg += " by " + procList(g.Processes)
		}
		fd := finding(sev, msg)
		fd.Facts["used_bytes"] = g.MemoryUsed
		fd.Facts["total_bytes"] = g.MemoryTotal
		if len(g.Processes) > 0 {
			fd.Remedies = append(fd.Remedies, fmt.Sprintf("If it is a stale job of yours, stop it: kill %d", g.Processes[0].PID))
		}
		fd.Remedies = append(fd.Remedies,
			fmt.Sprintf("See who holds it: nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv -i %d", g.Index),
			"Or run on a free GPU: export CUDA_VISIBLE_DEVICES=<free index>")
		fs = append(fs, fd)
	}
	if len(fs) > 0 {
		return failWith(fs...)
	}
	return pass("at most %.0f%% of memory in use on %s", 100*most, plural(len(gpus), "visible GPU", "visible GPUs"))
}
