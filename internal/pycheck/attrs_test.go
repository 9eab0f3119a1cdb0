package pycheck

import (
	"fmt"
	"strings"
	"testing"
)

func TestAttrValues(t *testing.T) {
	cases := []struct {
		name, src string
		place     string // the attribute asked about (its last occurrence)
		want      []string
	}{
		{"self set in another method", `
class C:
    def __init__(self):
        self.buf = None
    def fill(self):
        self.buf = make()
    def use(self):
        return self.buf
`, "self.buf", []string{"None", "make()"}},
		{"dataclass default factory", `
@dataclass
class S:
    buf: torch.Tensor = field(default_factory=lambda: torch.empty(4, pin_memory=True))
    def go(self):
        self.buf.zero_()
`, "self.buf", []string{"torch.empty(4, pin_memory=True)"}},
		{"keyword argument of a constructor", `
@dataclass
class S:
    buf: torch.Tensor
def f():
    s = S(buf=pinned())
    s.buf.zero_()
`, "s.buf", []string{"pinned()"}},
		{"positional argument, returned by a helper", `
class P(NamedTuple):
    a: int
    b: int
def make():
    return P(one(), two())
def g():
    p = make()
    return p.b
`, "p.b", []string{"two()"}},
		{"__init__ parameter kept under another name", `
class T:
    def __init__(self, size, dev):
        self.device = dev
def g():
    t = T(3, "cuda")
    return t.device
`, "t.device", []string{`"cuda"`}},
		{"parameter default behind self.x = param", `
class H:
    def __init__(self, dtype=torch.float16):
        self.dtype = dtype
    def go(self, x):
        return x.to(self.dtype)
`, "self.dtype", []string{"dtype", "torch.float16"}},
		{"nested place rooted at self", `
class R:
    def setup(self):
        self.bufs.host = torch.empty(4).pin_memory()
    def step(self):
        self.bufs.host.zero_()
`, "self.bufs.host", []string{"torch.empty(4).pin_memory()"}},
		{"assigned in the function using it", `
def g(ns):
    ns.buf = torch.zeros(2, device="cpu")
    return ns.buf
`, "ns.buf", []string{`torch.zeros(2, device="cpu")`}},
		{"class not of this file", `
def g(x):
    return x.buf
`, "x.buf", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := flowFile(t, c.src)
			n := nodeAt(t, f, c.place, strings.Count(c.src, c.place)-1)
			var got []string
			for _, v := range f.Model().AttrValues(n) {
				got = append(got, f.Text(v))
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("AttrValues(%s) = %q, want %q", c.place, got, c.want)
			}
		})
	}
}

func TestAttrReads(t *testing.T) {
	src := `
class M:
    def a(self, x):
        self.h = x.half()
        self.hx = 1
    def b(self):
        return self.h.sum() + self.hx
`
	f := flowFile(t, src)
	var got []string
	for _, n := range f.Model().AttrReads(nodeAt(t, f, "self.h", 0)) {
		line, _ := f.LineCol(int(n.StartByte()))
		got = append(got, fmt.Sprintf("%s@%d", f.Text(n), line))
	}
	if want := "self.h@7"; strings.Join(got, ",") != want {
		t.Errorf("AttrReads(self.h) = %v, want %s", got, want)
	}
	if r := f.Model().AttrReads(nodeAt(t, f, "x", 0)); r != nil {
		t.Errorf("AttrReads of a plain name = %v, want nil", r)
	}
}

func TestConstructedField(t *testing.T) {
	src := `
class Out(NamedTuple):
    loss: torch.Tensor
    acc: torch.Tensor

class Box:
    def __init__(self, value):
        self.held = value

a = Out(x, y)
b = Out(acc=z, loss=w)
c = Box(v)
d = other(u)
`
	f := flowFile(t, src)
	for arg, want := range map[string]string{"y": "acc", "w": "loss", "v": "held", "u": ""} {
		var id *Node // the last identifier spelling arg: the argument
		for _, x := range f.Names(arg, 0, len(f.Src)) {
			id = x
		}
		_, got := f.Model().ConstructedField(id)
		if got != want {
			t.Errorf("ConstructedField(%s) = %q, want %q", arg, got, want)
		}
	}
}
