// Package cli is cudadoctor's command line: the root command, the global
// flags, one registration line per subcommand (each is a package under
// internal/cmd), and the one table that maps errors to exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	"github.com/cudadoctor/cudadoctor/internal/cmd/env"
	"github.com/cudadoctor/cudadoctor/internal/cmd/explain"
	"github.com/cudadoctor/cudadoctor/internal/cmd/lint"
	"github.com/cudadoctor/cudadoctor/internal/cmd/memory"
	"github.com/cudadoctor/cudadoctor/internal/cmd/rules"
	"github.com/cudadoctor/cudadoctor/internal/cmd/run"
	"github.com/cudadoctor/cudadoctor/internal/cmd/version"
	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Sys is every outside fact the command line reads.
type Sys = command.Sys

// System returns the real process's streams and environment.
func System() Sys { return command.System() }

// subcommands are cudadoctor's commands (help lists them by name): a
// new command is one package under internal/cmd and one line here.
var subcommands = []func(*command.Deps) *cobra.Command{
	explain.Command,
	rules.Command,
	run.Command,
	env.Command,
	memory.Command,
	lint.Command,
	version.Command,
}

// Main runs the command line and returns the process exit code.
func Main(ctx context.Context, args []string, sys Sys) int {
	return execute(ctx, args, sys, currentBuild())
}

// execute is Main with the build stamp given.
func execute(ctx context.Context, args []string, sys Sys, b command.Build) int {
	stampOnce.Do(func() { report.Producer = b.Tool() })
	d := &command.Deps{Sys: sys, Build: b}
	root := newRoot(d)
	root.SetArgs(args)
	root.SetIn(sys.Stdin)
	root.SetOut(sys.Stdout)
	root.SetErr(sys.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && !silent(err) {
		fmt.Fprintf(sys.Stderr, "cudadoctor: %s\n", message(err))
		var usage *command.UsageError
		if errors.As(err, &usage) {
			fmt.Fprintln(sys.Stderr, usageHint(cmd, usage))
		}
	}
	return exitCode(err)
}

// usageHint is the one line that follows a usage error: the error's own
// hint, else the help of the command that was being run (an unknown flag of
// `explain` points at `cudadoctor explain --help`, not the root's).
func usageHint(cmd *cobra.Command, u *command.UsageError) string {
	if u.Hint != "" {
		return u.Hint
	}
	path := "cudadoctor"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return fmt.Sprintf("Run '%s --help' for usage.", path)
}

func newRoot(d *command.Deps) *cobra.Command {
	root := &cobra.Command{
		Use:   "cudadoctor",
		Short: "Explain why a PyTorch GPU program failed, where, and what to do about it",
		Long: `cudadoctor reads the failures of PyTorch programs on NVIDIA GPUs and names the root
cause, the evidence, the line of your code it comes from, and concrete fixes.

  cudadoctor explain train.log          diagnose a log or traceback (or pipe one in)
  cudadoctor explain logs/              join per-rank logs and Flight Recorder dumps
  cudadoctor run -- python train.py     run a command; on failure, explain it and find the true line
  cudadoctor env                        check driver, CUDA, torch build, GPU and libraries
  cudadoctor lint src/                  find CUDA hazards in Python source before they run
  cudadoctor memory snapshot.pickle     explain GPU memory use and out-of-memory failures
  cudadoctor rules [ID]                 document every failure class, lint rule and check

Output: text on a terminal, --format json for scripts, --format sarif for code scanning,
--format github for workflow annotations, --format markdown to paste into an issue.
Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it,
2 usage error, 3 cudadoctor itself failed (unreadable input, bad config).`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if _, err := render.ParseFormat(d.Format); err != nil {
				return &command.UsageError{Err: err}
			}
			switch d.Color {
			case "auto", "always", "never":
			default:
				return command.Usagef("unknown --color %q (want auto, always or never)", d.Color)
			}
			if _, err := command.ParseFailOn(d.FailOn); err != nil {
				return &command.UsageError{Err: err}
			}
			return nil
		},
	}
	// A root that runs lets cobra hand unknown words to Args, so they become
	// usage errors (exit 2) rather than generic failures.
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			var names []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name())
				}
			}
			return command.Usagef("unknown command %q%s", args[0], command.DidYouMean(command.Suggest(args[0], names, 3)))
		}
		return nil
	}
	root.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	root.SetVersionTemplate(d.Build.Text())
	pf := root.PersistentFlags()
	pf.StringVar(&d.Format, "format", "text", "output format: "+command.OrList(render.FormatNames()))
	pf.StringVar(&d.Color, "color", "auto", "colour: auto (on a terminal, unless NO_COLOR is set), always or never")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return &command.UsageError{Err: err} })
	_ = root.RegisterFlagCompletionFunc("format", func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return command.Formats(cmd), cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	for _, sub := range subcommands {
		root.AddCommand(sub(d))
	}
	for _, c := range root.Commands() {
		wrapArgs(c)
	}
	return root
}

// wrapArgs turns cobra's argument-validation errors into usage errors.
func wrapArgs(c *cobra.Command) {
	if c.Args == nil {
		return
	}
	inner := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := inner(cmd, args); err != nil {
			return &command.UsageError{Err: err}
		}
		return nil
	}
}
