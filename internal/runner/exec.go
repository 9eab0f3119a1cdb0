package runner

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The child is started the way bash starts a command, so that a command
// that cannot run fails with the status and the reason bash would give.

// lookupError turns a failed PATH lookup into bash's status: 127 for a
// command that does not exist, 126 for one that exists but cannot be run (a
// directory, no execute permission).
func lookupError(argv0 string, err error) *StartError {
	code := 126
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		code = 127
	}
	if errors.Is(err, exec.ErrNotFound) {
		err = errors.New("command not found")
	}
	return &StartError{Argv0: argv0, Code: code, Err: plainErr(err)}
}

// startChild execs path. A file the kernel cannot execute that is not
// binary is a shell script without a #! line: bash runs those with a shell,
// and so does this. A file that exists but whose exec fails with ENOENT
// names an interpreter (#!) or a dynamic loader that is missing; the error
// says which.
func startChild(argv []string, path string, attr *syscall.ProcAttr) (int, error) {
	// syscall.ForkExec rather than os.StartProcess: the latter first forks
	// a throwaway child to probe for pidfd support, which the wrapper's
	// start-up pays for and it does not use (it waits with wait4).
	pid, err := syscall.ForkExec(path, argv, attr)
	if err == nil {
		return pid, nil
	}
	argv0 := argv[0]
	head := fileHead(path)
	switch {
	case errors.Is(err, syscall.ENOEXEC):
		if looksBinary(head) {
			return 0, &StartError{Argv0: argv0, Code: 126, Err: errors.New("cannot execute binary file: exec format error")}
		}
		shArgv := append([]string{"sh", path}, argv[1:]...)
		pid, err = syscall.ForkExec("/bin/sh", shArgv, attr)
		if err == nil {
			return pid, nil
		}
	case errors.Is(err, syscall.ENOENT):
		// The file is there (the lookup found it), so what is missing is
		// what the kernel needs to run it.
		if interp := shebang(head); interp != "" {
			return 0, &StartError{Argv0: argv0, Code: 127, Err: plainErr(err), Interpreter: interp}
		}
		return 0, &StartError{Argv0: argv0, Code: 127, Err: errors.New("cannot execute: required file not found")}
	}
	code := 126
	if errors.Is(err, os.ErrNotExist) {
		code = 127
	}
	return 0, &StartError{Argv0: argv0, Code: code, Err: plainErr(err)}
}

// fileHead is the start of the file, enough for a #! line and for telling
// text from binary ("" when it cannot be read).
func fileHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	return buf[:n]
}

// looksBinary follows bash: a NUL byte in the first line (of at most 80
// bytes) means the file is not a script.
func looksBinary(head []byte) bool {
	if len(head) > 80 {
		head = head[:80]
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// shebang is the interpreter a #! line names, "" when there is none.
func shebang(head []byte) string {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return ""
	}
	line := head[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// ClosedAtStart reports whether f, one of the process's standard
// descriptors, was closed when the program started. The Go runtime opens
// /dev/null read-write on a closed standard descriptor before any of our
// code runs; a shell's `< /dev/null` opens it read-only, so the access mode
// tells the two apart (`<> /dev/null` is taken for closed, a rare mistake).
func ClosedAtStart(f *os.File) bool {
	if f == nil {
		return false
	}
	closed := false
	_ = control(f, func(fd int) error {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != unix.Mkdev(1, 3) {
			return nil
		}
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			return err
		}
		closed = fl&unix.O_ACCMODE == unix.O_RDWR
		return nil
	})
	return closed
}
