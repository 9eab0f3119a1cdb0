package runner

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pipeSink is a destination pipe with a reader that hashes (or stops
// reading after limit bytes and closes its end).
func pipeSink(t *testing.T, limit int64) (w *os.File, result func() ([]byte, int64)) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var n int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.Close()
		var src io.Reader = r
		if limit > 0 {
			src = io.LimitReader(r, limit)
		}
		n, _ = io.Copy(h, src)
	}()
	return w, func() ([]byte, int64) { w.Close(); <-done; return h.Sum(nil), n }
}

func TestTeeOnlyForPipes(t *testing.T) {
	w, done := pipeSink(t, 0)
	defer done()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newTee(w) == nil || newTee(f) != nil || newTee(&bytes.Buffer{}) != nil || newTee(nil) != nil {
		t.Error("tee is for pipes, and only for them")
	}
}

func TestPassthroughToAPipeIsByteExact(t *testing.T) {
	size := int64(32 << 20)
	if testing.Short() {
		size = 4 << 20
	}
	want := sha256.New()
	rng := rand.New(rand.NewSource(9))
	buf := make([]byte, 1<<20)
	for left := size; left > 0; left -= int64(len(buf)) {
		k := min(int64(len(buf)), left)
		rng.Read(buf[:k])
		want.Write(buf[:k])
	}
	for _, noTee := range []bool{false, true} {
		argv, env := childArgv(t, "random", itoa(size), "9")
		w, result := pipeSink(t, 0)
		res := run(t, Spec{Argv: argv, Env: env, Stdout: w, TailBytes: 4 << 20, NoTee: noTee})
		sum, n := result()
		if res.ExitCode != 0 || n != size || !bytes.Equal(sum, want.Sum(nil)) {
			t.Errorf("NoTee %v: exit %d, passed %d of %d bytes, same bytes %v", noTee, res.ExitCode, n, size, bytes.Equal(sum, want.Sum(nil)))
		}
		// The tail is the end of what was passed on, from the copy kept;
		// it outgrows the pipes' buffers, so stderr's last line, read as
		// soon as written, cannot have been pushed out by stdout queued.
		if res.OutputBytes != size+int64(len("done\n")) || len(res.Tail) == 0 || !bytes.Contains(res.Tail, []byte("done\n")) {
			t.Errorf("NoTee %v: %d bytes seen, tail of %d", noTee, res.OutputBytes, len(res.Tail))
		}
	}
}

func TestMergedStreamsThroughAPipeKeepTheirOrder(t *testing.T) {
	argv, env := childArgv(t, "interleave", "3000")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	var lines int
	res := run(t, Spec{Argv: argv, Env: env, Stdout: w, MergeStreams: true, OnLine: func([]byte, int) { lines++ }})
	w.Close()
	var want strings.Builder
	for i := 0; i < 3000; i++ {
		want.WriteString("out " + itoa(int64(i)) + "\nerr " + itoa(int64(i)) + "\n")
	}
	if out := <-got; out != want.String() || string(res.Tail) != want.String() || lines != 6000 {
		t.Errorf("order or lines lost: %d lines, output %q...", lines, out[:min(60, len(out))])
	}
}

func TestReaderGoneThroughTeeClosesTheChildsPipe(t *testing.T) {
	argv, env := childArgv(t, "random", itoa(64<<20), "1")
	w, result := pipeSink(t, 1<<20)
	res := run(t, Spec{Argv: argv, Env: env, Stdout: w})
	result()
	if !errors.Is(res.WriteErr, syscall.EPIPE) {
		t.Errorf("write error %v, want EPIPE", res.WriteErr)
	}
	if res.ExitCode == 0 {
		t.Error("the child kept writing into a closed pipe and exited 0")
	}
}

// A reader slower than the child keeps the destination full: each chunk is
// then partly linked and partly written, and the bytes must still arrive
// once each, in order.
func TestPassthroughToASlowReaderIsByteExact(t *testing.T) {
	const size = 6 << 20
	want := sha256.New()
	rng := rand.New(rand.NewSource(5))
	buf := make([]byte, 1<<20)
	for left := size; left > 0; left -= len(buf) {
		rng.Read(buf)
		want.Write(buf)
	}
	argv, env := childArgv(t, "random", itoa(size), "5")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := sha256.New()
	var n int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.Close()
		small := make([]byte, 3000) // not a page multiple: links split pages
		for i := 0; ; i++ {
			k, err := r.Read(small)
			got.Write(small[:k])
			n += int64(k)
			if err != nil {
				return
			}
			if i%64 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	res := run(t, Spec{Argv: argv, Env: env, Stdout: w})
	w.Close()
	<-done
	if res.ExitCode != 0 || n != size || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Errorf("exit %d, passed %d of %d bytes, same bytes %v", res.ExitCode, n, size, bytes.Equal(got.Sum(nil), want.Sum(nil)))
	}
}
