package probe

import (
	"fmt"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// toolkitDriverCheck judges a pasted report that names a driver and a CUDA
// version but no torch build carrying its own: "host driver 470, container
// CUDA 12.1", TensorFlow 2.11 (CUDA 11.2) on a 418 driver, nvidia-smi's
// "CUDA Version: 11.4" next to a stated CUDA 12.1. A driver older than
// the one that CUDA's family needs runs nothing built with it. Where the
// torch build's own CUDA is known, driverVersionCheck judges instead; this
// check reads only Facts.Toolkit, which FromText alone sets.
var toolkitDriverCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/toolkit-driver", Kind: report.KindProbe, Severity: report.Error,
		Title:   "the driver a report names runs the CUDA version it names",
		Summary: "Compares the driver a pasted report names (nvidia-smi, TensorFlow's kernel version, or the user's words) with the CUDA version the report names when no torch build states its own: a version the user writes, the CUDA of the named TensorFlow release, or the newest CUDA of the named torch release's wheels. A driver older than that CUDA's minimum (its family's, from CUDA 11 on) cannot run it.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "driver-too-old"},
			{Title: "Fix", Body: "Upgrade the driver to at least the version named, or use a build made with a CUDA version the driver supports."},
		},
	},
	Run: runToolkitDriver,
}

func runToolkitDriver(f *Facts) Result {
	if t := f.torch(); t != nil && t.CUDA != "" {
		return skip("the torch build's CUDA is known (env/driver-version)")
	}
	tk := f.Toolkit
	if tk == nil || tk.Version == "" {
		return skip("no CUDA version stated")
	}
	req, known := RequirementFor(tk.Version)
	if !known {
		return skip("CUDA %s: driver requirement not known", tk.Version)
	}
	runsAt := req.Family
	if runsAt[0] == 0 {
		runsAt = req.Full
	}
	label := fmt.Sprintf("CUDA %s (%s)", tk.Version, tk.From)
	drvCUDA := f.driverCUDA()
	var msg string
	switch {
	case f.NVML.DriverVersion != "" && driverOlder(f.NVML.DriverVersion, runsAt):
		msg = fmt.Sprintf("driver %s is older than the %s that %s needs", f.NVML.DriverVersion, runsAt, label)
	case drvCUDA > 0 && drvCUDA/1000 < cudaMajor(tk.Version):
		msg = fmt.Sprintf("the driver supports CUDA %s, an older major version than %s", cudaVersionString(drvCUDA), label)
	default:
		return pass("the driver runs %s", label)
	}
	fd := finding(report.Error, msg, fmt.Sprintf("Upgrade the NVIDIA driver to %s or newer, then reboot", req.Full))
	fd.Facts["cuda"] = tk.Version
	fd.Facts["min_driver"] = runsAt.String()
	if f.NVML.DriverVersion != "" {
		fd.Facts["driver"] = f.NVML.DriverVersion
	}
	if drvCUDA > 0 {
		fd.Facts["driver_cuda"] = cudaVersionString(drvCUDA)
	}
	return failWith(fd)
}
