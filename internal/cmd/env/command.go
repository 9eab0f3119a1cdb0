package env

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	"github.com/cudadoctor/cudadoctor/internal/probe"
)

// Command is `cudadoctor env`.
func Command(d *command.Deps) *cobra.Command {
	var opts Options
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Check the driver, GPUs, torch build and CUDA libraries, and say what is wrong",
		Long: `Inspect this machine the way a PyTorch program will meet it: the NVIDIA driver and
CUDA driver API, every GPU (compute capability, memory, ECC, compute mode, MIG,
processes), the torch build of your Python environment (CUDA version, arch list,
cuDNN, NCCL, the CUDA libraries it actually loads), nvcc, the relevant environment
variables and the Xid errors in the kernel log. Each check passes, warns or fails;
failures say what to run to fix them.

The Python environment is --python, else $VIRTUAL_ENV, $CONDA_PREFIX, then
python3 or python on PATH. --no-python skips it (fast: driver-side checks only).`,
		Example: `  cudadoctor env
  cudadoctor env --python ~/venvs/train/bin/python
  cudadoctor env --no-python --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.PythonTimeout <= 0 {
				return command.Usagef("--python-timeout must be positive")
			}
			if opts.NoPython && opts.Python != "" {
				return command.Usagef("--python and --no-python exclude each other")
			}
			if opts.Python != "" {
				if _, _, err := probe.FindPython(probe.System{}, opts.Python); err != nil {
					return &command.UsageError{Err: err}
				}
			}
			rep, err := Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return d.Emit(rep, views, allPassed)
		},
	}
	cmd.Flags().BoolVar(&opts.NoPython, "no-python", false, "skip the Python/torch probe")
	cmd.Flags().StringVar(&opts.Python, "python", "", "the Python interpreter to probe (default: $VIRTUAL_ENV, $CONDA_PREFIX, python3, python)")
	cmd.Flags().DurationVar(&opts.PythonTimeout, "python-timeout", 60*time.Second, "how long the Python probe may take")
	d.AddFailOn(cmd)
	return cmd
}
