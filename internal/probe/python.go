package probe

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed python/probe.py
var probeScript string

// probeMarker starts the probe's JSON line; torch may print before it.
const probeMarker = "CUDADOCTOR-PROBE "

// PythonFacts is what the embedded probe reported from the interpreter
// that will run the user's code.
type PythonFacts struct {
	// Interpreter is the path that was run and Source why it was chosen.
	Interpreter string `json:"interpreter"`
	Source      string `json:"source"`
	Executable  string `json:"executable,omitempty"`
	Version     string `json:"version,omitempty"`
	// Error says why the probe gave no answer (timeout, crash, no output).
	Error      string          `json:"error,omitempty"`
	TimedOut   bool            `json:"timed_out,omitempty"`
	TorchError string          `json:"torch_import_error,omitempty"`
	ProbeError string          `json:"probe_error,omitempty"`
	Torch      *TorchFacts     `json:"torch,omitempty"`
	CUDA       *TorchCUDA      `json:"cuda,omitempty"`
	SitePkgs   string          `json:"site_packages,omitempty"`
	Libraries  []LoadedLibrary `json:"libraries,omitempty"`
	WheelLibs  []WheelLibrary  `json:"wheel_libraries,omitempty"`
	MapsError  string          `json:"maps_error,omitempty"`
	ElapsedS   float64         `json:"elapsed_s,omitempty"`
	// Stderr holds the c10 warnings the probe printed ("[W... ] Warning: ...").
	StderrWarnings []string `json:"stderr_warnings,omitempty"`
}

// TorchFacts describe the torch build.
type TorchFacts struct {
	Version string `json:"version"`
	Path    string `json:"path,omitempty"`
	// CUDA is torch.version.cuda: "" for a CPU-only build.
	CUDA         string   `json:"cuda,omitempty"`
	HIP          string   `json:"hip,omitempty"`
	Debug        bool     `json:"debug,omitempty"`
	ArchList     []string `json:"arch_list"`
	CuDNN        int      `json:"cudnn,omitempty"`
	CuDNNError   string   `json:"cudnn_error,omitempty"`
	CuDNNCompile string   `json:"cudnn_compile,omitempty"`
	NCCL         string   `json:"nccl,omitempty"`
	NCCLError    string   `json:"nccl_error,omitempty"`
}

// TorchCUDA is what torch found at CUDA initialisation.
type TorchCUDA struct {
	Available   bool          `json:"available"`
	Error       string        `json:"error,omitempty"`
	DeviceCount int           `json:"device_count"`
	Devices     []TorchDevice `json:"devices,omitempty"`
	Warnings    []string      `json:"warnings"`
}

// TorchDevice is one device as torch sees it.
type TorchDevice struct {
	Index       int    `json:"index"`
	Name        string `json:"name"`
	Capability  [2]int `json:"capability"`
	TotalMemory uint64 `json:"total_memory"`
	UUID        string `json:"uuid,omitempty"`
}

// LoadedLibrary is a CUDA library mapped into the probe after CUDA init.
type LoadedLibrary struct {
	Path     string `json:"path"`
	RealPath string `json:"real_path"`
	Name     string `json:"name"`
	Family   string `json:"family"`
	Version  string `json:"version,omitempty"`
	// Wheel is true when the file lies inside torch's site-packages.
	Wheel bool `json:"wheel"`
}

// WheelLibrary is a CUDA library shipped by the pip packages torch uses.
type WheelLibrary struct {
	Path   string `json:"path"`
	Name   string `json:"name"`
	Family string `json:"family"`
}

// rawProbe is the JSON the script prints.
type rawProbe struct {
	Executable string          `json:"executable"`
	Version    string          `json:"version"`
	TorchError string          `json:"torch_import_error"`
	ProbeError string          `json:"probe_error"`
	Torch      *TorchFacts     `json:"torch"`
	CUDA       *TorchCUDA      `json:"cuda"`
	SitePkgs   string          `json:"site_packages"`
	Libraries  []LoadedLibrary `json:"libraries"`
	WheelLibs  []WheelLibrary  `json:"wheel_libraries"`
	MapsError  string          `json:"maps_error"`
	ElapsedS   float64         `json:"elapsed_s"`
}

// ParseProbeOutput reads the probe's stdout: the last marker line holds the JSON.
func ParseProbeOutput(stdout []byte) (*PythonFacts, error) {
	i := bytes.LastIndex(stdout, []byte(probeMarker))
	if i < 0 {
		return nil, errors.New("the probe printed no result")
	}
	line := stdout[i+len(probeMarker):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	var raw rawProbe
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, fmt.Errorf("the probe's result is not valid JSON: %w", err)
	}
	pf := &PythonFacts{Executable: raw.Executable, Version: raw.Version, TorchError: raw.TorchError,
		ProbeError: raw.ProbeError, Torch: raw.Torch, CUDA: raw.CUDA, SitePkgs: raw.SitePkgs,
		Libraries: raw.Libraries, WheelLibs: raw.WheelLibs, MapsError: raw.MapsError, ElapsedS: raw.ElapsedS}
	if pf.CUDA != nil && pf.CUDA.Warnings == nil {
		pf.CUDA.Warnings = []string{}
	}
	return pf, nil
}

// c10Warnings picks c10's "Warning:" lines from the probe's stderr.
func c10Warnings(stderr []byte) []string {
	var out []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if i := strings.Index(l, "Warning: "); i >= 0 && len(out) < 20 {
			w := strings.TrimSpace(l[i+len("Warning: "):])
			w = strings.TrimSuffix(w, ")")
			if k := strings.LastIndex(w, " (function "); k >= 0 {
				w = w[:k]
			}
			out = append(out, w)
		}
	}
	return out
}

// FindPython picks the interpreter: --python, then $VIRTUAL_ENV, then
// $CONDA_PREFIX, then python3 or python on PATH.
func FindPython(h Host, explicit string) (path, source string, err error) {
	if explicit != "" {
		if strings.ContainsRune(explicit, '/') {
			if !h.Exists(explicit) {
				return "", "", fmt.Errorf("--python %s: no such file", explicit)
			}
			return explicit, "--python", nil
		}
		p, err := h.LookPath(explicit)
		if err != nil {
			return "", "", fmt.Errorf("--python %s: not found on PATH", explicit)
		}
		return p, "--python", nil
	}
	for _, env := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if dir, ok := h.LookupEnv(env); ok && dir != "" {
			for _, name := range []string{"python3", "python"} {
				p := filepath.Join(dir, "bin", name)
				if h.Exists(p) {
					return p, "$" + env, nil
				}
			}
		}
	}
	for _, name := range []string{"python3", "python"} {
		if p, err := h.LookPath(name); err == nil {
			return p, "PATH", nil
		}
	}
	return "", "", errors.New("no Python interpreter found (no --python, $VIRTUAL_ENV, $CONDA_PREFIX, python3 or python on PATH)")
}

// RunPython runs the embedded probe with the user's environment.
func RunPython(ctx context.Context, h Host, interpreter, source string, timeout time.Duration) *PythonFacts {
	stdout, stderr, err := h.Run(ctx, timeout, h.Environ(), interpreter, "-c", probeScript)
	pf, perr := ParseProbeOutput(stdout)
	if perr != nil {
		pf = &PythonFacts{}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			pf.TimedOut = true
			pf.Error = fmt.Sprintf("the probe did not finish within %s (importing torch or initialising CUDA hangs)", timeout)
		case err != nil:
			pf.Error = fmt.Sprintf("the probe failed: %s%s", exitText(err), lastLine(stderr))
		default:
			pf.Error = perr.Error() + lastLine(stderr)
		}
	}
	pf.Interpreter, pf.Source = interpreter, source
	pf.StderrWarnings = c10Warnings(stderr)
	return pf
}

func exitText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ProcessState.String()
	}
	return err.Error()
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return ": " + s
}
