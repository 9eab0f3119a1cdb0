package runner

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// teePipe passes the child's output on to a destination that is itself a
// pipe (`run -- cmd | next`) without copying it through the wrapper:
// tee(2) links the pages of the child's pipe into the destination pipe, and
// only then are the same bytes read (consumed) from the child's pipe for the
// tail and the line scan. That is one copy per byte instead of the two of a
// read and a write, and the copy the wrapper keeps is the one it scans.
type teePipe struct {
	dst      int
	blocking bool // the child's pipe was made blocking
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
			// tee links whole pages and, unlike write(2), returns as soon
			// as the destination is full: in a 64 KiB pipe that is a few
			// pages per call once the reader is the slower side. A pipe
			// as large as the child's keeps the calls large. It is only
			// ever grown, and only the kernel's buffer changes.
			if sz, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0); err == nil && sz < pipeSize {
				_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeSize)
			}
		}
		return nil
	})
	return t
}

// pass moves up to len(buf) bytes from the pipe src on to the destination
// and into buf. err is about reading src (EAGAIN: nothing to read yet; n 0
// and no error: end of output); werr is a failed write (the reader of the
// destination went away).
func (t *teePipe) pass(src int, buf []byte) (n int, err, werr error) {
	if !t.blocking {
		// Waiting for room in the destination is best done inside tee(2),
		// as write(2) does, rather than by polling after each partial
		// call; the kernel makes tee non-blocking when either pipe is, so
		// the child's pipe is made blocking. It is only read once poll
		// said there is data, so the pump still never blocks on it.
		if unix.SetNonblock(src, false) != nil {
			t.blocking = true // keep polling for room
		}
		t.blocking = true
	}
	if !readable(src) {
		return 0, unix.EAGAIN, nil
	}
	for {
		linked, err := unix.Tee(src, t.dst, len(buf), 0)
		n := int(linked)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			// Nothing to read, or no room in the destination: only the
			// first is the caller's to wait for.
			if !readable(src) {
				return 0, unix.EAGAIN, nil
			}
			if werr := waitWritable(t.dst); werr != nil {
				return 0, nil, werr
			}
			continue
		case err != nil:
			return 0, nil, err // EPIPE: nobody reads the destination
		case n == 0:
			return 0, nil, nil // the child's pipe is closed and empty
		}
		// The bytes just linked are still in src: take exactly those.
		got := 0
		for got < n {
			m, err := unix.Read(src, buf[got:n])
			if err == unix.EINTR {
				continue
			}
			if err != nil || m <= 0 {
				break // cannot happen while the bytes sit in the pipe
			}
			got += m
		}
		return got, nil, nil
	}
}

func readable(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP) != 0
}

// waitWritable blocks until the destination pipe has room, as a write to
// it would; a reader that went away shows as an error on the next tee.
func waitWritable(fd int) error {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds, int(pollSlice/time.Millisecond))
		if err == unix.EINTR || (err == nil && n == 0) {
			continue
		}
		if err != nil {
			return err
		}
		return nil
	}
}
