package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// A re-run executes the user's program a second time, with whatever side
// effects it has (files written, jobs submitted, messages sent). After the
// decision table has chosen an automatic re-run, vetRerun gives the user's
// settings and the evidence the last word; an explicit --sanitize is a
// request, not an automatic re-run, and is not vetoed.

// RerunEnv turns the automatic re-run off for everything that inherits the
// environment (a whole job: every rank, every node) when set to 0, false,
// no or off.
const RerunEnv = "CUDADOCTOR_RERUN"

// vetRerun returns d, or a skip when a setting forbids the re-run or the
// output gives no sign that a real process raised the CUDA error.
func (o *Options) vetRerun(d decision, sc *scanner) decision {
	if !d.rerun || d.mode == ModeSanitizer {
		return d
	}
	skip := func(why string) decision { return decision{why: why, suggest: true} }
	if v, ok := envLookup(o.Env, RerunEnv); ok && strings.TrimSpace(v) != "" && !envTruthyValue(v) {
		return skip(fmt.Sprintf("the localisation re-run is disabled (%s=%s)", RerunEnv, v))
	}
	off, path, err := o.rerunConfig()
	if err != nil {
		// Unsure what the user asked for: do not run their program again.
		return skip("not re-running: " + oneLine(err.Error()))
	}
	if off {
		return skip(fmt.Sprintf("the localisation re-run is disabled (rerun = false in [tool.cudadoctor.run] of %s)", path))
	}
	// A real asynchronous CUDA error in PyTorch comes with its note about
	// asynchronous reporting or at least a traceback (which is also what
	// the re-run's origin is read from). An error line alone is more likely
	// a log being printed (cat, tail, a checker script) than a kernel
	// failure in this process, and a re-run could only repeat it.
	if d.mode == ModeAnomaly && !sc.traceback {
		return skip("not re-running: the output names autograd's in-place error, but no traceback shows a process that raised it")
	}
	if d.mode == ModeBlocking && !sc.asyncHint && !sc.traceback {
		return skip("not re-running: the output names a CUDA error, but neither a traceback nor PyTorch's note on asynchronous errors shows a process that raised it")
	}
	return d
}

// runConfig is the part of pyproject.toml that `run` reads.
type runConfig struct {
	Tool struct {
		Cudadoctor *struct {
			Run struct {
				Rerun *bool `toml:"rerun"`
			} `toml:"run"`
		} `toml:"cudadoctor"`
	} `toml:"tool"`
}

// rerunConfig reads `rerun` from [tool.cudadoctor.run] of the nearest
// pyproject.toml with a [tool.cudadoctor] table, looking up from the
// command's working directory as lint does. It is read only when a re-run
// is about to happen, so a healthy run never touches it.
func (o *Options) rerunConfig() (off bool, path string, err error) {
	dir := o.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return false, "", nil
		}
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return false, "", nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "pyproject.toml")
		b, rerr := o.ReadFile(p)
		if rerr == nil {
			var c runConfig
			if derr := toml.Unmarshal(b, &c); derr != nil {
				return false, p, fmt.Errorf("%s: invalid TOML: %s", p, oneLine(derr.Error()))
			}
			if c.Tool.Cudadoctor != nil {
				r := c.Tool.Cudadoctor.Run.Rerun
				return r != nil && !*r, p, nil
			}
		} else if !errors.Is(rerr, os.ErrNotExist) {
			return false, p, fmt.Errorf("%s: %v", p, rerr)
		}
		if filepath.Dir(d) == d {
			return false, "", nil
		}
	}
}

// envLookup is envValue that also says whether key is set.
func envLookup(env []string, key string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if k, val, found := strings.Cut(kv, "="); found && k == key {
			v, ok = val, true // the last one wins, as in exec
		}
	}
	return v, ok
}

func envTruthyValue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}
