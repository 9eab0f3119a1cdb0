package memsnap

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// Rule ids of the memory analyses.
const (
	RuleGrowth        = "memory/growth"
	RuleOOM           = "memory/oom"
	RuleFragmentation = "memory/fragmentation"
	RulePeak          = "memory/peak"
	RuleTopSite       = "memory/top-site"
	RuleNoHistory     = "memory/no-history"
)

// MaxTopSites is how many top-site findings a device gets.
const MaxTopSites = 5

// FormatBytes prints a size the way PyTorch's messages do.
func FormatBytes(n int64) string {
	neg := ""
	if n < 0 {
		neg, n = "-", -n
	}
	f := float64(n)
	switch {
	case n <= 1024:
		return fmt.Sprintf("%s%d bytes", neg, n)
	case n <= 1<<20:
		return fmt.Sprintf("%s%.2f KiB", neg, f/(1<<10))
	case n <= 1<<30:
		return fmt.Sprintf("%s%.2f MiB", neg, f/(1<<20))
	}
	return fmt.Sprintf("%s%.2f GiB", neg, f/(1<<30))
}

func (a *DeviceAnalysis) origin(site int) *report.Location {
	if site < 0 || site >= len(a.Sites) || a.Sites[site].Frame == nil {
		return nil
	}
	f := a.Sites[site].Frame
	return &report.Location{Path: f.Filename, Line: f.Line, Function: f.Name}
}

func pct(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(part) * 100 / float64(whole)
}

// Findings turns the analyses of a snapshot into findings, the primary
// diagnosis first. source names the snapshot file for locations.
func Findings(s *Snapshot, analyses []*DeviceAnalysis, source string) []report.Finding {
	var out []report.Finding
	multi := len(analyses) > 1
	for _, a := range analyses {
		out = append(out, a.findings(s, source, multi)...)
	}
	report.SortFindings(out)
	return out
}

func (a *DeviceAnalysis) findings(s *Snapshot, source string, multi bool) []report.Finding {
	var out []report.Finding
	where := &report.Location{Path: source}
	dev := ""
	if multi {
		dev = fmt.Sprintf("device %d: ", a.Device)
	}
	base := func(f report.Finding) report.Finding {
		if f.Facts == nil {
			f.Facts = map[string]any{}
		}
		f.Facts["device"] = a.Device
		f.Location = where
		f.Message = dev + f.Message
		return f
	}
	fragExplainsOOM := a.OOM != nil && a.Frag.Reserved-a.Frag.Allocated >= a.OOM.Requested && a.Frag.LargestFree < a.OOM.Requested

	if len(a.Growth) > 0 {
		var parts []string
		var ev []report.Evidence
		facts := map[string]any{
			"growth_per_iteration_bytes": a.GrowthPerIteration(),
			"iterations":                 a.Iterations,
		}
		var sitesFact []map[string]any
		for _, g := range a.Growth {
			label := a.Sites[g.Site].Label
			parts = append(parts, fmt.Sprintf("%s (+%s)", label, FormatBytes(g.PerIteration)))
			ev = append(ev, report.Evidence{Text: fmt.Sprintf("%s: %s still held from %d iterations, +%s per iteration",
				siteText(a, g.Site), FormatBytes(g.Retained), g.Iterations, FormatBytes(g.PerIteration))})
			sitesFact = append(sitesFact, map[string]any{"site": label, "retained_bytes": g.Retained, "per_iteration_bytes": g.PerIteration, "iterations": g.Iterations})
		}
		facts["sites"] = sitesFact
		sev := report.Warning
		class := ""
		if a.OOM != nil {
			sev, class = report.Error, "oom"
		}
		out = append(out, base(report.Finding{
			Rule: RuleGrowth, Class: class, Severity: sev,
			Message: fmt.Sprintf("memory leak: allocated memory grows by %s per iteration and is never freed, over %d iterations, from %s",
				FormatBytes(a.GrowthPerIteration()), a.Iterations, strings.Join(parts, ", ")),
			Origin:   a.origin(a.Growth[0].Site),
			Evidence: ev, Facts: facts,
			Remedies: []string{
				"Something keeps every iteration's tensors alive. Look for lists, dicts or attributes that collect tensors across iterations: keeping a loss (or any output) keeps its whole autograd graph. Store loss.item() or loss.detach() instead.",
				"Under torch.no_grad() or after backward(), also check for references held by hooks, closures or a growing cache.",
			},
		}))
	}

	if a.OOM != nil {
		o := a.OOM
		msg := fmt.Sprintf("out of memory: allocating %s failed with %s allocated and %s reserved by PyTorch",
			FormatBytes(o.Requested), FormatBytes(o.Allocated), FormatBytes(o.Reserved))
		facts := map[string]any{
			"requested_bytes": o.Requested, "allocated_bytes": o.Allocated, "reserved_bytes": o.Reserved,
			"free_bytes": o.DeviceFree, "oom_events": o.Count,
		}
		var rem []string
		switch {
		case o.DeviceFree > o.Requested:
			msg += fmt.Sprintf("; CUDA still reported %s free on the device, so a per-process limit was hit (torch.cuda.set_per_process_memory_fraction, or a cap set outside PyTorch)", FormatBytes(o.DeviceFree))
			rem = append(rem, "Check torch.cuda.set_per_process_memory_fraction (and any framework setting that calls it): the card itself had room.")
		case o.DeviceFree > 0 || o.Requested > 0:
			msg += fmt.Sprintf("; the device had %s free", FormatBytes(o.DeviceFree))
		}
		if len(a.Growth) > 0 {
			rem = append([]string{"Fix the leak reported by " + RuleGrowth + " first: memory grew every iteration until it ran out."}, rem...)
		} else {
			rem = append(rem, "Reduce the batch size (or sequence length) at the origin, or use gradient accumulation.",
				"Enable activation checkpointing (torch.utils.checkpoint) or mixed precision (torch.autocast).")
		}
		class := "oom"
		var alts []string
		if fragExplainsOOM {
			class, alts = "oom-fragmentation", []string{"oom"}
		}
		f := base(report.Finding{Rule: RuleOOM, Class: class, Alternatives: alts, Severity: report.Error, Message: msg,
			Origin: a.origin(o.Site), Facts: facts, Remedies: rem})
		if o.Site >= 0 {
			f.Evidence = []report.Evidence{{Text: "failed allocation from " + siteText(a, o.Site)}}
		}
		out = append(out, f)
	}

	unused := a.Frag.Reserved - a.Frag.Allocated
	significant := unused*4 >= a.Frag.Reserved && unused >= 256<<20
	if fragExplainsOOM || significant {
		sev := report.Info
		msg := fmt.Sprintf("fragmentation: %s reserved but unallocated (%.0f%% of %s reserved); the largest free block is %s",
			FormatBytes(unused), pct(unused, a.Frag.Reserved), FormatBytes(a.Frag.Reserved), FormatBytes(a.Frag.LargestFree))
		if fragExplainsOOM {
			sev = report.Warning
			msg += fmt.Sprintf(", smaller than the failed %s request", FormatBytes(a.OOM.Requested))
		}
		if a.Frag.Trapped > 0 {
			msg += fmt.Sprintf("; %s sits in %d segments that also hold live blocks, which torch.cuda.empty_cache() cannot release",
				FormatBytes(a.Frag.Trapped), a.Frag.TrappedSegments)
		}
		var rem []string
		if s.ExpandableSegments == nil || !*s.ExpandableSegments {
			rem = append(rem, "Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True before the program starts: segments then grow in place instead of splitting.")
		}
		rem = append(rem, "Or set PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:<MB> (larger than most requests) so that large cached blocks are not split.")
		facts := map[string]any{"reserved_bytes": a.Frag.Reserved, "allocated_bytes": a.Frag.Allocated, "reserved_unallocated_bytes": unused,
			"largest_free_block_bytes": a.Frag.LargestFree, "trapped_bytes": a.Frag.Trapped, "trapped_segments": a.Frag.TrappedSegments}
		out = append(out, base(report.Finding{Rule: RuleFragmentation, Severity: sev, Message: msg, Facts: facts, Remedies: rem}))
	}

	peakMsg := fmt.Sprintf("peak %s allocated, %s reserved", FormatBytes(a.PeakAllocated), FormatBytes(a.PeakReserved))
	if a.HasHistory {
		peakMsg += fmt.Sprintf(" over %d recorded events; at the end %s allocated, %s reserved", a.Events, FormatBytes(a.FinalAllocated), FormatBytes(a.FinalReserved))
	} else {
		peakMsg += " (state at the snapshot: no history was recorded)"
	}
	peakFacts := map[string]any{
		"peak_allocated_bytes": a.PeakAllocated, "peak_reserved_bytes": a.PeakReserved,
		"final_allocated_bytes": a.FinalAllocated, "final_reserved_bytes": a.FinalReserved,
		"events": a.Events, "segments": a.Frag.Segments,
	}
	for _, st := range s.Settings {
		peakFacts["allocator."+st.Name] = st.Value
	}
	out = append(out, base(report.Finding{Rule: RulePeak, Severity: report.Info, Message: peakMsg, Facts: peakFacts}))

	rank := 0
	for _, st := range a.Top {
		if rank == MaxTopSites || (rank > 0 && st.PeakBytes*100 < a.PeakAllocated) {
			break
		}
		if st.Site == int(siteNoStack) {
			continue // memory/no-history says why there is no site
		}
		i := rank
		rank++
		label := a.Sites[st.Site].Label
		f := base(report.Finding{Rule: RuleTopSite, Severity: report.Info,
			Message: fmt.Sprintf("%s held %s at the peak (%.0f%%) in %d blocks", label, FormatBytes(st.PeakBytes), pct(st.PeakBytes, a.PeakAllocated), st.PeakBlocks),
			Origin:  a.origin(st.Site),
			Facts: map[string]any{"bytes": st.PeakBytes, "blocks": st.PeakBlocks, "share": pct(st.PeakBytes, a.PeakAllocated) / 100,
				"site": label, "rank_by_bytes": i + 1},
		})
		out = append(out, f)
	}

	if !a.HasHistory || !a.HasFrames {
		msg := "the snapshot has no allocation history: only the state at the end is known (no peak over time, no growth analysis)"
		if a.HasHistory {
			msg = "the snapshot has no stack traces: allocations cannot be attributed to lines of code"
		}
		out = append(out, base(report.Finding{Rule: RuleNoHistory, Severity: report.Info, Message: msg,
			Remedies: []string{"Record the history before the workload: torch.cuda.memory._record_memory_history(max_entries=100000), then torch.cuda.memory._dump_snapshot(\"snapshot.pickle\"); or run it under 'cudadoctor run --memory-snapshot DIR'."}}))
	}
	return out
}

func siteText(a *DeviceAnalysis, site int) string {
	if site < 0 || site >= len(a.Sites) {
		return "?"
	}
	s := a.Sites[site]
	if s.Frame == nil {
		return s.Label
	}
	return fmt.Sprintf("%s:%d in %s", s.Frame.Filename, s.Frame.Line, s.Frame.Name)
}

// Rules documents the memory analyses for `cudadoctor rules` and SARIF.
func RuleDocs() []report.RuleDoc { return slices.Clone(ruleDocs) }

// allocatorDocs is the PyTorch page every memory analysis rests on.
var allocatorDocs = []string{"https://docs.pytorch.org/docs/stable/torch_cuda_memory.html"}

var ruleDocs = []report.RuleDoc{
	{
		ID: RuleGrowth, Kind: report.KindMemory, Severity: report.Warning,
		Title:   "Memory grows every iteration",
		Summary: "Allocations from the same lines are made again and again across iterations and never freed (an error when the snapshot also records the resulting out-of-memory).",
		Sections: []report.DocSection{
			{Title: "Why", Body: "Tensors kept across iterations (a list of losses that still hold their autograd graphs, a growing cache) make memory climb until the allocator fails."},
			{Title: "Fix", Body: "Keep plain numbers (loss.item()) or detached tensors (loss.detach()); clear caches; check hooks and closures."},
		},
		References: allocatorDocs,
	},
	{
		ID: RuleOOM, Kind: report.KindMemory, Severity: report.Error,
		Title:   "Out-of-memory event recorded",
		Summary: "The history records a failed allocation: the requested size, and what CUDA reported free on the device.",
		Sections: []report.DocSection{
			{Title: "Why", Body: "When the device still had memory free, a per-process cap (set_per_process_memory_fraction) was hit rather than the card's capacity."},
			{Title: "Fix", Body: "Reduce what is held at the peak (see memory/top-site), or fix the growth the snapshot shows."},
		},
		References: allocatorDocs,
	},
	{
		ID: RuleFragmentation, Kind: report.KindMemory, Severity: report.Info,
		Title:   "Reserved but unallocated memory",
		Summary: "Much of the memory PyTorch reserved is not allocated, or the largest free block is smaller than the request that failed (a warning then).",
		Sections: []report.DocSection{
			{Title: "Why", Body: "The caching allocator splits large segments; freed pieces that are not contiguous cannot serve a large request, and segments that still hold a live block cannot be returned."},
			{Title: "Fix", Body: "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, or max_split_size_mb:<MB>."},
		},
		References: allocatorDocs,
	},
	{
		ID: RulePeak, Kind: report.KindMemory, Severity: report.Info,
		Title:   "Peak memory",
		Summary: "The highest allocated and reserved memory over the recorded history, the state at the end, and the allocator settings.",
		Sections: []report.DocSection{
			{Title: "Why", Body: "The peak is what must fit on the device."},
			{Title: "Fix", Body: "Compare it with the device's capacity and the per-process cap."},
		},
		References: allocatorDocs,
	},
	{
		ID: RuleTopSite, Kind: report.KindMemory, Severity: report.Info,
		Title:   "Top allocation site at the peak",
		Summary: "A line of the user's code whose allocations were live at the peak, with the bytes they held; the origin is the first frame outside PyTorch, installed packages and the standard library.",
		Sections: []report.DocSection{
			{Title: "Why", Body: "The largest sites are where reducing sizes or lifetimes pays most."},
			{Title: "Fix", Body: "Shrink or free what that line allocates before the peak."},
		},
		References: allocatorDocs,
	},
	{
		ID: RuleNoHistory, Kind: report.KindMemory, Severity: report.Info,
		Title:   "No allocation history in the snapshot",
		Summary: "The snapshot was taken without torch.cuda.memory._record_memory_history (or without stacks), so the analysis sees only the final state.",
		Sections: []report.DocSection{
			{Title: "Why", Body: "Without history there is no timeline, no growth analysis and no out-of-memory event."},
			{Title: "Fix", Body: "Call torch.cuda.memory._record_memory_history(max_entries=100000) before the workload, or use 'cudadoctor run --memory-snapshot DIR'."},
		},
		References: allocatorDocs,
	},
}
