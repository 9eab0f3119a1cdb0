// Package command is what every subcommand is given by the root: the outside
// world (Sys), the values of the global flags, the build stamp, the errors
// the exit-code table knows (UsageError, ErrFindings, ExitCoder), and Emit,
// the one way a report leaves for stdout. A subcommand is a package under
// internal/cmd exposing Command(*Deps) *cobra.Command; internal/cli adds it
// to the root with one line.
package command
