// Package atomicfile writes output files so that a reader sees either the
// old content or the whole new one, without being turned against the user:
// no predictable temporary name, no link followed where none was given, no
// device or FIFO replaced by a regular file.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// Write stores what fill writes at path.
//
// A regular file (or none) is replaced atomically: fill writes into a new
// temporary in the same directory, created with O_EXCL|O_NOFOLLOW under a
// random name (so a link planted at a guessable name is never followed),
// which is then renamed over path. A symbolic link given as path is
// written through: its target is replaced, the link stays. Anything else
// that already exists (a device such as /dev/null, a FIFO) is written to
// in place, never replaced; a directory is an error.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) error {
	target := path
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("%s is a symbolic link to nowhere: %w", path, unwrap(err))
		}
		target = resolved
	}
	st, err := os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case err == nil && !st.Mode().IsRegular():
		return writeInPlace(path, target, fill)
	case err == nil:
		perm = st.Mode().Perm() // keep the permissions the file had
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot write %s: %w", path, unwrap(err))
	}
	tmp, err := create(filepath.Dir(target), filepath.Base(target))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrap(err))
	}
	werr := fill(tmp)
	if werr == nil {
		werr = tmp.Chmod(perm)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), target)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, unwrap(werr))
	}
	return nil
}

// WriteBytes stores data at path, as Write does.
func WriteBytes(path string, perm os.FileMode, data []byte) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// create makes a new temporary file next to the target, never through a
// link and never over an existing file.
func create(dir, base string) (*os.File, error) {
	for range 100 {
		var r [8]byte
		if _, err := rand.Read(r[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(r[:])+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, errors.New("no free temporary name")
}

// writeInPlace writes to an existing file that is not a regular one.
func writeInPlace(path, target string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrap(err))
	}
	werr := fill(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrap(werr))
	}
	return nil
}

// unwrap drops the *PathError wrapper so that messages name the path once.
func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
