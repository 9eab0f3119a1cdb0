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
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Options are the subcommand's inputs.
type Options struct {
	// Paths are files or directories; empty or "-" means Stdin.
	Paths []string
	Stdin io.Reader
}

// Run diagnoses the inputs.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	k, err := kb.Default()
	if err != nil {
		return nil, err
	}
	files, err := resolve(opts.Paths)
	if err != nil {
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
// "-" for stdin. A missing path is an error before anything is read.
func resolve(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return []string{"-"}, nil
	}
	var out []string
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
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
			return nil, fmt.Errorf("cannot read directory %s: %w", p, unwrapPath(err))
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("directory %s holds no files", p)
		}
		sort.Strings(found)
		out = append(out, found...)
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
