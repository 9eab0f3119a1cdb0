package cli

import (
	"context"
	"errors"
	"fmt"
)

// The exit codes of the contract. This file is the one place that maps
// errors to them.
const (
	ExitOK       = 0 // ran, nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitUsage    = 2 // the command line was wrong
	ExitFailure  = 3 // the tool itself failed: unreadable input, bad config
	// ExitInterrupted is a shell's status for SIGINT: Ctrl-C (or SIGTERM)
	// stopped the work, which is not a failure of the tool.
	ExitInterrupted = 130
)

// UsageError marks a mistake in the command line. Hint, when set, replaces
// the line pointing at the command's --help.
type UsageError struct {
	Err  error
	Hint string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExitCoder is implemented by errors that carry their own exit status: `run`
// passes the child's code through whatever it diagnosed.
type ExitCoder interface {
	error
	ExitCode() int
}

// errFindings is returned when findings reach --fail-on; it prints nothing.
var errFindings = errors.New("findings at or above the --fail-on severity")

// exitCode is the table: every error a subcommand returns ends here.
func exitCode(err error) int {
	var usage *UsageError
	var coder ExitCoder
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errFindings):
		return ExitFindings
	case errors.As(err, &coder):
		return coder.ExitCode()
	case errors.As(err, &usage):
		return ExitUsage
	case errors.Is(err, context.Canceled):
		return ExitInterrupted
	default:
		return ExitFailure
	}
}

// message is the one line printed for err.
func message(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	return oneLine(err.Error())
}

// silent errors have already told the user what happened.
func silent(err error) bool {
	var coder ExitCoder
	return err == nil || errors.Is(err, errFindings) || errors.As(err, &coder)
}
