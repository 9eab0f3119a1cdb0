package cli

import (
	"context"
	"errors"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
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

// exitCode is the table: every error a subcommand returns ends here.
func exitCode(err error) int {
	var usage *command.UsageError
	var coder command.ExitCoder
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, command.ErrFindings):
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
	return command.OneLine(err.Error())
}

// silent errors have already told the user what happened.
func silent(err error) bool {
	var coder command.ExitCoder
	return err == nil || errors.Is(err, command.ErrFindings) || errors.As(err, &coder)
}
