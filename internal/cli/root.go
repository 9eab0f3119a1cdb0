// Package cli is cudadoctor's command line: the root command, the global
// flags, and the one table that maps errors to exit codes.
package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Version is set at build time with -ldflags "-X .../cli.Version=...".
var Version = "0.1.0"

// globals are the flags every subcommand shares.
type globals struct {
	format string
	color  string
	failOn string
	sys    Sys
}

// Main runs the command line and returns the process exit code.
func Main(ctx context.Context, args []string, sys Sys) int {
	g := &globals{sys: sys}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetIn(sys.Stdin)
	root.SetOut(sys.Stdout)
	root.SetErr(sys.Stderr)
	err := root.ExecuteContext(ctx)
	if err != nil && !silent(err) {
		fmt.Fprintf(sys.Stderr, "cudadoctor: %s\n", message(err))
		var usage *UsageError
		if asUsage(err, &usage) {
			fmt.Fprintf(sys.Stderr, "Run 'cudadoctor --help' for usage.\n")
		}
	}
	return exitCode(err)
}

func asUsage(err error, target **UsageError) bool {
	u, ok := err.(*UsageError)
	if ok {
		*target = u
	}
	return ok
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

Output: text on a terminal, --format json for scripts, --format sarif for code scanning.
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
			return usageErrorf("unknown command %q; 'cudadoctor --help' lists the commands", args[0])
		}
		return nil
	}
	root.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
	root.SetVersionTemplate("cudadoctor {{.Version}}\n")
	pf := root.PersistentFlags()
	pf.StringVar(&g.format, "format", "text", "output format: text, json or sarif")
	pf.StringVar(&g.color, "color", "auto", "colour: auto (on a terminal, unless NO_COLOR is set), always or never")
	pf.StringVar(&g.failOn, "fail-on", "error", "exit 1 when a finding has this severity or higher: error, warning, info or never")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return &UsageError{Err: err} })
	root.AddCommand(
		newExplainCmd(g),
		newRulesCmd(g),
		newRunCmd(g),
		newEnvCmd(g),
		newMemoryCmd(g),
		newLintCmd(g),
	)
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
			return &UsageError{Err: err}
		}
		return nil
	}
}

func parseFailOn(s string) (report.Severity, error) {
	if s == "never" {
		return report.SeverityNone, nil
	}
	return report.ParseSeverity(s)
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
	rep.Tool.Version = Version
	f, _ := render.ParseFormat(g.format)
	opts := render.Options{Color: g.colorOn(g.sys.StdoutTTY), Width: g.sys.Width, Excerpts: g.sys.StdoutTTY}
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
