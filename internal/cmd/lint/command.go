package lint

import (
	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
)

// Command is `cudadoctor lint`.
func Command(d *command.Deps) *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:   "lint [PATH...]",
		Short: "Find CUDA, async and mixed-precision hazards in Python source",
		Long: `Check Python files (and every .py file below directories, honouring .gitignore)
for hazards that make PyTorch programs fail or compute garbage on the GPU:
unsynchronised non_blocking copies, CUDA in forked workers, deprecated AMP APIs,
float16 overflow, losses that keep their graphs, host syncs in graph capture...
'cudadoctor rules CD101' explains a rule. Configure with [tool.cudadoctor] in
pyproject.toml (select, ignore, per-file-ignores, exclude); silence one line with
'# cudadoctor: ignore[CD101] reason' or ruff's '# noqa: CD101'. 'lint -' reads
standard input.`,
		Example: `  cudadoctor lint train.py
  cudadoctor lint src/ --format sarif > lint.sarif
  cudadoctor lint --fail-on warning .
  git show HEAD:train.py | cudadoctor lint -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := Run(cmd.Context(), Options{Paths: args, ConfigPath: config, Stdin: cmd.InOrStdin()})
			if err != nil {
				return err
			}
			return d.Emit(rep, views, "")
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "pyproject.toml to read [tool.cudadoctor] from (default: the nearest one)")
	d.AddFailOn(cmd)
	return cmd
}
