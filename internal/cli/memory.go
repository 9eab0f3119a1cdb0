package cli

import (
	"github.com/spf13/cobra"

	memorycmd "github.com/cudadoctor/cudadoctor/internal/cmd/memory"
)

func newMemoryCmd(g *globals) *cobra.Command {
	var opts memorycmd.Options
	cmd := &cobra.Command{
		Use:   "memory [--html REPORT.html] SNAPSHOT",
		Short: "Explain GPU memory use and out-of-memory failures from a PyTorch memory snapshot",
		Long: `Read a memory snapshot written by torch.cuda.memory._dump_snapshot (record it
with torch.cuda.memory._record_memory_history, or let 'cudadoctor run
--memory-snapshot DIR' capture one on out-of-memory) and report the peak
allocated and reserved memory, the lines of your code holding memory at the
peak, memory that grows every iteration, fragmentation, and the
out-of-memory event. A log with an out-of-memory message is diagnosed too.`,
		Example: `  cudadoctor memory snapshot.pickle
  cudadoctor memory --html memory.html snapshot.pickle
  cudadoctor memory --format json snapshot.pickle`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			rep, err := memorycmd.Run(cmd.Context(), opts)
			if err != nil {
				return err
			}
			return g.emit(rep)
		},
	}
	cmd.Flags().StringVar(&opts.HTML, "html", "", "also write a self-contained HTML report with an interactive timeline to this file")
	return cmd
}
