package pycheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FS is the file system the walker reads; tests substitute their own.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

// OSFS is the real file system.
type OSFS struct{}

func (OSFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (OSFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }
func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OSFS) Open(name string) (io.ReadCloser, error)    { return os.Open(name) }

// skipDirs are never worth descending into, as in ruff's defaults.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".venv": true, "venv": true, "__pycache__": true,
	"node_modules": true, "site-packages": true, ".tox": true, ".nox": true, ".mypy_cache": true, ".ruff_cache": true, ".pytest_cache": true}

// MaxFileSize bounds what one file may cost; bigger "Python" files are
// generated data, not code.
const MaxFileSize = 16 << 20

// Collect lists the Python files under paths: a named file is always taken;
// directories are walked honouring .gitignore files and the config's exclude.
// A file found in a directory that is over MaxFileSize goes to tooLarge
// instead: it is generated data far more often than code, and one such file
// in a repository must not stop the lint of the rest (a named one is read,
// and refused with an error, as the user asked for it). A path that cannot
// be read is an error.
func Collect(fsys FS, paths []string, cfg *Config) (files, tooLarge []string, err error) {
	for _, p := range paths {
		info, err := fsys.Stat(p)
		if err != nil {
			return nil, nil, cleanPathErr(p, err)
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		w := walker{fsys: fsys, cfg: cfg}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, err
		}
		w.loadParentIgnores(abs)
		if err := w.walk(p, abs, &files); err != nil {
			return nil, nil, err
		}
		tooLarge = append(tooLarge, w.tooLarge...)
	}
	return files, tooLarge, nil
}

func cleanPathErr(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file or directory", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", p)
	}
	return fmt.Errorf("%s: %v", p, err)
}

type walker struct {
	fsys     FS
	cfg      *Config
	ignores  []*ignoreList
	tooLarge []string
}

// loadParentIgnores reads the .gitignore files between the repository root
// (the nearest directory holding .git) and the walk root, since git applies
// them to everything below.
func (w *walker) loadParentIgnores(abs string) {
	var dirs []string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if _, err := w.fsys.Stat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			break
		}
	}
	if _, err := w.fsys.Stat(filepath.Join(dirs[len(dirs)-1], ".git")); err != nil {
		return // not inside a repository: no parent .gitignore applies
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if b, err := w.fsys.ReadFile(filepath.Join(dirs[i], ".gitignore")); err == nil {
			w.ignores = append(w.ignores, parseIgnoreList(filepath.ToSlash(dirs[i]), string(b)))
		}
	}
}

func (w *walker) ignored(abs string, isDir bool) bool {
	slash := filepath.ToSlash(abs)
	ign := false
	for _, l := range w.ignores {
		if v, ok := l.decide(slash, isDir); ok {
			ign = v
		}
	}
	if ign {
		return true
	}
	return w.cfg != nil && w.cfg.Excluded(abs, isDir)
}

func (w *walker) walk(dir, abs string, out *[]string) error {
	pushed := false
	if b, err := w.fsys.ReadFile(filepath.Join(dir, ".gitignore")); err == nil {
		w.ignores = append(w.ignores, parseIgnoreList(filepath.ToSlash(abs), string(b)))
		pushed = true
	}
	defer func() {
		if pushed {
			w.ignores = w.ignores[:len(w.ignores)-1]
		}
	}()
	entries, err := w.fsys.ReadDir(dir)
	if err != nil {
		return cleanPathErr(dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		p, a := filepath.Join(dir, name), filepath.Join(abs, name)
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			continue // links could loop or leave the tree
		}
		if isDir && skipDirs[name] || w.ignored(a, isDir) {
			continue
		}
		if isDir {
			if err := w.walk(p, a, out); err != nil {
				return err
			}
			continue
		}
		if strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".pyi") {
			if info, err := e.Info(); err == nil && info.Size() > MaxFileSize {
				w.tooLarge = append(w.tooLarge, p)
				continue
			}
			*out = append(*out, p)
		}
	}
	return nil
}

// ErrTooLarge is a source over MaxFileSize.
var ErrTooLarge = errors.New("too large for a Python source")

// readCapped reads at most MaxFileSize bytes: a device, a FIFO or a file
// growing while it is read (whose size Stat does not tell) is refused once it
// passes the cap instead of filling memory.
func readCapped(fsys FS, p string) ([]byte, error) {
	if o, ok := fsys.(interface {
		Open(string) (io.ReadCloser, error)
	}); ok {
		r, err := o.Open(p)
		if err != nil {
			return nil, cleanPathErr(p, err)
		}
		defer r.Close()
		return ReadSource(p, r)
	}
	b, err := fsys.ReadFile(p)
	if err != nil {
		return nil, cleanPathErr(p, err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s: more than %d bytes: %w (limit %d MiB)", p, MaxFileSize, ErrTooLarge, MaxFileSize>>20)
	}
	return b, nil
}

// ReadSource reads one source from r up to MaxFileSize.
func ReadSource(name string, r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, cleanPathErr(name, err)
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s: more than %d bytes: %w (limit %d MiB)", name, MaxFileSize, ErrTooLarge, MaxFileSize>>20)
	}
	return b, nil
}

// Read streams the files' contents to a channel; the first read error stops
// it and is returned through errc.
func Read(ctx context.Context, fsys FS, paths []string) (<-chan Source, <-chan error) {
	ch := make(chan Source, 8)
	errc := make(chan error, 1)
	go func() {
		defer close(ch)
		defer close(errc)
		for _, p := range paths {
			if ctx.Err() != nil {
				errc <- ctx.Err()
				return
			}
			b, err := readCapped(fsys, p)
			if err != nil {
				errc <- err
				return
			}
			// Python source never holds a NUL byte: such a file is binary
			// (or corrupt), and linting it would only find nothing quietly.
			if bytes.IndexByte(b, 0) >= 0 {
				errc <- fmt.Errorf("%s: binary data, not Python source", p)
				return
			}
			select {
			case ch <- Source{Path: p, Src: b}:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	return ch, errc
}
