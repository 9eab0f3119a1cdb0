// Package probetest replays a recorded machine (testdata/env/<case>/) as a
// probe.Host, so env checks run in tests without a GPU, driver or torch.
package probetest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/nvml"
	"github.com/cudadoctor/cudadoctor/internal/probe"
)

// Host is a recorded machine. The zero value is a machine with nothing:
// no driver, no Python, no tools.
type Host struct {
	Env      map[string]string
	Snapshot nvml.Snapshot
	Driver   nvml.CUDADriver
	// Paths answers LookPath; Files answers Exists (with Paths' values and
	// Dirs' keys also existing).
	Paths    map[string]string
	Files    map[string]bool
	Symlinks map[string]string
	Dirs     map[string][]string
	// Outputs holds the stdout of programs by base name (python3, nvcc, ldconfig).
	Outputs map[string]string
	// PythonErr, when set, is what running Python returns.
	PythonErr   error
	Kernel      []string
	KernelError error
	// Ran records the programs run, by base name.
	Ran []string
	mu  sync.Mutex
}

var _ probe.Host = (*Host)(nil)

func (h *Host) LookupEnv(k string) (string, bool) { v, ok := h.Env[k]; return v, ok }

func (h *Host) Environ() []string {
	var out []string
	for k, v := range h.Env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func (h *Host) NVML() nvml.Snapshot         { return h.Snapshot }
func (h *Host) CUDADriver() nvml.CUDADriver { return h.Driver }

func (h *Host) LookPath(f string) (string, error) {
	if p, ok := h.Paths[f]; ok {
		return p, nil
	}
	return "", errors.New(f + ": executable file not found in $PATH")
}

func (h *Host) Exists(p string) bool {
	if h.Files[p] {
		return true
	}
	if _, ok := h.Dirs[p]; ok {
		return true
	}
	for _, v := range h.Paths {
		if v == p {
			return true
		}
	}
	return false
}

func (h *Host) EvalSymlinks(p string) (string, error) {
	if t, ok := h.Symlinks[p]; ok {
		return t, nil
	}
	if h.Exists(p) {
		return p, nil
	}
	return "", errors.New(p + ": no such file or directory")
}

func (h *Host) ReadDir(p string) ([]string, error) {
	if names, ok := h.Dirs[p]; ok {
		return names, nil
	}
	return nil, errors.New(p + ": no such file or directory")
}

func (h *Host) Run(ctx context.Context, timeout time.Duration, env []string, name string, args ...string) ([]byte, []byte, error) {
	base := filepath.Base(name)
	if strings.HasPrefix(base, "python") {
		base = "python"
	}
	h.mu.Lock()
	h.Ran = append(h.Ran, base)
	h.mu.Unlock()
	if base == "python" && h.PythonErr != nil {
		return nil, []byte("Segmentation fault (core dumped)\n"), h.PythonErr
	}
	out, ok := h.Outputs[base]
	if !ok {
		return nil, nil, errors.New(name + ": not found")
	}
	return []byte(out), nil, nil
}

func (h *Host) KernelLog(ctx context.Context, needles []string) ([]string, string, error) {
	if h.KernelError != nil {
		return nil, "", h.KernelError
	}
	var out []string
	for _, l := range h.Kernel {
		for _, n := range needles {
			if strings.Contains(l, n) {
				out = append(out, l)
				break
			}
		}
	}
	return out, "dmesg", nil
}

// Load reads testdata/env/<case>: files in the case directory override the
// recorded machine that base.txt names (a directory relative to the case).
//
//	nvidia-smi-q.xml  NVML (absent: no driver)
//	cuda.json         the CUDA driver's answer (default: cuInit OK, NVML's CUDA version)
//	env-vars.txt      KEY=VALUE lines
//	probe.json        the Python probe's result (absent: no Python)
//	ldconfig.txt      ldconfig -p; nvcc.txt: nvcc --version (empty: no nvcc)
//	dmesg-xid.txt     kernel log lines
//	symlinks.txt      "path target" lines
func Load(dir string) (*Host, error) {
	read := func(name string) (string, bool, error) {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return string(b), true, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", false, err
		}
		base, err := os.ReadFile(filepath.Join(dir, "base.txt"))
		if err != nil || strings.TrimSpace(string(base)) == "" {
			return "", false, nil
		}
		b, err := os.ReadFile(filepath.Join(dir, strings.TrimSpace(string(base)), name))
		if errors.Is(err, os.ErrNotExist) {
			return "", false, nil
		}
		return string(b), err == nil, err
	}
	h := &Host{Env: map[string]string{}, Paths: map[string]string{}, Files: map[string]bool{}, Symlinks: map[string]string{},
		Dirs: map[string][]string{}, Outputs: map[string]string{}, Snapshot: nvml.Snapshot{GPUs: []nvml.GPU{},
			Error: "libnvidia-ml.so.1 not found (libnvidia-ml.so.1: cannot open shared object file: No such file or directory)"},
		Driver: nvml.CUDADriver{Error: "libcuda.so.1 not found (libcuda.so.1: cannot open shared object file: No such file or directory)"}}
	if s, ok, err := read("env-vars.txt"); err != nil {
		return nil, err
	} else if ok {
		sc := bufio.NewScanner(strings.NewReader(s))
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			if k, v, found := strings.Cut(sc.Text(), "="); found {
				h.Env[k] = v
			}
		}
	}
	if s, ok, err := read("nvidia-smi-q.xml"); err != nil {
		return nil, err
	} else if ok {
		snap, err := nvml.ParseSMIXML(strings.NewReader(s))
		if err != nil {
			return nil, err
		}
		snap.Library = "libnvidia-ml.so.1"
		h.Snapshot = snap
		h.Driver = nvml.CUDADriver{Loaded: true, Library: "libcuda.so.1", Version: snap.CUDAVersion, DeviceCount: len(snap.GPUs)}
	}
	if s, ok, err := read("cuda.json"); err != nil {
		return nil, err
	} else if ok {
		h.Driver = nvml.CUDADriver{}
		if err := json.Unmarshal([]byte(s), &h.Driver); err != nil {
			return nil, err
		}
	}
	if s, ok, err := read("probe.json"); err != nil {
		return nil, err
	} else if ok {
		var compact strings.Builder
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, err
		}
		b, _ := json.Marshal(v)
		compact.WriteString("some torch chatter\nCUDADOCTOR-PROBE ")
		compact.Write(b)
		compact.WriteString("\n")
		h.Outputs["python"] = compact.String()
		h.Paths["python3"] = "/opt/torch/.venv/bin/python3"
		if exe, _ := v.(map[string]any)["executable"].(string); exe != "" {
			h.Paths["python3"] = exe
		}
	}
	if s, ok, err := read("ldconfig.txt"); err != nil {
		return nil, err
	} else if ok && s != "" {
		h.Outputs["ldconfig"] = s
		h.Paths["ldconfig"] = "/usr/sbin/ldconfig"
	}
	if s, ok, err := read("nvcc.txt"); err != nil {
		return nil, err
	} else if ok && s != "" {
		h.Outputs["nvcc"] = s
		h.Paths["nvcc"] = "/usr/local/cuda/bin/nvcc"
		if home := h.Env["CUDA_HOME"]; home != "" {
			h.Files[filepath.Join(home, "bin", "nvcc")] = true
		}
	}
	if s, ok, err := read("dmesg-xid.txt"); err != nil {
		return nil, err
	} else if ok {
		h.Kernel = strings.Split(strings.TrimRight(s, "\n"), "\n")
	} else {
		h.KernelError = errors.New("/dev/kmsg: permission denied")
	}
	if s, ok, err := read("symlinks.txt"); err != nil {
		return nil, err
	} else if ok {
		for _, l := range strings.Split(s, "\n") {
			if a, b, found := strings.Cut(strings.TrimSpace(l), " "); found {
				h.Symlinks[a] = b
			}
		}
	}
	return h, nil
}
