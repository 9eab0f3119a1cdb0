package flightrec

import "github.com/cudadoctor/cudadoctor/internal/report"

// RuleDocs documents the rules of this package for `cudadoctor rules` and SARIF.
func RuleDocs() []report.RuleDoc {
	return []report.RuleDoc{
		{
			ID: RuleDesync, Name: "collective-desync", Kind: report.KindClass, Severity: report.Error,
			Title:   "Ranks diverged on a collective (NCCL Flight Recorder)",
			Summary: "The Flight Recorder dumps of a distributed job show the first collective on which the ranks stopped agreeing: one some ranks entered and others never did, or one entered with a different operation, tensor shape or dtype, or collectives issued on several process groups in different orders. Ranks whose dumps are missing are named.",
			Sections: []report.DocSection{
				{Title: "Why", Body: "NCCL collectives only complete when every rank of the process group makes the same call with matching tensors. A rank that skips a call, calls another one, or passes another shape leaves the others waiting until the watchdog times out, and the timeout is reported on the waiting ranks, far from the cause."},
				{Title: "How it matches", Body: "Collectives are matched across ranks by process group and collective sequence id; the earliest divergence wins. The origin is the first frame of your code in the stack the Flight Recorder captured for the odd rank's call. When ranks wait in different process groups, each for a call the other has not made, each rank's calls across all groups are compared in the order it issued them: the first place they part is a deadlock across groups, and the origin is the call one rank skipped or postponed."},
				{Title: "Example: a deadlock across groups", Body: "for step in range(n):\n    dist.all_reduce(x)                 # default group\n    if not (rank == 1 and step == 2):\n        dist.all_reduce(z, group=g)    # rank 1 skips it once: rank 0 waits in g, rank 1 in the default group"},
				{Title: "Example", Body: "if rank == 0:\n    dist.all_reduce(x)   # only rank 0 makes this call: rank 0 waits, rank 1 moves on"},
				{Title: "Fix", Body: "Make every rank issue the same collectives in the same order with the same shapes and dtypes. TORCH_DISTRIBUTED_DEBUG=DETAIL checks this before each collective runs. Enable dumps on every rank (TORCH_FR_BUFFER_SIZE=2000, TORCH_FR_DUMP_ON_TIMEOUT=1, TORCH_FR_DUMP_TEMP_FILE=<dir>/fr_rank_; the TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT and TORCH_NCCL_DEBUG_INFO_TEMP_FILE names on older torch) and pass them all to cudadoctor explain."},
			},
			References: []string{"https://pytorch.org/docs/stable/torch_nccl_environment_variables.html"},
		},
		{
			ID: RuleStuck, Name: "collective-stuck", Kind: report.KindClass, Severity: report.Error,
			Title:   "Every rank entered a collective that never completed (NCCL Flight Recorder)",
			Summary: "Every rank's Flight Recorder dump shows the same collective entered with matching arguments and never completed: the ranks agree, so the hang is below them, in NCCL, the interconnect, a GPU, or a rank that died inside the call.",
			Sections: []report.DocSection{
				{Title: "Fix", Body: "Rerun with NCCL_DEBUG=INFO to see the transport, check the kernel log for Xid errors, and check every rank's exit status."},
			},
		},
	}
}
