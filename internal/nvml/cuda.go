package nvml

import (
	"fmt"
	"strings"

	"github.com/ebitengine/purego"
)

// CUDADriver is what the CUDA driver API (libcuda) says: whether cuInit
// succeeds in this environment, the driver's CUDA version and how many
// devices it exposes (after CUDA_VISIBLE_DEVICES).
type CUDADriver struct {
	Loaded  bool   `json:"loaded"`
	Library string `json:"library,omitempty"`
	Error   string `json:"error,omitempty"`
	// InitCode is cuInit's CUresult (0 success).
	InitCode    int    `json:"init_code"`
	InitName    string `json:"init_name,omitempty"`
	InitMessage string `json:"init_message,omitempty"`
	// Version is cuDriverGetVersion: 1000*major+10*minor (13000).
	Version     int `json:"version,omitempty"`
	DeviceCount int `json:"device_count"`
}

// cudaLibraries are the names libcuda is loaded by, tried in order.
var cudaLibraries = []string{"libcuda.so.1", "libcuda.so"}

// QueryCUDA loads libcuda, calls cuInit(0) and reads the version and device
// count. A missing library or failing call is reported, never a crash.
func QueryCUDA() CUDADriver { return queryCUDA(cudaLibraries) }

// queryCUDA is QueryCUDA with libcuda loaded from the first of libs that
// loads.
func queryCUDA(libs []string) (d CUDADriver) {
	defer func() {
		if r := recover(); r != nil {
			d.Error = fmt.Sprintf("calling the CUDA driver failed: %v", r)
		}
	}()
	var handle uintptr
	var errs []string
	for _, name := range libs {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			handle, d.Library = h, name
			break
		}
		errs = append(errs, dlError(name, err))
	}
	if handle == 0 {
		d.Error = "libcuda.so.1 not found (" + strings.Join(errs, "; ") + ")"
		return d
	}
	d.Loaded = true
	var cuInit func(flags uint32) int32
	var cuDriverGetVersion func(v *int32) int32
	var cuDeviceGetCount func(n *int32) int32
	bind(handle, &cuInit, "cuInit")
	bind(handle, &cuDriverGetVersion, "cuDriverGetVersion")
	bind(handle, &cuDeviceGetCount, "cuDeviceGetCount")
	if cuDriverGetVersion != nil {
		var v int32
		if cuDriverGetVersion(&v) == 0 {
			d.Version = int(v)
		}
	}
	if cuInit == nil {
		d.Error = d.Library + " has no cuInit"
		return d
	}
	d.InitCode = int(cuInit(0))
	if d.InitCode != 0 {
		d.InitName, d.InitMessage = CUresultName(d.InitCode)
		return d
	}
	if cuDeviceGetCount != nil {
		var n int32
		if cuDeviceGetCount(&n) == 0 {
			d.DeviceCount = int(n)
		}
	}
	return d
}

// cuResults names the CUresult codes cuInit can return, with their meaning
// for someone who only wants PyTorch to see the GPU.
var cuResults = map[int][2]string{
	1:   {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	2:   {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	3:   {"CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	4:   {"CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
	34:  {"CUDA_ERROR_STUB_LIBRARY", "the libcuda that was loaded is the toolkit's stub, not the driver's (a stubs/ directory is on LD_LIBRARY_PATH)"},
	46:  {"CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
	100: {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected (none present, or all hidden by CUDA_VISIBLE_DEVICES)"},
	101: {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	214: {"CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"},
	304: {"CUDA_ERROR_OPERATING_SYSTEM", "OS call failed (device nodes /dev/nvidia* missing or not accessible)"},
	801: {"CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
	802: {"CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized (on NVSwitch machines: Fabric Manager not running)"},
	803: {"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination (user-mode libcuda and kernel module differ)"},
	804: {"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW"},
	999: {"CUDA_ERROR_UNKNOWN", "unknown error"},
}

// CUresultName names a CUresult code and says what it means.
func CUresultName(code int) (name, meaning string) {
	if v, ok := cuResults[code]; ok {
		return v[0], v[1]
	}
	return fmt.Sprintf("CUresult %d", code), "unexpected error"
}
