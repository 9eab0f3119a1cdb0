package run

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Re-run modes, as in the JSON contract.
const (
	ModeBlocking  = "launch-blocking"
	ModeSanitizer = "sanitizer"
)

// firstRun is what the decision needs to know about the first run.
type firstRun struct {
	exitCode    int
	interrupted bool // the user (or a scheduler) stopped it
	class       string
	async       bool // the class is reported asynchronously, or the log says so
	inplace     bool // autograd found a saved tensor modified in place
	duration    time.Duration
	env         []string
	argv        []string
}

// decision says whether to re-run, how, and why (or why not).
type decision struct {
	rerun bool
	mode  string
	// why is shown to the user in both cases; empty when there is nothing
	// worth saying (a healthy run, a failure that needs no localisation).
	why string
	// suggest: when a useful re-run is skipped, the user gets the command.
	suggest bool
}

// decide is the re-run decision table. A re-run repeats the user's program,
// so it happens only when it can tell something the first run could not,
// and never for long runs unless asked for.
func decide(o Options, f firstRun) decision {
	if f.exitCode == 0 {
		return decision{}
	}
	if f.interrupted {
		if !f.async && !o.Sanitize {
			return decision{} // nothing to localise: say nothing
		}
		return decision{why: "the run was interrupted, so it is not repeated"}
	}
	if o.Sanitize {
		if why := jobReason(f.argv, f.env); why != "" {
			return decision{why: "not re-running under compute-sanitizer: " + why}
		}
		return decision{rerun: true, mode: ModeSanitizer,
			why: "re-running under compute-sanitizer memcheck, as --sanitize asks, to name the kernel and the access that failed"}
	}
	skip := func(why string) decision { return decision{why: why, suggest: true} }
	if f.inplace && !f.async {
		// backward notices the change only when it needs the tensor; the
		// line that changed it is not in the traceback.
		if why := skipReason(o, f); why != "" {
			return skip(why)
		}
		return decision{rerun: true, mode: ModeAnomaly,
			why: "autograd reports an in-place change only when backward needs the changed tensor, so the traceback names loss.backward(), not the write; re-running once with anomaly detection on to find it"}
	}
	if !f.async {
		return decision{}
	}
	if envTruthy(f.env, "CUDA_LAUNCH_BLOCKING") {
		return decision{why: "CUDA_LAUNCH_BLOCKING was already set, so the traceback names the line that failed"}
	}
	if why := skipReason(o, f); why != "" {
		return skip(why)
	}
	what := "CUDA reports this error asynchronously, so the traceback may name a later line than the one that failed"
	if f.class != "" {
		what = fmt.Sprintf("CUDA reports %s errors asynchronously, so the traceback may name a later line than the one that failed", f.class)
	}
	return decision{rerun: true, mode: ModeBlocking,
		why: what + "; re-running once with CUDA_LAUNCH_BLOCKING=1 to find it"}
}

// skipReason says why an automatic re-run must not happen, "" when it may.
func skipReason(o Options, f firstRun) string {
	if o.NoRerun {
		return "the localisation re-run is disabled (--no-rerun)"
	}
	if why := jobReason(f.argv, f.env); why != "" {
		return "not re-running: " + why
	}
	if o.RerunMaxRuntime > 0 && f.duration > o.RerunMaxRuntime {
		return fmt.Sprintf("not re-running: the run took %s, more than --rerun-max-runtime %s",
			roundDur(f.duration), roundDur(o.RerunMaxRuntime))
	}
	return ""
}

// jobReason says why a single re-run of this command cannot reproduce the
// failure: it is one process of a larger job whose other processes will not
// run again, so a re-run would only wait for them until its timeout.
func jobReason(argv, env []string) string {
	for _, k := range []string{"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"} {
		if n, err := strconv.Atoi(envValue(env, k)); err == nil && n > 1 {
			if isDistributedLauncher(argv) && k != "WORLD_SIZE" {
				continue // a launcher started per node under the scheduler
			}
			return fmt.Sprintf("it is one process of a %d-process job (%s=%d), which cannot be re-run alone", n, k, n)
		}
	}
	if isDistributedLauncher(argv) {
		if n := launcherNodes(argv); n != "" && n != "1" && n != "1:1" {
			return fmt.Sprintf("the job spans several nodes (--nnodes %s), which would not re-run together", n)
		}
	}
	return ""
}

// isDistributedLauncher recognises torchrun and python -m torch.distributed.run
// (and the older torch.distributed.launch).
func isDistributedLauncher(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	if filepath.Base(argv[0]) == "torchrun" {
		return true
	}
	if !strings.HasPrefix(filepath.Base(argv[0]), "python") {
		return false
	}
	for i := 1; i+1 < len(argv); i++ {
		if argv[i] == "-m" {
			m := argv[i+1]
			return m == "torch.distributed.run" || m == "torch.distributed.launch"
		}
		if !strings.HasPrefix(argv[i], "-") {
			return false
		}
	}
	return false
}

// launcherNodes is the value of torchrun's --nnodes, "" when absent.
func launcherNodes(argv []string) string {
	return flagValue(launcherArgs(argv), "--nnodes")
}

// launcherArgs are the launcher's own arguments, before the script.
func launcherArgs(argv []string) []string {
	start := 1
	if filepath.Base(argv[0]) != "torchrun" {
		for i, a := range argv {
			if a == "-m" {
				start = i + 2
				break
			}
		}
	}
	var out []string
	for i := start; i < len(argv); i++ {
		a := argv[i]
		if !strings.HasPrefix(a, "-") {
			break
		}
		out = append(out, a)
		if !strings.Contains(a, "=") && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") && !isBoolLauncherFlag(a) {
			out = append(out, argv[i+1])
			i++
		}
	}
	return out
}

func isBoolLauncherFlag(a string) bool {
	switch strings.ReplaceAll(a, "_", "-") {
	case "--standalone", "--no-python", "--module", "-m", "--run-path", "--use-env":
		return true
	}
	return false
}

// flagValue finds --name V or --name=V (torchrun accepts _ and - alike).
func flagValue(args []string, name string) string {
	norm := func(s string) string { return strings.ReplaceAll(s, "_", "-") }
	for i, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && norm(k) == name {
			return v
		}
		if norm(a) == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in exec
		}
	}
	return v
}

func envTruthy(env []string, key string) bool {
	switch strings.ToLower(strings.TrimSpace(envValue(env, key))) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// withEnv returns env with key set to value (replacing any earlier value).
func withEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == key {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+value)
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	default:
		return d.Round(time.Millisecond)
	}
}
