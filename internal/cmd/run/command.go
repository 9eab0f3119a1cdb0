package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cudadoctor/cudadoctor/internal/atomicfile"
	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/runner"
)

// forwardedSignals are passed on to the child by `run`, as a shell passes
// them to a job: the terminal's Ctrl-C, Ctrl-\ and Ctrl-Z, fg/bg's SIGCONT,
// a scheduler's SIGTERM or SIGUSR1. Catching SIGQUIT also keeps the Go
// runtime from answering Ctrl-\ with a stack dump of the wrapper.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGWINCH,
	syscall.SIGQUIT, syscall.SIGTSTP, syscall.SIGCONT, syscall.SIGUSR1, syscall.SIGUSR2}

// ignoredAtStart records which of them the parent had us ignore (nohup
// ignores SIGHUP, a shell's background job SIGINT). It is read during
// package initialisation, before main installs its own handlers, which
// would hide it.
var ignoredAtStart = func() map[os.Signal]bool {
	m := map[os.Signal]bool{}
	for _, s := range forwardedSignals {
		m[s] = signal.Ignored(s)
	}
	return m
}()

// Command is `cudadoctor run`.
func Command(d *command.Deps) *cobra.Command {
	var (
		reportFile, reportDir, tail string
		memorySnapshot              string
		noRerun, sanitize           bool
		maxRuntime, rerunTimeout    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run [flags] -- CMD [ARGS...]",
		Short: "Run a command and explain its CUDA/PyTorch failure, finding the line it comes from",
		Long: `Run CMD (directly, without a shell) with its input and output passed through
untouched, and exit with its status (128+N when signal N ended it).

When it fails, the diagnosis goes to standard error (or with --report FILE, as
JSON to FILE). CUDA reports kernel failures asynchronously, so PyTorch's
traceback usually names a later line than the one that failed; for those errors
cudadoctor re-runs the command once with CUDA_LAUNCH_BLOCKING=1 (when the first
run took less than --rerun-max-runtime) and reports both lines: the command then
runs twice, with whatever side effects it has, and cudadoctor says so before the
second run starts. It is not re-run when its output only names the error
without a traceback or PyTorch's note (a log being printed). With --sanitize
it re-runs under compute-sanitizer memcheck instead, naming the kernel, its
source line and the bad access. Re-runs show no output and stop after a timeout.
With --memory-snapshot DIR, a PyTorch command records its CUDA allocations and
writes a snapshot into DIR when it runs out of memory; cudadoctor then names
what held the memory (the re-run records nothing).

Signals reach the command as they would reach it unwrapped: SIGINT, SIGTERM,
SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are passed on, a second Ctrl-C kills it,
Ctrl-Z stops it with the wrapper and fg or bg continues both. Output is passed
on until every process the command started has closed it; the diagnosis
comes after.
Setting CUDADOCTOR_RERUN=0 (or CUDADOCTOR_NO_RERUN=1) in the environment is the
same as --no-rerun, for every process that inherits it; so is
  [tool.cudadoctor.run]
  rerun = false
in the nearest pyproject.toml. An explicit --sanitize still re-runs.`,
		Example: `  cudadoctor run -- python train.py --lr 3e-4
  cudadoctor run --report diag.json -- python train.py
  cudadoctor run --sanitize -- python kernel_test.py
  cudadoctor run --memory-snapshot snapshots/ -- python train.py
  srun cudadoctor run --report-dir reports/ -- torchrun --nproc-per-node 8 train.py`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return command.Usagef("no command: use 'cudadoctor run -- CMD [ARGS...]'")
			}
			if sanitize && noRerun {
				return command.Usagef("--sanitize re-runs the command, which --no-rerun forbids")
			}
			tailBytes, err := parseSize(tail)
			if err != nil {
				return command.Usagef("--tail-size: %v", err)
			}
			if d.Sys.Getenv != nil && truthy(d.Sys.Getenv("CUDADOCTOR_NO_RERUN")) && !sanitize {
				noRerun = true
			}
			// Catch the signals before the child exists, so that an early
			// Ctrl-C is forwarded rather than ending the wrapper. SIGPIPE is
			// caught (not ignored, which the child would inherit) so that a
			// closed stdout is seen as a write error.
			sigs := make(chan os.Signal, 8)
			for _, s := range forwardedSignals {
				if ignoredAtStart[s] {
					// nohup or a background job: keep ignoring it, so the
					// child inherits that, and forward nothing.
					signal.Ignore(s)
					continue
				}
				signal.Notify(sigs, s)
			}
			defer signal.Stop(sigs)
			pipes := make(chan os.Signal, 1)
			signal.Notify(pipes, syscall.SIGPIPE)
			defer signal.Stop(pipes)

			stdin, closeStdin := childStdin(d.Sys.Stdin)
			defer closeStdin()
			stdinClosed := false
			if stdin == os.Stdin && runner.ClosedAtStart(stdin) {
				// Started with stdin closed (`<&-`): so is the child, which
				// would otherwise read the runtime's stand-in /dev/null.
				stdin, stdinClosed = nil, true
			}
			var env []string
			if d.Sys.Environ != nil {
				env = d.Sys.Environ()
			}
			opts := Options{
				Argv: args, Env: env,
				Stdin: stdin, StdinClosed: stdinClosed, Stdout: d.Sys.Stdout, Stderr: d.Sys.Stderr,
				Messages: d.Sys.Stderr, MessagesTTY: d.Sys.StderrTTY,
				Signals: sigs, TailBytes: tailBytes,
				NoRerun: noRerun, RerunMaxRuntime: maxRuntime, RerunTimeout: rerunTimeout,
				Sanitize: sanitize, ReportDir: reportDir, MemorySnapshot: memorySnapshot,
				// The knowledge base is loaded only when something failed, so
				// a healthy run pays nothing for it.
				Diagnoser: lazyEngine{},
				IsAsync: func(id string) bool {
					k, err := kb.Default()
					if err != nil {
						return false
					}
					c, ok := k.Class(id)
					return ok && c.Async
				},
				LookPath: exec.LookPath,
				Now:      d.Sys.Now,
			}
			opts.SameOutput = sameFile(d.Sys.Stdout, d.Sys.Stderr)
			if f, ok := d.Sys.Stdout.(*os.File); ok && d.Sys.StdoutTTY {
				// The child keeps a terminal for its output, so it behaves
				// (buffering, colours, progress bars) as it would unwrapped.
				opts.TTY, opts.WinsizeFrom = true, f
			}
			if stdin != nil && term.IsTerminal(int(stdin.Fd())) {
				opts.Terminal = runner.ControllingTerminal(stdin)
			}
			// Signals are forwarded to the child, not obeyed: the context
			// the root command cancels on SIGINT must not end the child
			// (with SIGTERM) or the diagnosis.
			out, runErr := Run(context.WithoutCancel(cmd.Context()), opts)
			if out != nil {
				out.Report.Tool.Version = d.Build.Version
				if out.Failed {
					if k, err := kb.Default(); err == nil {
						// Rules the run added (memory snapshots) stay.
						out.Report.Rules = append(k.RuleDocs(), out.Report.Rules...)
					}
				}
				presentRun(d, out, reportFile)
			}
			return runErr
		},
	}
	// Everything after the command's name belongs to the command.
	cmd.Flags().SetInterspersed(false)
	f := cmd.Flags()
	f.StringVar(&reportFile, "report", "", "write the report as JSON to `FILE` (also on success) instead of the diagnosis on stderr")
	f.StringVar(&reportDir, "report-dir", "", "write one JSON report per node into `DIR`, named by host and ranks, for 'cudadoctor explain DIR'")
	f.BoolVar(&noRerun, "no-rerun", false, "never re-run the command to localise an asynchronous CUDA error")
	f.DurationVar(&maxRuntime, "rerun-max-runtime", 10*time.Minute, "re-run only when the failed run took at most this long")
	f.DurationVar(&rerunTimeout, "rerun-timeout", 0, "stop a re-run after this long (default: twice the first run plus a minute)")
	f.BoolVar(&sanitize, "sanitize", false, "on failure, re-run under compute-sanitizer memcheck (PYTORCH_NO_CUDA_MEMORY_CACHING=1)")
	f.StringVar(&memorySnapshot, "memory-snapshot", "", "have a PyTorch command write a CUDA memory snapshot into `DIR` when it runs out of memory, and analyse it")
	f.StringVar(&tail, "tail-size", "4MiB", "how much of the command's output to keep for the diagnosis")
	return cmd
}

// lazyEngine loads the knowledge base on the first diagnosis.
type lazyEngine struct{}

func (lazyEngine) Diagnose(ctx context.Context, name string, output []byte) ([]report.Finding, error) {
	k, err := kb.Default()
	if err != nil {
		return nil, err
	}
	return Engine{E: diagnose.New(k)}.Diagnose(ctx, name, output)
}

// presentRun shows the diagnosis of a failed run on stderr, or writes the
// report file. Problems here are reported, never turned into an exit status:
// the status is the child's.
func presentRun(d *command.Deps, out *Outcome, reportFile string) {
	rep := out.Report
	if reportFile == "-" {
		// The child's output is over: the report follows it on stdout.
		if err := render.WriteJSON(d.Sys.Stdout, rep); err != nil {
			fmt.Fprintf(d.Sys.Stderr, "cudadoctor: could not write the report: %s\n", command.OneLine(err.Error()))
		}
		return
	}
	if reportFile != "" {
		err := atomicfile.Write(reportFile, 0o644, func(w io.Writer) error { return render.WriteJSON(w, rep) })
		if err == nil {
			if out.Failed {
				fmt.Fprintf(d.Sys.Stderr, "cudadoctor: diagnosis written to %s\n", reportFile)
			}
			return
		}
		// The diagnosis is shown below instead of being lost.
		fmt.Fprintf(d.Sys.Stderr, "cudadoctor: could not write the report: %s\n", command.OneLine(err.Error()))
	}
	if !out.Failed {
		return
	}
	if out.Interrupted && rep.MaxSeverity() < report.Error {
		// Stopped on purpose: a KeyboardInterrupt traceback is no failure
		// to explain.
		return
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintf(d.Sys.Stderr, "cudadoctor: %s %s; its output shows no CUDA or PyTorch failure that cudadoctor knows\n",
			commandName(rep.Run.Argv), statusText(rep.Run))
		if rep.Run.Signal == "SIGKILL" {
			// Nothing in the output, because a SIGKILL cannot be caught:
			// name who usually sends it.
			fmt.Fprintln(d.Sys.Stderr, "cudadoctor: SIGKILL usually comes from the kernel's out-of-memory killer (host RAM: see `dmesg | grep -i 'killed process'`) or from the job scheduler enforcing a memory or time limit (sacct / the scheduler's log)")
		}
		return
	}
	f, _ := render.ParseFormat(d.Format)
	opts := render.Options{Color: d.ColorOn(d.Sys.StderrTTY), NothingFound: diagnose.NothingFound}
	fmt.Fprintln(d.Sys.Stderr)
	if err := render.Render(d.Sys.Stderr, rep, f, opts, nil); err != nil {
		fmt.Fprintf(d.Sys.Stderr, "cudadoctor: could not show the diagnosis: %s\n", command.OneLine(err.Error()))
	}
}

func commandName(argv []string) string {
	if len(argv) == 0 {
		return "the command"
	}
	name := argv[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func statusText(r *report.RunInfo) string {
	if r.Signal != "" {
		return "was killed by " + r.Signal
	}
	return fmt.Sprintf("exited with status %d", r.ExitCode)
}

// childStdin hands the child our own stdin descriptor when there is one, so
// it sees exactly what it would unwrapped (a terminal, a file it can seek).
func childStdin(r io.Reader) (*os.File, func()) {
	if f, ok := r.(*os.File); ok {
		return f, func() {}
	}
	if r == nil {
		return nil, func() {}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, func() {}
	}
	go func() {
		io.Copy(pw, r)
		pw.Close()
	}()
	return pr, func() { pr.Close() }
}

// sameFile reports whether two streams are the same open file or device.
func sameFile(a, b io.Writer) bool {
	fa, ok1 := a.(*os.File)
	fb, ok2 := b.(*os.File)
	if !ok1 || !ok2 {
		return false
	}
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// parseSize reads sizes such as 4MiB, 512KiB, 1G or 1048576.
func parseSize(s string) (int, error) {
	t := strings.TrimSpace(s)
	mult := 1
	for _, u := range []struct {
		suffix string
		m      int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("not a size: %q (want e.g. 4MiB)", s)
	}
	if n > (1<<31)/mult {
		return 0, fmt.Errorf("%q is too large (at most 2GiB)", s)
	}
	return n * mult, nil
}
