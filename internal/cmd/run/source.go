package run

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// maxSourceBytes bounds the source files read to quote a line.
const maxSourceBytes = 8 << 20

// fillCode quotes the source line of l when the traceback did not: the file
// is read from where the frame says, or next to the command's scripts.
func (o *Options) fillCode(l *report.Location) {
	if l == nil || l.Code != "" || l.Line <= 0 || l.Path == "" {
		return
	}
	for _, p := range o.sourceCandidates(l.Path) {
		b, err := o.ReadFile(p)
		if err != nil || len(b) > maxSourceBytes || bytes.IndexByte(b, 0) >= 0 {
			continue
		}
		lines := strings.Split(string(b), "\n")
		if l.Line <= len(lines) {
			l.Code = strings.TrimSpace(lines[l.Line-1])
		}
		return
	}
}

// sourceCandidates lists where a frame's file may be: as named (relative to
// the working directory), and beside every script in the command line (the
// sanitizer names files by their base name only).
func (o *Options) sourceCandidates(path string) []string {
	out := []string{o.inDir(path)}
	if filepath.IsAbs(path) {
		return out
	}
	for _, a := range o.Argv[1:] {
		if strings.HasSuffix(a, ".py") {
			c := filepath.Join(filepath.Dir(a), filepath.Base(path))
			out = append(out, o.inDir(c))
		}
	}
	return out
}

func (o *Options) inDir(p string) string {
	if filepath.IsAbs(p) || o.Dir == "" {
		return p
	}
	return filepath.Join(o.Dir, p)
}

// isUserFile says whether a base file name from a sanitizer backtrace is
// one of the command's own scripts or a file beside them.
func (o *Options) isUserFile(name string) bool {
	for _, a := range o.Argv[1:] {
		if !strings.HasSuffix(a, ".py") {
			continue
		}
		if filepath.Base(a) == name {
			return true
		}
		if _, err := os.Stat(o.inDir(filepath.Join(filepath.Dir(a), name))); err == nil {
			return true
		}
	}
	return false
}
