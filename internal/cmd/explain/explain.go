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
	"regexp"
	"slices"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/flightrec"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
	"github.com/cudadoctor/cudadoctor/internal/shellquote"
)

// Options are the subcommand's inputs.
type Options struct {
	// Paths are files or directories; empty or "-" means Stdin.
	Paths []string
	Stdin io.Reader
	// Warn receives one line per file of a directory argument that is
	// skipped (binary or unreadable) and per input with lines longer than
	// the parser reads; nil discards them.
	Warn io.Writer
	// MaxDumpBytes bounds what is read of one Flight Recorder dump or
	// cudadoctor report (0: flightrec.MaxDumpBytes).
	MaxDumpBytes int
}

// Run diagnoses the inputs.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	k, err := kb.Default()
	if err != nil {
		return nil, err
	}
	ins, err := resolve(ctx, opts.Paths, opts.Stdin)
	defer func() {
		for _, in := range ins {
			if in.closer != nil {
				in.closer.Close()
			}
		}
	}()
	if err != nil {
		return nil, err
	}
	warn := opts.Warn
	if warn == nil {
		warn = io.Discard
	}
	eng := diagnose.New(k)
	// Each input is opened once, sniffed and, when a log, parsed
	// (readInputs, inputs.go); dumps and reports are left for below.
	outs := readInputs(ctx, eng, ins)
	var rest []*input
	skipped := map[string]bool{}
	for i, o := range outs {
		if o.err != nil {
			return nil, o.err
		}
		if o.skip != "" {
			fmt.Fprintf(warn, "cudadoctor: skipping %s: %s\n", ins[i].path, o.skip)
			skipped[ins[i].fromDir] = true
		} else if o.parsed == nil {
			rest = append(rest, ins[i])
		}
	}
	if err := noneLeft(ins, outs, skipped); err != nil {
		return nil, err
	}
	// Flight Recorder dumps and cudadoctor reports are read apart from logs (artifacts.go).
	maxBytes := opts.MaxDumpBytes
	if maxBytes <= 0 {
		maxBytes = flightrec.MaxDumpBytes
	}
	jsonLogs, arts, err := splitInputs(ctx, rest, maxBytes)
	if err != nil {
		return nil, err
	}
	for _, in := range jsonLogs {
		i := slices.Index(ins, in)
		outs[i].parsed, outs[i].err = eng.Read(ctx, diagnose.Input{Name: in.path, Reader: &byteCounter{r: in.reader(ctx), n: &outs[i].bytes}})
		if outs[i].err != nil {
			return nil, outs[i].err
		}
	}
	rep := report.New("explain", "")
	var parsed []*diagnose.Parsed
	var read int64
	for i, o := range outs {
		if o.parsed == nil {
			continue
		}
		if w := o.parsed.Warning(); w != "" {
			fmt.Fprintf(warn, "cudadoctor: %s\n", w)
		}
		parsed = append(parsed, o.parsed)
		rep.Inputs = append(rep.Inputs, ins[i].path)
		read += o.bytes
	}
	if read == 0 && len(parsed) == len(ins) {
		// Nothing at all to read is a mistake, not a healthy log: most
		// often the program's stderr was not piped.
		names := "the input"
		if len(ins) == 1 && ins[0].path != "-" {
			names = ins[0].path
		}
		return nil, fmt.Errorf("%s is empty: nothing to explain (errors go to stderr: pipe it too, e.g. python train.py 2>&1 | cudadoctor explain -)", names)
	}
	rep.Findings = eng.Diagnose(parsed)
	rep.Rules = k.RuleDocs()
	arts.apply(rep) // merges the artifacts' findings into the job's verdict (artifacts.go)
	return rep, nil
}

// resolve turns the arguments into inputs: a directory becomes its regular
// files in sorted order, "-" (or no argument) is stdin, and a named input
// that is not a regular file is opened here, once. A missing path is an
// error before anything is read. On error the inputs opened so far are
// returned too, for closing.
func resolve(ctx context.Context, paths []string, stdin io.Reader) (out []*input, err error) {
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	for _, p := range paths {
		if p == "-" {
			if stdin == nil {
				stdin = strings.NewReader("")
			}
			out = append(out, newStream(ctx, "-", stdin))
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			if cmd, ok := commandLine(paths, p); ok {
				return out, fmt.Errorf("%s is a command, not a log: to run it and explain its failure, use `cudadoctor run -- %s`", p, cmd)
			}
			return out, fmt.Errorf("cannot read %s: %w", p, unwrapPath(err))
		}
		switch {
		case st.Mode().IsRegular() && strings.HasSuffix(p, ".py"):
			return out, fmt.Errorf("%s is Python source, not a log: `cudadoctor lint %s` checks it for CUDA hazards, and `cudadoctor run -- python %s` runs it and explains a failure", p, shellquote.Word(p), shellquote.Word(p))
		case st.Mode().IsRegular():
			out = append(out, &input{path: p})
		case !st.IsDir():
			in, err := openStream(ctx, p)
			if err != nil {
				return out, err
			}
			out = append(out, in)
		default:
			found, err := walkDir(p)
			if err != nil {
				return out, fmt.Errorf("cannot read directory %s: %w", p, unwrapPath(err))
			}
			if len(found) == 0 {
				return out, fmt.Errorf("directory %s holds no files", p)
			}
			for _, f := range found {
				out = append(out, &input{path: f, fromDir: p})
			}
		}
	}
	return out, nil
}

// noneLeft is the error of a directory argument whose every file was
// skipped (binary or unreadable). A directory is read whole, and one stray
// file (a checkpoint, a core dump next to the logs) must not hide the
// diagnosis of the others; but nothing left to read is a mistake.
func noneLeft(ins []*input, outs []outcome, skipped map[string]bool) error {
	for _, in := range ins {
		if skipped[in.fromDir] {
			kept := false
			for i, other := range ins {
				kept = kept || (other.fromDir == in.fromDir && outs[i].skip == "")
			}
			if !kept {
				return fmt.Errorf("directory %s holds no readable text files", in.fromDir)
			}
			skipped[in.fromDir] = false
		}
	}
	return nil
}

// unwrapPath drops the *PathError wrapper so messages name the path once.
func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// byteCounter adds the bytes read through it to *n.
type byteCounter struct {
	r io.Reader
	n *int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	*c.n += int64(k)
	return k, err
}

// launchers are commands users put in front of a script; given to explain
// as its first argument they mean the user wanted `run`.
var launchers = regexp.MustCompile(`^(?:python[0-9.]*|torchrun|accelerate|deepspeed|srun|mpirun|bash|sh)$`)

// commandLine says whether the missing path p, the first argument, names a
// launcher, and returns the arguments as one command to pass to run.
func commandLine(paths []string, p string) (string, bool) {
	if len(paths) == 0 || paths[0] != p || !launchers.MatchString(filepath.Base(p)) {
		return "", false
	}
	words := make([]string, len(paths))
	for i, a := range paths {
		words[i] = shellquote.Word(a)
	}
	return strings.Join(words, " "), true
}
