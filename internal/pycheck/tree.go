package pycheck

/*
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>

// The layouts of tree-sitter's public value types (api.h of the pinned
// go-tree-sitter); the functions are linked from that module's C code.
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct TSLanguage TSLanguage;

uint32_t ts_node_descendant_count(TSNode);
uint16_t ts_node_symbol(TSNode);
uint32_t ts_node_start_byte(TSNode);
uint32_t ts_node_end_byte(TSNode);
bool ts_node_is_missing(TSNode);
const TSLanguage *ts_node_language(TSNode);
TSTreeCursor ts_tree_cursor_new(TSNode);
void ts_tree_cursor_delete(TSTreeCursor *);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *);
bool ts_tree_cursor_goto_parent(TSTreeCursor *);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
const char *ts_language_symbol_name(const TSLanguage *, uint16_t);
const char *ts_language_field_name_for_id(const TSLanguage *, uint16_t);
uint32_t ts_language_symbol_count(const TSLanguage *);
uint32_t ts_language_field_count(const TSLanguage *);
uint32_t ts_language_symbol_type(const TSLanguage *, uint16_t); // TSSymbolType: 0 is regular (named)

// 16 bytes a node: Python's grammar has fewer than 256 fields (namesFor
// checks).
typedef struct {
	uint32_t start, end;
	int32_t parent;
	uint16_t sym;
	uint8_t field, missing;
} cd_node;

static uint32_t cd_count(TSNode *root) { return ts_node_descendant_count(*root); }

// cd_flatten writes the tree below root in pre-order, iteratively (no C
// recursion, whatever the nesting), and returns the number of nodes written.
// Whether a node is named or an error follows from its symbol (looked up in
// Go); only MISSING, which no symbol tells, is asked, and only of leaves
// (tree-sitter inserts a missing token as a leaf).
static uint32_t cd_flatten(TSNode *root, cd_node *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(*root);
	uint32_t n = 0;
	int32_t parent = -1;
	for (;;) {
		if (n >= cap) break;
		TSNode node = ts_tree_cursor_current_node(&c);
		cd_node *o = &out[n];
		o->start = ts_node_start_byte(node);
		o->end = ts_node_end_byte(node);
		o->parent = parent;
		o->sym = ts_node_symbol(node);
		o->field = (uint8_t)ts_tree_cursor_current_field_id(&c);
		o->missing = 0;
		int32_t me = (int32_t)n++;
		if (ts_tree_cursor_goto_first_child(&c)) {
			parent = me;
			continue;
		}
		o->missing = ts_node_is_missing(node);
		for (;;) {
			if (ts_tree_cursor_goto_next_sibling(&c)) break;
			if (parent < 0 || !ts_tree_cursor_goto_parent(&c)) goto done;
			parent = out[parent].parent;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	return n;
}

// cd_trim hands the pages that free() kept back to the system (glibc keeps
// a freed tree's memory in its arenas, where Go cannot use it); elsewhere
// it does nothing.
#if defined(__GLIBC__)
#include <malloc.h>
static void cd_trim(void) { malloc_trim(0); }
#else
static void cd_trim(void) {}
#endif

static const TSLanguage *cd_language(TSNode *root) { return ts_node_language(*root); }
static const char *cd_symbol_name(const TSLanguage *l, uint32_t s) { return ts_language_symbol_name(l, (uint16_t)s); }
static const char *cd_field_name(const TSLanguage *l, uint32_t f) { return ts_language_field_name_for_id(l, (uint16_t)f); }
*/
import "C"

import (
	"math/bits"
	"sort"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Tree is a parsed file copied out of tree-sitter into Go memory in one
// call: every node with its type, byte range, parent and children. Rules
// walk it without crossing into C, and the context every node runs under
// (its function, loop, statement, autocast/no_grad/capture) is computed in
// one pass, so no rule climbs parents to learn it.
type Tree struct {
	nodes []Node
	kids  []int32 // children of node i: kids[nodes[i].kids : nodes[i].kids+nodes[i].nkids]
	names *langNames
	// MaxDepth is the deepest nesting in the tree (the root is 0).
	MaxDepth int
}

// Node is one syntax node; the methods mirror tree-sitter's so that rules
// read the same, but each is a slice access in Go.
type Node struct {
	t          *Tree
	start, end uint32
	parent     int32
	kids       int32
	nkids      int32
	sym, field uint16
	flags      uint8
	hasErr     bool
	ctx        Context // see File.ContextOf

	// Filled by File.precompute.
	scope int32 // enclosing function_definition or lambda, -1 for module level
	loop  int32 // innermost for/while in the same function, -1 for none
	stmt  int32 // statement directly in a block or module that holds the node
}

const (
	flagNamed   = 1
	flagMissing = 2
	flagError   = 4
)

type langNames struct {
	syms   []string
	fields []string
	named  []bool // by symbol: a named (regular) node
	kinds  []uint8
}

// Kinds of parent that File.precompute looks for, by symbol, so that its
// pass compares small integers rather than type names.
const (
	kindFunc      = 1 << iota // function_definition
	kindLambda                // lambda
	kindLoop                  // for_statement, while_statement
	kindBlock                 // block, module
	kindWith                  // with_statement
	kindClass                 // class_definition
	kindDecorated             // decorated_definition
)

func symbolKind(name string) uint8 {
	switch name {
	case "function_definition":
		return kindFunc
	case "lambda":
		return kindLambda
	case "for_statement", "while_statement":
		return kindLoop
	case "block", "module":
		return kindBlock
	case "with_statement":
		return kindWith
	case "class_definition":
		return kindClass
	case "decorated_definition":
		return kindDecorated
	}
	return 0
}

// kind is a node's symbolKind (0 for ERROR).
func (n *Node) kind() uint8 {
	if k := n.t.names.kinds; int(n.sym) < len(k) {
		return k[n.sym]
	}
	return 0
}

// errorSym is tree-sitter's ERROR symbol (ts_builtin_sym_error), outside
// the language's table; an ERROR node is named.
const errorSym = 0xffff

func (l *langNames) flags(sym uint16) uint8 {
	if sym == errorSym {
		return flagNamed | flagError
	}
	if int(sym) < len(l.named) && l.named[sym] {
		return flagNamed
	}
	return 0
}

var (
	pythonNamesOnce sync.Once
	pythonNames     *langNames
)

func namesFor(root *C.TSNode) *langNames {
	pythonNamesOnce.Do(func() {
		l := C.cd_language(root)
		n := &langNames{}
		for i := 0; i < int(C.ts_language_symbol_count(l)); i++ {
			n.syms = append(n.syms, C.GoString(C.cd_symbol_name(l, C.uint32_t(i))))
			n.named = append(n.named, C.ts_language_symbol_type(l, C.uint16_t(i)) == 0)
			n.kinds = append(n.kinds, symbolKind(n.syms[i]))
		}
		if C.ts_language_field_count(l) > 255 {
			panic("pycheck: the grammar has more fields than cd_node holds")
		}
		for i := 0; i <= int(C.ts_language_field_count(l)); i++ {
			if p := C.cd_field_name(l, C.uint32_t(i)); p != nil {
				n.fields = append(n.fields, C.GoString(p))
			} else {
				n.fields = append(n.fields, "")
			}
		}
		pythonNames = n
	})
	return pythonNames
}

// Flatten copies a tree-sitter tree into a Tree. It relies on sitter.Node
// holding tree-sitter's TSNode value as its first field (true of the pinned
// go-tree-sitter; TestFlattenMatchesTreeSitter checks it node by node).
func Flatten(root *sitter.Node) *Tree { return copyRaw(root).build() }

// rawTree is a tree-sitter tree copied out in one C call, before the Go
// nodes are built from it: the C tree can be freed in between (see
// parseFile), so the two never take memory at once.
type rawTree struct {
	names *langNames
	raw   []C.cd_node
	bp    *[]C.cd_node   // pooled backing of raw, for a small tree
	c     unsafe.Pointer // malloc'd backing of raw, for a large one
}

func copyRaw(root *sitter.Node) rawTree {
	// Copied out so that C never sees the Go pointers that follow it.
	rootValue := *(*C.TSNode)(unsafe.Pointer(root))
	croot := &rootValue
	count := int(C.cd_count(croot))
	r := rawTree{names: namesFor(croot)}
	if count == 0 {
		return r
	}
	// The raw copy is scratch (C fills every field of each node it
	// writes, so it needs no clearing). A small one is reused across
	// files; a large one is malloc'd and freed as soon as the Go nodes
	// are built, rather than kept in the Go heap for the rest of the run.
	var buf []C.cd_node
	if count >= largeTree {
		// cgo's C.malloc never returns nil (it aborts instead).
		r.c = C.malloc(C.size_t(count) * C.size_t(unsafe.Sizeof(C.cd_node{})))
		buf = unsafe.Slice((*C.cd_node)(r.c), count)
	} else {
		bp := rawPool.Get().(*[]C.cd_node)
		if cap(*bp) < count {
			*bp = make([]C.cd_node, count+count/4)
		}
		r.bp, buf = bp, (*bp)[:count]
	}
	n := int(C.cd_flatten(croot, &buf[0], C.uint32_t(count)))
	r.raw = buf[:n]
	return r
}

// build makes the Go tree from the raw copy and gives the copy back.
func (rt rawTree) build() *Tree {
	t := &Tree{names: rt.names}
	raw := rt.raw
	n := len(raw)
	if n == 0 {
		rt.release()
		return t
	}
	t.nodes = getNodes(n)
	names := t.names
	var anyErr uint8
	for i := range raw {
		r := &raw[i]
		fl := names.flags(uint16(r.sym))
		if r.missing != 0 {
			fl |= flagMissing
		}
		anyErr |= fl
		t.nodes[i] = Node{t: t, start: uint32(r.start), end: uint32(r.end), parent: int32(r.parent), sym: uint16(r.sym),
			field: uint16(r.field), flags: fl}
		if p := r.parent; p >= 0 {
			t.nodes[p].nkids++
		}
	}
	rt.release()
	// Children are contiguous in kids, in order, so Child(i) is O(1).
	// Every node but the root is a child; in pre-order a parent comes
	// before its children, so one pass places each node's block and
	// fills its parent's.
	t.kids = getKids(n - 1)
	off := int32(0)
	for i := range t.nodes {
		nd := &t.nodes[i]
		nd.kids = off
		off += nd.nkids
		nd.nkids = 0
		if p := nd.parent; p >= 0 {
			pn := &t.nodes[p]
			t.kids[pn.kids+pn.nkids] = int32(i)
			pn.nkids++
		}
	}
	if anyErr&(flagError|flagMissing) == 0 {
		return t // no syntax error: hasErr stays false everywhere
	}
	for i := n - 1; i >= 0; i-- {
		nd := &t.nodes[i]
		if nd.flags&(flagError|flagMissing) != 0 {
			nd.hasErr = true
		}
		if nd.hasErr && nd.parent >= 0 {
			t.nodes[nd.parent].hasErr = true
		}
	}
	return t
}

// largeTree is the node count (about a megabyte of dense source) from
// which a tree's scratch copies are not pooled and parseFile has the freed
// C tree returned to the system: below it the memory is small and is
// reused by the next file, and the trim is not free (it first merges every
// freed chunk: about 0.15 s of CPU for a 4-million-node tree, against
// 380 MB handed back). A variable so that tests take both paths.
var largeTree = 1 << 20

func trimCHeap() { C.cd_trim() }

func (rt rawTree) release() {
	if rt.c != nil {
		C.free(rt.c)
	} else if rt.bp != nil {
		rawPool.Put(rt.bp)
	}
}

var rawPool = sync.Pool{New: func() any { return new([]C.cd_node) }}

// Node and child arrays are reused across files once a file is done with
// (Tree.recycle), by power-of-two size class: a fresh array per file cost
// a page fault per page and a clearing that Flatten's own writes make
// needless (it sets every field of every node and every child slot).
var (
	nodePools [33]sync.Pool
	kidPools  [33]sync.Pool
)

func getNodes(n int) []Node {
	c := bits.Len(uint(n))
	if v, ok := nodePools[c].Get().(*[]Node); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]Node, n, 1<<c)
}

func getKids(n int) []int32 {
	c := bits.Len(uint(n))
	if v, ok := kidPools[c].Get().(*[]int32); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]int32, n, 1<<c)
}

// recycle gives the tree's arrays back for the next file. The tree, and
// every Node of it, must not be used afterwards: call it only once the
// file's rules have run and its model has been released.
func (t *Tree) recycle() {
	if t == nil {
		return
	}
	if c := cap(t.nodes); c > 0 && c&(c-1) == 0 {
		v := t.nodes[:0]
		nodePools[bits.Len(uint(c))-1].Put(&v)
	}
	if c := cap(t.kids); c > 0 && c&(c-1) == 0 {
		v := t.kids[:0]
		kidPools[bits.Len(uint(c))-1].Put(&v)
	}
	t.nodes, t.kids = nil, nil
}

// Root is the module node.
func (t *Tree) Root() *Node {
	if len(t.nodes) == 0 {
		return nil
	}
	return &t.nodes[0]
}

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.nodes) }

// At is node i in pre-order.
func (t *Tree) At(i int) *Node { return &t.nodes[i] }

func (t *Tree) node(i int32) *Node {
	if i < 0 {
		return nil
	}
	return &t.nodes[i]
}

// Index is the node's position in pre-order.
func (n *Node) Index() int {
	return int((uintptr(unsafe.Pointer(n)) - uintptr(unsafe.Pointer(&n.t.nodes[0]))) / unsafe.Sizeof(Node{}))
}

func (n *Node) StartByte() uint32  { return n.start }
func (n *Node) EndByte() uint32    { return n.end }
func (n *Node) IsNamed() bool      { return n.flags&flagNamed != 0 }
func (n *Node) IsMissing() bool    { return n.flags&flagMissing != 0 }
func (n *Node) IsError() bool      { return n.flags&flagError != 0 }
func (n *Node) HasError() bool     { return n.hasErr }
func (n *Node) Parent() *Node      { return n.t.node(n.parent) }
func (n *Node) ChildCount() uint32 { return uint32(n.nkids) }
func (n *Node) FieldName() string  { return n.t.names.fields[n.field] }
func (n *Node) children() []int32  { return n.t.kids[n.kids : n.kids+n.nkids] }
func (n *Node) Child(i int) *Node  { return n.t.node(n.children()[i]) }
func (n *Node) Tree() *Tree        { return n.t }

// Type is the node's grammar name; tree-sitter's error symbol lies outside
// the language's table.
func (n *Node) Type() string {
	if int(n.sym) >= len(n.t.names.syms) {
		return "ERROR"
	}
	return n.t.names.syms[n.sym]
}

// Children returns the node's children (named and anonymous).
func (n *Node) Children() []*Node {
	out := make([]*Node, 0, n.nkids)
	for _, k := range n.children() {
		out = append(out, &n.t.nodes[k])
	}
	return out
}

// NamedChildren returns the node's named children.
func (n *Node) NamedChildren() []*Node {
	var out []*Node
	for _, k := range n.children() {
		if c := &n.t.nodes[k]; c.IsNamed() {
			out = append(out, c)
		}
	}
	return out
}

// NamedChildCount counts the named children.
func (n *Node) NamedChildCount() uint32 {
	c := uint32(0)
	for _, k := range n.children() {
		if n.t.nodes[k].IsNamed() {
			c++
		}
	}
	return c
}

// NamedChild is the i-th named child, or nil.
func (n *Node) NamedChild(i int) *Node {
	for _, k := range n.children() {
		if c := &n.t.nodes[k]; c.IsNamed() {
			if i == 0 {
				return c
			}
			i--
		}
	}
	return nil
}

// ChildByFieldName is the first child in the named field, or nil.
func (n *Node) ChildByFieldName(name string) *Node {
	for _, k := range n.children() {
		c := &n.t.nodes[k]
		if c.field != 0 && n.t.names.fields[c.field] == name {
			return c
		}
	}
	return nil
}

// ChildrenByFieldName are all children in the named field.
func (n *Node) ChildrenByFieldName(name string) []*Node {
	var out []*Node
	for _, k := range n.children() {
		c := &n.t.nodes[k]
		if c.field != 0 && n.t.names.fields[c.field] == name {
			out = append(out, c)
		}
	}
	return out
}

// descendantAt is the smallest node (named if named) covering [start, end).
// Nodes are in pre-order, sorted by start with parents first, so the last
// node starting at or before start is the deepest candidate; a few steps up
// reach the one that also covers end.
func (t *Tree) descendantAt(start, end uint32, named bool) *Node {
	if len(t.nodes) == 0 {
		return nil
	}
	i := sort.Search(len(t.nodes), func(i int) bool { return t.nodes[i].start > start }) - 1
	if i < 0 {
		i = 0
	}
	n := &t.nodes[i]
	// That node lies inside the answer: climb until the range is covered.
	for n != nil && (n.end < end || named && !n.IsNamed()) {
		n = n.Parent()
	}
	if n == nil {
		return &t.nodes[0]
	}
	return n
}
