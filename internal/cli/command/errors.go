package command

import (
	"errors"
	"fmt"
)

// UsageError marks a mistake in the command line (exit 2). Hint, when set,
// replaces the line pointing at the command's --help.
type UsageError struct {
	Err  error
	Hint string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExitCoder is implemented by errors that carry their own exit status: `run`
// passes the child's code through whatever it diagnosed.
type ExitCoder interface {
	error
	ExitCode() int
}

// ErrFindings is returned when findings reach --fail-on; it prints nothing.
var ErrFindings = errors.New("findings at or above the --fail-on severity")
