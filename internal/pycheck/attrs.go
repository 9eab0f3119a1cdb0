package pycheck

import "strings"

// What an object's attributes hold, read across the class that makes it:
// the one answer every rule asks when a value travels through `self.x`, a
// dataclass, attrs or NamedTuple field, or a constructor's argument.

// Class is the class of this file with that name (the first one defined),
// or nil.
func (m *Model) Class(name string) *Node { return m.classes[name] }

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

// AttrValues lists the expressions an attribute place may hold:
//   - self.x in a method: each `self.x = v` in the class's methods and
//     the class-level default of x;
//   - obj.x, where obj is bound to `Cls(...)` of a class of this file
//     (or to what a function of the file returns, `return Cls(...)`): the
//     argument given for x, and the class's own values for x.
//
// A default made by a factory (`field(default_factory=lambda: v)`,
// `attrs.field(factory=...)`) or given as `default=v` is read as v.
func (m *Model) AttrValues(place *Node) []*Node {
	f := m.f
	place = Unparen(place)
	if place == nil || place.Type() != "attribute" {
		return nil
	}
	obj := Unparen(place.ChildByFieldName("object"))
	attr := f.Text(place.ChildByFieldName("attribute"))
	if obj == nil || obj.Type() != "identifier" {
		return nil
	}
	var out []*Node
	if f.Text(obj) == "self" {
		if cls := Ancestor(place, "class_definition"); cls != nil {
			out = append(out, m.classValues(cls, attr)...)
		}
		return out
	}
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
	f := m.f
	var out []*Node
	for _, fd := range m.classFields(cls) {
		if fd.name == attr && fd.value != nil {
			out = append(out, m.fieldDefault(fd.value))
		}
	}
	needle := "self." + attr
	for _, off := range f.Find(needle, int(cls.StartByte()), int(cls.EndByte())) {
		if end := off + len(needle); end < len(f.Src) && IsIdentByte(f.Src[end]) {
			continue
		}
		a := f.NodeAt(off, off+len(needle))
		if a == nil || a.Type() != "attribute" || int(a.StartByte()) != off {
			continue
		}
		if as := a.Parent(); as != nil && as.Type() == "assignment" && a.FieldName() == "left" {
			if v := as.ChildByFieldName("right"); v != nil {
				out = append(out, v)
				// self.dtype = dtype, a parameter with a default: the
				// default is what the attribute holds unless told otherwise.
				if d := m.paramDefault(f.Scope(a), Unparen(v)); d != nil {
					out = append(out, d)
				}
			}
		}
	}
	return out
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
