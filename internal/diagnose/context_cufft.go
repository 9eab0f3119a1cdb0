package diagnose

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/probe"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// cuFFT names no cause for a plan it cannot build or run
// (CUFFT_INTERNAL_ERROR, CUFFT_EXEC_FAILED, CUFFT_SETUP_FAILED). On an Ada
// GPU (compute capability 8.9) that is, in the reports, the cuFFT of CUDA
// 11.7 and older, which has no kernels for sm_89: PyTorch's cu117 wheels
// fail every FFT on an RTX 40xx and its cu118 wheels run them
// (pytorch/pytorch#88038). So where the log names an Ada GPU and states
// no CUDA version that rules the old cuFFT out, the status stands for the
// missing architecture. A CUDA version the log does state is judged by the
// toolkit check instead (env/toolkit-arch).

// cufftUnexplained are the cuFFT statuses that name no cause; the others
// (INVALID_SIZE, ALLOC_FAILED, ...) say what went wrong themselves.
var cufftUnexplained = map[string]bool{
	"CUFFT_INTERNAL_ERROR": true, "CUFFT_EXEC_FAILED": true, "CUFFT_SETUP_FAILED": true,
}

// cufftFirstCUDA is, for a compute capability (10*major+minor), the first
// CUDA release whose cuFFT runs on it, where that is later than the first
// release that compiles for it at all.
var cufftFirstCUDA = map[int]int{89: 118}

// refineCuFFTOnNewGPU makes a cuFFT failure with no stated cause
// no-kernel-image when the pasted facts name a GPU whose architecture the
// cuFFT in use may predate, and reports whether it did.
func refineCuFFTOnNewGPU(f *report.Finding, p *probe.Pasted, lines []logparse.Line, name string) bool {
	if f.Class != "other" || !cufftUnexplained[fmt.Sprint(f.Facts["status"])] || p == nil || p.Facts == nil {
		return false
	}
	for _, g := range p.Facts.NVML.GPUs {
		first, ok := cufftFirstCUDA[g.CCMajor*10+g.CCMinor]
		if !ok {
			continue
		}
		if tk := p.Facts.Toolkit; tk != nil && cudaTenths(tk.Version) >= first {
			return false
		}
		var ev []report.Evidence
		if i, ok := p.Lines["gpu"]; ok && i >= 0 && i < len(lines) {
			ev = append(ev, report.Evidence{Path: name, Line: lines[i].N, Text: lines[i].Text})
		}
		surface := f.Class
		reclass(f, "no-kernel-image")
		f.Severity = report.Error
		f.Message = fmt.Sprintf("%s (sm_%d%d) needs the cuFFT of CUDA %d.%d or newer; an older cuFFT has no kernels for it and fails with %s; the log's %s failure is its symptom",
			g.Name, g.CCMajor, g.CCMinor, first/10, first%10, f.Facts["status"], surface)
		f.Evidence = append(ev, f.Evidence...)
		f.Remedies = append([]string{fmt.Sprintf("Install a build made with CUDA %d.%d or newer (for PyTorch: a cu118 or newer wheel; torch.version.cuda shows the one installed).", first/10, first%10)}, f.Remedies...)
		f.Facts["surface_class"] = surface
		f.Facts["capability"] = fmt.Sprintf("%d.%d", g.CCMajor, g.CCMinor)
		return true
	}
	return false
}

// cudaTenths reads "11.7" (or "11.7.1") as 117; 0 when it is no version.
func cudaTenths(v string) int {
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil || b > 9 {
		return 0
	}
	return a*10 + b
}
