package explain

import (
	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	"github.com/cudadoctor/cudadoctor/internal/diagnose"
)

// Command is `cudadoctor explain`.
func Command(d *command.Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain [LOG...|DIR|-]",
		Short: "Diagnose CUDA/PyTorch failures in logs and tracebacks",
		Long: `Read logs, tracebacks, torchrun output or per-rank logs and report, for each
distinct failure, the root cause, the evidence lines, the line of your code it
comes from, and what to do. With no argument, or "-", it reads standard input.
A directory is read whole (every file below it, e.g. one log per rank).`,
		Example: `  cudadoctor explain train.log
  python train.py 2>&1 | cudadoctor explain
  cudadoctor explain --format json logs/ > diagnosis.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && d.Sys.StdinIsTTY() {
				return command.Usagef("no input: pass a log file or directory, or pipe a log into 'cudadoctor explain'")
			}
			rep, err := Run(cmd.Context(), Options{Paths: args, Stdin: d.Sys.Stdin, Warn: d.Sys.Stderr})
			if err != nil {
				return err
			}
			return d.Emit(rep, nil, diagnose.NothingFound)
		},
	}
	d.AddFailOn(cmd)
	return cmd
}
