package memory

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cudadoctor/cudadoctor/internal/cli/command"
	"github.com/cudadoctor/cudadoctor/internal/memsnap"
)

// Command is `cudadoctor memory`.
func Command(d *command.Deps) *cobra.Command {
	var opts Options
	var captureDir string
	cmd := &cobra.Command{
		Use:   "memory [--html REPORT.html] SNAPSHOT|DIR|LOG",
		Short: "Explain GPU memory use and out-of-memory failures from a PyTorch memory snapshot",
		Long: `Read a memory snapshot written by torch.cuda.memory._dump_snapshot (record it
with torch.cuda.memory._record_memory_history, or let 'cudadoctor run
--memory-snapshot DIR' capture one on out-of-memory) and report the peak
allocated and reserved memory, the lines of your code holding memory at the
peak, memory that grows every iteration, fragmentation, and the
out-of-memory event. A log with an out-of-memory message is diagnosed too.`,
		Example: `  cudadoctor memory snapshot.pickle
  cudadoctor memory --html memory.html snapshot.pickle
  cudadoctor memory --format json snapshot.pickle
  cudadoctor memory snapshots/            (the newest *.pickle in a capture directory)`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if captureDir != "" {
				if len(args) > 0 {
					return command.Usagef("--print-capture-env takes no snapshot argument")
				}
				return printCaptureEnv(d, captureDir)
			}
			if len(args) != 1 {
				return command.Usagef("pass one memory snapshot (or log) file")
			}
			opts.Path = args[0]
			rep, err := Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return d.Emit(rep, nil, "")
		},
	}
	cmd.Flags().StringVar(&opts.HTML, "html", "", "also write a self-contained HTML report with an interactive timeline to this file")
	// For scripts that run Python themselves: install the capture shim under
	// DIR/.shim and print the shell exports that enable it.
	cmd.Flags().StringVar(&captureDir, "print-capture-env", "", "install the snapshot-capture shim for DIR and print shell exports")
	_ = cmd.Flags().MarkHidden("print-capture-env")
	d.AddFailOn(cmd)
	return cmd
}

func printCaptureEnv(d *command.Deps, dir string) error {
	var environ []string
	if d.Sys.Environ != nil {
		environ = d.Sys.Environ()
	}
	vars, err := memsnap.InstallShim(dir, filepath.Join(dir, ".shim"), environ)
	if err != nil {
		return err
	}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(d.Sys.Stdout, "export %s='%s'\n", k, strings.ReplaceAll(v, "'", `'\''`))
	}
	return nil
}
