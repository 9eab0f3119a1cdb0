// Package shellquote renders words and command lines that cudadoctor puts
// in front of the user to paste into a POSIX shell: a path read from a log
// (`/tmp/x$(touch PWN).py`) must come out as one inert word.
package shellquote

import "strings"

// Word quotes s for a POSIX shell when it holds anything but characters
// that are safe unquoted; the empty word is ”.
func Word(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// Join renders argv so that a POSIX shell runs exactly it.
func Join(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = Word(a)
	}
	return strings.Join(parts, " ")
}
