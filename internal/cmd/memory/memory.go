// Package memory is the `cudadoctor memory` subcommand: it reads a PyTorch
// memory snapshot (or a log with an out-of-memory message) and reports the
// peak, the sites holding memory, growth, fragmentation and the OOM event.
package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cudadoctor/cudadoctor/internal/atomicfile"
	"github.com/cudadoctor/cudadoctor/internal/diagnose"
	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/memsnap"
	"github.com/cudadoctor/cudadoctor/internal/pickle"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Options are the subcommand's inputs.
type Options struct {
	// Path is the snapshot pickle or log file.
	Path string
	// HTML, when set, is where the self-contained HTML report is written.
	HTML string
}

// Run analyses the input and, when asked, writes the HTML report.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	rep := report.New("memory", "")
	rep.Inputs = []string{opts.Path}
	rep.Rules = memsnap.RuleDocs()
	if opts.HTML != "" && sameFile(opts.HTML, opts.Path) {
		return nil, fmt.Errorf("--html %s would overwrite the input", opts.HTML)
	}
	if st, err := os.Stat(opts.Path); err == nil && st.IsDir() {
		// A capture directory ('run --memory-snapshot DIR'): take the newest.
		found, err := memsnap.FindSnapshots(opts.Path, time.Time{})
		if err != nil {
			return nil, fmt.Errorf("cannot read directory %s: %w", opts.Path, unwrapPath(err))
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("directory %s holds no memory snapshot (*.pickle)", opts.Path)
		}
		opts.Path = found[0]
		rep.Inputs = []string{opts.Path}
	}
	f, err := os.Open(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", opts.Path, unwrapPath(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 64<<20 {
		// The decoded snapshot is a fraction of the file, but the garbage
		// of decoding it is not: a soft limit makes the collector keep the
		// process well under three times the file size.
		// Most of the live heap is pointer-free (memo, trace entries), so
		// collecting more often costs little.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(2*st.Size() + 256<<20))
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	head := make([]byte, 64<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("cannot read %s: %w", opts.Path, err)
	}
	head = head[:n]
	if n == 0 {
		return nil, fmt.Errorf("%s is empty", opts.Path)
	}
	in := io.MultiReader(bytes.NewReader(head), f)

	var analyses []*memsnap.DeviceAnalysis
	var snap *memsnap.Snapshot
	if head[0] != 0x80 && looksLikeText(head) {
		findings, err := explainLog(ctx, opts.Path, in)
		if err != nil {
			return nil, err
		}
		rep.Findings = findings
		k, _ := kb.Default()
		if k != nil {
			rep.Rules = append(rep.Rules, k.RuleDocs()...)
		}
	} else {
		snap, err = memsnap.Decode(in)
		if err != nil {
			var pe *pickle.Error
			var le *pickle.LimitError
			if errors.Is(err, memsnap.ErrNotSnapshot) {
				return nil, fmt.Errorf("%s: %v", opts.Path, err)
			}
			if errors.As(err, &pe) || errors.As(err, &le) {
				return nil, fmt.Errorf("%s is not a readable PyTorch memory snapshot: %v", opts.Path, err)
			}
			return nil, fmt.Errorf("cannot read %s: %w", opts.Path, err)
		}
		analyses = memsnap.Analyze(snap)
		rep.Findings = memsnap.Findings(snap, analyses, opts.Path)
	}
	if opts.HTML != "" {
		if err := writeHTML(opts.HTML, rep, snap, analyses, opts.Path); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

func writeHTML(path string, rep *report.Report, snap *memsnap.Snapshot, analyses []*memsnap.DeviceAnalysis, source string) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		return memsnap.WriteHTML(w, rep, snap, analyses, source)
	})
}

// explainLog runs the log diagnosis and keeps the out-of-memory findings.
func explainLog(ctx context.Context, name string, r io.Reader) ([]report.Finding, error) {
	k, err := kb.Default()
	if err != nil {
		return nil, err
	}
	all, err := diagnose.New(k).Explain(ctx, []diagnose.Input{{Name: name, Reader: r}})
	if err != nil {
		return nil, err
	}
	var out []report.Finding
	for _, f := range all {
		if isOOM(f.Class) || isOOM(f.Rule) {
			out = append(out, f)
			continue
		}
		for _, alt := range f.Alternatives {
			if isOOM(alt) {
				out = append(out, f)
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is neither a PyTorch memory snapshot nor a log with an out-of-memory message", name)
	}
	return out, nil
}

func isOOM(class string) bool { return class == "oom" || strings.HasPrefix(class, "oom-") }

// looksLikeText accepts UTF-8 without NUL bytes; a snapshot pickle always
// starts with the PROTO opcode 0x80, which is not valid UTF-8 on its own.
func looksLikeText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	// A multi-byte rune may be cut at the end of the sample.
	for i := 0; i < 4 && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return true
		}
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
