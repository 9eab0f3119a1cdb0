// Package run is the `cudadoctor run` subcommand: it runs a command, passes
// its output through untouched, and when it fails explains why, re-running
// it once with synchronous kernel launches (or under compute-sanitizer) to
// find the line an asynchronously reported CUDA error comes from.
package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/memsnap"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/runner"
	"github.com/cudadoctor/cudadoctor/internal/shellquote"
)

// Diagnoser turns a program's output into findings, primary first.
type Diagnoser interface {
	Diagnose(ctx context.Context, name string, output []byte) ([]report.Finding, error)
}

// Engine adapts the explain engine to Diagnoser.
type Engine struct{ E *diagnose.Engine }

// Diagnose runs the engine over one output.
func (e Engine) Diagnose(ctx context.Context, name string, output []byte) ([]report.Finding, error) {
	return e.E.Explain(ctx, []diagnose.Input{{Name: name, Reader: bytes.NewReader(output)}})
}

// Options are the subcommand's inputs. Every outside fact comes through a
// field, so tests run fake children with fake diagnoses.
type Options struct {
	Argv []string
	// Env is the child's environment.
	Env []string
	Dir string
	// Stdin, Stdout and Stderr are the child's streams: Stdin is handed
	// over as is, output is passed on byte for byte. StdinClosed starts the
	// child with no stdin at all, as the wrapper itself was.
	Stdin          *os.File
	StdinClosed    bool
	Stdout, Stderr io.Writer
	// SameOutput says stdout and stderr are one file (a terminal, or
	// `> log 2>&1`): the child then gets one pipe for both, which keeps the
	// order of its writes exactly.
	SameOutput bool
	// TTY: stdout is a terminal, so the child gets a pseudo-terminal that
	// mirrors it (see runner.Spec.TTY), sized like WinsizeFrom.
	TTY         bool
	WinsizeFrom *os.File
	// Messages receives cudadoctor's own lines (stderr); MessagesTTY turns
	// on the live progress indicator.
	Messages    io.Writer
	MessagesTTY bool
	// Signals are the signals the wrapper receives, forwarded to the child.
	Signals <-chan os.Signal
	// Terminal is the terminal the wrapper is in the foreground of, or nil.
	Terminal *os.File
	// TailBytes bounds the output kept for diagnosis.
	TailBytes int

	NoRerun bool
	// RerunMaxRuntime: a first run longer than this is not repeated.
	RerunMaxRuntime time.Duration
	// RerunTimeout bounds the re-run; 0 picks twice the first run plus a minute.
	RerunTimeout time.Duration
	Sanitize     bool
	// ReportDir, when set, receives one JSON report named by host and ranks.
	ReportDir string
	// MemorySnapshot, when set, is the directory a PyTorch child writes a
	// CUDA memory snapshot into when an allocation fails (first run only);
	// the newest one written during the run is analysed into findings.
	MemorySnapshot string

	Diagnoser Diagnoser
	// IsAsync says whether a class is reported asynchronously.
	IsAsync func(class string) bool
	// Exec runs a child (runner.Run in production).
	Exec func(context.Context, runner.Spec) (*runner.Result, error)
	// LookPath finds compute-sanitizer.
	LookPath func(string) (string, error)
	ReadFile func(string) ([]byte, error)
	Hostname func() (string, error)
	Pid      int
	Now      func() time.Time
	// Rules documents what can fire (for SARIF).
	Rules []report.RuleDoc
}

// ExitError carries the child's exit status out of the command; the CLI
// exits with it.
type ExitError struct {
	Code int
	// Msg, when set, has already been shown to the user.
	Msg string
}

func (e *ExitError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	return fmt.Sprintf("the command exited with status %d", e.Code)
}

// ExitCode is the status to exit with.
func (e *ExitError) ExitCode() int { return e.Code }

// Outcome is the run's report plus what the CLI needs to present it.
type Outcome struct {
	Report *report.Report
	// Failed says the child failed: the diagnosis is worth showing.
	Failed bool
	// Interrupted says the user or a scheduler stopped it (a signal was
	// forwarded): a failure without findings then needs no comment.
	Interrupted bool
}

// Run runs the command and diagnoses a failure. The returned error is an
// *ExitError with the child's status whenever the child did not exit 0;
// problems of the diagnosis itself are reported on Messages, never as a
// different status.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	o.defaults()
	if len(o.Argv) == 0 {
		return nil, errors.New("no command to run")
	}
	childEnv := o.Env
	if o.MemorySnapshot != "" {
		env, cleanup, err := memsnap.CaptureEnv(o.MemorySnapshot, o.Env)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		// Only the first run captures: o.Env, which re-runs start from,
		// stays without the capture.
		childEnv = env
	}
	sc := newScanner()
	started := o.Now()
	res, err := o.Exec(ctx, runner.Spec{
		Argv: o.Argv, Env: childEnv, Dir: o.Dir,
		Stdin: o.Stdin, StdinClosed: o.StdinClosed, Stdout: o.Stdout, Stderr: o.Stderr, MergeStreams: o.SameOutput,
		TTY: o.TTY, WinsizeFrom: o.WinsizeFrom,
		TailBytes: o.TailBytes, TailOnFailureOnly: true, OnLine: sc.line, LineFilter: scanKeywords,
		Signals: o.Signals, Terminal: o.Terminal, Now: o.Now,
		// Output is read until every process holding it has closed it, so
		// the diagnosis comes after the last line, as in a pipeline.
		OnLinger: func() {
			fmt.Fprintf(o.Messages, "cudadoctor: %s exited, but processes it started still hold its output open; waiting for them (Ctrl-C stops waiting)\n",
				filepath.Base(o.Argv[0]))
		},
	})
	if err != nil {
		var se *runner.StartError
		if errors.As(err, &se) {
			msg := "cudadoctor: " + se.Error()
			fmt.Fprintln(o.Messages, msg)
			return nil, &ExitError{Code: se.Code, Msg: msg}
		}
		return nil, err
	}
	ended := o.Now()

	rep := report.New("run", "")
	rep.Rules = o.Rules
	rep.Run = &report.RunInfo{Argv: o.Argv, ExitCode: res.ExitCode, DurationS: res.Duration.Seconds(),
		StartedAt: timestamp(started), EndedAt: timestamp(ended)}
	if res.Signal != 0 {
		rep.Run.Signal = signalName(res.Signal)
	}
	// A reader that went away (`| head`) ends the child as it would have
	// unwrapped; like a forwarded signal, that is no failure to explain.
	stopped := res.Interrupts > 0 || res.Killed || res.Forwarded || res.WriteErr != nil
	out := &Outcome{Report: rep, Failed: res.ExitCode != 0, Interrupted: stopped}
	if res.WriteErr != nil && !errors.Is(res.WriteErr, syscall.EPIPE) {
		fmt.Fprintf(o.Messages, "cudadoctor: passing the command's output on failed: %v\n", res.WriteErr)
	}
	if out.Failed {
		o.diagnose(ctx, rep, res, sc)
	}
	if o.MemorySnapshot != "" {
		o.analyzeSnapshot(rep, started)
	}
	o.stampRank(rep.Findings)
	if o.ReportDir != "" {
		rep.Run.Host, rep.Run.Ranks = o.hostAndRanks(sc)
		if path, err := o.writeReportDir(rep); err != nil {
			fmt.Fprintf(o.Messages, "cudadoctor: could not write the report: %v\n", err)
		} else if out.Failed {
			fmt.Fprintf(o.Messages, "cudadoctor: report written to %s\n", path)
		}
	}
	if res.ExitCode != 0 {
		return out, &ExitError{Code: res.ExitCode}
	}
	return out, nil
}

// timestamp formats a time for the report: RFC 3339, UTC.
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// analyzeSnapshot adds the findings of the newest memory snapshot the run
// wrote, after the output's own.
func (o *Options) analyzeSnapshot(rep *report.Report, started time.Time) {
	// File times are coarser than the clock on some file systems.
	paths, err := memsnap.FindSnapshots(o.MemorySnapshot, started.Add(-time.Second))
	if err != nil {
		fmt.Fprintf(o.Messages, "cudadoctor: could not look for memory snapshots: %v\n", err)
		return
	}
	if len(paths) == 0 {
		return
	}
	fs, err := memsnap.AnalyzeFile(paths[0])
	if err != nil {
		fmt.Fprintf(o.Messages, "cudadoctor: could not analyse the memory snapshot: %s\n", oneLine(err.Error()))
		return
	}
	fmt.Fprintf(o.Messages, "cudadoctor: memory snapshot written to %s\n", paths[0])
	rep.Findings = append(rep.Findings, fs...)
	rep.Rules = append(rep.Rules, memsnap.RuleDocs()...)
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func (o *Options) defaults() {
	if o.Messages == nil {
		o.Messages = io.Discard
	}
	if o.Exec == nil {
		o.Exec = runner.Run
	}
	if o.Env == nil {
		// Re-runs and the memory capture add to the environment; nil
		// would leave the child only those additions.
		o.Env = os.Environ()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.Hostname == nil {
		o.Hostname = os.Hostname
	}
	if o.IsAsync == nil {
		o.IsAsync = func(string) bool { return false }
	}
	if o.Pid == 0 {
		o.Pid = os.Getpid()
	}
}

// diagnose explains the first run, re-runs it when that can localise the
// failure, and records everything in rep.
func (o *Options) diagnose(ctx context.Context, rep *report.Report, res *runner.Result, sc *scanner) {
	input := sc.diagnosisInput(res.Tail, res.Dropped, res.Lines)
	findings, err := o.diagnoseOutput(ctx, "output", input)
	if err != nil {
		fmt.Fprintf(o.Messages, "cudadoctor: could not diagnose the failure: %v\n", err)
	}
	rep.Findings = findings
	var primary *report.Finding
	if len(findings) > 0 {
		primary = &rep.Findings[0]
		if primary.Reported == nil && primary.Origin == nil {
			primary.Reported = lastUserFrame(input)
		}
	}
	if rank := sc.failedRank(); rank != nil && isDistributedLauncher(o.Argv) {
		fmt.Fprintf(o.Messages, "cudadoctor: rank %d failed first\n", *rank)
		if primary != nil && primary.Rank == nil {
			primary.Rank = rank
		}
	}
	class := ""
	if primary != nil {
		class = primary.Class
		if class == "" {
			class = primary.Rule
		}
	}
	f := firstRun{
		exitCode:    res.ExitCode,
		interrupted: res.Interrupts > 0 || res.Killed || res.Forwarded || res.WriteErr != nil,
		class:       class,
		async:       (primary != nil && o.IsAsync(class)) || sc.asyncHint,
		inplace:     sc.inplace,
		duration:    res.Duration,
		env:         o.Env,
		argv:        o.Argv,
	}
	d := o.vetRerun(decide(*o, f), sc)
	if d.why != "" {
		fmt.Fprintf(o.Messages, "cudadoctor: %s\n", d.why)
	}
	if !d.rerun {
		if d.suggest && f.inplace && !f.async {
			fmt.Fprintln(o.Messages, "cudadoctor: to find the line yourself, call torch.autograd.set_detect_anomaly(True) before the forward pass: the warning it prints names the operation whose saved tensor was changed; the in-place write is there or later")
			rep.Run.Rerun = &report.RerunInfo{Mode: ModeAnomaly, Argv: o.Argv, Env: []string{"torch.autograd.set_detect_anomaly(True)"}, Skipped: d.why}
		} else if d.suggest {
			manual := shellquote.Join(append([]string{"CUDA_LAUNCH_BLOCKING=1"}, o.Argv...))
			fmt.Fprintf(o.Messages, "cudadoctor: to find the line yourself, run: %s\n", manual)
			if primary != nil {
				// The advice to let cudadoctor re-run the command is the re-run
				// just refused: say how to do it by hand instead.
				why := strings.TrimSuffix(d.why, ".")
				if why == "" {
					why = "it was not asked to"
				}
				primary.Remedies = append([]string{fmt.Sprintf("cudadoctor did not re-run the command (%s). When it is safe to run it again, run `%s` and explain its output: the traceback then names the line that failed.", why, manual)},
					dropRerunAdvice(primary.Remedies)...)
			}
			rep.Run.Rerun = &report.RerunInfo{Mode: ModeBlocking, Argv: o.Argv, Env: []string{"CUDA_LAUNCH_BLOCKING=1"}, Skipped: d.why}
		}
		if primary != nil {
			o.fillCode(primary.Reported)
			o.fillCode(primary.Origin)
		}
		return
	}
	switch d.mode {
	case ModeSanitizer:
		o.sanitize(ctx, rep, res, input)
	case ModeAnomaly:
		o.rerunAnomaly(ctx, rep, res, input)
	default:
		o.rerunBlocking(ctx, rep, res, input, sc)
	}
}

func (o *Options) diagnoseOutput(ctx context.Context, name string, out []byte) (findings []report.Finding, err error) {
	if o.Diagnoser == nil {
		return nil, errors.New("no diagnosis engine")
	}
	defer func() {
		// A bug in the diagnosis must not take the child's status with it.
		if r := recover(); r != nil {
			findings, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return o.Diagnoser.Diagnose(ctx, name, out)
}

// rerunTimeout bounds a re-run: generous against the first run (blocking
// launches are slower), but finite, since blocking launches can deadlock
// collective communication.
func (o *Options) rerunTimeout(first time.Duration) time.Duration {
	if o.RerunTimeout > 0 {
		return o.RerunTimeout
	}
	return 2*first + time.Minute
}

// rerunBlocking repeats the command with CUDA_LAUNCH_BLOCKING=1 and names
// where the failure was reported and where it originates.
func (o *Options) rerunBlocking(ctx context.Context, rep *report.Report, first *runner.Result, firstOutput []byte, firstScan *scanner) {
	env := withEnv(o.Env, "CUDA_LAUNCH_BLOCKING", "1")
	timeout := o.rerunTimeout(first.Duration)
	info := &report.RerunInfo{Mode: ModeBlocking, Argv: o.Argv, Env: []string{"CUDA_LAUNCH_BLOCKING=1"}}
	rep.Run.Rerun = info
	sc := newScanner()
	res, err := o.rerun(ctx, "CUDA_LAUNCH_BLOCKING=1", append([]string{"CUDA_LAUNCH_BLOCKING=1"}, o.Argv...), o.Argv, env, timeout, sc)
	if !o.rerunOutcome(info, res, err, timeout, " (it may depend on data order or timing)") {
		return
	}
	headline := firstScan.cudaError
	var primary *report.Finding
	var reported *report.Location
	if len(rep.Findings) > 0 {
		primary = &rep.Findings[0]
		reported = primary.Reported
		if reported == nil {
			reported = primary.Origin
		}
	} else {
		reported = lastUserFrame(firstOutput)
	}
	input := sc.diagnosisInput(res.Tail, res.Dropped, res.Lines)
	again, err := o.diagnoseOutput(ctx, "output (CUDA_LAUNCH_BLOCKING=1)", input)
	if err != nil {
		fmt.Fprintf(o.Messages, "cudadoctor: could not diagnose the re-run: %v\n", err)
	}
	var origin *report.Location
	if len(again) > 0 && primary == nil {
		// Only PyTorch's asynchronous hint prompted the re-run; its own
		// diagnosis is the best there is.
		rep.Findings = again[:1]
		primary = &rep.Findings[0]
	}
	if len(again) > 0 {
		origin = again[0].Origin
		if origin == nil {
			origin = again[0].Reported
		}
		if again[0].Class != "" && again[0].Class != primary.Class {
			primary.Related = append(primary.Related, report.Related{
				Message: "with CUDA_LAUNCH_BLOCKING=1 it fails as " + again[0].Class, Class: again[0].Class, Location: again[0].Location})
		}
	}
	if origin == nil {
		origin = lastUserFrame(input)
	}
	if origin == nil {
		fmt.Fprintln(o.Messages, "cudadoctor: the re-run failed too, but its output names no line of your code")
		return
	}
	if primary == nil {
		// Neither run matched a known class, but PyTorch said the error was
		// asynchronous: report it under its own words.
		if headline == "" {
			headline = "a CUDA error reported asynchronously"
		}
		rep.Findings = []report.Finding{{Rule: "other", Class: "other", Severity: report.Error, Message: headline}}
		primary = &rep.Findings[0]
	}
	o.setOrigin(primary, reported, origin, "the blocking re-run")
}

// rerunOutcome records in info how a localisation re-run ended and says
// whether its output can name the origin; when it cannot (it did not start,
// timed out, was interrupted, or succeeded), it tells the user why.
// unreproduced ends the message for a re-run that succeeded.
func (o *Options) rerunOutcome(info *report.RerunInfo, res *runner.Result, err error, timeout time.Duration, unreproduced string) bool {
	if err != nil {
		info.Skipped = err.Error()
		fmt.Fprintf(o.Messages, "cudadoctor: the re-run could not start: %v\n", err)
		return false
	}
	info.ExitCode, info.DurationS, info.TimedOut = res.ExitCode, res.Duration.Seconds(), res.TimedOut
	switch {
	case res.TimedOut:
		fmt.Fprintf(o.Messages, "cudadoctor: the re-run did not finish within %s and was stopped; the origin stays unknown\n", roundDur(timeout))
	case res.Interrupts > 0 || res.Killed:
		fmt.Fprintln(o.Messages, "cudadoctor: the re-run was interrupted; the origin stays unknown")
	case res.ExitCode == 0:
		fmt.Fprintln(o.Messages, "cudadoctor: the re-run succeeded: the failure did not reproduce, so its origin stays unknown"+unreproduced)
	default:
		return true
	}
	return false
}

// setOrigin records the localisation and tells the user about it.
func (o *Options) setOrigin(f *report.Finding, reported, origin *report.Location, by string) {
	o.fillCode(origin)
	o.fillCode(reported)
	if reported != nil && !sameLine(reported, origin) {
		f.Reported = reported
		fmt.Fprintf(o.Messages, "cudadoctor: reported at    %s%s\n", shortLoc(reported), codeSuffix(reported))
		fmt.Fprintf(o.Messages, "cudadoctor: originates at  %s%s\n", shortLoc(origin), codeSuffix(origin))
	} else {
		f.Reported = nil
		fmt.Fprintf(o.Messages, "cudadoctor: %s confirms the origin: %s%s\n", by, shortLoc(origin), codeSuffix(origin))
	}
	f.Origin = origin
	// The localisation is done: advice to re-run for it is moot, and the
	// first fix is at the line found.
	rems := dropRerunAdvice(f.Remedies)
	if f.Reported != nil {
		rems = append([]string{fmt.Sprintf("The failing call is %s%s (found by %s); %s only noticed the error. Fix it there.", shortLoc(origin), quotedCode(origin), by, shortLoc(f.Reported))}, rems...)
	}
	f.Remedies = rems
}

// dropRerunAdvice removes remedies that tell the user to re-run for the
// failing line (with cudadoctor run, CUDA_LAUNCH_BLOCKING or anomaly
// detection).
func dropRerunAdvice(rs []string) []string {
	var out []string
	for _, r := range rs {
		if strings.Contains(r, "cudadoctor run --") || strings.Contains(r, "CUDA_LAUNCH_BLOCKING") || strings.Contains(r, "set_detect_anomaly") {
			continue
		}
		out = append(out, r)
	}
	return out
}

func quotedCode(l *report.Location) string {
	if l.Code == "" {
		return ""
	}
	return " (`" + l.Code + "`)"
}

func sameLine(a, b *report.Location) bool {
	return a.Line == b.Line && (a.Path == b.Path || filepath.Base(a.Path) == filepath.Base(b.Path))
}

func shortLoc(l *report.Location) string {
	s := filepath.Base(l.Path)
	if l.Line > 0 {
		s += fmt.Sprintf(":%d", l.Line)
	}
	return s
}

func codeSuffix(l *report.Location) string {
	if l.Code == "" {
		return ""
	}
	return "    " + l.Code
}

// rerun runs argv once more, quietly: its output is kept for diagnosis but
// not shown (stdout belongs to the first run), with a progress indicator.
// Before it starts, the user is told plainly that the command runs again
// (shown is the command line to say so with) and how to prevent that.
func (o *Options) rerun(ctx context.Context, what string, shown, argv, env []string, timeout time.Duration, sc *scanner) (*runner.Result, error) {
	why := RerunEnv + "=0 or --no-rerun prevent this"
	if o.Sanitize {
		why = "as --sanitize asks"
	}
	fmt.Fprintf(o.Messages, "cudadoctor: running the command a second time: %s (its output is not shown; %s)\n",
		shellquote.Join(shown), why)
	p := startProgress(o.Messages, o.MessagesTTY, o.Now,
		fmt.Sprintf("re-running with %s (stops after %s)", what, roundDur(timeout)))
	res, err := o.Exec(ctx, runner.Spec{
		Argv: argv, Env: env, Dir: o.Dir, MergeStreams: true,
		TailBytes: o.TailBytes, OnLine: sc.line, LineFilter: scanKeywords,
		Signals: o.Signals, Timeout: timeout, KillGroupOnExit: true, Now: o.Now,
		// Its output is not shown: what a process it left outside its
		// group still writes is not worth waiting for.
		Drain: runner.DefaultDrain,
	})
	if err != nil {
		p.stop("")
		return nil, err
	}
	status := fmt.Sprintf("exit %d", res.ExitCode)
	if res.TimedOut {
		status = "timed out"
	}
	p.stop(status)
	return res, nil
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGABRT: "SIGABRT", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV", syscall.SIGTERM: "SIGTERM",
		syscall.SIGINT: "SIGINT", syscall.SIGHUP: "SIGHUP", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
		syscall.SIGILL: "SIGILL", syscall.SIGPIPE: "SIGPIPE", syscall.SIGQUIT: "SIGQUIT", syscall.SIGUSR1: "SIGUSR1",
		syscall.SIGUSR2: "SIGUSR2", syscall.SIGALRM: "SIGALRM", syscall.SIGXCPU: "SIGXCPU",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}
