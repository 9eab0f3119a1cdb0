package probe

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var nvidiaDriverCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/nvidia-driver", Kind: report.KindProbe, Severity: report.Error,
		Title:   "NVIDIA driver loaded and cuInit succeeds",
		Summary: "Loads NVML (libnvidia-ml.so.1) and the CUDA driver (libcuda.so.1) and calls cuInit. A missing library means no driver is installed or it is not visible (a container started without GPU support); a failing cuInit is named (100 no device, 999 unknown, 803 user-mode/kernel driver mismatch, 804 forward compatibility on unsupported hardware).",
		Sections: []report.DocSection{
			{Title: "Class", Body: "cuda-unavailable"},
			{Title: "Fix", Body: "Install or load the NVIDIA driver and check with nvidia-smi; in containers use the NVIDIA Container Toolkit (docker run --gpus all); after a driver upgrade, reboot."},
		},
	},
	Run: runNvidiaDriver,
}

func runNvidiaDriver(f *Facts) Result {
	if !f.NVML.Loaded {
		fd := finding(report.Error, "no NVIDIA driver is installed or loaded (libnvidia-ml.so.1 not found)")
		fd.Evidence = []report.Evidence{ev("NVML: " + f.NVML.Error)}
		if f.CUDA.Error != "" {
			fd.Evidence = append(fd.Evidence, ev("CUDA driver: "+f.CUDA.Error))
		}
		switch {
		case strings.Contains(f.NVML.Error, "did not answer"):
			fd.Message = f.NVML.Error + ": a GPU or the driver is hung (nvidia-smi would hang too)"
			fd.Alternatives = []string{"hardware-fault"}
			fd.Remedies = []string{"Look for Xid errors (79 fallen off the bus, 119/120 GSP): sudo dmesg | grep -i xid",
				"Reset the GPU (sudo nvidia-smi -r -i N) or reboot the node"}
		case strings.Contains(f.NVML.Error, "nvmlInit"):
			fd.Message = "the NVIDIA driver does not answer: " + f.NVML.Error
			fd.Remedies = []string{"Run nvidia-smi to see the same error; look for NVRM errors: sudo dmesg | grep -i nvrm; reset the GPU or reboot"}
		}
		if strings.Contains(f.NVML.Error, "not loaded") {
			fd.Message = "the NVIDIA kernel driver is not loaded (libnvidia-ml is installed, the nvidia module is not running)"
			fd.Remedies = []string{"Load it: sudo modprobe nvidia (then check with nvidia-smi); if that fails, reinstall the driver for the running kernel, or reboot after an upgrade",
				"Look for the reason in the kernel log: sudo dmesg | grep -i nvrm"}
		} else if strings.Contains(f.NVML.Error, "version mismatch") {
			fd.Message = "the NVIDIA driver libraries and the loaded kernel module have different versions"
			fd.Class = "driver-too-old"
			fd.Remedies = []string{"Reboot (or unload and reload the nvidia kernel modules) so the kernel module matches the upgraded libraries"}
		} else {
			fd.Remedies = []string{"Check the GPU and driver: nvidia-smi (if it is missing, install the NVIDIA driver, e.g. sudo apt install nvidia-driver-580-server)",
				"In a container: start it with GPU access, e.g. docker run --gpus all ... (NVIDIA Container Toolkit) or the runtimeClass/resources your scheduler uses"}
		}
		return failWith(fd)
	}
	d := f.CUDA
	summary := fmt.Sprintf("driver %s (CUDA %s), %s", f.NVML.DriverVersion, cudaVersionString(f.driverCUDA()), plural(len(f.NVML.GPUs), "GPU", "GPUs"))
	if !d.Loaded {
		fd := finding(report.Error, "NVML works but the CUDA driver library is missing: "+d.Error,
			"In a container: allow the compute capability, e.g. NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all)",
			"Otherwise reinstall the NVIDIA driver's CUDA library package (libcuda1 / nvidia-compute-utils), then check with nvidia-smi")
		fd.Evidence = []report.Evidence{ev("CUDA driver: " + d.Error)}
		return failWith(fd)
	}
	if d.InitCode == 0 {
		if d.DeviceCount == 0 && len(f.NVML.GPUs) == 0 {
			fd := finding(report.Error, "the NVIDIA driver is loaded but finds no GPU",
				"Check that the GPU is seen on the bus: lspci | grep -i nvidia, and look for NVRM errors: sudo dmesg | grep -i nvrm")
			return failWith(fd)
		}
		return pass("%s; cuInit OK", summary)
	}
	name, meaning := d.InitName, d.InitMessage
	if d.InitCode == 100 && len(f.NVML.GPUs) > 0 && f.Visible.Set {
		// The GPUs exist; CUDA_VISIBLE_DEVICES hides them (env/visible-devices, env/cuda-available).
		return pass("%s; cuInit reports %s because %s hides every GPU", summary, name, quoteEnv("CUDA_VISIBLE_DEVICES", f.Visible.Value))
	}
	msg := fmt.Sprintf("cuInit failed with %d %s: %s", d.InitCode, name, meaning)
	if d.InitCode < 0 {
		msg = meaning + ": a GPU or the driver is hung"
	}
	fd := finding(report.Error, msg)
	fd.Evidence = []report.Evidence{ev(fmt.Sprintf("cuInit(0) = %d (%s)", d.InitCode, name))}
	fd.Facts["cuinit_code"] = d.InitCode
	switch d.InitCode {
	case 100:
		fd.Remedies = []string{"Check the GPUs: nvidia-smi -L; look for NVRM errors: sudo dmesg | grep -i nvrm"}
	case 803:
		fd.Class = "driver-too-old"
		fd.Remedies = []string{"The user-mode libcuda and the kernel module differ: remove a cuda-compat package or container-provided libcuda that does not match, or reboot after a driver upgrade",
			"Compare: cat /proc/driver/nvidia/version with the libcuda.so.1 that ldconfig -p | grep libcuda finds"}
	case 804:
		fd.Class = "driver-too-old"
		fd.Remedies = []string{"Forward compatibility (cuda-compat) works only on data-center GPUs: remove the cuda-compat libraries from LD_LIBRARY_PATH and upgrade the driver instead"}
	case 34:
		fd.Class = "library-mismatch"
		fd.Remedies = []string{"Remove the CUDA toolkit's stubs directory (…/lib64/stubs) from LD_LIBRARY_PATH: it holds a libcuda that only satisfies the linker"}
	case 999:
		fd.Remedies = []string{"Reload the unified-memory module, a common cause after suspend/resume: sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm (or reboot)",
			"Check /dev/nvidia* exist and are readable, and look for NVRM errors: sudo dmesg | grep -i nvrm"}
	default:
		fd.Remedies = []string{"Look for NVRM errors in the kernel log: sudo dmesg | grep -i nvrm; then reset the GPU (nvidia-smi -r) or reboot"}
	}
	return failWith(fd)
}
