package runner

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openPTY returns a pseudo-terminal for the child's output: the child
// writes to the slave and sees a terminal, as it would unwrapped (Python
// keeps line buffering, libraries keep colours and progress bars); the
// wrapper reads the master. Output processing is turned off on the slave so
// the bytes arrive unchanged: the real terminal does its own processing
// when they are written on. size, when set, is the terminal whose window
// size the child should see.
func openPTY(size *os.File) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var n uint32
	err = control(master, func(fd int) error {
		if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
			return err
		}
		var err error
		n, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN)
		return err
	})
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	err = control(slave, func(fd int) error {
		t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			return err
		}
		t.Oflag &^= unix.OPOST
		return unix.IoctlSetTermios(fd, unix.TCSETS, t)
	})
	if err != nil {
		master.Close()
		slave.Close()
		return nil, nil, err
	}
	copyWinsize(size, master)
	return master, slave, nil
}

// copyWinsize gives the pty the window size of the real terminal.
func copyWinsize(from, pty *os.File) {
	if from == nil || pty == nil {
		return
	}
	_ = control(from, func(src int) error {
		ws, err := unix.IoctlGetWinsize(src, unix.TIOCGWINSZ)
		if err != nil {
			return err
		}
		return control(pty, func(dst int) error { return unix.IoctlSetWinsize(dst, unix.TIOCSWINSZ, ws) })
	})
}

// control runs f on the descriptor without switching it to blocking mode
// (File.Fd would, and the master must stay pollable for read deadlines).
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
