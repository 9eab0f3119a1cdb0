package nvml

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSMIXMLRealDumps(t *testing.T) {
	tests := []struct {
		file string
		want Snapshot
	}{
		{"../../testdata/gpu/env/h100/nvidia-smi-q.xml", Snapshot{
			Loaded: true, Library: "nvidia-smi -q -x", DriverVersion: "580.159.04", CUDAVersion: 13000,
			GPUs: []GPU{{Index: 0, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-967f2e8f-a41c-4d24-019f-0809c1ef0ee2",
				PCIBusID: "00000000:00:06.0", CCMajor: 9, MemoryTotal: 81559 << 20, ECC: &ECC{Enabled: true},
				RemappedRows: &RemappedRows{}, ThrottleReasons: []string{"gpu_idle"}, ComputeMode: "Default",
				MIGMode: "Disabled", MIGPending: "Disabled"}},
		}},
	}
	for _, tc := range tests {
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseSMIXML(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.file, d)
		}
	}
}

func TestParseSMIXMLTwoGPUs(t *testing.T) {
	f, err := os.Open("../../testdata/gpu/env/h200x2/nvidia-smi-q.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParseSMIXML(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.GPUs) != 2 || got.GPUs[1].Index != 1 || got.GPUs[1].Name != "NVIDIA H200" || got.GPUs[1].CC() != "9.0" {
		t.Fatalf("unexpected GPUs: %+v", got.GPUs)
	}
	if got.GPUs[0].MemoryTotal != 143771<<20 {
		t.Errorf("memory total = %d", got.GPUs[0].MemoryTotal)
	}
}

func TestParseSMIXMLFaults(t *testing.T) {
	in := `<?xml version="1.0" ?><nvidia_smi_log><driver_version>535.104.05</driver_version><cuda_version>12.2</cuda_version>
<gpu id="00000000:3B:00.0"><product_name>Tesla V100-SXM2-32GB</product_name><uuid>GPU-1</uuid>
<compute_mode>Exclusive_Process</compute_mode>
<fb_memory_usage><total>32768 MiB</total><used>30000 MiB</used></fb_memory_usage>
<ecc_mode><current_ecc>Enabled</current_ecc></ecc_mode>
<ecc_errors><volatile><dram_correctable>3</dram_correctable><dram_uncorrectable>2</dram_uncorrectable><sram_uncorrectable_parity>1</sram_uncorrectable_parity></volatile></ecc_errors>
<retired_pages><multiple_single_bit_retirement><retired_count>1</retired_count></multiple_single_bit_retirement><double_bit_retirement><retired_count>2</retired_count></double_bit_retirement><pending_retirement>Yes</pending_retirement></retired_pages>
<clocks_throttle_reasons><clocks_throttle_reason_hw_thermal_slowdown>Active</clocks_throttle_reason_hw_thermal_slowdown></clocks_throttle_reasons>
<processes><process_info><pid>4242</pid><process_name>python</process_name><used_memory>29000 MiB</used_memory></process_info></processes>
</gpu></nvidia_smi_log>`
	got, err := ParseSMIXML(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	g := got.GPUs[0]
	want := GPU{Index: 0, Name: "Tesla V100-SXM2-32GB", UUID: "GPU-1", PCIBusID: "00000000:3B:00.0", CCMajor: 7,
		MemoryTotal: 32768 << 20, MemoryUsed: 30000 << 20, ComputeMode: "Exclusive_Process",
		ECC:          &ECC{Enabled: true, VolatileCorrected: 3, VolatileUncorrected: 3},
		RetiredPages: &RetiredPages{SingleBit: 1, DoubleBit: 2, Pending: true},
		Processes:    []Process{{PID: 4242, Name: "python", UsedMemory: 29000 << 20}},
	}
	if d := cmp.Diff(want, g); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got.CUDAVersion != 12020 {
		t.Errorf("cuda version %d", got.CUDAVersion)
	}
}

func TestParseSMIXMLRejectsGarbage(t *testing.T) {
	for _, in := range []string{"", "not xml", "<other/>", "\x00\x01\x02"} {
		if _, err := ParseSMIXML(strings.NewReader(in)); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

func FuzzParseSMIXML(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/gpu/env/h100/nvidia-smi-q.xml"); err == nil {
		f.Add(string(b))
	}
	f.Add(`<nvidia_smi_log><gpu><product_name>x</product_name><fb_memory_usage><total>1 MiB</total></fb_memory_usage></gpu></nvidia_smi_log>`)
	f.Fuzz(func(t *testing.T, s string) {
		snap, err := ParseSMIXML(strings.NewReader(s))
		if err == nil && snap.GPUs == nil {
			t.Fatal("nil GPUs on success")
		}
	})
}

func TestCCForName(t *testing.T) {
	tests := []struct {
		name, arch string
		ma, mi     int
	}{
		{"NVIDIA H100 80GB HBM3", "Hopper", 9, 0},
		{"NVIDIA GeForce RTX 5090", "Blackwell", 12, 0},
		{"NVIDIA A100-SXM4-80GB", "Ampere", 8, 0},
		{"NVIDIA A10G", "Ampere", 8, 6},
		{"Tesla T4", "Turing", 7, 5},
		{"NVIDIA L40S", "Ada Lovelace", 8, 9},
		{"NVIDIA B200", "Blackwell", 10, 0},
		{"Unknown Thing", "Hopper", 9, 0},
		// Quadro/RTX workstation names hold a GeForce series' digits.
		{"Quadro RTX 5000", "", 7, 5},
		{"NVIDIA RTX 5000 Ada Generation", "", 8, 9},
		{"NVIDIA RTX 4000 SFF Ada Generation", "", 8, 9},
		{"NVIDIA GeForce RTX 4060", "", 8, 9},
		// As users write them.
		{"rtx 3090", "", 8, 6},
		{"Titan Xp", "", 6, 1},
		{"GeForce GTX 970", "", 5, 2},
		{"GeForce GTX 750 Ti", "", 5, 0},
		{"GeForce GTX 680", "", 3, 0},
		{"GeForce GTX 1080 Ti", "", 6, 1},
		// Quadro P400-P6000 are Pascal (sm_61); the GP100 is sm_60.
		{"Quadro P2000", "", 6, 1},
		{"Quadro GP100", "", 6, 0},
	}
	for _, tc := range tests {
		ma, mi, ok := CCForName(tc.name, tc.arch)
		if !ok || ma != tc.ma || mi != tc.mi {
			t.Errorf("%s: got %d.%d %v", tc.name, ma, mi, ok)
		}
	}
	if _, _, ok := CCForName("Matrox", ""); ok {
		t.Error("unknown GPU should not be guessed")
	}
}

func TestClockReasonNames(t *testing.T) {
	if d := cmp.Diff([]string{"gpu_idle", "hw_thermal_slowdown"}, ClockReasonNames(0x41)); d != "" {
		t.Error(d)
	}
}

// On a machine without the NVIDIA driver (CI), the queries must report the
// absence, not crash. On a GPU machine they must find the driver.
func TestQueryWithoutDriverIsAFinding(t *testing.T) {
	snap := Query()
	if !snap.Loaded {
		if !strings.Contains(snap.Error, "libnvidia-ml.so.1") && !strings.Contains(snap.Error, "nvmlInit") {
			t.Errorf("unexplained failure: %q", snap.Error)
		}
		if snap.GPUs == nil {
			t.Error("GPUs must be an empty list, not nil")
		}
	} else if snap.DriverVersion == "" {
		t.Error("NVML loaded but no driver version")
	}
	d := QueryCUDA()
	if !d.Loaded && !strings.Contains(d.Error, "libcuda") {
		t.Errorf("unexplained failure: %q", d.Error)
	}
}

func TestCUresultName(t *testing.T) {
	for code, want := range map[int]string{100: "CUDA_ERROR_NO_DEVICE", 999: "CUDA_ERROR_UNKNOWN", 803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", 804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", 12345: "CUresult 12345"} {
		if got, _ := CUresultName(code); got != want {
			t.Errorf("%d: %s", code, got)
		}
	}
}
