package pycheck

import "strings"

// What an object's attributes hold, read across the class that makes it:
// the one answer every rule asks when a value travels through `self.x`, a
// dataclass, attrs or NamedTuple field, or a constructor's argument.

// Class is the class of this file with that name (the first one defined),
// or nil.
func (m *Model) Class(name string) *Node { return m.classes[name] }

// ExitSyncs reports whether a with statement's context manager is an
// object of a class of this file whose __exit__ (or __aexit__) waits for
// the GPU, itself or through the file's functions it calls: past the
// block, on the path that falls through it, the GPU work queued before is
// finished (`class Offload: def __exit__(...): torch.cuda.synchronize()`).
func (m *Model) ExitSyncs(with *Node) bool {
	for _, c := range with.NamedChildren() {
		if c.Type() != "with_clause" {
			continue
		}
		for _, it := range c.NamedChildren() {
			v := Unparen(it.NamedChild(0))
			if v != nil && v.Type() == "as_pattern" {
				v = Unparen(v.NamedChild(0))
			}
			if v == nil || v.Type() != "call" {
				continue
			}
			fn := v.ChildByFieldName("function")
			if fn == nil || fn.Type() != "identifier" {
				continue
			}
			cls := m.Class(m.f.Text(fn))
			if cls == nil {
				continue
			}
			for _, name := range []string{"__exit__", "__aexit__"} {
				d := m.method(cls, name)
				if d == nil {
					continue
				}
				s := &FuncSummary{Name: name, Node: d}
				m.summarise(s)
				if s.Syncs {
					return true
				}
				for _, callee := range s.calls {
					if t := m.funcs()[callee]; t != nil && t.Syncs {
						return true
					}
				}
			}
		}
	}
	return false
}

// classBody lists the statements and definitions of a class's body, with
// decorated definitions unwrapped.
func classBody(cls *Node) []*Node {
	body := cls.ChildByFieldName("body")
	if body == nil {
		return nil
	}
	var out []*Node
	for _, d := range body.NamedChildren() {
		if d.Type() == "decorated_definition" {
			d = d.ChildByFieldName("definition")
		}
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}

// method is the class's own method of that name, or nil.
func (m *Model) method(cls *Node, name string) *Node {
	for _, d := range classBody(cls) {
		if d.Type() == "function_definition" && m.f.Text(d.ChildByFieldName("name")) == name {
			return d
		}
	}
	return nil
}

// classField is one class-level assignment `x: T = v` or `x = v`; value may
// be nil (`x: T`).
type classField struct {
	name  string
	value *Node
}

// classFields lists a class's class-level names in order: the fields of a
// dataclass, attrs class or NamedTuple, and plain class attributes.
func (m *Model) classFields(cls *Node) []classField {
	var out []classField
	for _, st := range classBody(cls) {
		if st.Type() != "expression_statement" || st.NamedChildCount() != 1 {
			continue
		}
		a := st.NamedChild(0)
		if a.Type() != "assignment" {
			continue
		}
		l := a.ChildByFieldName("left")
		if l == nil || l.Type() != "identifier" {
			continue
		}
		out = append(out, classField{name: m.f.Text(l), value: a.ChildByFieldName("right")})
	}
	return out
}

// ctorParams are the names a class's constructor takes, in order, each
// with the attribute it is kept in: __init__'s parameters after self
// (kept in self.a by `self.a = param`, or else under its own name), or
// with no __init__, the class-level fields.
func (m *Model) ctorParams(cls *Node) (params, attrs []string) {
	f := m.f
	if init := m.method(cls, "__init__"); init != nil {
		ps := init.ChildByFieldName("parameters")
		if ps == nil {
			return nil, nil
		}
		for i, p := range ps.NamedChildren() {
			name := p
			if p.Type() != "identifier" {
				name = p.ChildByFieldName("name")
				if name == nil && p.NamedChildCount() > 0 && p.NamedChild(0).Type() == "identifier" {
					name = p.NamedChild(0)
				}
			}
			if i == 0 || name == nil || name.Type() != "identifier" {
				if i == 0 {
					continue
				}
				break // *args, **kwargs: positions past here are unknown
			}
			pn := f.Text(name)
			attr := pn
			for _, off := range f.Find("self.", int(init.StartByte()), int(init.EndByte())) {
				a := f.NodeAt(off, off+len("self.")+1)
				for a != nil && a.Type() != "attribute" {
					a = a.Parent()
				}
				if a == nil || int(a.StartByte()) != off {
					continue
				}
				if as := a.Parent(); as != nil && as.Type() == "assignment" && a.FieldName() == "left" {
					if v := Unparen(as.ChildByFieldName("right")); v != nil && v.Type() == "identifier" && f.Text(v) == pn {
						attr = f.Text(a.ChildByFieldName("attribute"))
						break
					}
				}
			}
			params, attrs = append(params, pn), append(attrs, attr)
		}
		return params, attrs
	}
	for _, fd := range m.classFields(cls) {
		params, attrs = append(params, fd.name), append(attrs, fd.name)
	}
	return params, attrs
}

// ConstructedField reports, for an argument of a call that constructs a
// class of this file (`Out(loss=l)`, `Pair(a, b)`), that call and the
// attribute of the new object the argument ends up in.
func (m *Model) ConstructedField(arg *Node) (*Node, string) {
	f := m.f
	arg = upParenNode(arg)
	p := arg.Parent()
	kw := ""
	if p != nil && p.Type() == "keyword_argument" && arg.FieldName() == "value" {
		kw = f.Text(p.ChildByFieldName("name"))
		arg, p = p, p.Parent()
	}
	if p == nil || p.Type() != "argument_list" {
		return nil, ""
	}
	call := p.Parent()
	if call == nil || call.Type() != "call" {
		return nil, ""
	}
	fn := call.ChildByFieldName("function")
	if fn == nil || fn.Type() != "identifier" {
		return nil, ""
	}
	cls := m.Class(f.Text(fn))
	if cls == nil {
		return nil, ""
	}
	params, attrs := m.ctorParams(cls)
	if kw != "" {
		for i, pn := range params {
			if pn == kw {
				return call, attrs[i]
			}
		}
		return nil, ""
	}
	for i, a := range PositionalArgs(call) {
		if a.StartByte() == arg.StartByte() && a.EndByte() == arg.EndByte() {
			if i < len(attrs) {
				return call, attrs[i]
			}
			break
		}
	}
	return nil, ""
}

func upParenNode(n *Node) *Node {
	for p := n.Parent(); p != nil && p.Type() == "parenthesized_expression"; p = n.Parent() {
		n = p
	}
	return n
}

// AttrValues lists the expressions a place that is not a plain name
// (`self.x`, `self.bufs.host`, `obj.x`, `self.bufs["a"]`) may hold:
//   - rooted at self in a method: each assignment to the same place in
//     the class's methods (`self.x = v`, with the default of the
//     parameter v names), and for self.x the class-level default of x;
//   - otherwise: each assignment to the same place in the scope it is
//     used in, and for obj.x, where obj is bound to `Cls(...)` of a class
//     of this file (or to what a function of the file returns,
//     `return Cls(...)`): the argument given for x, else the class's own
//     values for x.
//
// A default made by a factory (`field(default_factory=lambda: v)`,
// `attrs.field(factory=...)`) or given as `default=v` is read as v.
func (m *Model) AttrValues(place *Node) []*Node {
	f := m.f
	place = Unparen(place)
	if place == nil || place.Type() != "attribute" && place.Type() != "subscript" || !IsPlace(place) {
		return nil
	}
	if cls := selfClass(f, place); cls != nil {
		if obj := Unparen(place.ChildByFieldName("object")); place.Type() == "attribute" && obj.Type() == "identifier" {
			return m.classValues(cls, f.Text(place.ChildByFieldName("attribute")))
		}
		return m.assignedValues(f.Text(place), place.Type(), cls)
	}
	out := m.assignedValues(f.Text(place), place.Type(), f.Scope(place))
	obj := Unparen(place.ChildByFieldName("object"))
	if place.Type() != "attribute" || obj == nil || obj.Type() != "identifier" {
		return out
	}
	attr := f.Text(place.ChildByFieldName("attribute"))
	for _, ctor := range m.constructors(obj) {
		cls := m.Class(f.Text(ctor.ChildByFieldName("function")))
		if v := m.CtorArg(cls, ctor, attr); v != nil {
			out = append(out, v)
		} else {
			out = append(out, m.classValues(cls, attr)...)
		}
	}
	return out
}

// AttrReads lists where the class of a method reads a place rooted at
// self (`self.x16` set in one method, used in another): each spelling of
// it in the class that is not a plain assignment's target, in source
// order. Other places give nil.
func (m *Model) AttrReads(place *Node) []*Node {
	place = Unparen(place)
	cls := selfClass(m.f, place)
	if cls == nil {
		return nil
	}
	var out []*Node
	for _, n := range m.spellings(m.f.Text(place), place.Type(), cls) {
		if !assignedTo(n) {
			out = append(out, n)
		}
	}
	return out
}

// selfClass is the class whose method holds place when place is rooted
// at self (self.x, self.a.b, self.bufs[0]), else nil.
func selfClass(f *File, place *Node) *Node {
	root := place
	for root != nil && (root.Type() == "attribute" || root.Type() == "subscript") {
		if root.Type() == "attribute" {
			root = Unparen(root.ChildByFieldName("object"))
		} else {
			root = Unparen(root.ChildByFieldName("value"))
		}
	}
	if root == nil || root == place || root.Type() != "identifier" || f.Text(root) != "self" {
		return nil
	}
	return Ancestor(place, "class_definition")
}

// spellings lists the nodes of type typ in region that spell text.
func (m *Model) spellings(text, typ string, region *Node) []*Node {
	f := m.f
	var out []*Node
	for _, off := range f.Find(text, int(region.StartByte()), int(region.EndByte())) {
		if end := off + len(text); end < len(f.Src) && IsIdentByte(f.Src[end]) || off > 0 && (IsIdentByte(f.Src[off-1]) || f.Src[off-1] == '.') {
			continue
		}
		n := f.NodeAt(off, off+len(text))
		if n == nil || n.Type() != typ || int(n.StartByte()) != off || int(n.EndByte()) != off+len(text) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// assignedTo: n is the target of a plain assignment.
func assignedTo(n *Node) bool {
	p := n.Parent()
	return p != nil && p.Type() == "assignment" && n.FieldName() == "left"
}

// assignedValues lists the values of the plain assignments in region to
// the place spelled text (of node type typ), each with the default of the parameter it names
// (`self.dtype = dtype`, dtype=torch.float16: the default is what the
// attribute holds unless told otherwise).
func (m *Model) assignedValues(text, typ string, region *Node) []*Node {
	f := m.f
	var out []*Node
	for _, a := range m.spellings(text, typ, region) {
		if !assignedTo(a) {
			continue
		}
		if v := a.Parent().ChildByFieldName("right"); v != nil {
			out = append(out, v)
			if d := m.paramDefault(f.Scope(a), Unparen(v)); d != nil {
				out = append(out, d)
			}
		}
	}
	return out
}

// CtorArg is the argument, by keyword or position, that the call ctor
// constructing class cls gives for what the new object keeps in its
// attribute attr, or nil.
func (m *Model) CtorArg(cls, ctor *Node, attr string) *Node {
	params, attrs := m.ctorParams(cls)
	for i, a := range attrs {
		if a != attr {
			continue
		}
		if v := m.f.Keyword(ctor, params[i]); v != nil {
			return v
		}
		if pos := PositionalArgs(ctor); i < len(pos) {
			return pos[i]
		}
	}
	return nil
}

// constructors lists the calls constructing a class of this file that
// the name obj may be bound to where it is used: `obj = Cls(...)`, or
// `obj = make(...)` with make a function of this file that returns
// `Cls(...)`.
func (m *Model) constructors(obj *Node) []*Node {
	f := m.f
	var out []*Node
	isCtor := func(v *Node) bool {
		v = Unparen(v)
		if v == nil || v.Type() != "call" {
			return false
		}
		fn := v.ChildByFieldName("function")
		return fn != nil && fn.Type() == "identifier" && m.Class(f.Text(fn)) != nil
	}
	for _, d := range f.Flow(f.Scope(obj)).ReachingDefs(obj, obj) {
		v := Unparen(BoundValue(d))
		if v == nil || v.Type() != "call" {
			continue
		}
		if isCtor(v) {
			out = append(out, v)
			continue
		}
		fn := v.ChildByFieldName("function")
		if fn == nil || fn.Type() != "identifier" {
			continue
		}
		for _, def := range m.defs {
			if f.Text(def.ChildByFieldName("name")) != f.Text(fn) || Ancestor(def, "class_definition", "function_definition") != nil {
				continue
			}
			for _, off := range f.Find("return ", int(def.StartByte()), int(def.EndByte())) {
				r := f.NodeAt(off, off+len("return"))
				for r != nil && r.Type() != "return_statement" {
					r = r.Parent()
				}
				if r == nil || int(r.StartByte()) != off || !same(f.Scope(r), def) || r.NamedChildCount() != 1 {
					continue
				}
				if v := Unparen(r.NamedChild(0)); isCtor(v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// classValues lists what a class puts in its attribute attr: the values
// of `self.attr = v` in its methods and the class-level default.
func (m *Model) classValues(cls *Node, attr string) []*Node {
	var out []*Node
	for _, fd := range m.classFields(cls) {
		if fd.name == attr && fd.value != nil {
			out = append(out, m.fieldDefault(fd.value))
		}
	}
	return append(out, m.assignedValues("self."+attr, "attribute", cls)...)
}

// paramDefault is the default value of the parameter of fn that v names,
// or nil.
func (m *Model) paramDefault(fn, v *Node) *Node {
	if fn == nil || v == nil || fn.Type() != "function_definition" || v.Type() != "identifier" {
		return nil
	}
	ps := fn.ChildByFieldName("parameters")
	if ps == nil {
		return nil
	}
	for _, p := range ps.NamedChildren() {
		if p.Type() != "default_parameter" && p.Type() != "typed_default_parameter" {
			continue
		}
		if n := p.ChildByFieldName("name"); n != nil && m.f.Text(n) == m.f.Text(v) {
			return p.ChildByFieldName("value")
		}
	}
	return nil
}

// fieldDefault reads a class-level default: the value a field() or
// attrs.field() call stands for (its default=, or what its factory
// lambda returns), else the expression itself.
func (m *Model) fieldDefault(v *Node) *Node {
	u := Unparen(v)
	if u == nil || u.Type() != "call" {
		return v
	}
	switch q := m.QualifiedCallee(u); {
	case q == "dataclasses.field", q == "field", strings.HasPrefix(q, "attr") && (strings.HasSuffix(q, ".field") || strings.HasSuffix(q, ".ib") || strings.HasSuffix(q, ".attrib")):
	default:
		return v
	}
	if d := m.f.Keyword(u, "default"); d != nil {
		return d
	}
	for _, k := range []string{"default_factory", "factory"} {
		if fac := Unparen(m.f.Keyword(u, k)); fac != nil {
			if fac.Type() == "lambda" {
				if b := fac.ChildByFieldName("body"); b != nil {
					return b
				}
			}
			return fac
		}
	}
	return v
}
