// Package lazyre holds regular expressions that are compiled on first use
// instead of when the program starts. The engine's packages declare a
// hundred and more of them; compiled at start-up they cost every command a
// few milliseconds before it does anything, which `run` adds to every job
// it wraps even when the job succeeds and no pattern is ever asked.
//
// A Regexp behaves as the *regexp.Regexp it wraps. An invalid expression
// panics on first use, as regexp.MustCompile would at start-up;
// CompileAll compiles every one declared so far, so a test that imports
// the packages finds a bad one without reaching the code that uses it.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New declares expr; it is compiled when first used.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// CompileAll compiles every Regexp declared so far and returns the first
// error.
func CompileAll() error {
	mu.Lock()
	rs := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range rs {
		if _, err := regexp.Compile(r.expr); err != nil {
			return err
		}
	}
	return nil
}

// Re is the compiled expression.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

func (r *Regexp) String() string { return r.expr }

func (r *Regexp) Match(b []byte) bool                    { return r.Re().Match(b) }
func (r *Regexp) MatchString(s string) bool              { return r.Re().MatchString(s) }
func (r *Regexp) FindIndex(b []byte) []int               { return r.Re().FindIndex(b) }
func (r *Regexp) FindString(s string) string             { return r.Re().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int         { return r.Re().FindStringIndex(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte         { return r.Re().FindSubmatch(b) }
func (r *Regexp) FindStringSubmatch(s string) []string   { return r.Re().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.Re().FindStringSubmatchIndex(s) }
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int   { return r.Re().FindAllIndex(b, n) }
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.Re().FindAllString(s, n)
}
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Re().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.Re().ReplaceAll(src, repl) }
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Re().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) SubexpNames() []string       { return r.Re().SubexpNames() }
func (r *Regexp) SubexpIndex(name string) int { return r.Re().SubexpIndex(name) }
func (r *Regexp) NumSubexp() int              { return r.Re().NumSubexp() }

// Declared is how many Regexps have been declared.
func Declared() int {
	mu.Lock()
	defer mu.Unlock()
	return len(all)
}
