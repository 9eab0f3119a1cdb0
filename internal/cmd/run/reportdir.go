package run

import (
	"fmt"
	"github.com/cudadoctor/cudadoctor/internal/render"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/atomicfile"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// hostAndRanks names this node and the ranks its report covers: the
// process's own rank when a scheduler or launcher set one, else the ranks
// its output showed (a torchrun of several local ranks). Under Slurm the
// node is named as Slurm names it (SLURMD_NODENAME), which is what sinfo,
// sacct and the job's node list show and may differ from the host name.
func (o *Options) hostAndRanks(sc *scanner) (string, []int) {
	host := envValue(o.Env, "SLURMD_NODENAME")
	if host == "" {
		var err error
		if host, err = o.Hostname(); err != nil || host == "" {
			host = "unknown-host"
		}
	}
	if r, ok := o.processRank(); ok {
		return host, []int{r}
	}
	return host, sc.rankList()
}

// processRank is the distributed rank a scheduler or launcher gave this
// process through the environment. A launcher's own ranks are its
// children's, seen in its output, so only RANK counts for one: Slurm's
// SLURM_PROCID of a per-node torchrun numbers nodes, not ranks.
func (o *Options) processRank() (int, bool) {
	for _, k := range []string{"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"} {
		if isDistributedLauncher(o.Argv) && k != "RANK" {
			break
		}
		if r, err := strconv.Atoi(envValue(o.Env, k)); err == nil && r >= 0 {
			return r, true
		}
	}
	return 0, false
}

// stampRank gives findings that name no rank the rank of the process, so
// a report read alone or merged by `explain DIR` says which task failed.
// A launcher's findings are left as its output placed them.
func (o *Options) stampRank(fs []report.Finding) {
	r, ok := o.processRank()
	if !ok || isDistributedLauncher(o.Argv) {
		return
	}
	for i := range fs {
		if fs[i].Rank == nil {
			fs[i].Rank = report.IntPtr(r)
		}
	}
}

// reportName is cudadoctor-<host>[-rank<R>|-ranks<a>-<b>|-ranks<a>_<b>_...]-<pid>.json:
// unique per process, sortable by host, and telling which ranks it covers.
func reportName(host string, ranks []int, pid int) string {
	name := "cudadoctor-" + safeName(host)
	switch {
	case len(ranks) == 1:
		name += fmt.Sprintf("-rank%d", ranks[0])
	case len(ranks) > 1 && ranks[len(ranks)-1]-ranks[0] == len(ranks)-1:
		name += fmt.Sprintf("-ranks%d-%d", ranks[0], ranks[len(ranks)-1])
	case len(ranks) > 1:
		parts := make([]string, 0, len(ranks))
		for i, r := range ranks {
			if i == 8 {
				parts = append(parts, "more")
				break
			}
			parts = append(parts, strconv.Itoa(r))
		}
		name += "-ranks" + strings.Join(parts, "_")
	}
	return fmt.Sprintf("%s-%d.json", name, pid)
}

func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '-' || r == '.' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// writeReportDir writes the report atomically (a partial file is never
// seen by a later `cudadoctor explain DIR`).
func (o *Options) writeReportDir(rep *report.Report) (string, error) {
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(o.ReportDir, reportName(rep.Run.Host, rep.Run.Ranks, o.Pid))
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return render.WriteJSON(w, rep) })
	if err != nil {
		return "", err
	}
	return path, nil
}
