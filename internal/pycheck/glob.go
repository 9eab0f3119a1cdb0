package pycheck

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// glob is a compiled gitignore-style pattern: `*` and `?` stay within one
// path segment, `**` spans segments, `[...]` is a class.
type glob struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// compileGlob compiles a pattern as .gitignore reads it. A pattern with a
// slash (other than a trailing one) is anchored to base; one without matches
// a name at any depth below base.
func compileGlob(pattern string) (*glob, error) {
	g := &glob{}
	if strings.HasPrefix(pattern, "!") {
		g.negate = true
		pattern = pattern[1:]
	}
	if strings.HasSuffix(pattern, "/") {
		g.dirOnly = true
		pattern = strings.TrimSuffix(pattern, "/")
	}
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	anchored := strings.Contains(pattern, "/")
	pattern = strings.TrimPrefix(pattern, "/")
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '*' && strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(pattern[i:], "**") && i+2 == len(pattern):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(pattern[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := pattern[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '\\' && i+1 < len(pattern):
			i++
			b.WriteString(regexp.QuoteMeta(string(pattern[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	// A pattern naming a directory also covers everything below it.
	b.WriteString("(?:/.*)?$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("bad pattern %q: %w", pattern, err)
	}
	g.re = re
	return g, nil
}

// match tests a slash-separated path relative to the pattern's base.
func (g *glob) match(rel string, isDir bool) bool {
	if !g.re.MatchString(rel) {
		return false
	}
	if g.dirOnly && !isDir {
		// "build/" matches files below a build directory, not a file named build.
		return strings.Contains(rel, "/") && g.re.MatchString(path.Dir(rel))
	}
	return true
}

// ignoreList is the patterns of one .gitignore (or an exclude list) with the
// directory they are relative to.
type ignoreList struct {
	base     string // slash path relative to the walk root, "" for the root
	patterns []*glob
}

func parseIgnoreList(base, text string) *ignoreList {
	l := &ignoreList{base: base}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimRight(line, " "); !strings.HasSuffix(line, `\ `) {
			line = t
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if g, err := compileGlob(line); err == nil {
			l.patterns = append(l.patterns, g)
		}
	}
	return l
}

// decide returns (ignored, decided) for a path relative to the walk root;
// the last matching pattern wins, as in git.
func (l *ignoreList) decide(rel string, isDir bool) (bool, bool) {
	if l.base != "" {
		if !strings.HasPrefix(rel, l.base+"/") {
			return false, false
		}
		rel = rel[len(l.base)+1:]
	}
	ignored, decided := false, false
	for _, g := range l.patterns {
		if g.match(rel, isDir) {
			ignored, decided = !g.negate, true
		}
	}
	return ignored, decided
}
