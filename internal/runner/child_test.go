package runner

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The test binary doubles as the fake child: with RUNNER_TEST_CHILD set it
// acts out a behaviour instead of running the tests (re-executing it is far
// quicker than building a helper program).
const childEnv = "RUNNER_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// childArgv is the argv that runs the fake child in a mode.
func childArgv(t testing.TB, mode string, args ...string) ([]string, []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{exe}, args...), append(os.Environ(), childEnv+"="+mode)
}

func child(mode string, args []string) int {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	num := func(i int) int64 {
		n, _ := strconv.ParseInt(arg(i), 10, 64)
		return n
	}
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stdout, "out before exit")
		fmt.Fprintln(os.Stderr, "err before exit")
		return int(num(0))
	case "signal":
		// The Go runtime turns SIGABRT and SIGSEGV into exit 2; a shell
		// that kills itself dies of the signal itself.
		syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -" + arg(0) + " $$"}, os.Environ())
		return 99
	case "random":
		// random SIZE SEED: pseudo-random bytes, stdout and a little stderr.
		rng := rand.New(rand.NewSource(num(1)))
		buf := make([]byte, 1<<20)
		left := num(0)
		for left > 0 {
			n := int64(len(buf))
			if n > left {
				n = left
			}
			rng.Read(buf[:n])
			if _, err := os.Stdout.Write(buf[:n]); err != nil {
				return 3
			}
			left -= n
		}
		fmt.Fprintln(os.Stderr, "done")
		return 0
	case "cat":
		io.Copy(os.Stdout, os.Stdin)
		return 0
	case "replay":
		// replay FILE CODE: the file to stderr, then exit CODE.
		b, err := os.ReadFile(arg(0))
		if err != nil {
			return 3
		}
		os.Stderr.Write(b)
		return int(num(1))
	case "interleave":
		for i := 0; i < int(num(0)); i++ {
			fmt.Fprintf(os.Stdout, "out %d\n", i)
			fmt.Fprintf(os.Stderr, "err %d\n", i)
		}
		return 0
	case "trap":
		// trap: report each signal on stdout; exit after TERM/HUP; with
		// "stubborn", ignore every SIGINT.
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		if arg(0) == "grandchild" {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"=grandchild")
			pipe, _ := cmd.StdoutPipe()
			cmd.Start()
			r := bufio.NewReader(pipe)
			r.ReadString('\n') // "grandchild ready"
			copied := make(chan struct{})
			go func() { io.Copy(os.Stdout, r); close(copied) }()
			defer func() { <-copied; cmd.Wait() }()
		}
		fmt.Println("ready")
		for s := range ch {
			fmt.Printf("child got %v\n", s)
			if s != syscall.SIGINT || arg(0) != "stubborn" {
				return 0
			}
		}
	case "grandchild":
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM)
		fmt.Println("grandchild ready")
		select {
		case s := <-ch:
			fmt.Printf("grandchild got %v\n", s)
		case <-time.After(10 * time.Second):
		}
		return 0
	case "isatty":
		// isatty: report whether stdout and stderr are terminals, and the
		// window size, in bytes that output processing would change.
		_, err1 := unix.IoctlGetTermios(1, unix.TCGETS)
		_, err2 := unix.IoctlGetTermios(2, unix.TCGETS)
		ws, _ := unix.IoctlGetWinsize(1, unix.TIOCGWINSZ)
		fmt.Printf("stdout tty %v\nstderr tty %v\ncols %d\n", err1 == nil, err2 == nil, ws.Col)
		os.Stdout.Write([]byte("raw\r\nbytes\n\x00\xff"))
		return 0
	case "orphan":
		// orphan: leave a process behind that holds stdout open, and exit.
		cmd := exec.Command("sleep", "30")
		cmd.Stdout = os.Stdout
		cmd.Start()
		fmt.Println("parent done")
		return 0
	case "jobctl":
		// jobctl SLAVE: become a session leader with the pty as controlling
		// terminal (a user's shell, in short), and supervise a child that
		// reads the terminal.
		if _, err := syscall.Setsid(); err != nil {
			return 3
		}
		tty, err := os.OpenFile(arg(0), os.O_RDWR, 0)
		if err != nil {
			return 3
		}
		if err := unix.IoctlSetInt(int(tty.Fd()), unix.TIOCSCTTY, 0); err != nil {
			return 4
		}
		exe, _ := os.Executable()
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, childEnv+"=") {
				env = append(env, kv)
			}
		}
		res, err := Run(context.Background(), Spec{Argv: []string{exe}, Env: append(env, childEnv+"=readtty"),
			Stdin: tty, Stdout: os.Stdout, Terminal: ControllingTerminal(tty)})
		if err != nil {
			return 5
		}
		fmt.Printf("child exit %d\n", res.ExitCode)
		return 0
	case "wrap":
		// wrap SCRIPT [ARG0 ARGS...]: a wrapper as the CLI runs it (signals
		// caught and forwarded), supervising sh -c SCRIPT ARG0 ARGS...; the wrapper itself can be
		// stopped and continued like a shell's job.
		sigs := make(chan os.Signal, 8)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
			syscall.SIGTSTP, syscall.SIGCONT, syscall.SIGUSR1, syscall.SIGUSR2)
		res, err := Run(context.Background(), Spec{Argv: append([]string{"sh", "-c", arg(0)}, args[1:]...), Stdout: os.Stdout, Signals: sigs})
		if err != nil {
			return 5
		}
		fmt.Printf("wrapper: child exit %d\n", res.ExitCode)
		return 0
	case "count":
		// count: count to 20 in steps of 50 ms, without forking.
		i := 0
		for ; i < 20; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Printf("counted %d\n", i)
		return 0
	case "closedstdin":
		fmt.Println(ClosedAtStart(os.Stdin))
		return 0
	case "readtty":
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Printf("read %q\n", line)
		return 0
	case "sleep":
		d, _ := time.ParseDuration(arg(0))
		time.Sleep(d)
		return 0
	case "lines":
		w := bufio.NewWriter(os.Stdout)
		for i := 0; i < int(num(0)); i++ {
			fmt.Fprintf(w, "line %d of the output of a long training run\n", i)
		}
		w.Flush()
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown child mode", mode)
	return 2
}

func strconvItoa(n int64) string { return strconv.FormatInt(n, 10) }
