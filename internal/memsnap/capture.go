package memsnap

import (
	_ "embed"
	"errors"
	"fmt"
	"github.com/cudadoctor/cudadoctor/internal/atomicfile"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/pyshim"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// shim is the sitecustomize.py put first on the child's PYTHONPATH.
//
//go:embed sitecustomize.py
var shim []byte

// Environment variables the shim reads.
const (
	EnvSnapshotDir = "CUDADOCTOR_MEMORY_SNAPSHOT_DIR"
	EnvMaxEntries  = "CUDADOCTOR_MEMORY_MAX_ENTRIES"
	EnvStacks      = "CUDADOCTOR_MEMORY_STACKS"
	EnvAtExit      = "CUDADOCTOR_MEMORY_SNAPSHOT_AT_EXIT"
)

// CaptureEnv prepares a child's environment so that every Python process it
// starts records the CUDA memory history once CUDA initialises and writes a
// snapshot into dir when an allocation fails (oom_[rank<R>_]pid<P>_<n>.pickle).
// environ is the environment the child would otherwise get (os.Environ());
// the result is the one to give it. cleanup removes the temporary shim
// directory; call it after the child has exited. dir is created if needed.
//
// The shim is a sitecustomize.py on PYTHONPATH that chains to any
// sitecustomize it shadows and imports nothing heavy: programs that never
// import torch run as before. Interpreters started with -S, -I or -E do not
// read it, and then nothing is captured.
//
// Wiring into a supervisor:
//
//	env, cleanup, err := memsnap.CaptureEnv(dir, os.Environ())
//	if err != nil { return err }
//	defer cleanup()
//	started := time.Now()
//	// ... run the child with cmd.Env = env ...
//	paths, _ := memsnap.FindSnapshots(dir, started)
//	if len(paths) > 0 {
//		findings, err := memsnap.AnalyzeFile(paths[0]) // newest first
//		// append findings; add memsnap.RuleDocs() to the report's rules
//	}
func CaptureEnv(dir string, environ []string) (env []string, cleanup func(), err error) {
	shimDir, err := os.MkdirTemp("", "cudadoctor-memshim-")
	if err != nil {
		return nil, func() {}, fmt.Errorf("memory snapshot capture: %w", err)
	}
	cleanup = func() { os.RemoveAll(shimDir) }
	env, err = installShim(dir, shimDir, environ)
	if err != nil {
		cleanup()
		return nil, func() {}, err
	}
	return env, cleanup, nil
}

// InstallShim writes the shim into shimDir (kept, unlike CaptureEnv's) and
// returns the variables to set, for scripts that run Python themselves.
func InstallShim(dir, shimDir string, environ []string) ([]string, error) {
	env, err := installShim(dir, shimDir, environ)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "PYTHONPATH=") || strings.HasPrefix(kv, EnvSnapshotDir+"=") {
			changed = append(changed, kv)
		}
	}
	return changed, nil
}

func installShim(dir, shimDir string, environ []string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("memory snapshot directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("memory snapshot directory: %w", err)
	}
	shimDir, err = filepath.Abs(shimDir)
	if err != nil {
		return nil, fmt.Errorf("memory snapshot capture: %w", err)
	}
	if err := os.MkdirAll(shimDir, 0o755); err != nil {
		return nil, fmt.Errorf("memory snapshot capture: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(shimDir, "sitecustomize.py"), 0o644, pyshim.Source(shim)); err != nil {
		return nil, fmt.Errorf("memory snapshot capture: %w", err)
	}
	var env []string
	pythonPath := shimDir
	for _, kv := range environ {
		switch {
		case strings.HasPrefix(kv, "PYTHONPATH="):
			if old := strings.TrimPrefix(kv, "PYTHONPATH="); old != "" {
				pythonPath += string(os.PathListSeparator) + old
			}
		case strings.HasPrefix(kv, EnvSnapshotDir+"="):
		default:
			env = append(env, kv)
		}
	}
	return append(env, "PYTHONPATH="+pythonPath, EnvSnapshotDir+"="+abs), nil
}

// FindSnapshots lists the snapshots in dir written at or after since, newest
// first. Partial files (still being written) are left out.
func FindSnapshots(dir string, since time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	type found struct {
		path string
		mod  time.Time
	}
	var fs []found
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".pickle") {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().Before(since) {
			continue
		}
		fs = append(fs, found{filepath.Join(dir, e.Name()), info.ModTime()})
	}
	sort.Slice(fs, func(i, j int) bool {
		if !fs[i].mod.Equal(fs[j].mod) {
			return fs[i].mod.After(fs[j].mod)
		}
		return fs[i].path > fs[j].path
	})
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.path
	}
	return out, nil
}

// AnalyzeFile decodes and analyses one snapshot file and returns its
// findings (primary first), as 'cudadoctor memory FILE' reports them.
func AnalyzeFile(path string) ([]report.Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Findings(s, Analyze(s), path), nil
}
