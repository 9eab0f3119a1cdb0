package explain

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/cudadoctor/cudadoctor/internal/flightrec"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const realLog = "../../../testdata/gpu/logs/h100/s01_embedding_oob.blocking.log"

// primary runs explain and returns the first finding's class and line.
func primary(t *testing.T, opts Options) (string, int) {
	t.Helper()
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) == 0 {
		t.Fatal("no finding")
	}
	f := rep.Findings[0]
	line := 0
	if f.Location != nil {
		line = f.Location.Line
	}
	return f.Class, line
}

func TestFIFOIsReadOnce(t *testing.T) {
	log, err := os.ReadFile(realLog)
	if err != nil {
		t.Fatal(err)
	}
	wantClass, wantLine := primary(t, Options{Paths: []string{realLog}})
	fifo := filepath.Join(t.TempDir(), "log.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(log)
		w.Close()
	}()
	class, line := primary(t, Options{Paths: []string{fifo}})
	if class != wantClass || line != wantLine {
		t.Errorf("FIFO: %s at line %d, want %s at line %d as from the file", class, line, wantClass, wantLine)
	}
}

func TestPipeIsReadOnce(t *testing.T) {
	// What <(cat log) hands over: a /dev/fd path to a pipe.
	log, err := os.ReadFile(realLog)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() { w.Write(log); w.Close() }()
	wantClass, wantLine := primary(t, Options{Paths: []string{realLog}})
	class, line := primary(t, Options{Paths: []string{fmt.Sprintf("/dev/fd/%d", r.Fd())}})
	if class != wantClass || line != wantLine {
		t.Errorf("pipe: %s at line %d, want %s at line %d", class, line, wantClass, wantLine)
	}
}

func TestInterruptWhileWaiting(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // a writer that never writes: reading would block for ever
	fifo := filepath.Join(t.TempDir(), "idle.fifo")
	fifoErr := syscall.Mkfifo(fifo, 0o600)
	for name, opts := range map[string]Options{
		"stdin": {Stdin: r},
		"fifo":  {Paths: []string{fifo}}, // no writer: opening it blocks
	} {
		if name == "fifo" && fifoErr != nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { _, err := Run(ctx, opts); done <- err }()
			time.Sleep(50 * time.Millisecond)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("got %v, want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return after the interrupt")
			}
		})
	}
}

func TestDirectoryKeepsFewFilesOpen(t *testing.T) {
	dir := t.TempDir()
	log, err := os.ReadFile(realLog)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1100 { // more than the limit of open files below
		body := []byte("step ok\n")
		if i == 1000 {
			body = log
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank%04d.log", i)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	lim := old
	lim.Cur = min(1024, old.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	wantClass, _ := primary(t, Options{Paths: []string{realLog}})
	if class, _ := primary(t, Options{Paths: []string{dir}}); class != wantClass {
		t.Errorf("got %s, want %s", class, wantClass)
	}
}

func TestSymlinkedDirectories(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(realLog)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "sub", "train.log"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	// A loop back to the top, and the directory reached through a link.
	if err := os.Symlink("..", filepath.Join(real, "sub", "up")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	found, err := walkDir(link)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.HasSuffix(found[0], "train.log") {
		t.Errorf("found %q, want the one log once", found)
	}
	wantClass, _ := primary(t, Options{Paths: []string{realLog}})
	if class, _ := primary(t, Options{Paths: []string{link}}); class != wantClass {
		t.Errorf("got %s, want %s", class, wantClass)
	}
}

// countingReader counts what was read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestLongJSONLineIsNotSlurped(t *testing.T) {
	// A JSON-lines log whose first record is far longer than the peek: it
	// is a log, decided from its keys, without reading it whole.
	line := `{"level":"info","msg":"` + strings.Repeat("x", 8*jsonPeekLen) + `"}` + "\n"
	src := &countingReader{r: strings.NewReader(line + `{"level":"error","msg":"RuntimeError: CUDA error: an illegal memory access was encountered"}` + "\n")}
	ctx := context.Background()
	logs, _, err := splitInputs(ctx, []*input{newStream(ctx, "-", src)}, flightrec.MaxDumpBytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 {
		t.Fatalf("%d logs", len(logs))
	}
	if src.n > jsonPeekLen {
		t.Errorf("read %d bytes to sniff, want at most %d", src.n, jsonPeekLen)
	}
	all, err := io.ReadAll(logs[0].reader(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(all, []byte(line)) {
		t.Error("the log engine would not read the input from its first byte")
	}
}

func TestTopLevelKeys(t *testing.T) {
	got := topLevelKeys([]byte(` {"a": {"version": 1}, "b\"": [1, {"c": 2}], "entries": "x", "version": "2.4"`))
	for _, k := range []string{"a", `b\"`, "entries", "version"} {
		if !got[k] {
			t.Errorf("missing %q in %v", k, got)
		}
	}
	if got["c"] || len(got) != 4 {
		t.Errorf("nested keys leaked: %v", got)
	}
}

func TestFirstJSONValue(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		text      string
		size      int64
		jsonLines bool
	}{
		{`{"a": "}\"{", "b": [1, {"c": 2}]}` + "\n" + `{"a": 1}` + "\n", 33, true},
		{"{\n  \"a\": 1\n}\n{\"b\": 2}\n", 12, false}, // two pretty-printed documents
		{`{"a": 1}` + "\n\n  \n", 8, false},
		{`{"a": [1, 2`, 11, false}, // never ends
	}
	for i, tc := range tests {
		p := filepath.Join(dir, fmt.Sprint(i))
		os.WriteFile(p, []byte(tc.text), 0o644)
		got, err := firstJSONValue(context.Background(), p)
		if err != nil || got.size != tc.size || got.jsonLines != tc.jsonLines {
			t.Errorf("%q: %+v, %v; want size %d, jsonLines %v", tc.text, got, err, tc.size, tc.jsonLines)
		}
	}
}

// The measuring of a stream keeps at most spillAt bytes in memory and
// gives back exactly what it read.
func TestSpillKeepsTheStreamOutOfMemory(t *testing.T) {
	src := io.MultiReader(strings.NewReader(`{"a": "`), bytes.NewReader(bytes.Repeat([]byte{'y'}, 3*spillAt)), strings.NewReader("\"}\n{\"b\": 1}\nrest\n"))
	var all bytes.Buffer
	kept := &spill{}
	defer kept.Close()
	r := bufio.NewReader(io.TeeReader(src, &all))
	ext, err := scanFirstValue(context.Background(), r, kept)
	if err != nil || !ext.jsonLines {
		t.Fatalf("extent %+v, %v: want a JSON-lines record", ext, err)
	}
	if len(kept.mem) > spillAt || kept.f == nil {
		t.Errorf("%d bytes kept in memory, file %v", len(kept.mem), kept.f)
	}
	again, err := kept.reader()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(io.MultiReader(again, r))
	if err != nil || !bytes.Equal(got, all.Bytes()) || !bytes.HasSuffix(got, []byte("rest\n")) {
		t.Errorf("read back %d bytes (%v), want the %d read", len(got), err, all.Len())
	}
}

// TestFirstFailingInputIsReported checks that inputs read side by side
// still fail in order: the error named is the first failing input's,
// however long the inputs before it take, and a directory's binary file is
// skipped with its warning while the named one stops the run.
func TestFirstFailingInputIsReported(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "a_long.log")
	if err := os.WriteFile(long, bytes.Repeat([]byte("step 1 | loss 0.5\n"), 200_000), 0o644); err != nil {
		t.Fatal(err)
	}
	binary := bytes.Repeat([]byte{0, 1, 2, 0xff}, 4096)
	first, second := filepath.Join(dir, "b_first.bin"), filepath.Join(dir, "c_second.bin")
	for _, p := range []string{first, second} {
		if err := os.WriteFile(p, binary, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for range 5 {
		_, err := Run(context.Background(), Options{Paths: []string{long, first, second}})
		if err == nil || !strings.Contains(err.Error(), first) || strings.Contains(err.Error(), second) {
			t.Fatalf("error %v, want one naming %s only", err, first)
		}
	}
	var warn bytes.Buffer
	rep, err := Run(context.Background(), Options{Paths: []string{dir}, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Inputs) != 1 || rep.Inputs[0] != long {
		t.Errorf("inputs %v, want only %s", rep.Inputs, long)
	}
	want := fmt.Sprintf("cudadoctor: skipping %s: binary data, not a text log\ncudadoctor: skipping %s: binary data, not a text log\n", first, second)
	if warn.String() != want {
		t.Errorf("warnings %q, want %q", warn.String(), want)
	}
}
