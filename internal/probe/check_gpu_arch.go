package probe

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var gpuArchCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/gpu-arch", Kind: report.KindProbe, Severity: report.Error,
		Title:   "torch has kernels for every GPU's compute capability",
		Summary: "Compares each visible GPU's compute capability with the architectures the torch build carries (torch.cuda.get_arch_list()). A cubin runs on the same major architecture with an equal or newer minor; PTX can be compiled for any newer GPU. With neither, every kernel fails with \"no kernel image is available for execution on the device\".",
		Sections: []report.DocSection{
			{Title: "Class", Body: "no-kernel-image"},
			{Title: "Fix", Body: "Install the CUDA variant of torch whose arch list includes the GPU (the finding names it)."},
		},
	},
	Run: runGPUArch,
}

type gpuCC struct {
	index        int
	name         string
	major, minor int
}

func runGPUArch(f *Facts) Result {
	t := f.torch()
	if t == nil || t.CUDA == "" {
		return skip("no CUDA torch build to compare with")
	}
	if len(t.ArchList) == 0 {
		return skip("torch %s reports no compiled architectures", t.Version)
	}
	var gpus []gpuCC
	if c := f.Python.CUDA; c != nil && len(c.Devices) > 0 {
		for _, d := range c.Devices {
			gpus = append(gpus, gpuCC{d.Index, d.Name, d.Capability[0], d.Capability[1]})
		}
	} else {
		for _, g := range f.visibleGPUs() {
			if g.CCMajor > 0 {
				gpus = append(gpus, gpuCC{g.Index, g.Name, g.CCMajor, g.CCMinor})
			}
		}
	}
	if len(gpus) == 0 {
		return skip("no visible GPU to compare with")
	}
	archs := strings.Join(t.ArchList, " ")
	seen := map[string]bool{}
	var fs []report.Finding
	var ok []string
	for _, g := range gpus {
		key := fmt.Sprintf("%s/%d.%d", g.name, g.major, g.minor)
		if archListRuns(t.ArchList, g.major, g.minor) {
			if !seen[key] {
				ok = append(ok, fmt.Sprintf("%s %s", g.name, smArch(g.major, g.minor)))
			}
			seen[key] = true
			continue
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		fd := finding(report.Error, fmt.Sprintf("GPU %d %s (%s) is not in the arch list of torch %s (%s) and there is no PTX to compile for it: every CUDA kernel fails with \"no kernel image is available\"",
			g.index, g.name, smArch(g.major, g.minor), t.Version, archs))
		fd.Evidence = []report.Evidence{ev(fmt.Sprintf("torch.cuda.get_device_capability(%d) = (%d, %d)", g.index, g.major, g.minor)), ev("torch.cuda.get_arch_list() = " + archs)}
		for _, w := range f.Python.CUDA.warningsMentioning(smArch(g.major, g.minor), "cuda capability") {
			fd.Evidence = append(fd.Evidence, ev(firstLine(w)))
		}
		fd.Facts["capability"] = fmt.Sprintf("%d.%d", g.major, g.minor)
		rel := torchRelease(t.Version)
		if vs := variantsFor(rel, g.major, g.minor); len(vs) > 0 {
			fd.Remedies = append(fd.Remedies, fmt.Sprintf("Install the CUDA %s variant of torch %s, which has kernels for %s: %s", vs[0], rel, smArch(g.major, g.minor), pipCommand(rel, vs[0])))
			if req, ok := RequirementFor(vs[0]); ok {
				fd.Remedies = append(fd.Remedies, fmt.Sprintf("That build needs driver >= %s (this machine: %s)", req.Full, orUnknown(f.NVML.DriverVersion)))
			}
		} else if r, cuda := newestReleaseFor(g.major, g.minor); r != "" {
			fd.Remedies = append(fd.Remedies, fmt.Sprintf("No CUDA variant of torch %s supports %s; torch %s does: %s", rel, smArch(g.major, g.minor), r, pipCommand(r, cuda)))
		} else {
			fd.Remedies = append(fd.Remedies, fmt.Sprintf("No released torch wheel is known to support %s: build torch from source with TORCH_CUDA_ARCH_LIST=\"%d.%d\"", smArch(g.major, g.minor), g.major, g.minor))
		}
		fs = append(fs, fd)
	}
	if len(fs) > 0 {
		return failWith(fs...)
	}
	return pass("%s covered by %s", strings.Join(ok, ", "), archs)
}

func (c *TorchCUDA) warningsMentioning(needles ...string) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, w := range c.Warnings {
		for _, n := range needles {
			if strings.Contains(w, n) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
