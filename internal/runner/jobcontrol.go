package runner

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// jobControl makes the wrapper and its child one job, as the shell sees it.
// The child starts in its own, background process group, so that the
// wrapper sees Ctrl-C and can forward and escalate it. Stopping is passed
// both ways: a Ctrl-Z the wrapper receives is forwarded, and once the child
// has stopped the wrapper stops too, so the shell reports the job stopped;
// on fg or bg the wrapper continues the child. When the child stops because
// it wants the terminal (a breakpoint, input()), it is given the foreground
// if the wrapper holds it, as a shell would; from then on Ctrl-C and Ctrl-Z
// reach it straight from the terminal. A background job's child that wants
// the terminal stops the job, as it would unwrapped.
type jobControl struct {
	tty *os.File
	pid int
	fg  bool
	// tstp: a SIGTSTP was forwarded and the child has not stopped since.
	tstp bool
}

// forwardStop passes a SIGTSTP the wrapper received on to the child.
func (j *jobControl) forwardStop() {
	j.tstp = true
	_ = syscall.Kill(-j.pid, syscall.SIGTSTP)
}

// stopped handles the child stopping with sig.
func (j *jobControl) stopped(sig syscall.Signal) {
	switch sig {
	case syscall.SIGTTIN, syscall.SIGTTOU:
		if j.tty != nil && j.holdsTerminal() {
			if err := unix.IoctlSetPointerInt(int(j.tty.Fd()), unix.TIOCSPGRP, j.pid); err == nil {
				j.fg = true
			}
			_ = syscall.Kill(-j.pid, syscall.SIGCONT)
			return
		}
		j.suspend()
	case syscall.SIGTSTP, syscall.SIGSTOP:
		// A stop someone sent the child alone (kill -STOP) is theirs to
		// undo; only a stop meant for the job suspends the wrapper.
		if j.fg && sig == syscall.SIGTSTP || j.tstp {
			j.suspend()
		}
	}
}

// suspend stops the wrapper while its child is stopped, and continues the
// child when the wrapper is continued.
func (j *jobControl) suspend() {
	j.tstp = false
	wasFg := j.fg
	j.takeBack()
	stopSelf()
	if wasFg && j.holdsTerminal() {
		if unix.IoctlSetPointerInt(int(j.tty.Fd()), unix.TIOCSPGRP, j.pid) == nil {
			j.fg = true
		}
	}
	_ = syscall.Kill(-j.pid, syscall.SIGCONT)
}

// stopSelf stops the wrapper and returns once it is continued. The stop is
// sent to the calling thread, which then handles it before the system call
// returns; sent to the process, another thread could take it while this
// one went on to continue the child first.
func stopSelf() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), unix.SIGSTOP)
}

// holdsTerminal says whether the wrapper's group is the terminal's
// foreground group (false without a terminal).
func (j *jobControl) holdsTerminal() bool {
	if j.tty == nil {
		return false
	}
	pg, err := unix.IoctlGetInt(int(j.tty.Fd()), unix.TIOCGPGRP)
	return err == nil && pg == syscall.Getpgrp()
}

// takeBack returns the foreground to the wrapper's group. From the
// background that raises SIGTTOU unless it is ignored, so it is ignored for
// the call.
func (j *jobControl) takeBack() {
	if !j.fg {
		return
	}
	signal.Ignore(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(int(j.tty.Fd()), unix.TIOCSPGRP, syscall.Getpgrp())
	signal.Reset(syscall.SIGTTOU)
	j.fg = false
}

func (j *jobControl) restore() { j.takeBack() }

// ControllingTerminal returns f when it is the caller's controlling
// terminal, the one a child may need handed over (in the foreground or, for
// a job in the background, once it is brought to the foreground).
func ControllingTerminal(f *os.File) *os.File {
	if f == nil {
		return nil
	}
	if _, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP); err != nil {
		return nil
	}
	return f
}
