// Package runner supervises a child process: it starts it without a shell in
// its own process group, passes its output through byte for byte while
// keeping a bounded tail and scanning lines as they stream, forwards
// signals, enforces timeouts, and reports the exact exit status.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Defaults for the knobs of Spec.
const (
	DefaultTailBytes = 4 << 20
	DefaultMaxLine   = 16 << 10
	DefaultKillGrace = 10 * time.Second
	DefaultDrain     = time.Second
	DefaultLinger    = 3 * time.Second
	readChunk        = 1 << 20
	firstChunk       = 64 << 10
	pipeSize         = 1 << 20
	maxSegments      = 1 << 16
)

// Spec says what to run and how.
type Spec struct {
	// Argv is the command; Argv[0] is looked up in PATH unless it holds a slash.
	Argv []string
	Env  []string
	Dir  string
	// Stdin is handed to the child as its own descriptor, untouched; nil
	// gives it /dev/null, or with StdinClosed no descriptor 0 at all (the
	// wrapper was started with its stdin closed, and so is the child).
	Stdin       *os.File
	StdinClosed bool
	// Stdout and Stderr receive the child's bytes as soon as they are read;
	// nil discards them (they are still kept in the tail and scanned).
	Stdout, Stderr io.Writer
	// NoTee turns off passing output on with tee(2) (see teePipe) and
	// reads and writes it instead; for measurements and tests.
	NoTee bool
	// MergeStreams gives the child one pipe for both stdout and stderr, all
	// of it going to Stdout. Use it when both lead to the same file (a
	// terminal, `> log 2>&1`): the child's writes then keep their exact
	// order, which two pipes read separately cannot promise.
	MergeStreams bool
	// TTY gives the child a pseudo-terminal as its stdout (and its stderr
	// too with MergeStreams), for when the wrapper's own output is a
	// terminal: the child then behaves as it would unwrapped. WinsizeFrom is
	// the terminal whose size it mirrors (SIGWINCH updates it).
	TTY         bool
	WinsizeFrom *os.File
	// TailBytes bounds the output kept for diagnosis (0: DefaultTailBytes).
	TailBytes int
	// TailOnFailureOnly leaves Result.Tail empty when the child exits 0:
	// merging the streams' tails costs a few copies of them, for nothing
	// when a success is not diagnosed.
	TailOnFailureOnly bool
	// MaxLine caps the length of a line handed to OnLine (0: DefaultMaxLine).
	MaxLine int
	// OnLine sees the output lines of both streams as they arrive, with
	// their number (from 1, across both streams), never concurrently. It
	// must be quick: the child's output waits for it. The line is only
	// valid during the call.
	OnLine func(line []byte, n int)
	// LineFilter, when set, limits OnLine to lines holding one of these
	// keywords; the others are only counted, at little cost.
	LineFilter []string
	// Signals delivers the signals the wrapper received, to be forwarded
	// to the child's process group, as a shell's job would receive them: a
	// second SIGINT kills the group; SIGWINCH also resizes the child's
	// pseudo-terminal; SIGTSTP stops the child and then the wrapper (see
	// jobControl); SIGTERM, SIGHUP and SIGQUIT count as Forwarded (stopped
	// on purpose); SIGCONT, SIGUSR1, SIGUSR2 and any other signal are just
	// passed on.
	Signals <-chan os.Signal
	// Timeout, when positive, ends the child (SIGTERM, then SIGKILL after
	// KillGrace) once it has run that long.
	Timeout   time.Duration
	KillGrace time.Duration
	// Terminal is the wrapper's controlling terminal, or nil. A child that
	// stops to read it (SIGTTIN/SIGTTOU) is given the foreground when the
	// wrapper holds it, as a shell would.
	Terminal *os.File
	// KillGroupOnExit ends whatever the child left running in its process
	// group; used for re-runs, whose leftovers are ours to clean up.
	KillGroupOnExit bool
	// Drain, when positive, bounds how long output is still read once the
	// child has exited: reading stops after that long without output (and
	// at maxDrainFactor times it in all). 0 reads to the end, as a pipeline
	// would: processes the child left behind that still hold its output
	// write to it until they close it (`(sleep 5; echo late) &`). Meanwhile
	// SIGINT, SIGTERM, SIGHUP and SIGQUIT are passed on to what is left of
	// the child's group and end the wait (a second SIGINT at once).
	Drain time.Duration
	// OnLinger, when set, is called once if the output is still open
	// a few seconds after the child exited (Drain 0), so the user can be told
	// what the wrapper waits for.
	OnLinger func()
	// LingerAfter is how long after the child's exit its output may stay
	// open before OnLinger is called (0: DefaultLinger).
	LingerAfter time.Duration
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Result is what happened.
type Result struct {
	Pid int
	// ExitCode is the child's status, 128+N when signal N ended it.
	ExitCode int
	// Signal is the signal that ended the child, 0 when it exited.
	Signal   syscall.Signal
	Duration time.Duration
	TimedOut bool
	// Interrupts counts the SIGINTs forwarded; Killed says the wrapper
	// escalated to SIGKILL.
	Interrupts int
	Killed     bool
	// Forwarded says a SIGTERM, SIGHUP or SIGQUIT was passed on to the child.
	Forwarded bool
	// Tail is the end of the child's output, both streams interleaved in
	// arrival order; Dropped is how many earlier bytes it no longer holds.
	Tail        []byte
	Dropped     int64
	OutputBytes int64
	// Lines counts the output lines of both streams.
	Lines int
	// WriteErr is set when passing output on failed (our stdout was closed);
	// the child then saw its pipe closed, as it would have unwrapped.
	WriteErr error
}

// StartError is a child that could not be started; Code follows bash (127
// not found, 126 found but not executable). Err says why; Interpreter, when
// set, is the missing interpreter a script's #! line names.
type StartError struct {
	Argv0       string
	Code        int
	Err         error
	Interpreter string
}

func (e *StartError) Error() string {
	if e.Interpreter != "" {
		return fmt.Sprintf("cannot run %s: bad interpreter %s: %v", e.Argv0, e.Interpreter, e.Err)
	}
	return fmt.Sprintf("cannot run %s: %v", e.Argv0, e.Err)
}
func (e *StartError) Unwrap() error { return e.Err }

// Run starts the child, supervises it to the end and returns its result.
// An error means the child could not be started or supervised; the child's
// own failure is in Result.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("no command to run")
	}
	now := spec.Now
	if now == nil {
		now = time.Now
	}
	tailBytes := orDefault(spec.TailBytes, DefaultTailBytes)
	maxLine := orDefault(spec.MaxLine, DefaultMaxLine)
	path, err := exec.LookPath(spec.Argv[0])
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return nil, lookupError(spec.Argv[0], err)
	}

	stdin := spec.Stdin
	if stdin == nil && !spec.StdinClosed {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return nil, err
		}
		defer null.Close()
		stdin = null
	}
	var outR, outW *os.File
	if spec.TTY {
		outR, outW, err = openPTY(spec.WinsizeFrom)
	} else {
		outR, outW, err = os.Pipe()
		if err == nil {
			// A larger pipe means fewer wake-ups per byte passed through.
			_, _ = unix.FcntlInt(outW.Fd(), unix.F_SETPIPE_SZ, pipeSize)
		}
	}
	if err != nil {
		return nil, err
	}
	errR, errW := outR, outW
	if !spec.MergeStreams {
		errR, errW, err = os.Pipe()
		if err != nil {
			outR.Close()
			outW.Close()
			return nil, err
		}
		_, _ = unix.FcntlInt(errW.Fd(), unix.F_SETPIPE_SZ, pipeSize)
	}

	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	start := now()
	// syscall.ForkExec rather than os.StartProcess: the latter first forks
	// a throwaway child to probe for pidfd support, which the wrapper's
	// start-up pays for and it does not use (it waits with wait4).
	stdinFd := ^uintptr(0) // closed in the child
	if stdin != nil {
		stdinFd = stdin.Fd()
	}
	pid, err := startChild(spec.Argv, path, &syscall.ProcAttr{
		Dir:   spec.Dir,
		Env:   env,
		Files: []uintptr{stdinFd, outW.Fd(), errW.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	outW.Close()
	if !spec.MergeStreams {
		errW.Close()
	}
	if err != nil {
		outR.Close()
		if !spec.MergeStreams {
			errR.Close()
		}
		return nil, err
	}

	var seq seqCounter
	var lineMu sync.Mutex
	var lineCount int
	var filter [][]byte
	for _, kw := range spec.LineFilter {
		filter = append(filter, []byte(kw))
	}
	newLines := func() *lineSplitter {
		return &lineSplitter{max: maxLine, mu: &lineMu, count: &lineCount, emit: spec.OnLine, filter: filter}
	}
	out := &pump{src: outR, dst: spec.Stdout, st: newStream(tailBytes, maxSegments), lines: newLines(), seq: &seq}
	errp := &pump{src: errR, dst: spec.Stderr, st: newStream(tailBytes, maxSegments), lines: newLines(), seq: &seq}
	if !spec.TTY && !spec.NoTee {
		out.tee = newTee(spec.Stdout)
		errp.tee = newTee(spec.Stderr)
	}
	var pumps sync.WaitGroup
	pumps.Add(1)
	go func() { defer pumps.Done(); out.run() }()
	if !spec.MergeStreams {
		pumps.Add(1)
		go func() { defer pumps.Done(); errp.run() }()
	}

	res := &Result{Pid: pid}
	var pty *os.File
	if spec.TTY {
		pty = outR
	}
	ws := supervise(ctx, spec, pid, res, pty)
	res.Duration = now().Sub(start)
	switch {
	case ws.Signaled():
		res.Signal = ws.Signal()
		res.ExitCode = 128 + int(res.Signal)
	case ws.Exited():
		res.ExitCode = ws.ExitStatus()
	}
	if spec.KillGroupOnExit {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}

	pumpsDone := make(chan struct{})
	go func() { pumps.Wait(); close(pumpsDone) }()
	drainAfterExit(spec, pid, []*pump{out, errp}, pumpsDone)
	outR.Close()
	if !spec.MergeStreams {
		errR.Close()
	}

	res.OutputBytes = out.st.written + errp.st.written
	if spec.TailOnFailureOnly && res.ExitCode == 0 {
		res.Dropped = res.OutputBytes
	} else {
		res.Tail, res.Dropped = mergeTail(tailBytes, out.st, errp.st)
	}
	res.Lines = lineCount
	if out.werr != nil {
		res.WriteErr = out.werr
	} else if errp.werr != nil {
		res.WriteErr = errp.werr
	}
	return res, nil
}

// pump copies one stream: each read lands in the tail ring and is written
// on at once, then scanned for lines.
//
// It reads the descriptor itself, blocking in poll(2) on its own thread,
// rather than through Go's network poller: a pipe that is read as fast as
// a child can fill it wakes its reader thousands of times a second, and
// the poller's hand-offs between threads cost several times the copy.
type pump struct {
	src *os.File
	dst io.Writer
	// tee, when set, passes output on to dst, a pipe, without copying it
	// through the wrapper (Linux) as far as dst has room; the rest is
	// written.
	tee   *teePipe
	st    *stream
	lines *lineSplitter
	seq   *seqCounter
	werr  error
	// drain is the idle time allowed once the child has exited (nanoseconds,
	// 0 while it runs); reading goes on while output still flows, up to
	// hardStop.
	drain      atomic.Int64
	hardStop   atomic.Int64
	drainBegan atomic.Int64
}

// drainAfterExit waits for the pumps to finish reading once the child has
// exited, bounding the wait as spec.Drain says and ending it when the user
// asks.
func drainAfterExit(spec Spec, pid int, pumps []*pump, done <-chan struct{}) {
	stopAfter := func(idle time.Duration) {
		hardStop := time.Now().Add(maxDrainFactor * idle)
		for _, p := range pumps {
			p.startDrain(idle, hardStop)
		}
	}
	var linger <-chan time.Time
	if spec.Drain > 0 {
		stopAfter(spec.Drain)
	} else if spec.OnLinger != nil {
		after := spec.LingerAfter
		if after <= 0 {
			after = DefaultLinger
		}
		t := time.NewTimer(after)
		defer t.Stop()
		linger = t.C
	}
	interrupts := 0
	for {
		select {
		case <-done:
			return
		case <-linger:
			spec.OnLinger()
		case s := <-spec.Signals:
			sig, ok := s.(syscall.Signal)
			if !ok {
				continue
			}
			switch sig {
			case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT:
				// Unwrapped, what is left of the job would get the signal
				// from the terminal or the scheduler; it decides whether
				// its output ends. A second Ctrl-C stops waiting at once.
				_ = syscall.Kill(-pid, sig)
				interrupts++
				if sig == syscall.SIGINT && interrupts >= 2 {
					stopAfter(time.Millisecond)
				} else {
					stopAfter(DefaultDrain)
				}
			}
		}
	}
}

// maxDrainFactor bounds the whole drain at this many idle periods, so that a
// process left behind that keeps writing cannot hold the wrapper forever.
const maxDrainFactor = 30

// pollSlice is how often a waiting pump checks whether draining started.
const pollSlice = 100 * time.Millisecond

func (p *pump) startDrain(idle time.Duration, hardStop time.Time) {
	p.hardStop.Store(hardStop.UnixNano())
	p.drainBegan.Store(time.Now().UnixNano())
	p.drain.Store(int64(idle))
}

func (p *pump) run() {
	defer p.lines.flush()
	var fd int
	if err := control(p.src, func(f int) error { fd = f; return nil }); err != nil {
		return
	}
	lastData := time.Now()
	// Reads start small, so a quiet stream costs little, and grow while
	// they come back full: fewer, larger reads when output streams.
	chunk := firstChunk
	for {
		buf := p.st.readBuf(chunk)
		var n, passed int
		var err, werr error
		if p.tee != nil {
			n, passed, err, werr = p.tee.pass(fd, buf)
		} else {
			n, err = unix.Read(fd, buf)
		}
		switch {
		case werr != nil:
			p.writeFailed(werr)
			return
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if !p.wait(fd, lastData) {
				return
			}
			continue
		case err != nil || n <= 0:
			return // EOF; EIO on a pseudo-terminal whose slave is closed
		}
		lastData = time.Now()
		if n == len(buf) && chunk < readChunk {
			chunk *= 2
		}
		p.st.commit(n, p.seq.next())
		if p.dst != nil && passed < n {
			if _, werr := p.dst.Write(buf[passed:n]); werr != nil {
				p.lines.write(buf[:n])
				p.writeFailed(werr)
				return
			}
		}
		p.lines.write(buf[:n])
	}
}

// writeFailed: our reader went away. The child's pipe is closed so that it
// learns the same way it would have unwrapped.
func (p *pump) writeFailed(err error) {
	p.werr = err
	p.dst, p.tee = nil, nil
	p.src.Close()
}

// wait blocks until fd is readable. Once the child has exited it gives up
// after the drain's idle time without data, or at its hard stop.
func (p *pump) wait(fd int, lastData time.Time) bool {
	for {
		timeout := pollSlice
		if idle := time.Duration(p.drain.Load()); idle > 0 {
			now := time.Now()
			since := lastData
			if began := time.Unix(0, p.drainBegan.Load()); began.After(since) {
				since = began // idle time counts from the child's exit at the earliest
			}
			deadline := since.Add(idle)
			if hs := time.Unix(0, p.hardStop.Load()); hs.Before(deadline) {
				deadline = hs
			}
			if !now.Before(deadline) {
				return false
			}
			if left := deadline.Sub(now); left < timeout {
				timeout = left
			}
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(timeout.Milliseconds())+1)
		if err == unix.EINTR || n == 0 {
			continue
		}
		return err == nil
	}
}

// supervise waits for the child, forwarding signals, enforcing the timeout
// and handing over the terminal when the child needs it.
func supervise(ctx context.Context, spec Spec, pid int, res *Result, pty *os.File) syscall.WaitStatus {
	type waitResult struct {
		ws  syscall.WaitStatus
		err error
	}
	done := make(chan waitResult, 1)
	stopped := make(chan syscall.Signal, 1)
	go func() {
		for {
			var ws syscall.WaitStatus
			_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil)
			if err == syscall.EINTR {
				continue
			}
			if err == nil && ws.Stopped() {
				stopped <- ws.StopSignal()
				continue
			}
			done <- waitResult{ws, err}
			return
		}
	}()

	var timeout, grace <-chan time.Time
	if spec.Timeout > 0 {
		t := time.NewTimer(spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	killGrace := orDefaultDur(spec.KillGrace, DefaultKillGrace)
	terminate := func() {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		if grace == nil {
			t := time.NewTimer(killGrace)
			grace = t.C
		}
	}
	jc := &jobControl{tty: spec.Terminal, pid: pid}
	defer jc.restore()
	ctxDone := ctx.Done()
	for {
		select {
		case w := <-done:
			if w.err != nil {
				// Someone else reaped it; the status is lost.
				return syscall.WaitStatus(255 << 8)
			}
			return w.ws
		case sig := <-stopped:
			jc.stopped(sig)
		case s := <-spec.Signals:
			sig, ok := s.(syscall.Signal)
			if !ok {
				continue
			}
			switch sig {
			case syscall.SIGINT:
				res.Interrupts++
				if res.Interrupts >= 2 {
					res.Killed = true
					_ = syscall.Kill(-pid, syscall.SIGKILL)
				} else {
					_ = syscall.Kill(-pid, syscall.SIGINT)
				}
			case syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT:
				res.Forwarded = true
				_ = syscall.Kill(-pid, sig)
			case syscall.SIGWINCH:
				copyWinsize(spec.WinsizeFrom, pty)
				_ = syscall.Kill(-pid, sig)
			case syscall.SIGTSTP:
				jc.forwardStop()
			default:
				// SIGCONT (fg, bg), SIGUSR1, SIGUSR2 and whatever else the
				// caller chose to forward.
				_ = syscall.Kill(-pid, sig)
			}
		case <-timeout:
			res.TimedOut = true
			timeout = nil
			terminate()
		case <-ctxDone:
			ctxDone = nil
			terminate()
		case <-grace:
			res.Killed = true
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}

func orDefault(v, d int) int {
	if v <= 0 {
		return d
	}
	return v
}

func orDefaultDur(v, d time.Duration) time.Duration {
	if v <= 0 {
		return d
	}
	return v
}

// plainErr drops exec's and os's wrappers, which repeat the command name.
func plainErr(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		err = ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err
}
