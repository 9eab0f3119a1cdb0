package probe

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var cudaAvailableCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/cuda-available", Kind: report.KindProbe, Severity: report.Error,
		Title:   "torch sees the GPUs",
		Summary: "Runs torch.cuda.is_available() and initialises CUDA in the interpreter that will run your code, and explains a failure: a CPU-only build (torch.version.cuda is None), GPUs hidden by CUDA_VISIBLE_DEVICES, no driver, or the exception CUDA initialisation raised.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "cuda-unavailable"},
			{Title: "Fix", Body: "Install a CUDA build of torch, unhide the GPUs, or fix the driver as the finding says."},
		},
	},
	Run: runCUDAAvailable,
}

func runCUDAAvailable(f *Facts) Result {
	v := f.Visible
	hidden := func() Result {
		if !v.hidesOnPurpose() {
			return verdict(Fail, fmt.Sprintf("no GPU visible: %s names no GPU of this machine (see env/visible-devices)", quoteEnv("CUDA_VISIBLE_DEVICES", v.Value)))
		}
		fd := finding(report.Error, fmt.Sprintf("%s hides every GPU from CUDA", quoteEnv("CUDA_VISIBLE_DEVICES", v.Value)),
			"Unhide the GPUs: unset CUDA_VISIBLE_DEVICES (or export CUDA_VISIBLE_DEVICES=0 for the first GPU)",
			"If a launcher or job script sets it, fix it there: the variable must be set before the process starts and not changed afterwards")
		fd.Evidence = []report.Evidence{ev(quoteEnv("CUDA_VISIBLE_DEVICES", v.Value))}
		if t := f.torch(); t != nil && f.Python.CUDA != nil && f.Python.CUDA.Error != "" {
			fd.Evidence = append(fd.Evidence, ev(f.Python.CUDA.Error))
		}
		return failWith(fd)
	}
	t := f.torch()
	if t == nil {
		switch {
		case !f.NVML.Loaded:
			return verdict(Fail, "no NVIDIA driver (see env/nvidia-driver)")
		case v.Set && v.HidesAll && len(f.NVML.GPUs) > 0:
			return hidden()
		case f.Python == nil:
			return skip("torch not probed (%s); the driver exposes %s", f.PythonSkipped, plural(len(f.visibleGPUs()), "GPU", "GPUs"))
		}
		return skip("torch not importable (see env/python-probe)")
	}
	if t.CUDA == "" && t.HIP == "" {
		fd := finding(report.Error, fmt.Sprintf("torch %s is a CPU-only build (torch.version.cuda is None): it cannot use any GPU", t.Version))
		fd.Evidence = []report.Evidence{ev("torch " + t.Version + " at " + t.Path)}
		rel := torchRelease(t.Version)
		drv, haveDrv := ParseDriverVersion(f.NVML.DriverVersion)
		if cuda := wheelForDriver(f, rel, drv, haveDrv); cuda != "" {
			fd.Remedies = append(fd.Remedies, "Install the CUDA build: "+pipCommand(rel, cuda))
		} else {
			fd.Remedies = append(fd.Remedies, "Install a CUDA build of torch: pick the command for your driver at https://pytorch.org/get-started/locally/")
		}
		fd.Remedies = append(fd.Remedies, "Check that this interpreter is the one you run: "+f.Python.Interpreter+" (use --python to probe another)")
		return failWith(fd)
	}
	if t.HIP != "" && f.NVML.Loaded && len(f.NVML.GPUs) > 0 {
		fd := finding(report.Error, fmt.Sprintf("torch %s is a ROCm (AMD) build on a machine with NVIDIA GPUs", t.Version),
			"Install a CUDA build of torch: "+pipCommand(torchRelease(t.Version), ""))
		return failWith(fd)
	}
	c := f.Python.CUDA
	if c != nil && c.Available && c.DeviceCount > 0 {
		var names []string
		for _, d := range c.Devices {
			names = append(names, fmt.Sprintf("%d %s (sm_%d%d)", d.Index, d.Name, d.Capability[0], d.Capability[1]))
		}
		msg := fmt.Sprintf("torch sees %s", plural(c.DeviceCount, "GPU", "GPUs"))
		if len(names) > 0 {
			msg += ": " + strings.Join(names, ", ")
		}
		return pass("%s", msg)
	}
	// Not available: name the cause another check already owns, else report it.
	switch {
	case v.Set && v.HidesAll:
		return hidden()
	case !f.NVML.Loaded:
		return verdict(Fail, "torch finds no GPU: no NVIDIA driver (see env/nvidia-driver)")
	case driverVersionCheck.Run(f).Status == Fail:
		return verdict(Fail, "torch finds no GPU: the driver is too old for this build (see env/driver-version)")
	}
	msg := "torch.cuda.is_available() is False"
	if c != nil && c.Error != "" {
		msg += ": " + firstLine(c.Error)
	}
	fd := finding(report.Error, msg)
	if c != nil {
		if c.Error != "" {
			fd.Evidence = append(fd.Evidence, ev(c.Error))
		}
		for _, w := range c.Warnings {
			if strings.Contains(w, "CUDA initialization") || strings.Contains(w, "CUDA") {
				fd.Evidence = append(fd.Evidence, ev(firstLine(w)))
			}
		}
	}
	fd.Remedies = []string{"Check the driver and GPUs: nvidia-smi, and the kernel log: sudo dmesg | grep -i nvrm",
		"Reproduce in the same shell: " + f.Python.Interpreter + " -c 'import torch; torch.cuda.init()'"}
	return failWith(fd)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}
