// Package probe inspects the machine a PyTorch program will run on (driver,
// GPUs, torch build, CUDA libraries, environment, kernel log) through the Host
// seam and judges it with one check per file.
package probe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cudadoctor/cudadoctor/internal/nvml"
)

// Host is every outside fact the probes read.
type Host interface {
	// LookupEnv distinguishes unset from set-but-empty (CUDA_VISIBLE_DEVICES="" hides every GPU).
	LookupEnv(key string) (string, bool)
	// Environ is the whole environment, passed to the Python probe.
	Environ() []string
	NVML() nvml.Snapshot
	CUDADriver() nvml.CUDADriver
	LookPath(file string) (string, error)
	// Run runs a program and returns its stdout and stderr; a non-zero exit
	// is an *exec.ExitError, a timeout context.DeadlineExceeded.
	Run(ctx context.Context, timeout time.Duration, env []string, name string, args ...string) (stdout, stderr []byte, err error)
	// Exists reports whether a regular file or directory exists.
	Exists(path string) bool
	EvalSymlinks(path string) (string, error)
	// ReadDir lists the names in a directory.
	ReadDir(path string) ([]string, error)
	// KernelLog returns the kernel log's lines containing any of the
	// needles, and where they came from ("" and an error when unreadable).
	KernelLog(ctx context.Context, needles []string) (lines []string, source string, err error)
}

// System is the real machine.
type System struct{}

var _ Host = System{}

func (System) LookupEnv(k string) (string, bool)     { return os.LookupEnv(k) }
func (System) Environ() []string                     { return os.Environ() }
func (System) NVML() nvml.Snapshot                   { return nvml.Query() }
func (System) CUDADriver() nvml.CUDADriver           { return nvml.QueryCUDA() }
func (System) LookPath(f string) (string, error)     { return exec.LookPath(f) }
func (System) EvalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }

func (System) Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (System) ReadDir(p string) ([]string, error) {
	es, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name()
	}
	return names, nil
}

// maxOutput bounds what Run keeps of a child's stdout and stderr.
const maxOutput = 4 << 20

func (System) Run(ctx context.Context, timeout time.Duration, env []string, name string, args ...string) ([]byte, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Kill the whole process group: torch may have started child processes.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var out, errb limitedBuffer
	out.max, errb.max = maxOutput, maxOutput
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = context.DeadlineExceeded
	}
	return out.Bytes(), errb.Bytes(), err
}

// limitedBuffer keeps the first max bytes and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// KernelLog reads /dev/kmsg without blocking, then falls back to dmesg and
// the journal, which need the same privilege on most systems.
func (s System) KernelLog(ctx context.Context, needles []string) ([]string, string, error) {
	lines, err := readKmsg(needles)
	if err == nil {
		return lines, "/dev/kmsg", nil
	}
	errs := []string{"/dev/kmsg: " + err.Error()}
	for _, c := range []struct {
		name string
		args []string
	}{{"dmesg", nil}, {"journalctl", []string{"-k", "-b", "-o", "cat", "--no-pager", "-q"}}} {
		path, lerr := exec.LookPath(c.name)
		if lerr != nil {
			continue
		}
		out, _, rerr := s.Run(ctx, 3*time.Second, nil, path, c.args...)
		if rerr != nil {
			errs = append(errs, c.name+": "+rerr.Error())
			continue
		}
		return filterLines(bytes.NewReader(out), needles), c.name, nil
	}
	return nil, "", errors.New(strings.Join(errs, "; "))
}

// maxKernelLines bounds the kept matching lines (the newest are kept).
const maxKernelLines = 500

func readKmsg(needles []string) ([]string, error) {
	fd, err := syscall.Open("/dev/kmsg", syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var lines []string
	buf := make([]byte, 8192)
	for i := 0; i < 1<<20; i++ {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EPIPE { // a record was overwritten while reading: go on
			continue
		}
		if err != nil || n <= 0 {
			break // EAGAIN: the end of the buffer
		}
		rec := string(buf[:n])
		if containsAny(rec, needles) {
			lines = appendBounded(lines, strings.TrimRight(rec, "\n"))
		}
	}
	return lines, nil
}

func filterLines(r io.Reader, needles []string) []string {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if containsAny(sc.Text(), needles) {
			lines = appendBounded(lines, sc.Text())
		}
	}
	return lines
}

func appendBounded(lines []string, l string) []string {
	if len(lines) >= maxKernelLines {
		lines = append(lines[:0], lines[1:]...)
	}
	return append(lines, l)
}
