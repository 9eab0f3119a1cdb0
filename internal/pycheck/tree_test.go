package pycheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// TestFlattenMatchesTreeSitter walks tree-sitter's own tree and the
// flattened copy side by side over the rule fixtures: same types, ranges,
// fields, flags and shape. It guards the layout Flatten relies on, on
// both the pooled copy of a small tree and the malloc'd one of a large.
func TestFlattenMatchesTreeSitter(t *testing.T) {
	defer func(n int) { largeTree = n }(largeTree)
	for _, large := range []int{largeTree, 1} {
		largeTree = large
		flattenMatchesTreeSitter(t)
	}
}

func flattenMatchesTreeSitter(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("rules", "testdata", "CD1*", "*.py"))
	if len(files) < 20 {
		t.Fatalf("only %d fixtures", len(files))
	}
	files = append(files, "") // and a file with a syntax error, below
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(python.GetLanguage())
	for _, path := range files {
		src := []byte("def f(:\n  x = [1, 2\n")
		if path != "" {
			var err error
			if src, err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		tree, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			t.Fatal(err)
		}
		flat := Flatten(tree.RootNode())
		count := 0
		var walk func(a *sitter.Node, b *Node, field string)
		walk = func(a *sitter.Node, b *Node, field string) {
			count++
			if a.Type() != b.Type() || a.StartByte() != b.StartByte() || a.EndByte() != b.EndByte() || a.IsNamed() != b.IsNamed() ||
				a.IsMissing() != b.IsMissing() || a.HasError() != b.HasError() || int(a.ChildCount()) != int(b.ChildCount()) || field != b.FieldName() && a.Type() != "comment" { // go-tree-sitter gives a comment its neighbour's field
				t.Fatalf("%s: node %s [%d,%d) field %q differs from %s [%d,%d) field %q", path, a.Type(), a.StartByte(), a.EndByte(), field,
					b.Type(), b.StartByte(), b.EndByte(), b.FieldName())
			}
			for i := 0; i < int(a.ChildCount()); i++ {
				walk(a.Child(i), b.Child(i), a.FieldNameForChild(i))
			}
		}
		walk(tree.RootNode(), flat.Root(), "")
		if count != flat.Len() {
			t.Errorf("%s: %d nodes in tree-sitter, %d flattened", path, count, flat.Len())
		}
		tree.Close()
	}
}

// TestDeepInputsAreLinear: inputs the rules used to climb quadratically
// (a 100 KB file nested 50,000 deep, a 700 KB chain of .cuda() calls) are
// refused past MaxNesting with one finding, and code just under the limit
// is checked. Counted in nodes visited, not timed.
func TestDeepInputsAreLinear(t *testing.T) {
	l := &Linter{Rules: []*Rule{{RuleDoc: report.RuleDoc{ID: "CD999", Name: "x-y"}, Check: func(p *Pass) {
		for i := 0; i < p.File.Tree.Len(); i++ {
			p.File.ContextOf(p.File.Tree.At(i))
			p.File.Scope(p.File.Tree.At(i))
			Statement(p.File.Tree.At(i))
		}
	}}}}
	for name, src := range map[string]string{
		"nested": "import torch\nx = " + strings.Repeat("(", 50000) + "1" + strings.Repeat(")", 50000) + "\n",
		"chain":  "import torch\nx = y" + strings.Repeat(".cuda()", 100000) + "\n",
	} {
		fs := l.LintSource(name+".py", []byte(src))
		if len(fs) != 1 || fs[0].Rule != CodeParseError || !strings.Contains(fs[0].Message, "deeper than Python can compile") {
			t.Errorf("%s: want one nesting finding, got %+v", name, fs)
		}
	}
	ok := "import torch\nx = y" + strings.Repeat(".cuda()", 500) + "\n"
	if fs := l.LintSource("ok.py", []byte(ok)); len(fs) != 0 {
		t.Errorf("500 chained calls: want no finding, got %+v", fs)
	}
}

// TestCompactMatchesFields: the one-copy Compact strips exactly what
// strings.Fields would, Unicode spaces included, on every node.
func TestCompactMatchesFields(t *testing.T) {
	src := []byte("x = torch . cuda\t.amp(\n  a ,\v b\f)\r\ny = f( 'a\u00a0b' )\u2003# é\nz = g(c\u0085)\n")
	f := parseFile(context.Background(), newParser(), Source{Path: "c.py", Src: src}, nil)
	for i := 0; i < f.Tree.Len(); i++ {
		n := f.Tree.At(i)
		if got, want := f.Compact(n), compact(f.Text(n)); got != want {
			t.Errorf("node %s: Compact %q, want %q", n.Type(), got, want)
		}
	}
}
