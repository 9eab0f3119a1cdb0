package runner

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests hold the wrapper to what a shell does with the same command:
// how a command that cannot run fails, what the child's stdin is, which
// signals reach it, and that output written after it exited still arrives.

func TestExecFailuresAsBashReportsThem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	binary := write("binary", "\x7fELG\x00\x01\x02 not a program\n", 0o755)
	badInterp := write("bad-interp", "#!/nonexistent/python3 -u\nprint(1)\n", 0o755)
	if err := os.Mkdir(dir+"/subdir", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, argv0 string
		code        int
		msg         string
	}{
		{"not found in PATH", "cudadoctor-no-such-command", 127, "command not found"},
		{"missing path", dir + "/missing", 127, ": no such file or directory"},
		{"a directory", dir + "/subdir", 126, "is a directory"},
		{"binary the kernel refuses", binary, 126, "cannot execute binary file"},
		{"missing interpreter is named", badInterp, 127, "bad interpreter /nonexistent/python3: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), Spec{Argv: []string{tc.argv0}})
			var se *StartError
			if !errors.As(err, &se) || se.Code != tc.code || !strings.Contains(se.Error(), tc.msg) {
				t.Errorf("got %v, want a StartError with code %d saying %q", err, tc.code, tc.msg)
			}
		})
	}
}

func TestScriptWithoutShebangRunsWithSh(t *testing.T) {
	script := t.TempDir() + "/noshebang"
	if err := os.WriteFile(script, []byte("echo \"$0 got $1\"\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	res := run(t, Spec{Argv: []string{script, "arg"}, Stdout: &out})
	if res.ExitCode != 7 || out.String() != script+" got arg\n" {
		t.Errorf("exit %d, output %q", res.ExitCode, out.String())
	}
}

func TestClosedStdinStaysClosed(t *testing.T) {
	probe := []string{"sh", "-c", "if ls /proc/self/fd/0 >/dev/null 2>&1; then echo open; else echo closed; fi"}
	for _, tc := range []struct {
		closed bool
		want   string
	}{{true, "closed\n"}, {false, "open\n"}} {
		var out syncBuffer
		run(t, Spec{Argv: probe, Stdout: &out, StdinClosed: tc.closed})
		if out.String() != tc.want {
			t.Errorf("StdinClosed %v: the child's stdin is %q", tc.closed, out.String())
		}
	}
}

func TestClosedAtStartTellsAClosedStdinFromDevNull(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for redirect, want := range map[string]string{"<&-": "true\n", "</dev/null": "false\n"} {
		cmd := exec.Command("sh", "-c", `exec "$0" `+redirect, exe)
		cmd.Env = append(os.Environ(), childEnv+"=closedstdin")
		out, err := cmd.Output()
		if err != nil || string(out) != want {
			t.Errorf("%s: ClosedAtStart says %q (%v), want %q", redirect, out, err, want)
		}
	}
}

func TestUserSignalsAndQuitAreForwarded(t *testing.T) {
	script := `trap 'echo got USR1' USR1; trap 'echo got USR2' USR2; trap 'echo got QUIT; exit 7' QUIT
echo ready; while :; do sleep 0.05; done`
	sigs := make(chan os.Signal, 4)
	var lines []string
	// The shell's sleep gets the signals too (they go to the group) and
	// may die of them, which the shell reports on stderr: only its own
	// lines count here.
	res := run(t, Spec{Argv: []string{"sh", "-c", script}, Signals: sigs, Stderr: io.Discard, OnLine: func(l []byte, _ int) {
		if !strings.HasPrefix(string(l), "got ") && string(l) != "ready" {
			return
		}
		lines = append(lines, string(l))
		switch string(l) {
		case "ready":
			sigs <- syscall.SIGUSR1
		case "got USR1":
			sigs <- syscall.SIGUSR2
		case "got USR2":
			sigs <- syscall.SIGQUIT
		}
	}})
	if res.ExitCode != 7 || !res.Forwarded || strings.Join(lines, ",") != "ready,got USR1,got USR2,got QUIT" {
		t.Errorf("exit %d forwarded %v, lines %q", res.ExitCode, res.Forwarded, lines)
	}
}

// procState is the state letter of a process (R, S, T, Z...).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

func waitState(t *testing.T, what string, pid int, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for procState(pid) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is in state %q, want %q", what, pid, procState(pid), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCtrlZStopsTheChildAndTheWrapper(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The child counts to 20 in steps of 50 ms; stopped, it does not count.
	// It counts in one process: a shell that forks sleep can be caught by
	// the Ctrl-Z between vfork and exec, where dash then waits, unstoppable,
	// for a child that is stopped, and no job control (a shell's or ours)
	// sees the job stop.
	cmd := exec.Command(exe, `echo "pid $$"; exec env `+childEnv+`=count "$0"`)
	cmd.Args = append(cmd.Args, exe)
	cmd.Env = append(os.Environ(), childEnv+"=wrap")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(stdout)
	first, _ := r.ReadString('\n')
	childPid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(first, "pid ")))
	if err != nil {
		t.Fatalf("first line %q", first)
	}
	wrapper := cmd.Process.Pid
	// Ctrl-Z, as the terminal sends it to the wrapper's job.
	syscall.Kill(wrapper, syscall.SIGTSTP)
	waitState(t, "the child", childPid, "T")
	waitState(t, "the wrapper", wrapper, "T")
	// fg: the shell continues the wrapper, which continues the child.
	syscall.Kill(wrapper, syscall.SIGCONT)
	var rest strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 256)
		for {
			n, err := r.Read(b)
			rest.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the job did not finish after SIGCONT; child state %q", procState(childPid))
	}
	cmd.Wait()
	if rest.String() != "counted 20\nwrapper: child exit 0\n" {
		t.Errorf("after fg: %q", rest.String())
	}
}

func TestOutputAfterExitIsReadToTheEnd(t *testing.T) {
	var out syncBuffer
	res := run(t, Spec{Argv: []string{"sh", "-c", "(sleep 1.2; echo late) & echo early; exit 3"}, Stdout: &out})
	if res.ExitCode != 3 || out.String() != "early\nlate\n" || string(res.Tail) != "early\nlate\n" {
		t.Errorf("exit %d, output %q, tail %q", res.ExitCode, out.String(), res.Tail)
	}
}

func TestWaitingForLeftoversEndsOnASignal(t *testing.T) {
	// What the child leaves behind ignores SIGTERM and keeps stdout open.
	sigs := make(chan os.Signal, 2)
	var lingered sync.Once
	called := false
	start := time.Now()
	res := run(t, Spec{
		Argv:        []string{"sh", "-c", `(trap '' TERM; exec sleep 30) & echo early`},
		Signals:     sigs,
		LingerAfter: 50 * time.Millisecond,
		OnLinger: func() {
			lingered.Do(func() { called = true; sigs <- syscall.SIGTERM })
		},
	})
	defer syscall.Kill(-res.Pid, syscall.SIGKILL)
	if !called {
		t.Error("OnLinger was not called")
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %v: SIGTERM did not end the wait", took)
	}
	if res.ExitCode != 0 || string(res.Tail) != "early\n" {
		t.Errorf("exit %d, tail %q", res.ExitCode, res.Tail)
	}
}
