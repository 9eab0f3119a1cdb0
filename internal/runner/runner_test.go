package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func run(t *testing.T, spec Spec) *Result {
	t.Helper()
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestExitCodeAndSignalFidelity(t *testing.T) {
	tests := []struct {
		name     string
		mode     string
		args     []string
		wantCode int
		wantSig  syscall.Signal
	}{
		{"success", "exit", []string{"0"}, 0, 0},
		{"exit 1", "exit", []string{"1"}, 1, 0},
		{"exit 42", "exit", []string{"42"}, 42, 0},
		{"exit 255", "exit", []string{"255"}, 255, 0},
		{"SIGABRT", "signal", []string{"6"}, 134, syscall.SIGABRT},
		{"SIGKILL", "signal", []string{"9"}, 137, syscall.SIGKILL},
		{"SIGSEGV", "signal", []string{"11"}, 139, syscall.SIGSEGV},
		{"SIGTERM", "signal", []string{"15"}, 143, syscall.SIGTERM},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv, env := childArgv(t, tc.mode, tc.args...)
			res := run(t, Spec{Argv: argv, Env: env})
			if res.ExitCode != tc.wantCode || res.Signal != tc.wantSig {
				t.Errorf("exit %d signal %v, want %d %v", res.ExitCode, res.Signal, tc.wantCode, tc.wantSig)
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	dir := t.TempDir()
	notExec := dir + "/script"
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv0 string
		code  int
	}{
		{"cudadoctor-no-such-command", 127},
		{dir + "/missing", 127},
		{notExec, 126},
	} {
		_, err := Run(context.Background(), Spec{Argv: []string{tc.argv0}})
		se, ok := err.(*StartError)
		if !ok || se.Code != tc.code {
			t.Errorf("%s: got %v, want a StartError with code %d", tc.argv0, err, tc.code)
		}
	}
}

func TestPassthroughIsByteExact(t *testing.T) {
	size := int64(50 << 20)
	if testing.Short() {
		size = 4 << 20
	}
	argv, env := childArgv(t, "random", itoa(size), "7")
	h := sha256.New()
	var n countingWriter
	// The tail outgrows the pipe's buffer, so stderr's last line, read as
	// soon as written, cannot have been pushed out by stdout still queued.
	res := run(t, Spec{Argv: argv, Env: env, Stdout: io.MultiWriter(h, &n), TailBytes: 4 << 20})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	want := sha256.New()
	rng := rand.New(rand.NewSource(7))
	buf := make([]byte, 1<<20)
	for left := size; left > 0; {
		k := int64(len(buf))
		if k > left {
			k = left
		}
		rng.Read(buf[:k])
		want.Write(buf[:k])
		left -= k
	}
	if int64(n) != size {
		t.Fatalf("passed %d bytes, want %d", n, size)
	}
	if !bytes.Equal(h.Sum(nil), want.Sum(nil)) {
		t.Fatal("output differs from what the child wrote")
	}
	if res.OutputBytes != size+int64(len("done\n")) {
		t.Errorf("OutputBytes %d", res.OutputBytes)
	}
	if len(res.Tail) > 4<<20 || !bytes.Contains(res.Tail, []byte("done\n")) {
		t.Errorf("tail of %d bytes ends %q", len(res.Tail), res.Tail[max(0, len(res.Tail)-20):])
	}
}

func TestStdinIsPassedThrough(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("line one\x00\xff binary\nline two\n")
	f.Write(want)
	f.Seek(0, 0)
	argv, env := childArgv(t, "cat")
	var out bytes.Buffer
	run(t, Spec{Argv: argv, Env: env, Stdin: f, Stdout: &out})
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("got %q", out.Bytes())
	}
}

func TestTailKeepsOrderAndLines(t *testing.T) {
	argv, env := childArgv(t, "interleave", "200")
	var lines []string
	res := run(t, Spec{Argv: argv, Env: env, OnLine: func(l []byte, n int) {
		lines = append(lines, string(l))
		if n != len(lines) {
			t.Errorf("line %q numbered %d", l, n)
		}
	}})
	if len(lines) != 400 {
		t.Fatalf("%d lines seen, want 400", len(lines))
	}
	tail := strings.Split(strings.TrimSuffix(string(res.Tail), "\n"), "\n")
	if len(tail) != 400 {
		t.Fatalf("tail has %d lines", len(tail))
	}
	// Each stream keeps its own order, and no line is spliced from two.
	var outN, errN int
	for _, l := range tail {
		var want string
		if strings.HasPrefix(l, "out ") {
			want = "out " + itoa(int64(outN))
			outN++
		} else {
			want = "err " + itoa(int64(errN))
			errN++
		}
		if l != want {
			t.Fatalf("line %q, want %q", l, want)
		}
	}
}

func TestMergedStreamsKeepTheChildsOrder(t *testing.T) {
	argv, env := childArgv(t, "interleave", "2000")
	var out bytes.Buffer
	res := run(t, Spec{Argv: argv, Env: env, Stdout: &out, MergeStreams: true})
	var want strings.Builder
	for i := 0; i < 2000; i++ {
		want.WriteString("out " + itoa(int64(i)) + "\nerr " + itoa(int64(i)) + "\n")
	}
	if out.String() != want.String() || string(res.Tail) != want.String() {
		t.Errorf("order not kept: %q...", out.String()[:60])
	}
}

func TestTerminalOutput(t *testing.T) {
	tests := []struct {
		name  string
		merge bool
		want  string
	}{
		{"stdout only", false, "stdout tty true\nstderr tty false\ncols 0\nraw\r\nbytes\n\x00\xff"},
		{"both streams", true, "stdout tty true\nstderr tty true\ncols 0\nraw\r\nbytes\n\x00\xff"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv, env := childArgv(t, "isatty")
			var out bytes.Buffer
			res := run(t, Spec{Argv: argv, Env: env, Stdout: &out, TTY: true, MergeStreams: tc.merge})
			if res.ExitCode != 0 || out.String() != tc.want {
				t.Errorf("exit %d, output %q, want %q", res.ExitCode, out.String(), tc.want)
			}
		})
	}
}

func TestTerminalWindowSize(t *testing.T) {
	// A pty stands in for the user's terminal, 132 columns wide.
	m, s, err := openPTY(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer s.Close()
	if err := control(m, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 132})
	}); err != nil {
		t.Fatal(err)
	}
	argv, env := childArgv(t, "isatty")
	var out bytes.Buffer
	run(t, Spec{Argv: argv, Env: env, Stdout: &out, TTY: true, WinsizeFrom: s})
	if !strings.Contains(out.String(), "cols 132\n") {
		t.Errorf("output %q", out.String())
	}
}

func TestTailIsBounded(t *testing.T) {
	argv, env := childArgv(t, "lines", "100000")
	res := run(t, Spec{Argv: argv, Env: env, TailBytes: 64 << 10})
	if len(res.Tail) > 64<<10 {
		t.Errorf("tail %d bytes", len(res.Tail))
	}
	if res.Dropped == 0 || res.Dropped+int64(len(res.Tail)) != res.OutputBytes {
		t.Errorf("dropped %d + tail %d != %d", res.Dropped, len(res.Tail), res.OutputBytes)
	}
	if !strings.HasPrefix(string(res.Tail), "line ") || !strings.HasSuffix(string(res.Tail), "line 99999 of the output of a long training run\n") {
		t.Errorf("tail does not hold whole lines up to the last: %q ... %q", res.Tail[:40], res.Tail[len(res.Tail)-60:])
	}
}

func TestSignalsAreForwardedToTheGroup(t *testing.T) {
	argv, env := childArgv(t, "trap", "grandchild")
	sigs := make(chan os.Signal, 2)
	out := &syncBuffer{}
	ready := make(chan struct{})
	var once sync.Once
	res := run(t, Spec{Argv: argv, Env: env, Stdout: out, Signals: sigs, OnLine: func(l []byte, _ int) {
		if string(l) == "ready" {
			once.Do(func() { close(ready); sigs <- syscall.SIGTERM })
		}
	}})
	<-ready
	got := out.String()
	for _, want := range []string{"child got terminated", "grandchild got terminated"} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
	if res.ExitCode != 0 {
		t.Errorf("exit %d", res.ExitCode)
	}
}

func TestSecondInterruptKills(t *testing.T) {
	argv, env := childArgv(t, "trap", "stubborn")
	sigs := make(chan os.Signal, 2)
	var once sync.Once
	var lines []string
	res := run(t, Spec{Argv: argv, Env: env, Signals: sigs, OnLine: func(l []byte, _ int) {
		lines = append(lines, string(l))
		if string(l) == "ready" {
			once.Do(func() { sigs <- syscall.SIGINT })
		}
		if string(l) == "child got interrupt" {
			sigs <- syscall.SIGINT
		}
	}})
	if res.ExitCode != 137 || res.Signal != syscall.SIGKILL || !res.Killed || res.Interrupts != 2 {
		t.Errorf("got exit %d signal %v killed %v interrupts %d; lines %q", res.ExitCode, res.Signal, res.Killed, res.Interrupts, lines)
	}
}

func TestProcessesLeftBehindDoNotHoldTheWrapper(t *testing.T) {
	argv, env := childArgv(t, "orphan")
	start := time.Now()
	res := run(t, Spec{Argv: argv, Env: env, Drain: 200 * time.Millisecond})
	defer syscall.Kill(-res.Pid, syscall.SIGKILL)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v: waited for the process left behind", took)
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Tail), "parent done") {
		t.Errorf("exit %d tail %q", res.ExitCode, res.Tail)
	}
}

func TestChildThatReadsTheTerminalGetsIt(t *testing.T) {
	// The child starts in a background process group; reading the terminal
	// stops it with SIGTTIN, and the runner must hand it the foreground.
	m, s, err := openPTY(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, exe, s.Name())
	cmd.Env = append(os.Environ(), childEnv+"=jobctl")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m.Write([]byte("hello\n"))
	err = cmd.Wait()
	if err != nil || !strings.Contains(out.String(), `read "hello\n"`) || !strings.Contains(out.String(), "child exit 0") {
		t.Errorf("err %v, output %q", err, out.String())
	}
}

func TestTimeout(t *testing.T) {
	argv, env := childArgv(t, "sleep", "30s")
	start := time.Now()
	res := run(t, Spec{Argv: argv, Env: env, Timeout: 100 * time.Millisecond, KillGrace: time.Second})
	if !res.TimedOut || res.Signal != syscall.SIGTERM || res.ExitCode != 143 {
		t.Errorf("timed out %v, exit %d, signal %v", res.TimedOut, res.ExitCode, res.Signal)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

func TestTimeoutEscalates(t *testing.T) {
	argv, env := childArgv(t, "trap", "stubborn")
	// SIGTERM ends "trap"; a stubborn SIGINT-ignorer still exits on TERM, so
	// check escalation with a context cancel against a child ignoring TERM
	// is covered by SecondInterrupt; here the timeout path must report it.
	res := run(t, Spec{Argv: argv, Env: env, Timeout: 200 * time.Millisecond, KillGrace: 200 * time.Millisecond})
	if !res.TimedOut {
		t.Errorf("not timed out: %+v", res)
	}
}

func TestWriteErrorClosesTheChildsPipe(t *testing.T) {
	argv, env := childArgv(t, "random", itoa(64<<20), "1")
	res := run(t, Spec{Argv: argv, Env: env, Stdout: failingWriter{}})
	if res.WriteErr == nil {
		t.Error("no write error reported")
	}
	// The child saw EPIPE (exit 3) or died of SIGPIPE: never a clean exit.
	if res.ExitCode == 0 {
		t.Errorf("child kept writing into a closed pipe and exited 0")
	}
}

func TestLineSplitter(t *testing.T) {
	chunks := []string{"ab", "c\nde", "f\n", "0123456789abc", "def\nshort\n", "x CUDA y\nno\nError\n", "tail"}
	tests := []struct {
		name   string
		filter [][]byte
		want   []string
	}{
		{"every line", nil, []string{"1:abc", "2:def", "3:01234567", "4:short", "5:x CUDA y", "6:no", "7:Error", "8:tail"}},
		{"filtered", [][]byte{[]byte("CUDA"), []byte("Error"), []byte("de")}, []string{"2:def", "5:x CUDA y", "7:Error"}},
		{"keyword split across chunks", [][]byte{[]byte("ef"), []byte("345")}, []string{"2:def", "3:01234567"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var mu sync.Mutex
			n := 0
			l := &lineSplitter{max: 8, mu: &mu, count: &n, filter: tc.filter,
				emit: func(b []byte, i int) { got = append(got, itoa(int64(i))+":"+string(b)) }}
			for _, c := range chunks {
				l.write([]byte(c))
			}
			l.flush()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			if n != 8 {
				t.Errorf("counted %d lines", n)
			}
		})
	}
}

func TestFilteredLinesKeepTheirNumbers(t *testing.T) {
	argv, env := childArgv(t, "lines", "50000")
	var got []int
	run(t, Spec{Argv: argv, Env: env, LineFilter: []string{"line 7 ", "line 49999 "},
		OnLine: func(l []byte, n int) { got = append(got, n) }})
	if diff := cmp.Diff([]int{8, 50000}, got); diff != "" {
		t.Errorf("numbers (-want +got):\n%s", diff)
	}
}

func TestRingWraps(t *testing.T) {
	s := newStream(10, 3)
	var seq seqCounter
	for _, chunk := range []string{"abcd\n", "efgh\n", "ijkl\n", "mn\n"} {
		buf := s.readBuf(4)
		n := copy(buf, chunk)
		s.commit(n, seq.next())
		if n < len(chunk) {
			buf = s.readBuf(4)
			m := copy(buf, chunk[n:])
			s.commit(m, seq.next())
		}
	}
	tail, dropped := mergeTail(100, s)
	if string(tail) != "ijkl\nmn\n" && !strings.HasSuffix(string(tail), "mn\n") {
		t.Errorf("tail %q", tail)
	}
	if dropped+int64(len(tail)) != 18 {
		t.Errorf("dropped %d tail %d", dropped, len(tail))
	}
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, syscall.EPIPE }

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func itoa(n int64) string { return strconvItoa(n) }

func TestTailOnFailureOnly(t *testing.T) {
	for _, code := range []int{0, 3} {
		res := run(t, Spec{Argv: []string{"sh", "-c", "echo hello; exit " + strconv.Itoa(code)}, TailOnFailureOnly: true})
		if res.ExitCode != code || res.OutputBytes != 6 {
			t.Fatalf("exit %d, %d bytes", res.ExitCode, res.OutputBytes)
		}
		if want := map[bool]string{true: "", false: "hello\n"}[code == 0]; string(res.Tail) != want || res.Dropped+int64(len(res.Tail)) != 6 {
			t.Errorf("exit %d: tail %q dropped %d, want tail %q", code, res.Tail, res.Dropped, want)
		}
	}
}
