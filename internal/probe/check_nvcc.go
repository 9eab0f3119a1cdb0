package probe

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var nvccCheck = Check{
	ID: "env/nvcc-version", Class: "library-mismatch", Severity: report.Warning,
	Title:   "nvcc matches torch's CUDA major (for building extensions)",
	Summary: "Finds the nvcc that torch.utils.cpp_extension would use (CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda) and compares its CUDA version with torch.version.cuda. A different major version makes extension builds fail (\"The detected CUDA version ... mismatches the version that was used to compile PyTorch\"); a different minor only warns.",
	Fix:     "Point CUDA_HOME at a toolkit with the same CUDA major as torch, or install one.",
	Run:     runNVCC,
}

func runNVCC(f *Facts) Result {
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
