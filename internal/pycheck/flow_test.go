package pycheck

import (
	"context"
	"strings"
	"testing"
)

// flowFile parses src for the flow tests.
func flowFile(t *testing.T, src string) *File {
	t.Helper()
	f := parseFile(context.Background(), newParser(), Source{Path: "flow.py", Src: []byte(src)}, nil)
	if f == nil {
		t.Fatal("parse failed")
	}
	return f
}

// nodeAt is the node spelling text at its nth occurrence (0-based), the
// widest one that starts there.
func nodeAt(t *testing.T, f *File, text string, nth int) *Node {
	t.Helper()
	offs := f.Find(text, 0, len(f.Src))
	if nth >= len(offs) {
		t.Fatalf("%q occurs %d times, want #%d", text, len(offs), nth)
	}
	n := f.NodeAt(offs[nth], offs[nth]+len(text))
	if n == nil {
		t.Fatalf("no node at %q", text)
	}
	return n
}

func TestFlowReaches(t *testing.T) {
	cases := []struct {
		name, src   string
		from, to    string
		blocker     string // "" for none; every occurrence blocks
		onGPU, want bool
	}{
		{"straight", "def f():\n    a()\n    b()\n", "a()", "b()", "", false, true},
		{"backwards is no path", "def f():\n    b()\n    a()\n", "a()", "b()", "", false, false},
		{"sync between", "def f():\n    a()\n    s()\n    b()\n", "a()", "b()", "s()", false, false},
		{"sync on one branch", "def f(c):\n    a()\n    if c:\n        s()\n    b()\n", "a()", "b()", "s()", false, true},
		{"sync on both branches", "def f(c):\n    a()\n    if c:\n        s()\n    else:\n        s()\n    b()\n", "a()", "b()", "s()", false, false},
		{"sync only when CUDA is there, asked as on a GPU", "def f():\n    a()\n    if torch.cuda.is_available():\n        s()\n    b()\n", "a()", "b()", "s()", true, false},
		{"sync only when CUDA is there, asked plainly", "def f():\n    a()\n    if torch.cuda.is_available():\n        s()\n    b()\n", "a()", "b()", "s()", false, true},
		{"loop: read before copy, next iteration", "def f(xs):\n    for x in xs:\n        b()\n        a()\n", "a()", "b()", "", false, true},
		{"loop: synced at the top of the body", "def f(xs):\n    for x in xs:\n        s()\n        b()\n        a()\n", "a()", "b()", "s()", false, false},
		{"loop body runs at least once", "def f(xs):\n    a()\n    for x in xs:\n        s()\n    b()\n", "a()", "b()", "s()", false, false},
		{"while True leaves by break only", "def f():\n    a()\n    while True:\n        s()\n        if c():\n            break\n    b()\n", "a()", "b()", "s()", false, false},
		{"break skips the sync", "def f(xs):\n    a()\n    for x in xs:\n        if c():\n            break\n        s()\n    b()\n", "a()", "b()", "s()", false, true},
		{"continue skips the sync", "def f(xs):\n    for x in xs:\n        b()\n        a()\n        if c():\n            continue\n        s()\n", "a()", "b()", "s()", false, true},
		{"every path syncs before the next iteration", "def f(xs):\n    for x in xs:\n        b()\n        a()\n        if c():\n            s()\n            continue\n        s()\n", "a()", "b()", "s()", false, false},
		{"early return", "def f(c):\n    a()\n    if c:\n        return\n    b()\n", "a()", "b()", "", false, true},
		{"return before", "def f(c):\n    a()\n    return\n    b()\n", "a()", "b()", "", false, false},
		{"try: read in finally", "def f():\n    try:\n        a()\n    finally:\n        b()\n", "a()", "b()", "", false, true},
		{"try: sync in body, read in finally", "def f():\n    try:\n        a()\n        s()\n    finally:\n        b()\n", "a()", "b()", "s()", false, false},
		{"try: raise skips the sync", "def f():\n    try:\n        a()\n        g()\n        s()\n    except E:\n        pass\n    b()\n", "a()", "b()", "s()", false, true},
		{"try: handler returns", "def f():\n    try:\n        a()\n        g()\n    except E:\n        return\n    s()\n    b()\n", "a()", "b()", "s()", false, false},
		{"with body", "def f():\n    with ctx():\n        a()\n    b()\n", "a()", "b()", "", false, true},
		{"with: a raise goes through __exit__ to the handler", "def f():\n    try:\n        with ctx():\n            a()\n            g()\n            s()\n    except E:\n        b()\n", "a()", "b()", "s()", false, true},
		{"with: normal exit does not reach the handler", "def f():\n    try:\n        with ctx():\n            a()\n            s()\n    except E:\n        b()\n", "a()", "b()", "s()", false, false},
		{"with: return through __exit__ and finally", "def f():\n    try:\n        with ctx():\n            a()\n            return\n    finally:\n        b()\n", "a()", "b()", "", false, true},
		{"with: break through __exit__ skips the sync", "def f(xs):\n    for x in xs:\n        with ctx():\n            a()\n            if c():\n                break\n        s()\n    b()\n", "a()", "b()", "s()", false, true},
		{"with suppress: a raise goes on after the with", "def f():\n    with contextlib.suppress(E):\n        a()\n        g()\n        s()\n    b()\n", "a()", "b()", "s()", false, true},
		{"with suppress, no raise: the sync runs", "def f():\n    with contextlib.suppress(E):\n        a()\n        s()\n    b()\n", "a()", "b()", "s()", false, false},
		{"plain with: a raise leaves the function", "def f():\n    with ctx():\n        a()\n        g()\n        s()\n    b()\n", "a()", "b()", "s()", false, false},
		{"conditional sync does not block", "def f(c):\n    a()\n    s() if c else None\n    b()\n", "a()", "b()", "s()", false, true},
		{"sync in a condition blocks", "def f(c):\n    a()\n    x = 1 if s() else 2\n    b()\n", "a()", "b()", "s()", false, false},
		{"else of loop", "def f(xs):\n    for x in xs:\n        a()\n    else:\n        b()\n", "a()", "b()", "", false, true},
		{"match", "def f(v):\n    a()\n    match v:\n        case 1:\n            s()\n        case _:\n            pass\n    b()\n", "a()", "b()", "s()", false, true},
		{"module level", "a()\nif c:\n    s()\nb()\n", "a()", "b()", "s()", false, true},
		{"nested function is another scope", "def f():\n    a()\n    def g():\n        b()\n", "a()", "b()", "", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := flowFile(t, c.src)
			from, to := nodeAt(t, f, c.from, 0), nodeAt(t, f, c.to, 0)
			var blockers []*Node
			if c.blocker != "" {
				for i := range strings.Count(c.src, c.blocker) {
					if s := nodeAt(t, f, c.blocker, i); f.Flow(f.Scope(from)).Certain(s) {
						blockers = append(blockers, s)
					}
				}
			}
			fl := f.Flow(f.Scope(from))
			if got := fl.Reaches(from, to, blockers, c.onGPU); got != c.want {
				t.Errorf("Reaches = %v, want %v", got, c.want)
			}
		})
	}
}

func TestFlowLeavesPast(t *testing.T) {
	cases := []struct {
		name, src, from string
		want            bool
	}{
		{"no sync", "def f():\n    a()\n    g()\n", "a()", true},
		{"sync at the end", "def f():\n    a()\n    s()\n", "a()", false},
		{"early return skips the sync", "def f(c):\n    a()\n    if c:\n        return\n    s()\n", "a()", true},
		{"sync before the early return too", "def f(c):\n    a()\n    if c:\n        s()\n        return\n    s()\n", "a()", false},
		{"sync on one branch", "def f(c):\n    a()\n    if c:\n        s()\n", "a()", true},
		{"sync in finally", "def f():\n    try:\n        a()\n        g()\n    finally:\n        s()\n", "a()", false},
		{"loop leaves after the last copy", "def f(xs):\n    for x in xs:\n        s()\n        a()\n", "a()", true},
		{"sync before the copy only", "def f():\n    s()\n    a()\n", "a()", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := flowFile(t, c.src)
			from := nodeAt(t, f, c.from, 0)
			fl := f.Flow(f.Scope(from))
			var blockers []*Node
			for i := range strings.Count(c.src, "s()") {
				if s := nodeAt(t, f, "s()", i); fl.Certain(s) {
					blockers = append(blockers, s)
				}
			}
			if got := fl.LeavesPast(from, blockers, true); got != c.want {
				t.Errorf("LeavesPast = %v, want %v", got, c.want)
			}
		})
	}
}

func TestFlowPlaces(t *testing.T) {
	src := `def f(loader, d):
    d["loss"] = a()
    print(d["loss"])
    d = {}
    print(d["loss"])
    self.x = a()
    if c:
        self.x = None
    print(self.x)
    y = a()
    y, z = b()
    print(y)
    for y in loader:
        print(y)
    total = 0
    for batch in loader:
        err = step(batch)
        total = total + err
`
	f := flowFile(t, src)
	fl := f.Flow(f.Scope(nodeAt(t, f, "a()", 0)))
	uses := func(text string, nth int) []int {
		at := nodeAt(t, f, text, nth)
		var out []int
		for _, u := range fl.UsesAfter(at, at, nil, false) {
			l, _ := f.LineCol(int(u.StartByte()))
			out = append(out, l)
		}
		return out
	}
	// d["loss"] is used on line 3, then d is rebound.
	if got := uses(`d["loss"]`, 0); len(got) != 1 || got[0] != 3 {
		t.Errorf(`uses of d["loss"] = %v, want [3]`, got)
	}
	// self.x is rebound on one branch only: the use on line 9 is reached.
	if got := uses("self.x", 0); len(got) != 1 || got[0] != 9 {
		t.Errorf("uses of self.x = %v, want [9]", got)
	}
	// y is rebound by the tuple assignment: no use of the first value.
	if got := uses("y", 0); len(got) != 0 {
		t.Errorf("uses of the first y = %v, want none", got)
	}
	// total in `total = total + loss`: reached by the def before the loop
	// and by its own def in the previous iteration.
	use := nodeAt(t, f, "total", 2)
	defs := fl.ReachingDefs(use, use)
	if len(defs) != 2 {
		t.Fatalf("reaching defs of total = %d, want 2", len(defs))
	}
	// err in the same statement: only the def in this iteration.
	l := nodeAt(t, f, "err", 1)
	if d := fl.ReachingDefs(l, l); len(d) != 1 || !same(d[0], nodeAt(t, f, "err", 0)) {
		t.Errorf("reaching defs of err = %v", d)
	}
}

func TestFlowAliases(t *testing.T) {
	src := `def f(loader, buf):
    cur = a()
    prev = cur
    cur = b()
    print(prev)
    x, y = cur, a()
    print(x)
    view = buf
    buf.copy_(a())
    print(view)
    view = None
    print(view)
    y, x = x, y
    print(y)
`
	f := flowFile(t, src)
	fl := f.Flow(f.Scope(nodeAt(t, f, "a()", 0)))
	lines := func(at, place *Node) []int {
		var out []int
		for _, u := range fl.UsesAfter(at, place, nil, false) {
			l, _ := f.LineCol(int(u.StartByte()))
			out = append(out, l)
		}
		return out
	}
	eq := func(a, b []int) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	// The first cur reaches prev (line 3) and through it print(prev).
	cur := nodeAt(t, f, "cur", 0)
	if got := lines(cur, cur); !eq(got, []int{3, 5}) {
		t.Errorf("uses of the first cur = %v, want [3 5]", got)
	}
	// The second cur goes into x by tuple unpacking, and x into y by the swap.
	cur2 := nodeAt(t, f, "cur", 2)
	if got := lines(cur2, cur2); !eq(got, []int{6, 7, 13, 14}) {
		t.Errorf("uses of the second cur = %v, want [6 7 13 14]", got)
	}
	// buf was copied into view before buf.copy_: view holds the same
	// buffer until it is rebound on line 11.
	call := nodeAt(t, f, "buf.copy_(a())", 0)
	buf := nodeAt(t, f, "buf", 2)
	if got := lines(call, buf); !eq(got, []int{10}) {
		t.Errorf("uses of buf after copy_ = %v, want [10]", got)
	}
	// A copy made before a rebinding does not share the new value.
	if got := lines(nodeAt(t, f, "cur", 2), nodeAt(t, f, "cur", 2)); eq(got, []int{5}) {
		t.Errorf("rebinding cur leaked into prev")
	}
}

// TestClosureUsesAfter: the free reads of a name in nested functions that
// capture the value a definition binds.
func TestClosureUsesAfter(t *testing.T) {
	src := `def outer(x):
    h = x.half()
    def norm():
        return h.norm()
    def shadow(h):
        return h.sum()
    lam = lambda: h.exp()
    def rebinds():
        h = 1
        return h
    return norm, shadow, lam, rebinds

def later(x):
    h = x.half()
    h = x.float()
    def norm():
        return h.norm()
    return norm
`
	f := flowFile(t, src)
	def := nodeAt(t, f, "h", 0)
	got := f.Flow(f.Scope(def)).ClosureUsesAfter(def, def)
	var lines []int
	for _, u := range got {
		l, _ := f.LineCol(int(u.StartByte()))
		lines = append(lines, l)
	}
	if len(lines) != 2 || lines[0] != 4 || lines[1] != 7 {
		t.Errorf("free reads of h = x.half() in outer at lines %v, want [4 7]", lines)
	}
	first := nodeAt(t, f, "h = x.half()", 1).ChildByFieldName("left")
	if got := f.Flow(f.Scope(first)).ClosureUsesAfter(first, first); len(got) != 0 {
		t.Errorf("h rebound before the closure: got %d reads, want none", len(got))
	}
}
