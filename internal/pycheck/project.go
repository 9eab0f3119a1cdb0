package pycheck

import (
	"path/filepath"
	"strings"
	"sync"
)

// Project is what one lint invocation knows across files: every module's
// function summaries, looked up by qualified name, so that a rule in one
// file sees what a helper imported from another file does (`from .utils
// import to_host`, `import pkg.utils as u; u.to_host(x)`). Summaries are
// built once per file in the first phase and closed over calls between
// modules in one pass over the call graph; rules then read them.
type Project struct {
	mu     sync.Mutex
	byPath map[string]*Model
	// wanted are the qualified names some model demanded (see demand).
	wanted map[string]bool
	// bySuffix maps every dotted suffix of a module's path-derived name
	// (a/b/pkg/utils.py: "a.b.pkg.utils", "b.pkg.utils", "pkg.utils",
	// "utils") to the modules that end so: an import names a module from
	// wherever the project's root on sys.path is, which the linter does
	// not know.
	bySuffix map[string][]*Model
}

// NewProject is an empty project.
func NewProject() *Project {
	return &Project{byPath: map[string]*Model{}, bySuffix: map[string][]*Model{}}
}

// isPackageInit says whether path is a package's __init__ module.
func isPackageInit(path string) bool {
	base := filepath.Base(path)
	return base == "__init__.py" || base == "__init__.pyi"
}

// moduleKey is the dotted module name a path stands for, as far as the
// path tells: pkg/utils.py is pkg.utils, pkg/__init__.py is pkg.
func moduleKey(path string) string {
	p := filepath.ToSlash(filepath.Clean(path))
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".pyi"), ".py")
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if s == "" || s == "." || s == ".." {
			continue
		}
		parts = append(parts, s)
	}
	if n := len(parts); n > 0 && parts[n-1] == "__init__" {
		parts = parts[:n-1]
	}
	return strings.Join(parts, ".")
}

// add registers a file's model (first phase; safe from many workers).
func (p *Project) add(m *Model) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byPath[m.path] = m
	k := m.key
	for {
		p.bySuffix[k] = append(p.bySuffix[k], m)
		i := strings.IndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[i+1:]
	}
}

// demand adds to the set the modules that the models reach through
// imports, and returns the checked (first-phase) models seen. A checked
// file demands only the helpers its rules asked about; a helper or a
// package leads further only through the names demanded of it (what an
// asked function calls or returns, what an asked re-export points to), so
// a package __init__ that re-exports a whole library does not pull the
// library in. Helpers are looked at again on every wave, as the names
// demanded of them grow.
func (p *Project) demand(set map[string]bool, seen []*Model) []*Model {
	done := map[*Model]bool{}
	for _, m := range seen {
		done[m] = true
	}
	if p.wanted == nil {
		p.wanted = map[string]bool{}
	}
	add := func(m *Model, q string) {
		q = m.absolute(q)
		set[q] = true
		p.wanted[q] = true
		if i := strings.LastIndexByte(q, '.'); i > 0 {
			set[q[:i]] = true
		}
	}
	for _, m := range p.byPath {
		if m.firstPhase {
			if done[m] {
				continue
			}
			seen = append(seen, m)
			for _, a := range m.asked {
				if a.imported != "" {
					add(m, a.imported)
				}
			}
			continue
		}
		for name, s := range m.fns {
			if !demanded(p.wanted, m.key+"."+name) {
				continue
			}
			for _, q := range s.ext {
				add(m, q)
			}
			for _, q := range s.retCalls {
				add(m, q)
			}
		}
		if m.isPackage {
			for name, q := range m.aliases {
				if demanded(p.wanted, m.key+"."+name) {
					add(m, q)
				}
			}
		}
	}
	return seen
}

// absolute turns a relative import's name (".utils.to_host" in package
// pkg) into the dotted name it means ("pkg.utils.to_host").
func (m *Model) absolute(q string) string {
	if !strings.HasPrefix(q, ".") {
		return q
	}
	dots := len(q) - len(strings.TrimLeft(q, "."))
	rest := q[dots:]
	pkg := strings.Split(m.key, ".")
	if !m.isPackage && len(pkg) > 0 {
		pkg = pkg[:len(pkg)-1]
	}
	if up := dots - 1; up <= len(pkg) {
		pkg = pkg[:len(pkg)-up]
	} else {
		pkg = nil
	}
	if rest == "" {
		return strings.Join(pkg, ".")
	}
	if len(pkg) == 0 {
		return rest
	}
	return strings.Join(pkg, ".") + "." + rest
}

// module finds the model of a module named mod, as imported from model
// from: the one name that ends so; among several, the one next to from
// (a script's sibling module comes first on sys.path).
func (p *Project) module(mod string, from *Model) *Model {
	cands := p.bySuffix[mod]
	switch len(cands) {
	case 0:
		return nil
	case 1:
		return cands[0]
	}
	dir := from.key
	if i := strings.LastIndexByte(dir, '.'); i >= 0 && !from.isPackage {
		dir = dir[:i]
	}
	for _, c := range cands {
		if c.key == dir+"."+mod || dir == "" && c.key == mod {
			return c
		}
	}
	return nil
}

// lookup is the summary of the function a qualified name (as written in
// model from, imports resolved) stands for, following re-exports
// (`from .utils import to_host` in a package's __init__) a few steps.
func (p *Project) lookup(q string, from *Model, depth int) *FuncSummary {
	if depth > 4 || from == nil {
		return nil
	}
	q = from.absolute(q)
	i := strings.LastIndexByte(q, '.')
	if i <= 0 {
		return nil
	}
	mod, name := q[:i], q[i+1:]
	m := p.module(mod, from)
	if m == nil || m == from && depth == 0 {
		return nil
	}
	if s := m.fns[name]; s != nil && !s.Method {
		return s
	}
	if a, ok := m.aliases[name]; ok && a != q {
		return p.lookup(a, m, depth+1)
	}
	return nil
}

// link closes every summary over the calls between functions, in this
// file and through imports across the project: a function that calls one
// that synchronises synchronises, and so on. Each edge is resolved once
// and each flag set once, so the pass is linear in the calls.
func (p *Project) link() {
	type edge struct {
		caller *FuncSummary
		ret    bool // the caller returns the callee's result
	}
	callers := map[*FuncSummary][]edge{}
	var queue []*FuncSummary
	for _, m := range p.byPath {
		for _, s := range m.fns {
			for _, c := range s.calls {
				if t := m.fns[c]; t != nil && t != s {
					callers[t] = append(callers[t], edge{caller: s})
				}
			}
			for _, q := range s.ext {
				if t := p.lookup(q, m, 0); t != nil && t != s {
					callers[t] = append(callers[t], edge{caller: s})
				}
			}
			for _, q := range s.retCalls {
				t := m.fns[q]
				if t == nil || t.Method {
					t = p.lookup(q, m, 0)
				}
				if t != nil && t != s {
					callers[t] = append(callers[t], edge{caller: s, ret: true})
				}
			}
			if s.Syncs || s.RunsCUDA || s.ReturnsCPUTensor {
				queue = append(queue, s)
			}
		}
	}
	for len(queue) > 0 {
		t := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, e := range callers[t] {
			s, changed := e.caller, false
			if !e.ret && t.Syncs && !s.Syncs {
				s.Syncs, changed = true, true
			}
			if !e.ret && t.RunsCUDA && !s.RunsCUDA {
				s.RunsCUDA, changed = true, true
			}
			if e.ret && t.ReturnsCPUTensor && !s.ReturnsCPUTensor {
				s.ReturnsCPUTensor, changed = true, true
			}
			if changed {
				queue = append(queue, s)
			}
		}
	}
	// Now that Syncs is final everywhere: which functions return an
	// unfinished non_blocking copy, directly or by returning a helper's.
	for _, m := range p.byPath {
		m.settle(func(r callRef) *FuncSummary {
			if r.ext {
				return p.lookup(r.name, m, 0)
			}
			return m.fns[r.name]
		})
		for _, s := range m.fns {
			if s.ReturnsNonBlockingD2H || s.NonBlockingD2HElems != 0 {
				queue = append(queue, s)
			}
		}
	}
	for len(queue) > 0 {
		t := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, e := range callers[t] {
			if s := e.caller; e.ret && s.inherit(t) {
				queue = append(queue, s)
			}
		}
	}
}

// changed reports whether any answer the model's rules got in the first
// phase differs now that the project is linked: then its file is checked
// again. Answers are compared by what rules read of them (no summary and
// a summary with nothing set read alike).
func (p *Project) changed(m *Model) bool {
	for _, a := range m.asked {
		now := a.local
		if a.imported != "" {
			if t := p.lookup(a.imported, m, 0); t != nil {
				now = t
			}
		}
		if now.flags() != a.flags {
			return true
		}
	}
	return false
}

// importedSummary is the summary of a project function a call reaches
// through this file's imports.
func (m *Model) importedSummary(fn *Node) *FuncSummary {
	if m.proj == nil || fn == nil || m.firstPhase {
		return nil
	}
	root := fn
	for root.Type() == "attribute" {
		root = root.ChildByFieldName("object")
		if root == nil {
			return nil
		}
	}
	if root.Type() != "identifier" {
		return nil
	}
	if _, ok := m.aliases[m.f.Text(root)]; !ok {
		return nil
	}
	return m.proj.lookup(m.Qualified(fn), m, 0)
}
