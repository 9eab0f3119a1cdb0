package probe

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// legacyGPUCheck judges a pasted report that names only Kepler-or-older
// GPUs and no build at all: no torch version, no CUDA version. Such a
// report most often runs a current framework build, and current builds
// carry no code for those cards: PyTorch wheels stopped at sm_37 as their
// oldest target with 1.3, and the default wheels since 2.1 (CUDA 12.x)
// start at sm_50; CUDA 12 itself cannot compile for Kepler. A K80 or K40
// then fails at its first library call, which surfaces as
// CUDNN_STATUS_NOT_INITIALIZED, CUDNN_STATUS_ARCH_MISMATCH or a cuBLAS
// status instead of "no kernel image". A report that names its versions
// is judged by toolkitArchCheck and gpuArchCheck instead, and one that
// also names a newer GPU ("it works on the K80, fails on the T4") is left
// to them.
var legacyGPUCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/legacy-gpu", Kind: report.KindProbe, Severity: report.Error,
		Title:   "a report on a Kepler-or-older GPU names no build that still supports it",
		Summary: "A pasted report whose every named GPU is older than sm_50 (Kepler: K80, K40, GTX 780, Quadro K) and that names no torch or CUDA version: current PyTorch builds (CUDA 12.x wheels start at sm_50; no wheel since 1.3 runs below sm_37) and CUDA 12 itself have no code for those cards.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "no-kernel-image"},
			{Title: "Fix", Body: "Install a build that still targets the card (for sm_37: a PyTorch wheel for CUDA 11.x, at most 2.7 cu118; below sm_37: a source build with an old CUDA), or run on a newer GPU."},
		},
	},
	Run: runLegacyGPU,
}

// legacyBelow is the first compute capability (10*major+minor) every
// current build supports.
const legacyBelow = 50

func runLegacyGPU(f *Facts) Result {
	if f.Toolkit != nil && f.Toolkit.Version != "" {
		return skip("a CUDA version is named: the toolkit check judges it")
	}
	if t := f.torch(); t != nil && (t.Version != "" || t.CUDA != "") {
		return skip("a torch build is named: the arch checks judge it")
	}
	if f.BuildArchs != nil {
		return skip("the build's architectures are printed")
	}
	gpus := f.NVML.GPUs
	if len(gpus) == 0 {
		return skip("no GPU named")
	}
	var names []string
	oldest := 0
	for _, g := range gpus {
		cc := g.CCMajor*10 + g.CCMinor
		if g.CCMajor == 0 || cc >= legacyBelow {
			return pass("a GPU the current builds support is named")
		}
		names = append(names, fmt.Sprintf("%s (%s)", g.Name, smArch(g.CCMajor, g.CCMinor)))
		if oldest == 0 || cc < oldest {
			oldest = cc
		}
	}
	msg := fmt.Sprintf("%s is older than current builds support: CUDA 12 and the PyTorch wheels built with it start at sm_50", strings.Join(names, ", "))
	fix := "Install a build that still targets " + smArch(oldest/10, oldest%10)
	if oldest == 37 {
		fix += " (a PyTorch wheel for CUDA 11.x, e.g. torch 1.13 cu117 or a cu118 wheel up to 2.7)"
	} else {
		msg += "; no PyTorch wheel since 1.3 runs below sm_37"
		fix += " (a source build with a CUDA that still compiles for it)"
	}
	fd := finding(report.Error, msg, fix+", or run on a newer GPU")
	fd.Facts["capability"] = fmt.Sprintf("%d.%d", oldest/10, oldest%10)
	// Inferred from the GPU alone, with no build named: it explains a
	// library that fails to start or run on the card (cuBLAS, cuDNN), not
	// an illegal address or another error older builds also raise there.
	fd.Facts["library_only"] = true
	return failWith(fd)
}
