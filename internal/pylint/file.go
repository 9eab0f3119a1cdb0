package pylint

import (
	"bytes"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// File is one parsed Python source. Rules find their candidates by scanning
// Src for anchor text (fast, in Go) and then ask the tree about those few
// places, instead of visiting every node through cgo.
type File struct {
	Path string
	Src  []byte
	Root *sitter.Node

	lineStarts []int
}

func newFile(path string, src []byte, root *sitter.Node) *File {
	f := &File{Path: path, Src: src, Root: root, lineStarts: make([]int, 1, 1+bytes.Count(src, []byte{'\n'}))}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		f.lineStarts = append(f.lineStarts, i)
	}
	return f
}

// point converts a byte offset to tree-sitter's row/byte-column point.
func (f *File) point(off int) sitter.Point {
	row := sort.Search(len(f.lineStarts), func(i int) bool { return f.lineStarts[i] > off }) - 1
	if row < 0 {
		row = 0
	}
	return sitter.Point{Row: uint32(row), Column: uint32(off - f.lineStarts[row])}
}

// LineCol returns the 1-based line and column of a byte offset.
func (f *File) LineCol(off int) (int, int) {
	p := f.point(off)
	return int(p.Row) + 1, int(p.Column) + 1
}

// Line returns the text of a 1-based line without its newline.
func (f *File) Line(line int) string {
	if line < 1 || line > len(f.lineStarts) {
		return ""
	}
	start := f.lineStarts[line-1]
	end := len(f.Src)
	if line < len(f.lineStarts) {
		end = f.lineStarts[line] - 1
	}
	return strings.TrimRight(string(f.Src[start:end]), "\r")
}

// Text is the source of a node.
func (f *File) Text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(f.Src[n.StartByte():n.EndByte()])
}

// NodeAt is the smallest named node covering [start, end).
func (f *File) NodeAt(start, end int) *sitter.Node {
	return f.Root.NamedDescendantForPointRange(f.point(start), f.point(end))
}

// Find returns the offsets of every occurrence of s in [start, end).
func (f *File) Find(s string, start, end int) []int {
	var out []int
	if end > len(f.Src) {
		end = len(f.Src)
	}
	if s == "" {
		return nil // a MISSING node's name: nothing to look for
	}
	needle := []byte(s)
	for start < end {
		i := bytes.Index(f.Src[start:end], needle)
		if i < 0 {
			break
		}
		out = append(out, start+i)
		start += i + len(needle)
	}
	return out
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// Names returns the identifier nodes spelling name in [start, end): code
// only, never the same letters inside a string, a comment or a longer name.
func (f *File) Names(name string, start, end int) []*sitter.Node {
	var out []*sitter.Node
	for _, off := range f.Find(name, start, end) {
		if off > 0 && isIdentByte(f.Src[off-1]) || off+len(name) < len(f.Src) && isIdentByte(f.Src[off+len(name)]) {
			continue
		}
		n := f.NodeAt(off, off+len(name))
		if n != nil && n.Type() == "identifier" && int(n.StartByte()) == off && int(n.EndByte()) == off+len(name) {
			out = append(out, n)
		}
	}
	return out
}

// CallsAt returns the call nodes whose callee ends with the text at each
// occurrence of needle (e.g. "synchronize(" finds x.synchronize() calls), in
// code only.
func (f *File) CallsAt(needle string, start, end int) []*sitter.Node {
	var out []*sitter.Node
	for _, off := range f.Find(needle, start, end) {
		n := f.NodeAt(off, off+len(needle)-1)
		for n != nil && n.Type() != "call" {
			t := n.Type()
			if t != "identifier" && t != "attribute" {
				n = nil
				break
			}
			n = n.Parent()
		}
		if n != nil && int(n.ChildByFieldName("function").EndByte()) == off+len(needle)-1 {
			out = append(out, n)
		}
	}
	return out
}

// Ancestor is the nearest proper ancestor of n of one of the given types.
func Ancestor(n *sitter.Node, types ...string) *sitter.Node {
	for p := n.Parent(); p != nil; p = p.Parent() {
		t := p.Type()
		for _, want := range types {
			if t == want {
				return p
			}
		}
	}
	return nil
}

// Scope is the function (or, at top level, the module) whose body holds n.
func (f *File) Scope(n *sitter.Node) *sitter.Node {
	if s := Ancestor(n, "function_definition", "lambda"); s != nil {
		return s
	}
	return f.Root
}

// Within reports whether n lies inside outer.
func Within(n, outer *sitter.Node) bool {
	return n.StartByte() >= outer.StartByte() && n.EndByte() <= outer.EndByte()
}

// Statement is the simple or compound statement that contains n directly in a
// block (or at module level).
func Statement(n *sitter.Node) *sitter.Node {
	for cur := n; cur != nil; cur = cur.Parent() {
		p := cur.Parent()
		if p == nil {
			return cur
		}
		if t := p.Type(); t == "block" || t == "module" {
			return cur
		}
	}
	return n
}

// Callee is the dotted text of a call's function ("torch.cuda.synchronize").
func (f *File) Callee(call *sitter.Node) string {
	if call == nil || call.Type() != "call" {
		return ""
	}
	return f.Text(call.ChildByFieldName("function"))
}

// LastName is the part after the last dot of a dotted name.
func LastName(dotted string) string {
	if i := strings.LastIndexByte(dotted, '.'); i >= 0 {
		return dotted[i+1:]
	}
	return dotted
}

// Keyword returns the value node of keyword argument name in a call.
func (f *File) Keyword(call *sitter.Node, name string) *sitter.Node {
	args := call.ChildByFieldName("arguments")
	if args == nil {
		return nil
	}
	for i := 0; i < int(args.NamedChildCount()); i++ {
		a := args.NamedChild(i)
		if a.Type() == "keyword_argument" && f.Text(a.ChildByFieldName("name")) == name {
			return a.ChildByFieldName("value")
		}
	}
	return nil
}

// PositionalArgs returns a call's positional arguments.
func PositionalArgs(call *sitter.Node) []*sitter.Node {
	args := call.ChildByFieldName("arguments")
	if args == nil || args.Type() != "argument_list" {
		return nil
	}
	var out []*sitter.Node
	for i := 0; i < int(args.NamedChildCount()); i++ {
		a := args.NamedChild(i)
		switch a.Type() {
		case "keyword_argument", "list_splat", "dictionary_splat", "comment":
			continue
		}
		out = append(out, a)
	}
	return out
}

// Context is what a region of code runs under.
type Context int

const (
	CtxAutocast     Context = 1 << iota // inside an enabled torch.autocast region
	CtxNoGrad                           // gradients off: no_grad, inference_mode
	CtxGraphCapture                     // inside torch.cuda.graph capture
)

// ContextOf reports the contexts enclosing n within its function: the with
// statements around it, then the function's decorators. A with outside the
// function does not count: the function may be called from anywhere.
func (f *File) ContextOf(n *sitter.Node) Context {
	var ctx, decided Context
	for cur, p := n, n.Parent(); p != nil; cur, p = p, p.Parent() {
		switch p.Type() {
		case "with_statement":
			if body := p.ChildByFieldName("body"); body == nil || !Within(cur, body) {
				continue
			}
			for _, item := range withItems(p) {
				c, on := classifyContext(f.Text(item))
				if c != 0 && decided&c == 0 {
					decided |= c
					if on {
						ctx |= c
					}
				}
			}
		case "function_definition":
			if dd := p.Parent(); dd != nil && dd.Type() == "decorated_definition" {
				for i := 0; i < int(dd.NamedChildCount()); i++ {
					d := dd.NamedChild(i)
					if d.Type() != "decorator" {
						continue
					}
					c, on := classifyContext(f.Text(d))
					if c != 0 && decided&c == 0 {
						decided |= c
						if on {
							ctx |= c
						}
					}
				}
			}
			return ctx
		case "class_definition":
			return ctx
		}
	}
	return ctx
}

func withItems(w *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	for i := 0; i < int(w.NamedChildCount()); i++ {
		c := w.NamedChild(i)
		if c.Type() != "with_clause" {
			continue
		}
		for j := 0; j < int(c.NamedChildCount()); j++ {
			if it := c.NamedChild(j); it.Type() == "with_item" {
				out = append(out, it)
			}
		}
	}
	return out
}

// classifyContext recognises a context manager or decorator by its text.
func classifyContext(t string) (Context, bool) {
	compact := strings.Join(strings.Fields(t), "")
	switch {
	case strings.Contains(compact, "autocast("):
		return CtxAutocast, !strings.Contains(compact, "enabled=False")
	case strings.Contains(compact, "no_grad(") || strings.Contains(compact, "inference_mode("):
		return CtxNoGrad, !strings.Contains(compact, "inference_mode(False") && !strings.Contains(compact, "mode=False")
	case strings.Contains(compact, "enable_grad("):
		return CtxNoGrad, false
	case strings.Contains(compact, "set_grad_enabled(False"):
		return CtxNoGrad, true
	case strings.Contains(compact, "cuda.graph(") || strings.Contains(compact, "cuda.graphs.graph("):
		return CtxGraphCapture, true
	}
	return 0, false
}

// IsTrue reports whether a node is the literal True.
func (f *File) IsTrue(n *sitter.Node) bool { return n != nil && n.Type() == "true" }

// compact strips all whitespace, for matching call text.
func compact(s string) string { return strings.Join(strings.Fields(s), "") }

// Compact strips all whitespace from a node's text.
func (f *File) Compact(n *sitter.Node) string { return compact(f.Text(n)) }
