// Package nvml reads the NVIDIA driver's view of the machine (NVML and the
// CUDA driver API) by loading the driver's libraries at run time, so the
// binary starts, and reports a missing driver as a fact, on any machine.
package nvml

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Snapshot is what NVML says about the driver and every GPU. When NVML
// cannot be used, Loaded is false and Error says why.
type Snapshot struct {
	Loaded        bool   `json:"loaded"`
	Library       string `json:"library,omitempty"`
	Error         string `json:"error,omitempty"`
	DriverVersion string `json:"driver_version,omitempty"`
	// CUDAVersion is the newest CUDA the driver supports, as 1000*major+10*minor (13000).
	CUDAVersion int   `json:"cuda_version,omitempty"`
	GPUs        []GPU `json:"gpus"`
}

// GPU is one physical device, in NVML (PCI bus) order.
type GPU struct {
	Index    int    `json:"index"`
	Name     string `json:"name"`
	UUID     string `json:"uuid,omitempty"`
	PCIBusID string `json:"pci_bus_id,omitempty"`
	// CCMajor.CCMinor is the compute capability; 0.0 when unknown.
	CCMajor     int    `json:"cc_major"`
	CCMinor     int    `json:"cc_minor"`
	MemoryTotal uint64 `json:"memory_total_bytes"`
	MemoryUsed  uint64 `json:"memory_used_bytes"`
	// The pointers are nil where the GPU or driver does not support the query.
	ECC          *ECC          `json:"ecc,omitempty"`
	RetiredPages *RetiredPages `json:"retired_pages,omitempty"`
	RemappedRows *RemappedRows `json:"remapped_rows,omitempty"`
	// ThrottleReasons are the active clock event reasons (hw_slowdown...).
	ThrottleReasons []string `json:"throttle_reasons,omitempty"`
	// ComputeMode is Default, Exclusive_Thread, Prohibited or Exclusive_Process.
	ComputeMode string `json:"compute_mode,omitempty"`
	// MIGMode and MIGPending are Enabled or Disabled; empty when not supported.
	MIGMode    string      `json:"mig_mode,omitempty"`
	MIGPending string      `json:"mig_pending,omitempty"`
	MIGDevices []MIGDevice `json:"mig_devices,omitempty"`
	Processes  []Process   `json:"processes,omitempty"`
}

// CC renders the compute capability as "9.0" ("" when unknown).
func (g GPU) CC() string {
	if g.CCMajor == 0 {
		return ""
	}
	return fmt.Sprintf("%d.%d", g.CCMajor, g.CCMinor)
}

// ECC holds error-correction counters.
type ECC struct {
	Enabled              bool   `json:"enabled"`
	VolatileCorrected    uint64 `json:"volatile_corrected"`
	VolatileUncorrected  uint64 `json:"volatile_uncorrected"`
	AggregateCorrected   uint64 `json:"aggregate_corrected"`
	AggregateUncorrected uint64 `json:"aggregate_uncorrected"`
}

// RetiredPages is page retirement (GPUs before Ampere).
type RetiredPages struct {
	SingleBit int  `json:"single_bit"`
	DoubleBit int  `json:"double_bit"`
	Pending   bool `json:"pending"`
}

// RemappedRows is row remapping (Ampere and newer).
type RemappedRows struct {
	Correctable   int  `json:"correctable"`
	Uncorrectable int  `json:"uncorrectable"`
	Pending       bool `json:"pending"`
	Failure       bool `json:"failure"`
}

// MIGDevice is one MIG instance of a GPU.
type MIGDevice struct {
	UUID string `json:"uuid"`
}

// Process is a compute process holding memory on a GPU.
type Process struct {
	PID        int    `json:"pid"`
	Name       string `json:"name,omitempty"`
	UsedMemory uint64 `json:"used_memory_bytes"`
}

const (
	nvmlSuccess            = 0
	nvmlErrNotSupported    = 3
	nvmlErrInsufficientSz  = 7
	nvmlErrDriverNotLoaded = 9
)

var nvmlErrors = map[int]string{
	1: "NVML was not initialized", 2: "invalid argument", 3: "not supported", 4: "no permission",
	6: "not found", 7: "insufficient size", 8: "insufficient power",
	9: "the NVIDIA kernel driver is not loaded", 10: "timeout", 12: "NVML library is missing a function",
	13: "the GPU has fallen off the bus or is otherwise inaccessible", 15: "the GPU requires a reset",
	17: "GPU is lost", 18: "driver/library version mismatch (the loaded kernel module and libnvidia-ml differ; reboot or reload the driver)",
	999: "unknown error",
}

func nvmlErrorText(code int) string {
	if s, ok := nvmlErrors[code]; ok {
		return s
	}
	return fmt.Sprintf("NVML error %d", code)
}

// nvmlLib holds the bound functions; a nil function was absent from the library.
type nvmlLib struct {
	init             func() int32
	shutdown         func() int32
	driverVersion    func(buf *byte, n uint32) int32
	cudaVersion      func(v *int32) int32
	deviceCount      func(n *uint32) int32
	handleByIndex    func(i uint32, h *uintptr) int32
	name             func(h uintptr, buf *byte, n uint32) int32
	uuid             func(h uintptr, buf *byte, n uint32) int32
	pciInfo          func(h uintptr, buf *byte) int32
	cc               func(h uintptr, major, minor *int32) int32
	memInfo          func(h uintptr, mem *[3]uint64) int32
	eccMode          func(h uintptr, cur, pend *int32) int32
	totalEcc         func(h uintptr, errType, counterType int32, n *uint64) int32
	retiredPages     func(h uintptr, cause int32, n *uint32, addrs *uint64) int32
	retiredPending   func(h uintptr, pending *int32) int32
	remappedRows     func(h uintptr, corr, unc, pending, failure *uint32) int32
	clockReasons     func(h uintptr, reasons *uint64) int32
	computeMode      func(h uintptr, mode *int32) int32
	migMode          func(h uintptr, cur, pend *uint32) int32
	maxMig           func(h uintptr, n *uint32) int32
	migByIndex       func(h uintptr, i uint32, mig *uintptr) int32
	computeProcs     func(h uintptr, n *uint32, infos *byte) int32
	computeProcsSize uintptr
	processName      func(pid uint32, buf *byte, n uint32) int32
}

// bind looks a symbol up and binds it to fn; a missing symbol leaves fn nil.
func bind(lib uintptr, fn any, names ...string) {
	for _, n := range names {
		sym, err := purego.Dlsym(lib, n)
		if err == nil && sym != 0 {
			purego.RegisterFunc(fn, sym)
			return
		}
	}
}

func cstr(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// nvmlLibraries are the names NVML is loaded by, tried in order.
var nvmlLibraries = []string{"libnvidia-ml.so.1", "libnvidia-ml.so"}

// Query loads NVML and reads every GPU. It never panics on a missing or
// broken driver: the returned Snapshot says what went wrong.
func Query() Snapshot { return query(nvmlLibraries) }

// query is Query with NVML loaded from the first of libs that loads.
func query(libs []string) (snap Snapshot) {
	snap.GPUs = []GPU{}
	defer func() {
		if r := recover(); r != nil {
			snap.Loaded = false
			snap.Error = fmt.Sprintf("calling NVML failed: %v", r)
		}
	}()
	var handle uintptr
	var errs []string
	for _, name := range libs {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			handle, snap.Library = h, name
			break
		}
		errs = append(errs, dlError(name, err))
	}
	if handle == 0 {
		snap.Error = "libnvidia-ml.so.1 not found (" + strings.Join(errs, "; ") + ")"
		return snap
	}
	var l nvmlLib
	bind(handle, &l.init, "nvmlInit_v2", "nvmlInit")
	bind(handle, &l.shutdown, "nvmlShutdown")
	if l.init == nil {
		snap.Error = snap.Library + " has no nvmlInit"
		return snap
	}
	if rc := int(l.init()); rc != nvmlSuccess {
		snap.Error = "nvmlInit failed: " + nvmlErrorText(rc)
		if rc == nvmlErrDriverNotLoaded {
			snap.Error = "nvmlInit failed: the NVIDIA kernel driver is not loaded (libnvidia-ml is installed, the nvidia kernel module is not running)"
		}
		return snap
	}
	defer func() {
		if l.shutdown != nil {
			l.shutdown()
		}
	}()
	snap.Loaded = true
	l.bindRest(handle)
	if l.driverVersion != nil {
		buf := make([]byte, 96)
		if l.driverVersion(&buf[0], uint32(len(buf))) == nvmlSuccess {
			snap.DriverVersion = cstr(buf)
		}
	}
	if l.cudaVersion != nil {
		var v int32
		if l.cudaVersion(&v) == nvmlSuccess {
			snap.CUDAVersion = int(v)
		}
	}
	var n uint32
	if l.deviceCount == nil || l.deviceCount(&n) != nvmlSuccess {
		snap.Error = "nvmlDeviceGetCount failed"
		return snap
	}
	for i := uint32(0); i < n && i < 64; i++ {
		var h uintptr
		if l.handleByIndex == nil || l.handleByIndex(i, &h) != nvmlSuccess {
			snap.GPUs = append(snap.GPUs, GPU{Index: int(i), Name: "(inaccessible)"})
			continue
		}
		snap.GPUs = append(snap.GPUs, l.readGPU(int(i), h))
	}
	return snap
}

func (l *nvmlLib) bindRest(h uintptr) {
	bind(h, &l.driverVersion, "nvmlSystemGetDriverVersion")
	bind(h, &l.cudaVersion, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion")
	bind(h, &l.deviceCount, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount")
	bind(h, &l.handleByIndex, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex")
	bind(h, &l.name, "nvmlDeviceGetName")
	bind(h, &l.uuid, "nvmlDeviceGetUUID")
	bind(h, &l.pciInfo, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2")
	bind(h, &l.cc, "nvmlDeviceGetCudaComputeCapability")
	bind(h, &l.memInfo, "nvmlDeviceGetMemoryInfo")
	bind(h, &l.eccMode, "nvmlDeviceGetEccMode")
	bind(h, &l.totalEcc, "nvmlDeviceGetTotalEccErrors")
	bind(h, &l.retiredPages, "nvmlDeviceGetRetiredPages")
	bind(h, &l.retiredPending, "nvmlDeviceGetRetiredPagesPendingStatus")
	bind(h, &l.remappedRows, "nvmlDeviceGetRemappedRows")
	bind(h, &l.clockReasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons")
	bind(h, &l.computeMode, "nvmlDeviceGetComputeMode")
	bind(h, &l.migMode, "nvmlDeviceGetMigMode")
	bind(h, &l.maxMig, "nvmlDeviceGetMaxMigDeviceCount")
	bind(h, &l.migByIndex, "nvmlDeviceGetMigDeviceHandleByIndex")
	bind(h, &l.processName, "nvmlSystemGetProcessName")
	// nvmlProcessInfo_t: pid(u32) pad usedGpuMemory(u64) [gpuInstanceId computeInstanceId (u32)];
	// v2/v3 are 24 bytes, v1 16.
	for _, v := range []struct {
		name string
		size uintptr
	}{{"nvmlDeviceGetComputeRunningProcesses_v3", 24}, {"nvmlDeviceGetComputeRunningProcesses_v2", 24}, {"nvmlDeviceGetComputeRunningProcesses", 16}} {
		if sym, err := purego.Dlsym(h, v.name); err == nil && sym != 0 {
			purego.RegisterFunc(&l.computeProcs, sym)
			l.computeProcsSize = v.size
			break
		}
	}
}

var computeModes = map[int32]string{0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}

// clockReasonBits are NVML's nvmlClocksEventReason* masks.
var clockReasonBits = []struct {
	bit  uint64
	name string
}{
	{0x1, "gpu_idle"}, {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"}, {0x10, "sync_boost"}, {0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clocks_setting"},
}

// ClockReasonNames turns an NVML clock-event bitmask into names.
func ClockReasonNames(mask uint64) []string {
	var out []string
	for _, r := range clockReasonBits {
		if mask&r.bit != 0 {
			out = append(out, r.name)
		}
	}
	return out
}

func (l *nvmlLib) readGPU(idx int, h uintptr) GPU {
	g := GPU{Index: idx}
	buf := make([]byte, 128)
	if l.name != nil && l.name(h, &buf[0], uint32(len(buf))) == nvmlSuccess {
		g.Name = cstr(buf)
	}
	buf = make([]byte, 128)
	if l.uuid != nil && l.uuid(h, &buf[0], uint32(len(buf))) == nvmlSuccess {
		g.UUID = cstr(buf)
	}
	if l.pciInfo != nil {
		// nvmlPciInfo_t: busIdLegacy[16], five uint32, busId[32].
		pci := make([]byte, 128)
		if l.pciInfo(h, &pci[0]) == nvmlSuccess {
			g.PCIBusID = cstr(pci[36:68])
		}
	}
	if l.cc != nil {
		var ma, mi int32
		if l.cc(h, &ma, &mi) == nvmlSuccess {
			g.CCMajor, g.CCMinor = int(ma), int(mi)
		}
	}
	if l.memInfo != nil {
		var m [3]uint64 // total, free, used
		if l.memInfo(h, &m) == nvmlSuccess {
			g.MemoryTotal, g.MemoryUsed = m[0], m[2]
		}
	}
	if l.eccMode != nil && l.totalEcc != nil {
		var cur, pend int32
		if l.eccMode(h, &cur, &pend) == nvmlSuccess {
			e := &ECC{Enabled: cur == 1}
			if e.Enabled {
				l.totalEcc(h, 0, 0, &e.VolatileCorrected)
				l.totalEcc(h, 1, 0, &e.VolatileUncorrected)
				l.totalEcc(h, 0, 1, &e.AggregateCorrected)
				l.totalEcc(h, 1, 1, &e.AggregateUncorrected)
			}
			g.ECC = e
		}
	}
	if l.retiredPages != nil {
		var sbe, dbe uint32
		if l.retiredPages(h, 0, &sbe, nil) == nvmlSuccess || sbe > 0 {
			rp := &RetiredPages{SingleBit: int(sbe)}
			l.retiredPages(h, 1, &dbe, nil)
			rp.DoubleBit = int(dbe)
			if l.retiredPending != nil {
				var p int32
				if l.retiredPending(h, &p) == nvmlSuccess {
					rp.Pending = p == 1
				}
			}
			g.RetiredPages = rp
		}
	}
	if l.remappedRows != nil {
		var corr, unc, pend, fail uint32
		if l.remappedRows(h, &corr, &unc, &pend, &fail) == nvmlSuccess {
			g.RemappedRows = &RemappedRows{Correctable: int(corr), Uncorrectable: int(unc), Pending: pend != 0, Failure: fail != 0}
		}
	}
	if l.clockReasons != nil {
		var mask uint64
		if l.clockReasons(h, &mask) == nvmlSuccess {
			g.ThrottleReasons = ClockReasonNames(mask)
		}
	}
	if l.computeMode != nil {
		var m int32
		if l.computeMode(h, &m) == nvmlSuccess {
			g.ComputeMode = computeModes[m]
		}
	}
	if l.migMode != nil {
		var cur, pend uint32
		if l.migMode(h, &cur, &pend) == nvmlSuccess {
			g.MIGMode, g.MIGPending = enabled(cur), enabled(pend)
			if cur == 1 && l.maxMig != nil && l.migByIndex != nil {
				var max uint32
				if l.maxMig(h, &max) == nvmlSuccess {
					for i := uint32(0); i < max && i < 64; i++ {
						var mh uintptr
						if l.migByIndex(h, i, &mh) != nvmlSuccess {
							continue
						}
						ub := make([]byte, 128)
						if l.uuid != nil && l.uuid(mh, &ub[0], uint32(len(ub))) == nvmlSuccess {
							g.MIGDevices = append(g.MIGDevices, MIGDevice{UUID: cstr(ub)})
						}
					}
				}
			}
		}
	}
	g.Processes = l.processes(h)
	return g
}

func enabled(v uint32) string {
	if v == 1 {
		return "Enabled"
	}
	return "Disabled"
}

func (l *nvmlLib) processes(h uintptr) []Process {
	if l.computeProcs == nil {
		return nil
	}
	n := uint32(0)
	rc := l.computeProcs(h, &n, nil)
	if rc == nvmlSuccess && n == 0 {
		return nil
	}
	if rc != nvmlSuccess && rc != nvmlErrInsufficientSz {
		return nil
	}
	n += 8 // processes may start between the two calls
	buf := make([]byte, uintptr(n)*l.computeProcsSize)
	if l.computeProcs(h, &n, &buf[0]) != nvmlSuccess {
		return nil
	}
	var out []Process
	for i := uint32(0); i < n && uintptr(i+1)*l.computeProcsSize <= uintptr(len(buf)); i++ {
		rec := buf[uintptr(i)*l.computeProcsSize:]
		pid := *(*uint32)(unsafe.Pointer(&rec[0]))
		mem := *(*uint64)(unsafe.Pointer(&rec[8]))
		if mem == ^uint64(0) { // NVML_VALUE_NOT_AVAILABLE
			mem = 0
		}
		p := Process{PID: int(pid), UsedMemory: mem}
		if l.processName != nil {
			nb := make([]byte, 256)
			if l.processName(pid, &nb[0], uint32(len(nb))) == nvmlSuccess {
				p.Name = cstr(nb)
			}
		}
		out = append(out, p)
	}
	return out
}

// dlError names the library in a dlopen error (dlerror can come back empty
// when the calling thread changed).
func dlError(name string, err error) string {
	msg := strings.TrimSpace(err.Error())
	if msg == "" {
		return name + ": cannot open shared object file"
	}
	return msg
}
