package runner

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// jobControl lets an interactive child use the terminal. The child starts
// in its own, background process group, so that the wrapper sees Ctrl-C and
// can forward and escalate it. When the child stops because it wants the
// terminal (a breakpoint, input()), it is given the foreground, as a shell
// would; from then on Ctrl-C reaches it straight from the terminal.
type jobControl struct {
	tty *os.File
	pid int
	fg  bool
}

func (j *jobControl) stopped(sig syscall.Signal) {
	if j.tty == nil {
		return
	}
	fd := int(j.tty.Fd())
	switch sig {
	case syscall.SIGTTIN, syscall.SIGTTOU:
		if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, j.pid); err == nil {
			j.fg = true
		}
		_ = syscall.Kill(-j.pid, syscall.SIGCONT)
	case syscall.SIGTSTP:
		if !j.fg {
			return
		}
		// Ctrl-Z reached the child: suspend the wrapper with it, so the
		// shell sees the job stop, and resume both on fg.
		j.takeBack()
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pg == syscall.Getpgrp() {
			if unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, j.pid) == nil {
				j.fg = true
			}
		}
		_ = syscall.Kill(-j.pid, syscall.SIGCONT)
	}
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

// ForegroundTerminal returns f when it is a terminal whose foreground process
// group is the caller's, i.e. when a child may need it handed over.
func ForegroundTerminal(f *os.File) *os.File {
	if f == nil {
		return nil
	}
	pg, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	if err != nil || pg != syscall.Getpgrp() {
		return nil
	}
	return f
}
