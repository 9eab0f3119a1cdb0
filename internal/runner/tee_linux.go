package runner

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// teePipe passes the child's output on to a destination that is itself a
// pipe (`run -- cmd | next`) without copying it through the wrapper:
// tee(2) links the pages of the child's pipe into the destination pipe, and
// only then are the same bytes read (consumed) from the child's pipe for the
// tail and the line scan. That is one copy per byte instead of the two of a
// read and a write, and the copy the wrapper keeps is the one it scans.
type teePipe struct {
	dst int
}

// newTee returns a teePipe for w when w is a pipe, else nil (the pump then
// reads and writes).
func newTee(w io.Writer) *teePipe {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return nil
	}
	var t *teePipe
	_ = control(f, func(fd int) error {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFIFO {
			t = &teePipe{dst: fd}
			// tee moves no more than the destination has room for: a
			// pipe as large as the child's lets it move whole reads. It
			// is only ever grown, and only the kernel's buffer changes.
			if sz, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0); err == nil && sz < pipeSize {
				_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeSize)
			}
		}
		return nil
	})
	return t
}

// pass reads up to len(buf) bytes of the pipe src into buf, having first
// linked as many of them as the destination has room for into it. passed
// says how many of the n bytes read are already on their way; the caller
// writes the rest, blocking as a plain write would. When the reader of the
// destination keeps up, everything goes through tee; when it is the slower
// side (its pipe full), tee would move a few pages per call, so the bytes
// are read and written instead: never worse than a read and a write. err is
// about reading src (EAGAIN: nothing to read yet; n 0 and no error: end of
// output); werr is a failed write (the reader went away).
func (t *teePipe) pass(src int, buf []byte) (n, passed int, err, werr error) {
	// tee is tried whether or not src holds anything: on an empty src it
	// fails at once with EAGAIN, as the read after it then does, which
	// costs less than asking poll first on every chunk.
	linked := 0
	for {
		l, err := unix.Tee(src, t.dst, len(buf), unix.SPLICE_F_NONBLOCK)
		if err == unix.EINTR {
			continue
		}
		switch {
		case err == unix.EAGAIN:
			// src is empty, or the destination is full.
		case err != nil:
			return 0, 0, nil, err // EPIPE: nobody reads the destination
		default:
			linked = int(l)
		}
		break
	}
	// Read at least the linked bytes (they sit in src), and whatever
	// else is there.
	for {
		n, err = unix.Read(src, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return 0, 0, err, nil
		}
		return n, min(linked, n), nil, nil
	}
}
