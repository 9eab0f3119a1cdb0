package probe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTorch is just enough of torch's API for the embedded probe script.
const fakeTorch = `
import warnings
__version__ = "2.11.0+cu130"
class version:
    cuda = CUDA
    hip = None
    debug = False
class _C:
    @staticmethod
    def _cuda_getArchFlags():
        return "sm_75 sm_80 sm_90" if CUDA else None
    class _cudnn:
        @staticmethod
        def getCompileVersion():
            return (9, 19, 0)
class _Props:
    name = "Fake GPU"
    major = 9
    minor = 0
    total_memory = 1 << 30
    uuid = "abc"
class cuda:
    @staticmethod
    def is_available():
        warnings.warn("CUDA initialization: a fake warning")
        return bool(CUDA)
    @staticmethod
    def device_count():
        return 1 if CUDA else 0
    @staticmethod
    def init():
        if not CUDA:
            raise AssertionError("Torch not compiled with CUDA enabled")
    @staticmethod
    def get_device_properties(i):
        return _Props()
    @staticmethod
    def synchronize():
        pass
    @staticmethod
    def get_arch_list():
        return []
    class nccl:
        @staticmethod
        def version():
            return (2, 28, 9)
def zeros(*a, **k):
    return None
class backends:
    class cudnn:
        @staticmethod
        def version():
            return 91900 if CUDA else None
`

func TestEmbeddedProbeScript(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	for _, cuda := range []string{`"13.0"`, "None"} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "torch"), 0o755); err != nil {
			t.Fatal(err)
		}
		src := "CUDA = " + cuda + "\n" + fakeTorch
		if err := os.WriteFile(filepath.Join(dir, "torch", "__init__.py"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PYTHONPATH", dir)
		pf := RunPython(context.Background(), System{}, py, "PATH", 60*time.Second)
		if pf.Error != "" || pf.TorchError != "" || pf.ProbeError != "" || pf.Torch == nil || pf.CUDA == nil {
			t.Fatalf("CUDA=%s: %+v", cuda, pf)
		}
		if pf.Torch.Version != "2.11.0+cu130" || !strings.HasPrefix(pf.Torch.Path, dir) {
			t.Errorf("torch %+v", pf.Torch)
		}
		if cuda == "None" {
			if pf.Torch.CUDA != "" || pf.CUDA.Available || !strings.Contains(pf.CUDA.Error, "Torch not compiled with CUDA enabled") {
				t.Errorf("CPU build: %+v %+v", pf.Torch, pf.CUDA)
			}
			continue
		}
		if pf.Torch.CUDA != "13.0" || strings.Join(pf.Torch.ArchList, " ") != "sm_75 sm_80 sm_90" || pf.Torch.CuDNN != 91900 || pf.Torch.CuDNNCompile != "9.19.0" || pf.Torch.NCCL != "2.28.9" {
			t.Errorf("torch %+v", pf.Torch)
		}
		if !pf.CUDA.Available || len(pf.CUDA.Devices) != 1 || pf.CUDA.Devices[0].Capability != [2]int{9, 0} || pf.CUDA.Devices[0].UUID != "abc" {
			t.Errorf("cuda %+v", pf.CUDA)
		}
		if len(pf.CUDA.Warnings) != 1 || pf.CUDA.Warnings[0] != "CUDA initialization: a fake warning" {
			t.Errorf("warnings %q", pf.CUDA.Warnings)
		}
	}
}

func TestProbeWithoutTorch(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	t.Setenv("PYTHONPATH", t.TempDir())
	t.Setenv("PYTHONNOUSERSITE", "1")
	pf := RunPython(context.Background(), System{}, py, "PATH", 60*time.Second)
	if pf.Error != "" {
		t.Fatal(pf.Error)
	}
	if pf.Torch == nil && !strings.Contains(pf.TorchError, "torch") {
		t.Errorf("no torch and no import error: %+v", pf)
	}
}

func TestRunTimeoutKillsTheChild(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	start := time.Now()
	_, _, err = System{}.Run(context.Background(), 200*time.Millisecond, nil, sh, "-c", "sleep 30")
	if err != context.DeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestSystemKernelLogDoesNotBlock(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		lines, src, err := System{}.KernelLog(context.Background(), XidNeedles)
		if err == nil && src == "" {
			t.Error("no source on success")
		}
		_ = lines
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("reading the kernel log blocked")
	}
}

// BenchmarkGatherNoPython gathers this machine's facts as `env --no-python`
// does (NVML and libcuda loading, kernel log, env), in process.
func BenchmarkGatherNoPython(b *testing.B) {
	for b.Loop() {
		if _, err := Gather(context.Background(), System{}, Options{NoPython: true}); err != nil {
			b.Fatal(err)
		}
	}
}
