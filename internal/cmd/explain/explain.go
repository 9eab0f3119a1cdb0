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
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/flightrec"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
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
	if ins, err = skipUnreadable(ins, opts.Warn); err != nil {
		return nil, err
	}
	// Flight Recorder dumps and cudadoctor reports are read apart from logs (artifacts.go).
	maxBytes := opts.MaxDumpBytes
	if maxBytes <= 0 {
		maxBytes = flightrec.MaxDumpBytes
	}
	logs, arts, err := splitInputs(ctx, ins, maxBytes)
	if err != nil {
		return nil, err
	}
	var inputs []diagnose.Input
	rep := report.New("explain", "")
	var read int64
	for _, in := range logs {
		inputs = append(inputs, diagnose.Input{Name: in.path, Reader: &byteCounter{r: in.reader(ctx), n: &read}})
		rep.Inputs = append(rep.Inputs, in.path)
	}
	eng := diagnose.New(k)
	eng.Warn = func(msg string) {
		if opts.Warn != nil {
			fmt.Fprintf(opts.Warn, "cudadoctor: %s\n", msg)
		}
	}
	findings, err := eng.Explain(ctx, inputs)
	if err != nil {
		return nil, err
	}
	if read == 0 && len(logs) == len(ins) {
		// Nothing at all to read is a mistake, not a healthy log: most
		// often the program's stderr was not piped.
		names := "the input"
		if len(ins) == 1 && ins[0].path != "-" {
			names = ins[0].path
		}
		return nil, fmt.Errorf("%s is empty: nothing to explain (errors go to stderr: pipe it too, e.g. python train.py 2>&1 | cudadoctor explain -)", names)
	}
	rep.Findings = findings
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

// skipUnreadable drops the files of a directory argument that cannot be
// read or hold binary data (a checkpoint, a core dump next to the logs),
// with one warning line each: a directory is read whole, and one stray
// file must not hide the diagnosis of the others. A file named on the
// command line is never skipped; its error stops the run (exit 3).
func skipUnreadable(ins []*input, warn io.Writer) ([]*input, error) {
	if warn == nil {
		warn = io.Discard
	}
	out := ins[:0:0]
	skipped := map[string]bool{}
	for _, in := range ins {
		if in.fromDir == "" {
			out = append(out, in)
			continue
		}
		head, err := in.head(8192)
		switch {
		case err != nil:
			fmt.Fprintf(warn, "cudadoctor: skipping %s: cannot read it: %v\n", in.path, unwrapPath(err))
		case sniff(head) == kindLog && logparse.LooksBinary(head):
			fmt.Fprintf(warn, "cudadoctor: skipping %s: binary data, not a text log\n", in.path)
		default:
			out = append(out, in)
			continue
		}
		skipped[in.fromDir] = true
	}
	for dir := range skipped {
		kept := false
		for _, in := range out {
			kept = kept || in.fromDir == dir
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
