package diagnose

import (
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// cpuBuildTriggers let the lines that name a CPU-only PyTorch build reach
// the parser: a "+cpu" version (ending in a digit, written here with its
// dot so that each trigger is long enough for the pre-filter), conda's
// cpuonly package and "_cpu_0" build strings, conda-forge's package names.
var cpuBuildTriggers = []string{".0+cpu", ".1+cpu", ".2+cpu", ".3+cpu", ".4+cpu", ".5+cpu", ".6+cpu", ".7+cpu", ".8+cpu", ".9+cpu",
	"cpuonly", "_cpu_0", "pytorch-cpu", "pytorch_cpu"}

// saysCPUBuild: some line of the source's events may name a CPU-only
// build (a cheap test before its facts are read).
func saysCPUBuild(s *source) bool {
	for _, l := range eventLines(s) {
		if strings.Contains(l.Text, "cpu") || strings.Contains(l.Text, "PyTorch: ") || strings.Contains(l.Text, "torch.version.cuda") {
			return true
		}
	}
	return false
}

// eventLines are every line of the source's events, a joined line's parts
// each on its own (sourceLines keeps one text per line number; a conda
// list's fixed-width rows may have been joined and split again).
func eventLines(s *source) []logparse.Line {
	var all []logparse.Line
	for i := range s.events {
		all = append(all, s.events[i].Lines...)
		for _, e := range s.events[i].Chain {
			all = append(all, e.Lines...)
		}
	}
	return all
}

// cpuBuildFinding: a paste that shows a CPU-only PyTorch build next to an
// NVIDIA GPU, a driver, or the CUDA version the user installed or asked
// for ("cudatoolkit=11.3", "CUDA 12.1") is the failure itself when nothing
// else in the input is (the caller asks only then): that build cannot use
// the GPU. A CPU build alone is not: CPU runners and CI print their
// environment too.
func cpuBuildFinding(k *kb.KB, s *source, lines []logparse.Line, p *probe.Pasted) (report.Finding, bool) {
	name := s.name
	if p != nil {
		if py := p.Facts.Python; py != nil && py.Torch != nil && py.Torch.CUDA != "" {
			// The paste also shows a CUDA build: two environments side by side.
			return report.Finding{}, false
		}
	}
	all := eventLines(s)
	texts := make([]string, len(all))
	for i, l := range all {
		texts[i] = l.Text
	}
	i, ok := probe.CPUBuildLine(texts)
	if !ok {
		return report.Finding{}, false
	}
	at := all[i]
	var gpu logparse.Line
	if p != nil {
		for _, fact := range []string{"gpu", "driver", "stated"} {
			if j, found := p.Lines[fact]; found {
				gpu, ok = lines[j], true
				break
			}
			ok = false
		}
	} else {
		// Too little for FromText to read (a conda plan names no torch
		// version it knows): the CUDA version asked for is enough.
		var j int
		if j, ok = probe.StatedCUDALine(texts); ok {
			gpu = all[j]
		}
	}
	if !ok {
		return report.Finding{}, false
	}
	var more []logparse.Line
	if gpu.N != at.N {
		more = append(more, gpu)
	}
	return standingFinding(k, "cuda-unavailable", name,
		"PyTorch is a CPU-only build ("+strings.Join(strings.Fields(at.Text), " ")+") on a machine with an NVIDIA GPU: it cannot use the GPU",
		at, more...)
}
