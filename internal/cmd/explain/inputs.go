package explain

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
)

// input is one named stream. A regular file is opened when its turn
// comes and read once (readInputs): its head is peeked from the same
// buffered reader the parser then reads, and it is closed before the
// files after it are opened, so a directory of thousands of logs holds a
// few descriptors at a time. Anything else (stdin, a FIFO, a pipe such as
// <(cat log), a character device) is opened when it is resolved, also
// exactly once, and read the same way, so no byte is lost and line
// numbers stay right.
type input struct {
	path    string // as given or found; "-" for stdin
	fromDir string // the directory argument it was found in, "" if named
	stream  *bufio.Reader
	closer  io.Closer
}

// streamBuffer is the read-ahead of a stream input: enough to peek at the
// top-level keys of a JSON document (jsonPeekLen).
const streamBuffer = jsonPeekLen

// binaryLen is how much of a directory's file is looked at to tell a
// text log from binary data.
const binaryLen = 8192

// outcome is what reading one input found.
type outcome struct {
	skip   string           // why a directory's file is skipped; "" when it is not
	parsed *diagnose.Parsed // a log's events; nil for a dump or report, read later
	bytes  int64            // bytes the parser read
	err    error
}

// readInputs reads the inputs, up to GOMAXPROCS of them at a time (so that
// many regular files open at most): each is opened once, its head peeked
// to tell what it is (and, for a directory's file, whether it is text), and
// a log is parsed there and then. A dump or a report is only sniffed here
// and left for splitInputs. After an input fails, no later one is started;
// the outcomes say, in input order, what each held.
func readInputs(ctx context.Context, eng *diagnose.Engine, ins []*input) []outcome {
	outs := make([]outcome, len(ins))
	workers := min(runtime.GOMAXPROCS(0), len(ins))
	if workers <= 1 {
		for i, in := range ins {
			if outs[i] = readInput(ctx, eng, in); outs[i].err != nil {
				break
			}
		}
		return outs
	}
	var next, failed atomic.Int64
	failed.Store(int64(len(ins)))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(ins)) || i > failed.Load() {
					return
				}
				if outs[i] = readInput(ctx, eng, ins[i]); outs[i].err != nil {
					for f := failed.Load(); i < f && !failed.CompareAndSwap(f, i); f = failed.Load() {
					}
				}
			}
		}()
	}
	wg.Wait()
	return outs
}

// headReaders are the buffers regular files are read through.
var headReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, binaryLen) }}

// readInput reads one input (readInputs).
func readInput(ctx context.Context, eng *diagnose.Engine, in *input) (o outcome) {
	br := in.stream
	if br == nil {
		f, err := openFile(in.path)
		if err != nil {
			if in.fromDir != "" {
				return outcome{skip: "cannot read it: " + unwrapPath(err).Error()}
			}
			return outcome{err: readError(ctx, in.path, err)}
		}
		defer f.Close()
		br = headReaders.Get().(*bufio.Reader)
		br.Reset(ctxReader{ctx: ctx, r: f})
		defer func() {
			br.Reset(nil)
			headReaders.Put(br)
		}()
	}
	if in.fromDir != "" {
		head, err := peek(br, binaryLen)
		switch {
		case err != nil:
			return outcome{skip: "cannot read it: " + unwrapPath(err).Error()}
		case sniff(head) == kindLog && logparse.LooksBinary(head):
			return outcome{skip: "binary data, not a text log"}
		}
	}
	head, err := peek(br, sniffLen)
	if err != nil {
		return outcome{err: readError(ctx, in.path, err)}
	}
	if sniff(head) != kindLog {
		return outcome{}
	}
	o.parsed, o.err = eng.Read(ctx, diagnose.Input{Name: in.path, Reader: &byteCounter{r: br, n: &o.bytes}})
	return o
}

// peek returns up to n bytes of what br holds next without consuming them.
func peek(br *bufio.Reader, n int) ([]byte, error) {
	b, err := br.Peek(n)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return b, err
	}
	return b, nil
}

// head returns up to n bytes of the start of the input without consuming
// them. A regular file is opened for it: only dumps and reports, which
// are read whole, are looked at again after readInputs.
func (in *input) head(n int) ([]byte, error) {
	if in.stream != nil {
		return peek(in.stream, n)
	}
	return readHeadN(in.path, n)
}

// reader returns the whole input for one pass, honouring ctx.
func (in *input) reader(ctx context.Context) io.Reader {
	if in.stream != nil {
		return in.stream // its source is a ctxReader already
	}
	return ctxReader{ctx: ctx, r: &lazyFile{path: in.path}}
}

// newStream reads r once, through a buffer that sniffing peeks into.
func newStream(ctx context.Context, path string, r io.Reader) *input {
	return &input{path: path, stream: bufio.NewReaderSize(ctxReader{ctx: ctx, r: r, stream: true}, streamBuffer)}
}

// openStream opens a named input that is not a regular file, once. Opening
// a FIFO waits for a writer, so it too gives way to an interrupt.
func openStream(ctx context.Context, path string) (*input, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(o.err))
		}
		in := newStream(ctx, path, o.f)
		in.closer = o.f
		return in, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// lazyFile opens its file on the first Read and closes it at the end.
type lazyFile struct {
	path string
	f    *os.File
	done bool
}

func (l *lazyFile) Read(p []byte) (int, error) {
	if l.done {
		return 0, io.EOF
	}
	if l.f == nil {
		f, err := openFile(l.path)
		if err != nil {
			l.done = true
			return 0, fmt.Errorf("cannot read %s: %w", l.path, unwrapPath(err))
		}
		l.f = f
	}
	n, err := l.f.Read(p)
	if err != nil {
		l.f.Close()
		l.done = true
	}
	return n, err
}

// openFile opens a regular file for reading. os.Open would also try to
// register it with the runtime's poller, which refuses regular files, at
// five system calls more per file: a cost a directory of thousands of
// small logs pays twice per file (its head, then its text).
func openFile(path string) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// ctxReader makes reading give way to Ctrl-C or SIGTERM. A regular file
// is checked between reads; a stream (an idle pipe, a FIFO nobody writes
// to) can block in one read for ever, so there the read runs in its own
// goroutine and an interrupt returns ctx's error at once. The abandoned
// read may still fill p, which is then never looked at: the parser stops
// on the error.
type ctxReader struct {
	ctx    context.Context
	r      io.Reader
	stream bool
}

type readResult struct {
	n   int
	err error
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if !c.stream || c.ctx.Done() == nil {
		return c.r.Read(p)
	}
	ch := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(p)
		ch <- readResult{n, err}
	}()
	select {
	case res := <-ch:
		return res.n, res.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

// walkDir lists the regular files below dir, sorted, following symbolic
// links to files and directories. A directory reached again (a link to an
// ancestor, or two links to one place) is listed once. One directory is
// open at a time.
func walkDir(dir string) ([]string, error) {
	type fileID struct{ dev, ino uint64 }
	seen := map[fileID]bool{}
	idOf := func(st os.FileInfo) (fileID, bool) {
		s, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return fileID{}, false
		}
		return fileID{uint64(s.Dev), uint64(s.Ino)}, true
	}
	var found []string
	var walk func(d string) error
	walk = func(d string) error {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		if id, ok := idOf(st); ok {
			if seen[id] {
				return nil
			}
			seen[id] = true
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			mode := e.Type()
			if mode&os.ModeSymlink != 0 {
				st, err := os.Stat(p)
				if err != nil {
					continue // a dangling link holds nothing
				}
				mode = st.Mode().Type()
			}
			switch {
			case mode.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case mode.IsRegular():
				found = append(found, p)
			}
		}
		return nil
	}
	if err := walk(dir); err != nil {
		return nil, err
	}
	sort.Strings(found)
	return found, nil
}
