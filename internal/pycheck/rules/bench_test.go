package rules

import (
	"bytes"
	"context"
	"fmt"
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

// BenchmarkOneScopeManyCalls lints one function of n statements that all
// ask the flow questions about the same or similar names: copies each read
// once, one name rebound and read again and again, half-precision
// reductions, timed .item() reads. The rules ask per call site, so a
// scope's answers must be shared: ns/op should grow about fourfold from
// n=1000 to n=4000 (it grew sixteenfold, and 20,000 copies took minutes).
func BenchmarkOneScopeManyCalls(b *testing.B) {
	shapes := map[string]func(i int) string{
		"copies": func(i int) string {
			return fmt.Sprintf("    y%d = x.to(\"cpu\", non_blocking=True)\n    print(y%d)\n", i, i)
		},
		"rebound": func(int) string { return "    y = x.to(\"cpu\", non_blocking=True)\n    print(y)\n" },
		"half":    func(i int) string { return fmt.Sprintf("    h%d = x.half()\n    s%d = h%d.sum()\n", i, i, i) },
		"timed": func(int) string {
			return "    t0 = time.time()\n    y = model(x)\n    print(time.time() - t0, y.item())\n"
		},
		"uploaded": func(i int) string { return fmt.Sprintf("    y%d = x.to(device, non_blocking=True)\n", i) },
	}
	l := &pycheck.Linter{Rules: All()}
	for _, name := range []string{"copies", "rebound", "half", "timed", "uploaded"} {
		for _, n := range []int{1000, 4000} {
			var sb strings.Builder
			sb.WriteString("import time\nimport torch\ndevice = torch.device(\"cuda\")\ndef f(x, model):\n")
			for i := range n {
				sb.WriteString(shapes[name](i))
			}
			src := []byte(sb.String())
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				for b.Loop() {
					l.LintSource("many.py", src)
				}
			})
		}
	}
}
