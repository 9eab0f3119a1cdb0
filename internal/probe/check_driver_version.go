package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var driverVersionCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/driver-version", Kind: report.KindProbe, Severity: report.Error,
		Title:   "driver new enough for the CUDA torch was built with",
		Summary: "Compares the driver with the CUDA version of the torch build (torch.version.cuda). A driver older than the CUDA major's minimum cannot run the build at all (\"The NVIDIA driver on your system is too old\"); one between that and the toolkit's own driver runs with minor-version compatibility, without JIT of newer PTX.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "driver-too-old"},
			{Title: "Fix", Body: "Upgrade the driver to at least the version named, or install a torch wheel built for a CUDA the driver supports."},
		},
	},
	Run: runDriverVersion,
}

func runDriverVersion(f *Facts) Result {
	t := f.torch()
	if t == nil || t.CUDA == "" {
		return skip("no CUDA torch build to compare with")
	}
	if !f.NVML.Loaded && !f.CUDA.Loaded {
		return skip("no driver")
	}
	drv, haveDrv := ParseDriverVersion(f.NVML.DriverVersion)
	req, known := RequirementFor(t.CUDA)
	drvCUDA := f.driverCUDA()
	wheelMajor := cudaMajor(t.CUDA)
	label := fmt.Sprintf("torch %s (CUDA %s)", t.Version, t.CUDA)
	// Forward compatibility: libcuda newer than the kernel driver's CUDA.
	compat := f.CUDA.Version > 0 && f.NVML.CUDAVersion > 0 && f.CUDA.Version > f.NVML.CUDAVersion
	tooOld := drvCUDA > 0 && drvCUDA/1000 < wheelMajor
	// The oldest driver that runs the build at all: the family minimum
	// (minor-version compatibility), or before CUDA 11, which had none,
	// the toolkit's own driver.
	runsAt := req.Family
	if runsAt[0] == 0 {
		runsAt = req.Full
	}
	if haveDrv && known && driverOlder(f.NVML.DriverVersion, runsAt) && !compat {
		tooOld = true
	}
	if tooOld {
		msg := fmt.Sprintf("driver %s supports CUDA %s, but %s needs driver >= %s", f.NVML.DriverVersion, cudaVersionString(drvCUDA), label, req.Full)
		if req.Family[0] > 0 {
			msg += fmt.Sprintf(" (>= %s with minor-version compatibility)", req.Family)
		}
		if !known {
			msg = fmt.Sprintf("driver %s supports CUDA %s, older than the CUDA %s that %s was built for", f.NVML.DriverVersion, cudaVersionString(drvCUDA), t.CUDA, label)
		} else if drvCUDA == 0 {
			// A pasted driver version without nvidia-smi's "CUDA Version".
			msg = fmt.Sprintf("driver %s is older than the %s that %s needs", f.NVML.DriverVersion, req.Full, label)
		}
		fd := finding(report.Error, msg)
		fd.Evidence = []report.Evidence{ev("driver " + f.NVML.DriverVersion + ", CUDA " + cudaVersionString(drvCUDA)), ev("torch.version.cuda = " + t.CUDA)}
		fd.Facts["driver"] = f.NVML.DriverVersion
		if drvCUDA > 0 {
			fd.Facts["driver_cuda"] = cudaVersionString(drvCUDA)
		}
		fd.Facts["torch_cuda"] = t.CUDA
		if known {
			fd.Facts["min_driver"] = req.Full.String()
			fd.Remedies = append(fd.Remedies, fmt.Sprintf("Upgrade the NVIDIA driver to %s or newer (the R%d branch or later), then reboot", req.Full, req.Full[0]/10*10))
		}
		if alt := wheelForDriver(f, torchRelease(t.Version), drv, haveDrv); alt != "" {
			fd.Remedies = append(fd.Remedies, "Or install a torch built for a CUDA this driver supports: "+pipCommand(torchRelease(t.Version), alt))
		}
		return failWith(fd)
	}
	if compat {
		return pass("driver %s with forward compatibility (libcuda CUDA %s) runs %s", f.NVML.DriverVersion, cudaVersionString(f.CUDA.Version), label)
	}
	if haveDrv && known && driverOlder(f.NVML.DriverVersion, req.Full) {
		fd := finding(report.Warning, fmt.Sprintf("driver %s is older than %s, which CUDA %s wants; %s runs through minor-version compatibility, but PTX JIT of newer code and some newer APIs fail", f.NVML.DriverVersion, req.Full, req.Toolkit, label),
			fmt.Sprintf("Upgrade the NVIDIA driver to %s or newer", req.Full))
		fd.Evidence = []report.Evidence{ev("driver " + f.NVML.DriverVersion), ev("torch.version.cuda = " + t.CUDA)}
		if alt := wheelForDriver(f, torchRelease(t.Version), drv, haveDrv); alt != "" && alt != majorMinor(t.CUDA) {
			fd.Remedies = append(fd.Remedies, "Or install a torch built for a CUDA this driver fully supports: "+pipCommand(torchRelease(t.Version), alt))
		}
		return failWith(fd)
	}
	if !haveDrv {
		return pass("driver CUDA %s runs %s", cudaVersionString(drvCUDA), label)
	}
	return pass("driver %s (CUDA %s) runs %s (needs >= %s)", f.NVML.DriverVersion, cudaVersionString(drvCUDA), label, req.Full)
}

// wheelForDriver picks the CUDA variant of a release for this driver: the
// newest one it runs fully, else the oldest it runs through minor-version
// compatibility; only variants with kernels for every visible GPU; "" when none.
func wheelForDriver(f *Facts, release string, drv DriverVersion, haveDrv bool) string {
	best, bestFamily := "", ""
	newer := func(a, b string) bool { // a newer than b
		return b == "" || cudaMajor(a) > cudaMajor(b) || (cudaMajor(a) == cudaMajor(b) && cudaMinor(a) > cudaMinor(b))
	}
	for _, v := range wheelVariants[release] {
		req, ok := RequirementFor(v.cuda)
		if !ok || !variantRunsGPUs(f, v) {
			continue
		}
		full := haveDrv && !drv.Less(req.Full)
		if !haveDrv && f.driverCUDA() > 0 {
			full = cudaMajor(v.cuda)*1000+cudaMinor(v.cuda)*10 <= f.driverCUDA()
		}
		if full && newer(v.cuda, best) {
			best = v.cuda
		}
		if haveDrv && req.Family[0] > 0 && !drv.Less(req.Family) && (bestFamily == "" || newer(bestFamily, v.cuda)) {
			bestFamily = v.cuda
		}
	}
	if best != "" {
		return best
	}
	return bestFamily
}

func cudaMinor(v string) int {
	parts := strings.Split(strings.TrimSpace(v), ".")
	if len(parts) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}

func variantRunsGPUs(f *Facts, v wheelVariant) bool {
	list := append([]string{}, v.archs...)
	if v.ptx != "" {
		list = append(list, v.ptx+"+PTX")
	}
	for _, g := range f.visibleGPUs() {
		if g.CCMajor > 0 && !archListRuns(list, g.CCMajor, g.CCMinor) {
			return false
		}
	}
	return true
}
