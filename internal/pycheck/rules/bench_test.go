package rules

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/cudadoctor/cudadoctor/internal/pycheck"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// corpus loads every .py file below CUDADOCTOR_LINT_CORPUS (a
// colon-separated list of directories), or the rule fixtures when unset, so
// the benchmarks also run in CI on a small input.
func corpus(b *testing.B) ([]pycheck.Source, int) {
	b.Helper()
	roots := filepath.SplitList(os.Getenv("CUDADOCTOR_LINT_CORPUS"))
	if len(roots) == 0 || roots[0] == "" {
		roots = []string{"testdata"}
	}
	var srcs []pycheck.Source
	lines := 0
	for _, root := range roots {
		for _, s := range pySources(b, root) {
			srcs = append(srcs, s)
			lines += bytes.Count(s.Src, []byte{'\n'})
		}
	}
	return srcs, lines
}

// pySources reads every .py file below root, in walk order.
func pySources(t testing.TB, root string) []pycheck.Source {
	t.Helper()
	var out []pycheck.Source
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, pycheck.Source{Path: p, Src: src})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func feed(srcs []pycheck.Source) <-chan pycheck.Source {
	ch := make(chan pycheck.Source, 64)
	go func() {
		for _, s := range srcs {
			ch <- s
		}
		close(ch)
	}()
	return ch
}

// BenchmarkBareParse is the baseline: tree-sitter parsing every file, on
// GOMAXPROCS workers, and nothing else.
func BenchmarkBareParse(b *testing.B) {
	srcs, lines := corpus(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ch := feed(srcs)
		var wg sync.WaitGroup
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := sitter.NewParser()
				defer p.Close()
				p.SetLanguage(python.GetLanguage())
				for s := range ch {
					t, err := p.ParseCtx(context.Background(), nil, s.Src)
					if err != nil {
						b.Error(err)
						continue
					}
					t.Close()
				}
			}()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkLint is the full rule set, suppressions included, over the same
// files on the same workers.
func BenchmarkLint(b *testing.B) { benchLint(b, false) }

// BenchmarkLintParseAll is the same with the byte-level filters off: every
// file parsed and given to every rule.
func BenchmarkLintParseAll(b *testing.B) { benchLint(b, true) }

func benchLint(b *testing.B, parseAll bool) {
	srcs, lines := corpus(b)
	l := &pycheck.Linter{Rules: All(), AlwaysParse: parseAll}
	b.ResetTimer()
	var n int
	var st pycheck.Stats
	for i := 0; i < b.N; i++ {
		var fs []report.Finding
		var err error
		fs, st, err = l.Lint(context.Background(), feed(srcs))
		if err != nil {
			b.Fatal(err)
		}
		n = len(fs)
		if st.Files != len(srcs) {
			b.Fatalf("linted %d of %d files", st.Files, len(srcs))
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(n), "findings")
	b.ReportMetric(float64(st.Parsed), "parsed-files")
}
