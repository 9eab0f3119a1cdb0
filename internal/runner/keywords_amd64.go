package runner

import "golang.org/x/sys/cpu"

// vectorClass says indexClass runs on vector instructions; without them the
// scan searches anchor by anchor (scanAnchors), which is faster than a
// byte-at-a-time class test.
var vectorClass = cpu.X86.HasAVX2

//go:noescape
func indexClassAVX2(s []byte, tab *classTable) int

// indexClass returns the index of the first byte of s in the class, or -1.
func indexClass(s []byte, t *classTable) int {
	whole := len(s) &^ 31
	if whole > 0 {
		if i := indexClassAVX2(s[:whole], t); i >= 0 {
			return i
		}
	}
	if i := t.indexScalar(s[whole:]); i >= 0 {
		return whole + i
	}
	return -1
}
