package pycheck

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Config is the [tool.cudadoctor] table of pyproject.toml, read the way
// ruff users expect: codes or code prefixes in select and ignore.
type Config struct {
	Select         []string            `toml:"select"`
	Ignore         []string            `toml:"ignore"`
	PerFileIgnores map[string][]string `toml:"per-file-ignores"`
	Exclude        []string            `toml:"exclude"`
	// Dir is the directory of the pyproject.toml; patterns are relative to it.
	Dir string `toml:"-"`
	// Path is the file the config came from ("" when none was found).
	Path string `toml:"-"`

	perFile []perFileRule
	exclude *ignoreList
}

type perFileRule struct {
	g     *glob
	codes []string
}

type pyproject struct {
	Tool struct {
		Cudadoctor *Config `toml:"cudadoctor"`
	} `toml:"tool"`
}

// FindConfig looks for the nearest pyproject.toml with a [tool.cudadoctor]
// table, from dir upwards. None found is not an error: the zero config
// enables every rule.
func FindConfig(dir string) (*Config, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "pyproject.toml")
		if b, err := os.ReadFile(p); err == nil {
			c, found, err := ParseConfig(b, d)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			if found {
				c.Path = p
				return c, nil
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return (&Config{Dir: abs}).compile()
}

// LoadConfig reads an explicitly named pyproject.toml.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(filepath.Dir(path))
	c, _, err := ParseConfig(b, abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

var configKeys = map[string]bool{"select": true, "ignore": true, "per-file-ignores": true, "exclude": true}

// CheckCodes refuses a selector in select, ignore or per-file-ignores that
// matches no known rule code (CD199, or a typo of one).
func (c *Config) CheckCodes(known []string) error {
	check := func(where, sel string) error {
		if sel == "ALL" {
			return nil
		}
		for _, k := range known {
			if strings.HasPrefix(k, sel) {
				return nil
			}
		}
		return fmt.Errorf("[tool.cudadoctor] %s: %q matches no rule code (see cudadoctor rules)", where, sel)
	}
	for _, sel := range c.Select {
		if err := check("select", sel); err != nil {
			return err
		}
	}
	for _, sel := range c.Ignore {
		if err := check("ignore", sel); err != nil {
			return err
		}
	}
	for _, pf := range c.perFile {
		for _, sel := range pf.codes {
			if err := check("per-file-ignores", sel); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParseConfig decodes pyproject.toml text; found says whether it had a
// [tool.cudadoctor] table.
func ParseConfig(b []byte, dir string) (*Config, bool, error) {
	var pp pyproject
	dec := toml.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&pp); err != nil {
		return nil, false, fmt.Errorf("invalid TOML: %s", oneLine(err.Error()))
	}
	if pp.Tool.Cudadoctor == nil {
		c, err := (&Config{Dir: dir}).compile()
		return c, false, err
	}
	// A misspelt key would otherwise be ignored in silence, as ruff
	// refuses it: name it.
	var raw struct {
		Tool struct {
			Cudadoctor map[string]any `toml:"cudadoctor"`
		} `toml:"tool"`
	}
	if err := toml.Unmarshal(b, &raw); err == nil {
		var keys []string
		for k := range raw.Tool.Cudadoctor {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !configKeys[k] {
				return nil, false, fmt.Errorf("[tool.cudadoctor]: unknown key %q (known: exclude, ignore, per-file-ignores, select)", k)
			}
		}
	}
	c := pp.Tool.Cudadoctor
	c.Dir = dir
	c, err := c.compile()
	return c, true, err
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (c *Config) compile() (*Config, error) {
	for _, list := range [][]string{c.Select, c.Ignore} {
		for _, code := range list {
			if !validSelector(code) {
				return nil, fmt.Errorf("[tool.cudadoctor]: %q is not a rule code or prefix (like CD101 or CD1)", code)
			}
		}
	}
	keys := make([]string, 0, len(c.PerFileIgnores))
	for k := range c.PerFileIgnores {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g, err := compileGlob(k)
		if err != nil {
			return nil, fmt.Errorf("[tool.cudadoctor] per-file-ignores: %w", err)
		}
		for _, code := range c.PerFileIgnores[k] {
			if !validSelector(code) {
				return nil, fmt.Errorf("[tool.cudadoctor] per-file-ignores: %q is not a rule code or prefix", code)
			}
		}
		c.perFile = append(c.perFile, perFileRule{g: g, codes: c.PerFileIgnores[k]})
	}
	c.exclude = parseIgnoreList("", strings.Join(c.Exclude, "\n"))
	return c, nil
}

func validSelector(s string) bool {
	if s == "ALL" {
		return true
	}
	if !strings.HasPrefix(s, "CD") {
		return false
	}
	for _, r := range s[2:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func selects(list []string, code string) bool {
	for _, s := range list {
		if s == "ALL" || strings.HasPrefix(code, s) {
			return true
		}
	}
	return false
}

// rel is path relative to the config directory, slash-separated, or "" when
// the path lies outside it.
func (c *Config) rel(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	r, err := filepath.Rel(c.Dir, abs)
	if err != nil || strings.HasPrefix(r, "..") {
		return ""
	}
	return filepath.ToSlash(r)
}

// Enabled reports whether findings of code are wanted in the file at path.
func (c *Config) Enabled(path, code string) bool {
	if len(c.Select) > 0 && !selects(c.Select, code) {
		return false
	}
	if selects(c.Ignore, code) {
		return false
	}
	if len(c.perFile) > 0 {
		if r := c.rel(path); r != "" {
			for _, pf := range c.perFile {
				if pf.g.match(r, false) && selects(pf.codes, code) {
					return false
				}
			}
		}
	}
	return true
}

// Excluded reports whether a path found while walking is excluded by the
// config's exclude patterns.
func (c *Config) Excluded(path string, isDir bool) bool {
	if c.exclude == nil || len(c.exclude.patterns) == 0 {
		return false
	}
	r := c.rel(path)
	if r == "" || r == "." {
		return false
	}
	ign, _ := c.exclude.decide(r, isDir)
	return ign
}
