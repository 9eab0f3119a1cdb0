package probe

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cudadoctor/cudadoctor/internal/nvml"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestParseXids(t *testing.T) {
	lines := []string{
		"[ 1.355822] NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB Interrupt detected. Clearing it.",
		"NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.",
		"4,1234,8812402211,-;NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.",
		"Nov 22 05:00:01 host kernel: NVRM: Xid (PCI:0000:08:00): 31, Ch 0000003b, intr 10000000. MMU Fault",
		"[ 99.1] NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.",
		"NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380, name=nvidia-smi, Timeout after 6s of waiting for RPC response from GPU4 GSP!",
		"NVRM: Xid (PCI:0000:9b:00): notanumber, x",
	}
	got := ParseXids(lines)
	var ids []int
	for _, x := range got {
		ids = append(ids, x.Xid)
	}
	if d := cmp.Diff([]int{63, 79, 31, 79, 119}, ids); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if got[0].PCI != "PCI:0000:10:1c" || !strings.HasPrefix(got[0].Message, "pid=1896") {
		t.Errorf("first event: %+v", got[0])
	}
	if sev, _, _ := XidMeaning(79); sev != report.Error {
		t.Errorf("Xid 79 severity %s", sev)
	}
	if sev, _, _ := XidMeaning(13); sev != report.Info {
		t.Errorf("Xid 13 severity %s", sev)
	}
	if sev, _, _ := XidMeaning(145); sev != report.Error {
		t.Errorf("Xid 145 severity %s", sev)
	}
}

func FuzzParseXids(f *testing.F) {
	f.Add("NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.")
	f.Add("6,1,2,-;NVRM: Xid (PCI:0000:10:1c): 63, pid=1")
	f.Fuzz(func(t *testing.T, s string) {
		for _, x := range ParseXids(strings.Split(s, "\n")) {
			if x.Xid <= 0 {
				t.Fatalf("bad xid %+v", x)
			}
		}
	})
}

func TestParseVisible(t *testing.T) {
	gpus := []nvml.GPU{{Index: 0, UUID: "GPU-967f2e8f-a41c"}, {Index: 1, UUID: "GPU-aaaa", MIGDevices: []nvml.MIGDevice{{UUID: "MIG-1234"}}}}
	tests := []struct {
		value      string
		set, known bool
		visible    int
		hidesAll   bool
		gpus       []int
	}{
		{"", false, true, 2, false, []int{0, 1}},
		{"", true, true, 0, true, nil},
		{"1", true, true, 1, false, []int{1}},
		{"5", true, true, 0, true, nil},
		{"0,5,1", true, true, 1, false, []int{0}},
		{"-1", true, true, 0, true, nil},
		{"GPU-967f", true, true, 1, false, []int{0}},
		{"GPU-ffff", true, true, 0, true, nil},
		{"MIG-1234", true, true, 1, false, []int{1}},
		{"GPU-", true, true, 0, true, nil}, // ambiguous prefix
		{"abc", true, false, 0, true, nil},
		{"7", true, false, 1, false, []int{7}}, // no driver to check against
	}
	for _, tc := range tests {
		v := ParseVisible(tc.value, tc.set, gpus, tc.known)
		if v.Visible != tc.visible || v.HidesAll != tc.hidesAll {
			t.Errorf("%q: visible %d hidesAll %v, want %d %v (%+v)", tc.value, v.Visible, v.HidesAll, tc.visible, tc.hidesAll, v.Entries)
		}
		if d := cmp.Diff(tc.gpus, v.VisibleGPUs(gpus)); d != "" && tc.known {
			t.Errorf("%q gpus (-want +got):\n%s", tc.value, d)
		}
	}
}

func FuzzParseVisible(f *testing.F) {
	f.Add("0,1", true)
	f.Add("GPU-967f,MIG-1", true)
	gpus := []nvml.GPU{{Index: 0, UUID: "GPU-967f"}}
	f.Fuzz(func(t *testing.T, s string, set bool) {
		v := ParseVisible(s, set, gpus, true)
		if v.Visible < 0 || v.Visible > len(v.Entries)+len(gpus) {
			t.Fatalf("visible %d", v.Visible)
		}
		for _, i := range v.VisibleGPUs(gpus) {
			if i < 0 || i >= len(gpus) {
				t.Fatalf("index %d out of range", i)
			}
		}
	})
}

func TestArchRuns(t *testing.T) {
	tests := []struct {
		arch         string
		major, minor int
		runs         bool
	}{
		{"sm_90", 9, 0, true},
		{"sm_80", 8, 6, true},  // newer minor of the same major
		{"sm_86", 8, 0, false}, // older minor
		{"sm_90", 12, 0, false},
		{"sm_90a", 9, 0, true},
		{"sm_90a", 9, 1, false},
		{"sm_120", 12, 1, true},
		{"sm_100", 12, 0, false}, // datacenter Blackwell cubins do not run on RTX 50
		{"compute_90", 12, 0, true},
		{"compute_90", 8, 9, false},
		{"9.0+PTX", 10, 0, true},
		{"8.6", 8, 9, true},
		{"sm_100f", 10, 3, true},
	}
	for _, tc := range tests {
		a, ok := ParseArch(tc.arch)
		if !ok {
			t.Fatalf("%s did not parse", tc.arch)
		}
		if got := a.Runs(tc.major, tc.minor); got != tc.runs {
			t.Errorf("%s on %d.%d: %v", tc.arch, tc.major, tc.minor, got)
		}
	}
	for _, bad := range []string{"", "sm_", "sm_x", "9", "compute_", "a.b"} {
		if _, ok := ParseArch(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestVariantsAndRequirements(t *testing.T) {
	if d := cmp.Diff([]string{"12.8"}, variantsFor("2.7", 12, 0)); d != "" {
		t.Errorf("2.7 on sm_120: %s", d)
	}
	if d := cmp.Diff([]string{"12.6"}, variantsFor("2.11", 6, 1)); d != "" {
		t.Errorf("2.11 on sm_61: %s", d)
	}
	if d := cmp.Diff([]string{"12.8", "12.6"}, variantsFor("2.10", 7, 0)); d != "" {
		t.Errorf("2.10 on sm_70: %s", d)
	}
	if r, c := newestReleaseFor(3, 7); r != "2.7" || c != "11.8" {
		t.Errorf("newest for sm_37: %s %s", r, c)
	}
	req, ok := RequirementFor("13.0")
	if !ok || req.Full.String() != "580.95.05" || req.Family.String() != "580.65.06" {
		t.Errorf("13.0: %+v", req)
	}
	if req, _ := RequirementFor("12.6"); req.Full.String() != "560.35.05" || req.Family.String() != "525.60.13" {
		t.Errorf("12.6: %+v", req)
	}
	a, _ := ParseDriverVersion("535.104.05")
	b, _ := ParseDriverVersion("580.159.04")
	if !a.Less(b) || b.Less(a) || a.Less(a) {
		t.Error("driver ordering")
	}
	for _, bad := range []string{"", "x", "1.2.3.4", "-1"} {
		if _, ok := ParseDriverVersion(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	if torchRelease("2.11.0+cu130") != "2.11" || torchRelease("2.10.0a0+git123") != "2.10" || torchRelease("2.9.1") != "2.9" {
		t.Error("torchRelease")
	}
	if !releaseAtLeast("2.11", "2.8") || releaseAtLeast("2.7", "2.8") || !releaseAtLeast("3.0", "2.14") {
		t.Error("releaseAtLeast")
	}
}

func TestParseLdconfig(t *testing.T) {
	in := `	libcudnn_ops.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so.9
	libcudnn.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn.so.9
	libcudnn.so (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn.so
	libnccl.so.2 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnccl.so.2
	libcuda.so.1 (libc6,x86-64) => /lib/libcuda.so.1
	libcublasLt.so.13 (libc6,x86-64) => /usr/local/cuda/lib64/libcublasLt.so.13
garbage line`
	got := ParseLdconfig(in)
	var names []string
	for _, l := range got {
		names = append(names, l.Family+":"+l.Name)
	}
	if d := cmp.Diff([]string{"cudnn:libcudnn.so.9", "nccl:libnccl.so.2", "cublasLt:libcublasLt.so.13"}, names); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func FuzzParseLdconfig(f *testing.F) {
	f.Add("\tlibcudnn.so.9 (libc6,x86-64) => /lib/libcudnn.so.9\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range ParseLdconfig(s) {
			if l.Family == "" || !strings.HasPrefix(l.Path, "/") {
				t.Fatalf("bad %+v", l)
			}
		}
	})
}

func TestParseProbeOutput(t *testing.T) {
	out := []byte("noise from torch\nCUDADOCTOR-PROBE {\"executable\": \"/x/python\", \"version\": \"3.12.3\", \"torch\": {\"version\": \"2.11.0+cu130\", \"cuda\": \"13.0\", \"arch_list\": [\"sm_90\"]}, \"cuda\": {\"available\": true, \"device_count\": 1}}\n")
	pf, err := ParseProbeOutput(out)
	if err != nil {
		t.Fatal(err)
	}
	if pf.Torch.Version != "2.11.0+cu130" || pf.CUDA.DeviceCount != 1 || pf.CUDA.Warnings == nil {
		t.Errorf("%+v %+v", pf.Torch, pf.CUDA)
	}
	for _, bad := range []string{"", "no marker", "CUDADOCTOR-PROBE {not json", "CUDADOCTOR-PROBE [1,2]"} {
		if _, err := ParseProbeOutput([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParseProbeOutput(f *testing.F) {
	f.Add([]byte("CUDADOCTOR-PROBE {\"torch\": {\"version\": \"2.11\"}}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := ParseProbeOutput(b)
		if err == nil && pf == nil {
			t.Fatal("nil facts without error")
		}
	})
}

func TestC10Warnings(t *testing.T) {
	got := c10Warnings([]byte("[W1120 14:44:07.101109672 AllocatorConfig.cpp:28] Warning: PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead (function operator())\nother\n"))
	if d := cmp.Diff([]string{"PYTORCH_CUDA_ALLOC_CONF is deprecated, use PYTORCH_ALLOC_CONF instead"}, got); d != "" {
		t.Error(d)
	}
}

func TestCheckAllocConf(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"expandable_segments:True", nil},
		{"expandable_segments:True,max_split_size_mb:128,roundup_power2_divisions:[256:1,512:2,>:8]", nil},
		{"expandable_segments:true", []string{"True or False"}},
		{"max_split_size_mb:20", []string{"above 20"}},
		{"garbage_collection_threshold:1.5", []string{"between 0 and 1"}},
		{"expandable_segment:True", []string{"unknown allocator option"}},
		{"backend:cudaMallocAsync,expandable_segments:True", []string{"no effect"}},
		{"nonsense", []string{"not key:value"}},
	}
	for _, tc := range tests {
		got := checkAllocConf(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("%q: %+v", tc.in, got)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i].msg, w) {
				t.Errorf("%q: %q lacks %q", tc.in, got[i].msg, w)
			}
		}
	}
}

func FuzzCheckAllocConf(f *testing.F) {
	f.Add("expandable_segments:True,roundup_power2_divisions:[256:1,>:8]")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range checkAllocConf(s) {
			if p.msg == "" || p.fix == "" {
				t.Fatal("problem without text")
			}
		}
	})
}

func TestLibraryFamily(t *testing.T) {
	for name, want := range map[string]string{
		"libcudnn.so.9": "cudnn", "libcudnn_ops.so.9": "cudnn", "libcublasLt.so.13": "cublasLt", "libcublas.so.13": "cublas",
		"libnccl.so.2": "nccl", "libcudart.so.12.4.127": "cudart", "libcuda.so.1": "", "libnvrtc-builtins.so.13.0": "",
		"libcusparseLt.so.0": "cusparseLt", "libtorch_cuda.so": "", "libnvrtc.alt.so.13": "nvrtc",
	} {
		if got := LibraryFamily(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestSonameKey(t *testing.T) {
	for in, want := range map[string]string{
		"libcudnn.so.9.14.0": "libcudnn.so.9", "libcudnn.so.9": "libcudnn.so.9", "libcudnn.so": "libcudnn.so",
		"libnvrtc.alt.so.13": "libnvrtc.alt.so.13", "libcublasLt.so.13.1.0.3": "libcublasLt.so.13", "weird": "weird",
	} {
		if got := sonameKey(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestGPUForPCI(t *testing.T) {
	f := &Facts{NVML: nvml.Snapshot{GPUs: []nvml.GPU{{Index: 0, PCIBusID: "00000000:00:06.0"}, {Index: 1, PCIBusID: "00000000:2B:00.0"}}}}
	for pci, want := range map[string]int{"PCI:0000:2b:00": 1, "PCI:0000:00:06": 0, "0000:00:07": -1, "garbage": -1, "PCI:": -1} {
		if got := gpuForPCI(f, pci); got != want {
			t.Errorf("%s: %d, want %d", pci, got, want)
		}
	}
}

func TestWheelForDriver(t *testing.T) {
	f := &Facts{NVML: nvml.Snapshot{Loaded: true, GPUs: []nvml.GPU{{Index: 0, CCMajor: 9}}}}
	tests := []struct{ release, driver, want string }{
		{"2.11", "575.57.08", "12.8"}, // the newest it runs fully
		{"2.11", "580.159.04", "13.0"},
		{"2.11", "535.104.05", "12.6"}, // none fully: the oldest through minor-version compatibility
		{"2.11", "470.82.01", ""},
	}
	for _, tc := range tests {
		drv, _ := ParseDriverVersion(tc.driver)
		if got := wheelForDriver(f, tc.release, drv, true); got != tc.want {
			t.Errorf("%s on %s: %q, want %q", tc.release, tc.driver, got, tc.want)
		}
	}
	// A Pascal GPU rules out the variants without sm_6x.
	f.NVML.GPUs[0].CCMajor, f.NVML.GPUs[0].CCMinor = 6, 1
	drv, _ := ParseDriverVersion("580.159.04")
	if got := wheelForDriver(f, "2.11", drv, true); got != "12.6" {
		t.Errorf("sm_61: %q", got)
	}
}

func TestLibraryMismatchSeverity(t *testing.T) {
	site := "/venv/lib/python3.12/site-packages"
	f := &Facts{Env: map[string]string{"LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/opt/x"}, Python: &PythonFacts{
		Interpreter: "/venv/bin/python", Torch: &TorchFacts{Version: "2.11.0+cu130", CUDA: "13.0"},
		Libraries: []LoadedLibrary{
			{Path: "/usr/local/cuda/lib64/libnvrtc.so.13.0.88", RealPath: "/usr/local/cuda/lib64/libnvrtc.so.13.0.88", Name: "libnvrtc.so.13.0.88", Family: "nvrtc"},
			{Path: site + "/nvidia/cudnn/lib/libcudnn.so.9", RealPath: site + "/nvidia/cudnn/lib/libcudnn.so.9", Name: "libcudnn.so.9", Family: "cudnn", Wheel: true, Version: "9.19.0"},
		},
		WheelLibs: []WheelLibrary{{Path: site + "/nvidia/cu13/lib/libnvrtc.so.13", Name: "libnvrtc.so.13", Family: "nvrtc"}, {Path: site + "/nvidia/cudnn/lib/libcudnn.so.9", Name: "libcudnn.so.9", Family: "cudnn"}},
	}}
	r := runLibraryMismatch(f)
	if r.Status != Warn || len(r.Findings) != 1 || r.Findings[0].Severity != report.Warning {
		t.Fatalf("%+v", r)
	}
	rem := strings.Join(r.Findings[0].Remedies, "\n")
	if !strings.Contains(rem, "export LD_LIBRARY_PATH=/opt/x") {
		t.Errorf("remedy does not drop the shadowing directory: %s", rem)
	}
}

func TestArchListFindings(t *testing.T) {
	gpus := []nvml.GPU{{Index: 0, Name: "NVIDIA H100", CCMajor: 9}}
	tests := []struct {
		list, nvcc string
		want       []string
	}{
		{"9.0a", "13.0", nil},
		{"8.0;8.6", "13.0", []string{"does not cover GPU 0"}},
		{"7.0;9.0", "13.0", []string{"no longer compiles"}},
		{"7.0;9.0", "12.6", nil},
		{"Ampere", "13.0", nil},
	}
	for _, tc := range tests {
		f := &Facts{Env: map[string]string{"TORCH_CUDA_ARCH_LIST": tc.list}, NVML: nvml.Snapshot{Loaded: true, GPUs: gpus}, NVCC: &NVCC{Path: "nvcc", Version: tc.nvcc}}
		f.Visible = ParseVisible("", false, gpus, true)
		got := archListFindings(f)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %+v", tc.list, got)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(got[i].Message, w) {
				t.Errorf("%s: %q lacks %q", tc.list, got[i].Message, w)
			}
		}
	}
}
