// Package cli is cudadoctor's command line: the root command, the global
// flags, and the one table that maps errors to exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// globals are the flags every subcommand shares.
type globals struct {
	format string
	color  string
	failOn string
	sys    Sys
}

// Main runs the command line and returns the process exit code.
func Main(ctx context.Context, args []string, sys Sys) int {
	stampOnce.Do(func() { report.Producer = currentBuild().tool() })
	g := &globals{sys: sys}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetIn(sys.Stdin)
	root.SetOut(sys.Stdout)
	root.SetErr(sys.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && !silent(err) {
		fmt.Fprintf(sys.Stderr, "cudadoctor: %s\n", message(err))
		var usage *UsageError
		if errors.As(err, &usage) {
			fmt.Fprintln(sys.Stderr, usageHint(cmd, usage))
		}
	}
	return exitCode(err)
}

// usageHint is the one line that follows a usage error: the error's own
// hint, else the help of the command that was being run (an unknown flag of
// `explain` points at `cudadoctor explain --help`, not the root's).
func usageHint(cmd *cobra.Command, u *UsageError) string {
	if u.Hint != "" {
		return u.Hint
	}
	path := "cudadoctor"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return fmt.Sprintf("Run '%s --help' for usage.", path)
}

// oneLine keeps error output to a single line, whatever the error holds.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func newRoot(g *globals) *cobra.Command {
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
			if _, err := render.ParseFormat(g.format); err != nil {
				return &UsageError{Err: err}
			}
			switch g.color {
			case "auto", "always", "never":
			default:
				return usageErrorf("unknown --color %q (want auto, always or never)", g.color)
			}
			if _, err := parseFailOn(g.failOn); err != nil {
				return &UsageError{Err: err}
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
			return usageErrorf("unknown command %q%s", args[0], didYouMean(suggest(args[0], names, 3)))
		}
		return nil
	}
	root.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	root.SetVersionTemplate(currentBuild().text())
	pf := root.PersistentFlags()
	pf.StringVar(&g.format, "format", "text", "output format: "+orList(render.FormatNames()))
	pf.StringVar(&g.color, "color", "auto", "colour: auto (on a terminal, unless NO_COLOR is set), always or never")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return &UsageError{Err: err} })
	_ = root.RegisterFlagCompletionFunc("format", func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if cmd.Name() == "rules" {
			return rulesFormats, cobra.ShellCompDirectiveNoFileComp
		}
		return render.FormatNames(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	root.AddCommand(
		newExplainCmd(g),
		newRulesCmd(g),
		newRunCmd(g),
		newEnvCmd(g),
		newMemoryCmd(g),
		newLintCmd(g),
		newVersionCmd(g),
	)
	for _, c := range root.Commands() {
		wrapArgs(c)
		if failOnCommands[c.Name()] {
			c.Flags().StringVar(&g.failOn, "fail-on", "error", "exit 1 when a finding has this severity or higher: "+orList(failOnValues))
			_ = c.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions(failOnValues, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	return root
}

// failOnCommands are the commands whose findings decide the exit status.
// `run` exits with its child's status whatever it diagnoses, and `rules`
// reports nothing, so neither offers --fail-on.
var failOnCommands = map[string]bool{"explain": true, "lint": true, "env": true, "memory": true}

var failOnValues = []string{"error", "warning", "info", "never"}

// wrapArgs turns cobra's argument-validation errors into usage errors.
func wrapArgs(c *cobra.Command) {
	if c.Args == nil {
		return
	}
	inner := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if err := inner(cmd, args); err != nil {
			return &UsageError{Err: err}
		}
		return nil
	}
}

func parseFailOn(s string) (report.Severity, error) {
	if s == "never" {
		return report.SeverityNone, nil
	}
	sev, err := report.ParseSeverity(s)
	if err != nil || sev == report.SeverityNone {
		return 0, fmt.Errorf("unknown --fail-on %q (want %s)", s, orList(failOnValues))
	}
	return sev, nil
}

// colorOn decides colour for a stream: --color wins, then NO_COLOR, then TTY.
func (g *globals) colorOn(tty bool) bool {
	switch g.color {
	case "always":
		return true
	case "never":
		return false
	}
	if g.sys.Getenv != nil && g.sys.Getenv("NO_COLOR") != "" {
		return false
	}
	return tty
}

// emit renders a report to stdout and turns --fail-on into the exit status.
func (g *globals) emit(rep *report.Report) error {
	rep.Tool = currentBuild().tool()
	f, _ := render.ParseFormat(g.format)
	opts := render.Options{Color: g.colorOn(g.sys.StdoutTTY), Width: g.sys.Width, Excerpts: g.sys.StdoutTTY}
	if g.sys.Getwd != nil {
		opts.Root, _ = g.sys.Getwd()
	}
	if err := render.Render(g.sys.Stdout, rep, f, opts); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return g.verdict(rep)
}

// verdict maps the report's findings to errFindings per --fail-on.
func (g *globals) verdict(rep *report.Report) error {
	failOn, _ := parseFailOn(g.failOn)
	if failOn != report.SeverityNone && rep.MaxSeverity() >= failOn {
		return errFindings
	}
	return nil
}
