package probe

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// toolkitArchCheck judges what a pasted report says: a CUDA version and a
// GPU. A GPU newer than every architecture that CUDA compiles for (an RTX
// 20xx under CUDA 9, an RTX 30xx under CUDA 10) or older than the oldest it
// still supports has no kernels in that stack: not in the framework, and
// not in its cuBLAS, cuDNN and cuFFT, which is why such reports surface as
// CUBLAS_STATUS_EXECUTION_FAILED, CUDNN_STATUS_EXECUTION_FAILED or
// CUFFT_INTERNAL_ERROR. This holds within one major architecture too: the
// framework's sm_80 code runs on sm_86 by binary compatibility, but the
// libraries pick kernels by architecture and have none for it. A live
// machine's arch list is judged exactly by gpuArchCheck instead, so this
// check reads only Facts.Toolkit, which FromText alone sets.
var toolkitArchCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/toolkit-arch", Kind: report.KindProbe, Severity: report.Error,
		Title:   "the CUDA version a report names knows its GPU's architecture",
		Summary: "Compares the compute capability of each GPU a pasted report names with the range the report's CUDA version compiles for (the torch build's CUDA, a version the user states, the CUDA of the named TensorFlow release, or the newest CUDA of the named torch release's wheels). Outside that range neither the framework nor its cuBLAS/cuDNN has kernels for the GPU.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "no-kernel-image"},
			{Title: "Fix", Body: "Install a build made with a CUDA version that supports the GPU (the finding names the oldest)."},
		},
	},
	Run: runToolkitArch,
}

func runToolkitArch(f *Facts) Result {
	tk := f.Toolkit
	if tk == nil || tk.Version == "" {
		return skip("no CUDA version stated")
	}
	lo, hi := toolkitArchRange(tk.Version)
	if hi == 0 {
		return skip("CUDA %s: architecture range not known", tk.Version)
	}
	for _, g := range f.NVML.GPUs {
		cc := g.CCMajor*10 + g.CCMinor
		if g.CCMajor == 0 || (cc >= lo && cc <= hi) {
			continue
		}
		arch := smArch(g.CCMajor, g.CCMinor)
		var msg, fix string
		sameMajor := cc > hi && cc/10 == hi/10
		if cc > hi {
			msg = fmt.Sprintf("%s (%s) is newer than CUDA %s (%s) knows: that CUDA compiles for %s at most, so the stack has no kernels built for it", g.Name, arch, tk.Version, tk.From, smArch(hi/10, hi%10))
			if sameMajor {
				// Binary compatibility runs the framework's own sm_X0 code,
				// but the libraries' tuned kernels (cuFFT under CUDA 11.7 on
				// sm_89, cuBLAS under CUDA 9 on sm_75) fail.
				msg += "; its own code may run by binary compatibility, but cuBLAS, cuDNN and cuFFT of that CUDA fail on it"
			}
			if v, ok := minToolkitFor(cc); ok {
				fix = fmt.Sprintf("Use a build made with CUDA %d.%d or newer, the first to support %s (for torch: a wheel whose torch.cuda.get_arch_list() includes %s)", v/10, v%10, arch, arch)
			}
		} else {
			msg = fmt.Sprintf("%s (%s) is older than CUDA %s (%s) supports: that CUDA compiles for %s at least", g.Name, arch, tk.Version, tk.From, smArch(lo/10, lo%10))
			fix = "Use a build made with an older CUDA that still supports " + arch + ", or a newer GPU"
		}
		fd := finding(report.Error, msg, fix)
		fd.Facts["capability"] = fmt.Sprintf("%d.%d", g.CCMajor, g.CCMinor)
		fd.Facts["cuda"] = tk.Version
		if sameMajor {
			// Only the libraries' architecture-specific kernels are
			// missing: what fails is a kernel launch, never the creation
			// of a library handle.
			fd.Facts["binary_compatible"] = true
		}
		return failWith(fd)
	}
	return pass("CUDA %s covers the GPUs named", tk.Version)
}

// minToolkitFor is the first CUDA version (10*major+minor) that compiles
// for compute capability cc (10*major+minor).
func minToolkitFor(cc int) (int, bool) {
	from := 0
	for _, r := range toolkitArchs {
		if from > 0 && cc >= r.lo && cc <= r.hi {
			return from, true
		}
		from = r.below
	}
	return 0, false
}
