package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as cudadoctor itself, so that these tests see the
// real process: its signal handling and its exit status, which an
// in-process call of cli.Main cannot show.
const asMain = "CUDADOCTOR_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func cudadoctor(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), asMain+"=1")
	return cmd
}

func exitStatus(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestRunPassesCtrlBackslashOnWithoutAStackDump(t *testing.T) {
	cmd := cudadoctor(t, "run", "--", "sh", "-c",
		`trap 'echo got QUIT; exit 5' QUIT; echo ready; while :; do sleep 0.05; done`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	if line, _ := r.ReadString('\n'); line != "ready\n" {
		t.Fatalf("first line %q", line)
	}
	cmd.Process.Signal(syscall.SIGQUIT)
	rest, _ := io.ReadAll(r)
	code := exitStatus(cmd.Wait())
	if code != 5 || string(rest) != "got QUIT\n" {
		t.Errorf("exit %d, output after the signal %q", code, rest)
	}
	if strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "SIGQUIT") {
		t.Errorf("the wrapper reacted to SIGQUIT itself: %.300s", stderr.String())
	}
}

func TestRunPassesLateOutputOnBeforeTheDiagnosis(t *testing.T) {
	// Both streams into one pipe, as in `run ... 2>&1 | cat`: the order of
	// the child's late line and cudadoctor's verdict is visible.
	cmd := cudadoctor(t, "run", "--", "sh", "-c", "(sleep 1; echo late) & echo early; exit 3")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	out, _ := io.ReadAll(r)
	code := exitStatus(cmd.Wait())
	if code != 3 || !strings.HasPrefix(string(out), "early\nlate\ncudadoctor: sh exited with status 3") {
		t.Errorf("exit %d after %v, output %q", code, time.Since(start), out)
	}
}

func TestRunKeepsAClosedStdinClosed(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	probe := "if ls /proc/self/fd/0 >/dev/null 2>&1; then echo open; else echo closed; fi"
	for redirect, want := range map[string]string{"<&-": "closed\n", "</dev/null": "open\n"} {
		cmd := exec.Command("sh", "-c", `exec "$0" run -- sh -c "$1" `+redirect, exe, probe)
		cmd.Env = append(os.Environ(), asMain+"=1")
		out, err := cmd.Output()
		if err != nil || string(out) != want {
			t.Errorf("%s: the child's stdin is %q (%v), want %q", redirect, out, err, want)
		}
	}
}
