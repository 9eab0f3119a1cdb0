package nvml

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBindingsAgainstStandIn compiles a stand-in NVML/libcuda with the real
// C signatures and reads it through the dlopen bindings: argument passing,
// struct layouts as declared, the two-call process listing, error codes.
func TestBindingsAgainstStandIn(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the stand-in library")
	}
	lib := filepath.Join(t.TempDir(), "libfake-nvidia.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, "testdata/fake_nvml.c").CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
	got := query([]string{lib})
	want := Snapshot{Loaded: true, Library: lib, DriverVersion: "580.159.04", CUDAVersion: 13000, GPUs: []GPU{
		{Index: 0, Name: "NVIDIA H200", UUID: "GPU-00000000-aaaa", PCIBusID: "00000000:06:00.0", CCMajor: 9,
			MemoryTotal: 150 << 30, ECC: &ECC{Enabled: true}, RemappedRows: &RemappedRows{},
			ThrottleReasons: []string{"gpu_idle"}, ComputeMode: "Default", MIGMode: "Disabled", MIGPending: "Disabled"},
		{Index: 1, Name: "NVIDIA H200", UUID: "GPU-00000001-aaaa", PCIBusID: "00000000:07:00.0", CCMajor: 9,
			MemoryTotal: 150 << 30, MemoryUsed: 100 << 30, ECC: &ECC{Enabled: true, VolatileUncorrected: 2},
			RemappedRows: &RemappedRows{Pending: true}, ThrottleReasons: []string{"gpu_idle", "hw_thermal_slowdown"},
			ComputeMode: "Exclusive_Process", MIGMode: "Disabled", MIGPending: "Disabled",
			Processes: []Process{{PID: 4242, Name: "python", UsedMemory: 100 << 30}}},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("NVML (-want +got):\n%s", d)
	}

	d := queryCUDA([]string{lib})
	if !d.Loaded || d.InitCode != 0 || d.Version != 13000 || d.DeviceCount != 2 {
		t.Errorf("cuda: %+v", d)
	}
	t.Setenv("FAKE_CUINIT", "803")
	d = queryCUDA([]string{lib})
	if d.InitCode != 803 || d.InitName != "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" || d.DeviceCount != 0 {
		t.Errorf("cuInit 803: %+v", d)
	}
}
