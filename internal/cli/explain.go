package cli

import (
	"github.com/spf13/cobra"

	explaincmd "github.com/cudadoctor/cudadoctor/internal/cmd/explain"
)

func newExplainCmd(g *globals) *cobra.Command {
	return &cobra.Command{
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
			if len(args) == 0 && g.sys.StdinIsTTY() {
				return usageErrorf("no input: pass a log file or directory, or pipe a log into 'cudadoctor explain'")
			}
			rep, err := explaincmd.Run(cmd.Context(), explaincmd.Options{Paths: args, Stdin: g.sys.Stdin, Warn: g.sys.Stderr})
			if err != nil {
				return err
			}
			return g.emit(rep)
		},
	}
}
