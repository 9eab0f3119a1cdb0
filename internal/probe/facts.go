package probe

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/nvml"
)

// Facts is everything the checks judge; gathered once.
type Facts struct {
	NVML nvml.Snapshot   `json:"nvml"`
	CUDA nvml.CUDADriver `json:"cuda_driver"`
	// Python is nil when the probe was skipped (PythonSkipped says why).
	Python        *PythonFacts `json:"python,omitempty"`
	PythonSkipped string       `json:"python_skipped,omitempty"`
	NVCC          *NVCC        `json:"nvcc,omitempty"`
	// Env holds the relevant variables that are set (set-but-empty included).
	Env     map[string]string `json:"env"`
	Visible Visibility        `json:"cuda_visible_devices"`
	Xids    []XidEvent        `json:"xids,omitempty"`
	// KernelLog is where Xids were read from, or why they could not be.
	KernelLog      string          `json:"kernel_log,omitempty"`
	KernelLogError string          `json:"kernel_log_error,omitempty"`
	SystemLibs     []SystemLibrary `json:"system_libraries,omitempty"`
	// Toolkit is the CUDA version a pasted log says the failing stack was
	// built with, when no torch build says it (see FromText); a live
	// machine's facts leave it nil.
	Toolkit *Toolkit `json:"toolkit,omitempty"`
	// BuildArchs is what a pasted log's build says about the
	// architectures it carries (see readArchLine); nil on a live machine.
	BuildArchs *BuildArchs `json:"build_archs,omitempty"`
	// PTX is the PTX version a pasted log's code needs beside the one its
	// driver knows (see readPTXLine); nil on a live machine.
	PTX *PTXVersions `json:"ptx,omitempty"`
}

// Toolkit is a CUDA version and where it was read: "stated" (the user
// wrote it), "tensorflow 1.14" (that release's CUDA), "torch 0.4" (the
// newest CUDA any wheel of that release was built with).
type Toolkit struct {
	Version string `json:"version"`
	From    string `json:"from"`
}

// NVCC is the CUDA compiler extensions would be built with.
type NVCC struct {
	Path    string `json:"path"`
	Version string `json:"version,omitempty"` // "13.0"
	Error   string `json:"error,omitempty"`
}

// Options control Gather.
type Options struct {
	NoPython      bool
	Python        string
	PythonTimeout time.Duration
	// DriverTimeout bounds the NVML and cuInit calls (0: DefaultDriverTimeout).
	DriverTimeout time.Duration
}

var envNames = []string{"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "LD_PRELOAD",
	"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING", "CUDA_LAUNCH_BLOCKING", "CUDA_HOME", "CUDA_PATH",
	"TORCH_CUDA_ARCH_LIST", "CUDA_MODULE_LOADING", "PYTORCH_USE_CUDA_DSA", "TORCH_DISTRIBUTED_DEBUG", "TORCH_SHOW_CPP_STACKTRACES",
	"CUBLAS_WORKSPACE_CONFIG", "PYTORCH_NVML_BASED_CUDA_CHECK", "VIRTUAL_ENV", "CONDA_PREFIX"}

var envPrefixes = []string{"NCCL_", "TORCH_NCCL_", "TORCH_FR_"}

// Gather reads every fact, concurrently; the Python probe is the long pole.
func Gather(ctx context.Context, h Host, opts Options) (*Facts, error) {
	// NVML first: the probe's own CUDA context must not show up as another
	// process holding memory.
	driverTimeout := opts.DriverTimeout
	if driverTimeout <= 0 {
		driverTimeout = DefaultDriverTimeout
	}
	f := &Facts{Env: relevantEnv(h), NVML: queryNVML(h, driverTimeout)}
	var pyErr error
	var wg sync.WaitGroup
	run := func(fn func()) {
		wg.Add(1)
		go func() { defer wg.Done(); fn() }()
	}
	if opts.NoPython {
		f.PythonSkipped = "--no-python"
	} else {
		interp, source, err := FindPython(h, opts.Python)
		switch {
		case err != nil && opts.Python != "":
			pyErr = err
		case err != nil:
			f.PythonSkipped = err.Error()
		default:
			timeout := opts.PythonTimeout
			if timeout <= 0 {
				timeout = 60 * time.Second
			}
			run(func() { f.Python = RunPython(ctx, h, interp, source, timeout) })
		}
	}
	if pyErr != nil {
		return nil, pyErr
	}
	run(func() { f.CUDA = queryCUDA(h, driverTimeout) })
	run(func() { f.NVCC = findNVCC(ctx, h) })
	run(func() {
		lines, src, err := h.KernelLog(ctx, XidNeedles)
		if err != nil {
			f.KernelLogError = err.Error()
			return
		}
		f.KernelLog = src
		f.Xids = ParseXids(lines)
	})
	// The ldconfig cache only matters next to the probe's list of loaded
	// libraries; without the probe, skipping it keeps --no-python fast.
	run(func() { f.SystemLibs = systemLibraries(ctx, h, f.Env, !opts.NoPython) })
	wg.Wait()
	cvd, set := f.Env["CUDA_VISIBLE_DEVICES"]
	f.Visible = ParseVisible(cvd, set, f.NVML.GPUs, f.NVML.Loaded)
	return f, nil
}

// DefaultDriverTimeout bounds the NVML and cuInit calls: on a hung GPU
// (Xid 79, GSP timeouts) they can block forever, and the report matters
// most then.
const DefaultDriverTimeout = 20 * time.Second

func queryNVML(h Host, timeout time.Duration) nvml.Snapshot {
	ch := make(chan nvml.Snapshot, 1)
	go func() { ch <- h.NVML() }()
	select {
	case s := <-ch:
		return s
	case <-time.After(timeout):
		return nvml.Snapshot{GPUs: []nvml.GPU{}, Error: fmt.Sprintf("NVML did not answer within %s", timeout)}
	}
}

func queryCUDA(h Host, timeout time.Duration) nvml.CUDADriver {
	ch := make(chan nvml.CUDADriver, 1)
	go func() { ch <- h.CUDADriver() }()
	select {
	case d := <-ch:
		return d
	case <-time.After(timeout):
		return nvml.CUDADriver{Loaded: true, InitCode: -1, InitName: "no answer",
			InitMessage: fmt.Sprintf("cuInit did not return within %s", timeout)}
	}
}

func relevantEnv(h Host) map[string]string {
	env := map[string]string{}
	for _, k := range envNames {
		if v, ok := h.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for _, kv := range h.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		for _, p := range envPrefixes {
			if strings.HasPrefix(k, p) {
				env[k] = v
			}
		}
	}
	return env
}

var nvccRelease = lazyre.New(`release (\d+\.\d+)`)

// findNVCC resolves nvcc the way torch.utils.cpp_extension finds CUDA:
// CUDA_HOME, CUDA_PATH, nvcc on PATH, /usr/local/cuda.
func findNVCC(ctx context.Context, h Host) *NVCC {
	var path string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if dir, ok := h.LookupEnv(env); ok && dir != "" && h.Exists(filepath.Join(dir, "bin", "nvcc")) {
			path = filepath.Join(dir, "bin", "nvcc")
			break
		}
	}
	if path == "" {
		if p, err := h.LookPath("nvcc"); err == nil {
			path = p
		} else if h.Exists("/usr/local/cuda/bin/nvcc") {
			path = "/usr/local/cuda/bin/nvcc"
		}
	}
	if path == "" {
		return nil
	}
	n := &NVCC{Path: path}
	out, _, err := h.Run(ctx, 10*time.Second, nil, path, "--version")
	if err != nil {
		n.Error = err.Error()
		return n
	}
	if m := nvccRelease.FindStringSubmatch(string(out)); m != nil {
		n.Version = m[1]
	} else {
		n.Error = "unrecognised nvcc --version output"
	}
	return n
}

// systemLibraries lists the CUDA libraries the linker could pick instead of
// the wheel's: the ldconfig cache, LD_LIBRARY_PATH directories, LD_PRELOAD.
func systemLibraries(ctx context.Context, h Host, env map[string]string, withCache bool) []SystemLibrary {
	var libs []SystemLibrary
	ldconfig := ""
	for _, p := range []string{"ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"} {
		if !withCache {
			break
		}
		if strings.HasPrefix(p, "/") {
			if h.Exists(p) {
				ldconfig = p
				break
			}
		} else if lp, err := h.LookPath(p); err == nil {
			ldconfig = lp
			break
		}
	}
	if ldconfig != "" {
		if out, _, err := h.Run(ctx, 5*time.Second, nil, ldconfig, "-p"); err == nil {
			libs = append(libs, ParseLdconfig(string(out))...)
		}
	}
	for _, dir := range filepath.SplitList(env["LD_LIBRARY_PATH"]) {
		if dir == "" {
			continue
		}
		names, err := h.ReadDir(dir)
		if err != nil {
			continue
		}
		sort.Strings(names)
		for _, n := range names {
			fam := LibraryFamily(n)
			if fam == "" || !isMainLibrary(n, fam) || fileVersion(n) == "" || strings.Count(fileVersion(n), ".") > 0 {
				continue // keep the soname link (libcudnn.so.9), not every versioned file
			}
			libs = append(libs, SystemLibrary{Name: n, Path: filepath.Join(dir, n), Family: fam, Via: "LD_LIBRARY_PATH"})
		}
	}
	for _, p := range strings.FieldsFunc(env["LD_PRELOAD"], func(r rune) bool { return r == ':' || r == ' ' }) {
		base := filepath.Base(p)
		if fam := LibraryFamily(base); fam != "" {
			libs = append(libs, SystemLibrary{Name: base, Path: p, Family: fam, Via: "LD_PRELOAD"})
		}
	}
	for i := range libs {
		if real, err := h.EvalSymlinks(libs[i].Path); err == nil {
			libs[i].RealPath = real
			libs[i].Version = fileVersion(filepath.Base(real))
		}
		if libs[i].Version == "" {
			libs[i].Version = fileVersion(libs[i].Name)
		}
	}
	return libs
}
