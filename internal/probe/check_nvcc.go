package probe

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var nvccCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/nvcc-version", Kind: report.KindProbe, Severity: report.Warning,
		Title:   "extension builds: nvcc and TORCH_CUDA_ARCH_LIST fit torch and the GPUs",
		Summary: "Finds the nvcc that torch.utils.cpp_extension would use (CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda) and compares its CUDA version with torch.version.cuda. A different major version makes extension builds fail (\"The detected CUDA version ... mismatches the version that was used to compile PyTorch\"); a different minor only warns. TORCH_CUDA_ARCH_LIST must cover the visible GPUs, and CUDA 13's nvcc no longer compiles for compute capabilities below 7.5.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "library-mismatch"},
			{Title: "Fix", Body: "Point CUDA_HOME at a toolkit with the same CUDA major as torch, or install one; set TORCH_CUDA_ARCH_LIST to the GPUs' architectures."},
		},
	},
	Run: runNVCC,
}

func runNVCC(f *Facts) Result {
	r := runNVCCVersion(f)
	if fs := archListFindings(f); len(fs) > 0 {
		if r.Status == Pass || r.Status == Skip {
			r = failWith(fs...)
		} else {
			r.Findings = append(r.Findings, fs...)
		}
	}
	return r
}

// archListFindings judges TORCH_CUDA_ARCH_LIST, which extension builds
// compile for: it must cover the visible GPUs, and CUDA 13's nvcc no longer
// compiles for compute capabilities below 7.5.
func archListFindings(f *Facts) []report.Finding {
	list, ok := f.Env["TORCH_CUDA_ARCH_LIST"]
	if !ok || strings.TrimSpace(list) == "" {
		return nil
	}
	var entries []string
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ';' || r == ' ' }) {
		if _, ok := ParseArch(e); !ok {
			return nil // named architectures (Ampere...) are not judged
		}
		entries = append(entries, e)
	}
	var fs []report.Finding
	for _, g := range f.visibleGPUs() {
		if g.CCMajor > 0 && !archListRuns(entries, g.CCMajor, g.CCMinor) {
			fd := finding(report.Warning, fmt.Sprintf("TORCH_CUDA_ARCH_LIST=%s does not cover GPU %d %s (%d.%d): CUDA extensions built here fail on it with \"no kernel image is available\"", list, g.Index, g.Name, g.CCMajor, g.CCMinor),
				fmt.Sprintf("Add its architecture: export TORCH_CUDA_ARCH_LIST=\"%s;%d.%d\" (or unset it to build for the GPUs present)", list, g.CCMajor, g.CCMinor))
			fd.Class = "no-kernel-image"
			fs = append(fs, fd)
			break
		}
	}
	if n := f.NVCC; n != nil && cudaMajor(n.Version) >= 13 {
		var old []string
		for _, e := range entries {
			if a, _ := ParseArch(e); a.Major*10+a.Minor < 75 {
				old = append(old, e)
			}
		}
		if len(old) > 0 {
			fd := finding(report.Warning, fmt.Sprintf("TORCH_CUDA_ARCH_LIST=%s asks for %s, which nvcc %s (CUDA 13 and later) no longer compiles: extension builds fail", list, strings.Join(old, ", "), n.Version),
				"Drop the architectures below 7.5 from TORCH_CUDA_ARCH_LIST, or build with a CUDA 12 toolkit")
			fs = append(fs, fd)
		}
	}
	return fs
}

func runNVCCVersion(f *Facts) Result {
	n := f.NVCC
	if n == nil {
		return pass("no nvcc (needed only to build CUDA extensions)")
	}
	if n.Version == "" {
		return skip("%s: %s", n.Path, n.Error)
	}
	t := f.torch()
	if t == nil || t.CUDA == "" {
		return pass("%s (CUDA %s); no CUDA torch to compare with", n.Path, n.Version)
	}
	if cudaMajor(n.Version) != cudaMajor(t.CUDA) {
		fd := finding(report.Warning, fmt.Sprintf("nvcc %s is CUDA %s but torch %s was built with CUDA %s: building CUDA extensions (pip install of packages with CUDA code, torch.utils.cpp_extension) fails",
			n.Path, n.Version, t.Version, t.CUDA),
			fmt.Sprintf("Install a CUDA %d.x toolkit and point to it: export CUDA_HOME=/usr/local/cuda-%s (and PATH=$CUDA_HOME/bin:$PATH)", cudaMajor(t.CUDA), majorMinor(t.CUDA)),
			"Or install the torch variant built for your toolkit: "+pipCommand(torchRelease(t.Version), n.Version))
		fd.Evidence = []report.Evidence{ev(n.Path + ": release " + n.Version), ev("torch.version.cuda = " + t.CUDA)}
		return failWith(fd)
	}
	if majorMinor(n.Version) != majorMinor(t.CUDA) {
		return pass("%s (CUDA %s), torch CUDA %s: same major; extension builds work with a warning", n.Path, n.Version, t.CUDA)
	}
	return pass("%s (CUDA %s) matches torch", n.Path, n.Version)
}
