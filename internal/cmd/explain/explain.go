// Package explain is the `cudadoctor explain` subcommand: it resolves the
// inputs (files, directories, stdin), runs the diagnosis engine and returns
// the report.
package explain

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	engine "github.com/cudadoctor/cudadoctor/internal/explain"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Options are the subcommand's inputs.
type Options struct {
	// Paths are files or directories; empty or "-" means Stdin.
	Paths []string
	Stdin io.Reader
	// Warn receives one line per file of a directory argument that is
	// skipped (binary or unreadable); nil discards them.
	Warn io.Writer
}

// Run diagnoses the inputs.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	k, err := kb.Default()
	if err != nil {
		return nil, err
	}
	files, fromDir, err := resolve(opts.Paths)
	if err != nil {
		return nil, err
	}
	if files, err = skipUnreadable(files, fromDir, opts.Warn); err != nil {
		return nil, err
	}
	// Flight Recorder dumps and cudadoctor reports are read apart from logs (artifacts.go).
	files, arts, err := splitInputs(files, &opts)
	if err != nil {
		return nil, err
	}
	var inputs []engine.Input
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	rep := report.New("explain", "")
	for _, p := range files {
		if p == "-" {
			inputs = append(inputs, engine.Input{Name: "-", Reader: opts.Stdin})
			rep.Inputs = append(rep.Inputs, "-")
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
		}
		closers = append(closers, f)
		inputs = append(inputs, engine.Input{Name: p, Reader: f})
		rep.Inputs = append(rep.Inputs, p)
	}
	findings, err := engine.New(k).Explain(ctx, inputs)
	if err != nil {
		return nil, err
	}
	rep.Findings = findings
	rep.Rules = k.RuleInfos()
	arts.apply(rep) // merges the artifacts' findings into the job's verdict (artifacts.go)
	return rep, nil
}

// resolve expands directories into their regular files, sorted, and keeps
// "-" for stdin; fromDir maps each file found inside a directory argument
// to that directory. A missing path is an error before anything is read.
func resolve(paths []string) (out []string, fromDir map[string]string, err error) {
	if len(paths) == 0 {
		return []string{"-"}, nil, nil
	}
	fromDir = map[string]string{}
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read directory %s: %w", p, unwrapPath(err))
		}
		if len(found) == 0 {
			return nil, nil, fmt.Errorf("directory %s holds no files", p)
		}
		sort.Strings(found)
		for _, f := range found {
			fromDir[f] = p
		}
		out = append(out, found...)
	}
	return out, fromDir, nil
}

// skipUnreadable drops the files of a directory argument that cannot be
// read or hold binary data (a checkpoint, a core dump next to the logs),
// with one warning line each: a directory is read whole, and one stray
// file must not hide the diagnosis of the others. A file named on the
// command line is never skipped; its error stops the run (exit 3).
func skipUnreadable(files []string, fromDir map[string]string, warn io.Writer) ([]string, error) {
	if warn == nil {
		warn = io.Discard
	}
	out := files[:0:0]
	skipped := map[string]bool{}
	for _, p := range files {
		dir, inDir := fromDir[p]
		if !inDir {
			out = append(out, p)
			continue
		}
		head, err := readHeadN(p, 8192)
		switch {
		case err != nil:
			fmt.Fprintf(warn, "cudadoctor: skipping %s: cannot read it: %v\n", p, unwrapPath(err))
		case sniff(head) == kindLog && logparse.LooksBinary(head):
			fmt.Fprintf(warn, "cudadoctor: skipping %s: binary data, not a text log\n", p)
		default:
			out = append(out, p)
			continue
		}
		skipped[dir] = true
	}
	for dir := range skipped {
		kept := false
		for _, p := range out {
			kept = kept || fromDir[p] == dir
		}
		if !kept {
			return nil, fmt.Errorf("directory %s holds no readable text files", dir)
		}
	}
	return out, nil
}

// unwrapPath drops the *PathError wrapper so messages name the path once.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
