// Package lint is the `cudadoctor lint` command: it collects Python files,
// runs the pycheck rules over them and returns a report.
package lint

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/pycheck/rules"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Options are the inputs of one lint run.
type Options struct {
	// Paths are files and directories; empty means the current directory.
	Paths []string
	// ConfigPath names a pyproject.toml; empty means discover the nearest.
	ConfigPath string
	// FS is the file system (nil: the real one).
	FS pycheck.FS
	// Workers is the parallelism (0: GOMAXPROCS).
	Workers int
	// Stdin is read when Paths is exactly "-".
	Stdin io.Reader
}

// Rules documents every code lint can report, in code order.
func RuleDocs() []report.RuleDoc {
	var out []report.RuleDoc
	for _, r := range append(pycheck.EngineRules(), rules.All()...) {
		out = append(out, r.RuleDoc)
	}
	return out
}

func codes() []string {
	var out []string
	for _, r := range append(pycheck.EngineRules(), rules.All()...) {
		out = append(out, r.ID)
	}
	return out
}

// readStdin lints standard input as one file named "-", as ruff does.
func readStdin(r io.Reader) (<-chan pycheck.Source, <-chan error) {
	ch := make(chan pycheck.Source, 1)
	errc := make(chan error, 1)
	if r == nil {
		errc <- fmt.Errorf("-: no standard input")
		close(ch)
		close(errc)
		return ch, errc
	}
	b, err := pycheck.ReadSource("-", r)
	if err != nil {
		errc <- err
	} else {
		ch <- pycheck.Source{Path: "-", Src: b}
	}
	close(ch)
	close(errc)
	return ch, errc
}

// Run lints the paths; "-" alone reads standard input.
func Run(ctx context.Context, opts Options) (*report.Report, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = pycheck.OSFS{}
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var cfg *pycheck.Config
	var err error
	if opts.ConfigPath != "" {
		cfg, err = pycheck.LoadConfig(opts.ConfigPath)
	} else {
		start := paths[0]
		if start == "-" {
			start = "."
		}
		if info, serr := fsys.Stat(start); serr == nil && !info.IsDir() {
			start = filepath.Dir(start)
		}
		cfg, err = pycheck.FindConfig(start)
	}
	if err == nil {
		err = cfg.CheckCodes(codes())
	}
	if err != nil {
		return nil, fmt.Errorf("reading the configuration: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sources <-chan pycheck.Source
	var errc <-chan error
	var tooLarge []string
	if len(paths) == 1 && paths[0] == "-" {
		sources, errc = readStdin(opts.Stdin)
	} else {
		var files []string
		files, tooLarge, err = pycheck.Collect(fsys, paths, cfg)
		if err != nil {
			return nil, err
		}
		sources, errc = pycheck.Read(ctx, fsys, files)
	}
	l := &pycheck.Linter{Rules: rules.All(), Enabled: cfg.Enabled, Workers: opts.Workers}
	findings, _, lintErr := l.Lint(ctx, sources)
	findings = l.AddTooLarge(findings, tooLarge)
	if err := <-errc; err != nil {
		return nil, err
	}
	if lintErr != nil {
		return nil, lintErr
	}
	rep := report.New("lint", "")
	rep.Inputs = paths
	rep.Findings = findings
	rep.Rules = RuleDocs()
	return rep, nil
}
