package command

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/render"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Deps is what the root hands every subcommand's constructor. The global
// flag fields are filled when the command line is parsed, before any
// command runs, so a constructor keeps the pointer and reads them in RunE.
type Deps struct {
	Sys   Sys
	Build Build
	// Format, Color and FailOn are the values of --format, --color and
	// --fail-on (validated by the root before a command runs).
	Format string
	Color  string
	FailOn string
}

// FailOnValues are the values of --fail-on.
var FailOnValues = []string{"error", "warning", "info", "never"}

// ParseFailOn reads a --fail-on value.
func ParseFailOn(s string) (report.Severity, error) {
	if s == "never" {
		return report.SeverityNone, nil
	}
	sev, err := report.ParseSeverity(s)
	if err != nil || sev == report.SeverityNone {
		return 0, fmt.Errorf("unknown --fail-on %q (want %s)", s, OrList(FailOnValues))
	}
	return sev, nil
}

// AddFailOn gives cmd the --fail-on flag: its findings decide the exit
// status. `run` exits with its child's status whatever it diagnoses, and
// `rules` reports nothing, so neither takes it.
func (d *Deps) AddFailOn(cmd *cobra.Command) {
	cmd.Flags().StringVar(&d.FailOn, "fail-on", "error", "exit 1 when a finding has this severity or higher: "+OrList(FailOnValues))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions(FailOnValues, cobra.ShellCompDirectiveNoFileComp))
}

// FormatsAnnotation names, in a command's Annotations, the comma-separated
// --format values it prints, when it prints fewer than every report format
// (the root completes --format from it).
const FormatsAnnotation = "cudadoctor/formats"

// Formats lists the --format values cmd accepts.
func Formats(cmd *cobra.Command) []string {
	if s, ok := cmd.Annotations[FormatsAnnotation]; ok {
		return strings.Split(s, ",")
	}
	return render.FormatNames()
}

// ColorOn decides colour for a stream: --color wins, then NO_COLOR, then TTY.
func (d *Deps) ColorOn(tty bool) bool {
	switch d.Color {
	case "always":
		return true
	case "never":
		return false
	}
	if d.Sys.Getenv != nil && d.Sys.Getenv("NO_COLOR") != "" {
		return false
	}
	return tty
}

// Emit renders a report to stdout in the --format asked for (through the
// command's own view of that format when it has one) and turns --fail-on
// into the exit status. nothingFound is the command's line for a report
// without findings (empty: "nothing to report").
func (d *Deps) Emit(rep *report.Report, own render.Views, nothingFound string) error {
	rep.Tool = d.Build.Tool()
	f, _ := render.ParseFormat(d.Format)
	opts := render.Options{Color: d.ColorOn(d.Sys.StdoutTTY), Width: d.Sys.Width, Excerpts: d.Sys.StdoutTTY, NothingFound: nothingFound}
	if d.Sys.Getwd != nil {
		opts.Root, _ = d.Sys.Getwd()
	}
	if err := render.Render(d.Sys.Stdout, rep, f, opts, own); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return d.Verdict(rep)
}

// Verdict maps the report's findings to ErrFindings per --fail-on.
func (d *Deps) Verdict(rep *report.Report) error {
	failOn, _ := ParseFailOn(d.FailOn)
	if failOn != report.SeverityNone && rep.MaxSeverity() >= failOn {
		return ErrFindings
	}
	return nil
}
