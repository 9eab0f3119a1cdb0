package lazyre

import (
	"strings"
	"testing"
)

// A Regexp compiles once, on first use, and answers as regexp does.
func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`(?P<word>\w+)=(\d+)`)
	if r.re != nil {
		t.Fatal("compiled at declaration")
	}
	if m := r.FindStringSubmatch("x a=12"); len(m) != 3 || m[1] != "a" || m[2] != "12" {
		t.Errorf("FindStringSubmatch = %q", m)
	}
	first := r.re
	if !r.MatchString("b=3") || r.re != first || r.SubexpIndex("word") != 1 {
		t.Error("recompiled, or answers differ from regexp")
	}
}

// A bad expression is found by CompileAll before anything uses it.
func TestCompileAllFindsABadOne(t *testing.T) {
	New(`(unclosed`)
	err := CompileAll()
	if err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("CompileAll = %v", err)
	}
	mu.Lock()
	all = all[:len(all)-1]
	mu.Unlock()
}
