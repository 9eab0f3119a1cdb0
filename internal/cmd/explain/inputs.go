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
	"sort"
	"syscall"
)

// input is one named stream. Regular files are opened when they are read
// (and again if sniffing looked at their head first), so a directory of
// thousands of logs holds one or two descriptors at a time. Anything else
// (stdin, a FIFO, a pipe such as <(cat log), a character device) is opened
// exactly once: its head is peeked from the same buffered reader the
// engine then reads, so no byte is lost and line numbers stay right.
type input struct {
	path    string // as given or found; "-" for stdin
	fromDir string // the directory argument it was found in, "" if named
	stream  *bufio.Reader
	closer  io.Closer

	// start is a regular file's first bytes (up to sniffLen), kept from
	// the first look at its head so that the next look does not open it
	// again; whole says start is all the file holds.
	start []byte
	whole bool
}

// streamBuffer is the read-ahead of a stream input: enough to peek at the
// top-level keys of a JSON document (jsonPeekLen).
const streamBuffer = jsonPeekLen

// head returns up to n bytes of the start of the input without consuming
// them.
func (in *input) head(n int) ([]byte, error) {
	if in.stream != nil {
		b, err := in.stream.Peek(n)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return b, err
		}
		return b, nil
	}
	if in.start != nil && (n <= len(in.start) || in.whole) {
		return in.start[:min(n, len(in.start))], nil
	}
	b, err := readHeadN(in.path, n)
	if err == nil && in.start == nil {
		in.start = append([]byte{}, b[:min(len(b), sniffLen)]...)
		in.whole = len(b) < n && len(b) <= sniffLen
	}
	return b, err
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
