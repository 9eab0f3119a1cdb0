package pycheck

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

// BenchmarkFlatten copies already parsed trees into Go (and fills the
// per-node context), over the .py files below CUDADOCTOR_LINT_CORPUS or
// the rule fixtures: the part of a lint's per-file cost that grows with
// the node count, measured without the parse around it.
func BenchmarkFlatten(b *testing.B) {
	root := os.Getenv("CUDADOCTOR_LINT_CORPUS")
	if root == "" {
		root = filepath.Join("rules", "testdata")
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(python.GetLanguage())
	var trees []*sitter.Tree
	var srcs [][]byte
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".py") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		t, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			return err
		}
		trees = append(trees, t)
		srcs = append(srcs, src)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		for _, t := range trees {
			t.Close()
		}
	}()
	b.ResetTimer()
	nodes := 0
	for i := 0; i < b.N; i++ {
		nodes = 0
		for k, t := range trees {
			f := newFile("x.py", srcs[k], Flatten(t.RootNode()))
			f.precompute()
			nodes += f.Tree.Len()
		}
	}
	b.ReportMetric(float64(nodes)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}
