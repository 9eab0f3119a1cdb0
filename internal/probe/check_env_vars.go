package probe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

var envVarsCheck = Check{
	RuleDoc: report.RuleDoc{
		ID: "env/env-vars", Kind: report.KindProbe, Severity: report.Error,
		Title:   "environment variables are spelled as this torch reads them",
		Summary: "Flags variables the installed torch has renamed or ignores (TORCH_NCCL_TRACE_BUFFER_SIZE -> TORCH_FR_BUFFER_SIZE in 2.11; PYTORCH_ALLOC_CONF before 2.8; PYTORCH_CUDA_ALLOC_CONF, deprecated from 2.8 to 2.11), both spellings set to different values, caching-allocator options torch rejects at start-up, and debugging switches left on.",
		Sections: []report.DocSection{
			{Title: "Class", Body: "other"},
			{Title: "Fix", Body: "Rename or remove the variable as the finding says."},
		},
	},
	Run: runEnvVars,
}

// renames are variables newer torch reads under another name.
var renames = []struct {
	old, new string
	since    string // the release whose torch warns about the old name
	class    string
}{
	{"TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_FR_BUFFER_SIZE", "2.11", "nccl-error"},
	{"TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "TORCH_FR_DUMP_TEMP_FILE", "2.11", "nccl-error"},
	{"TORCH_NCCL_DUMP_ON_TIMEOUT", "TORCH_FR_DUMP_ON_TIMEOUT", "", "nccl-error"},
	{"TORCH_NCCL_TRACE_CPP_STACK", "TORCH_FR_CPP_STACK", "", "nccl-error"},
	{"NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_ASYNC_ERROR_HANDLING", "2.2", "nccl-error"},
	{"NCCL_BLOCKING_WAIT", "TORCH_NCCL_BLOCKING_WAIT", "2.2", "nccl-error"},
}

// allocOptions are the caching-allocator options (knowledge base §7.1).
var allocOptions = map[string]bool{
	"backend": true, "max_split_size_mb": true, "max_non_split_rounding_mb": true, "roundup_power2_divisions": true,
	"garbage_collection_threshold": true, "expandable_segments": true, "release_lock_on_cudamalloc": true,
	"pinned_use_cuda_host_register": true, "pinned_num_register_threads": true, "pinned_use_background_threads": true,
	"graph_capture_record_stream_reuse": true, "per_process_memory_fraction": true, "pinned_reserve_segment_size_mb": true,
}

func runEnvVars(f *Facts) Result {
	t := f.torch()
	rel := ""
	if t != nil {
		rel = torchRelease(t.Version)
	}
	var fs []report.Finding
	for _, r := range renames {
		oldV, oldSet := f.Env[r.old]
		newV, newSet := f.Env[r.new]
		switch {
		case oldSet && newSet && oldV != newV:
			fd := finding(report.Warning, fmt.Sprintf("both %s=%s and %s=%s are set: one silently wins", r.old, oldV, r.new, newV),
				fmt.Sprintf("Keep one: unset %s", r.old))
			fd.Class = r.class
			fs = append(fs, fd)
		case oldSet && r.since != "" && rel != "" && releaseAtLeast(rel, r.since):
			fd := finding(report.Info, fmt.Sprintf("%s is deprecated in torch %s; it is read as %s", r.old, rel, r.new),
				fmt.Sprintf("Rename it: export %s=%s; unset %s", r.new, oldV, r.old))
			fd.Class = r.class
			fs = append(fs, fd)
		case newSet && !oldSet && strings.HasPrefix(r.new, "TORCH_FR_") && rel != "" && !releaseAtLeast(rel, "2.7"):
			fd := finding(report.Warning, fmt.Sprintf("torch %s does not read %s (a newer name): the setting is ignored", rel, r.new),
				fmt.Sprintf("Use the old name for this torch: export %s=%s", r.old, newV))
			fd.Class = r.class
			fs = append(fs, fd)
		}
	}
	fs = append(fs, allocConfFindings(f, rel)...)
	if v, ok := f.Env["PYTORCH_NO_CUDA_MEMORY_CACHING"]; ok && v != "" && v != "0" {
		fd := finding(report.Warning, "PYTORCH_NO_CUDA_MEMORY_CACHING="+v+" disables the caching allocator: every tensor is a cudaMalloc/cudaFree (slow; meant for compute-sanitizer runs)",
			"unset PYTORCH_NO_CUDA_MEMORY_CACHING")
		fd.Class = "other"
		fs = append(fs, fd)
	}
	if len(fs) > 0 {
		return failWith(fs...)
	}
	var set []string
	for k := range f.Env {
		if strings.HasPrefix(k, "TORCH_") || strings.HasPrefix(k, "NCCL_") || strings.HasPrefix(k, "PYTORCH_") {
			set = append(set, k)
		}
	}
	sort.Strings(set)
	if len(set) == 0 {
		return pass("no torch or NCCL variable set")
	}
	return pass("%s look right", strings.Join(set, ", "))
}

func allocConfFindings(f *Facts, rel string) []report.Finding {
	var fs []report.Finding
	cudaV, cudaSet := f.Env["PYTORCH_CUDA_ALLOC_CONF"]
	genV, genSet := f.Env["PYTORCH_ALLOC_CONF"]
	add := func(sev report.Severity, msg string, remedies ...string) {
		fd := finding(sev, msg, remedies...)
		fd.Class = "oom"
		fs = append(fs, fd)
	}
	switch {
	case cudaSet && genSet && cudaV != genV:
		add(report.Warning, fmt.Sprintf("PYTORCH_CUDA_ALLOC_CONF=%s and PYTORCH_ALLOC_CONF=%s differ: only one of them is read", cudaV, genV),
			"Keep one spelling: unset PYTORCH_CUDA_ALLOC_CONF (torch >= 2.8 reads PYTORCH_ALLOC_CONF)")
	case genSet && !cudaSet && rel != "" && !releaseAtLeast(rel, "2.8"):
		add(report.Warning, fmt.Sprintf("torch %s does not read PYTORCH_ALLOC_CONF (new in 2.8): the allocator settings %q are ignored", rel, genV),
			"export PYTORCH_CUDA_ALLOC_CONF="+genV)
	case genSet && !cudaSet && strings.HasPrefix(rel, "2.9") && strings.Contains(genV, "expandable_segments"):
		add(report.Warning, fmt.Sprintf("torch %s ignores expandable_segments given through PYTORCH_ALLOC_CONF for CUDA (fixed by 2.11)", rel),
			"export PYTORCH_CUDA_ALLOC_CONF="+genV, "Or upgrade torch to 2.11 or newer")
	case cudaSet && !genSet && rel != "" && releaseAtLeast(rel, "2.8") && !releaseAtLeast(rel, "2.12") && !strings.HasPrefix(rel, "2.9"):
		add(report.Info, fmt.Sprintf("PYTORCH_CUDA_ALLOC_CONF is deprecated in torch %s (it warns at start-up); the new name is PYTORCH_ALLOC_CONF", rel),
			fmt.Sprintf("export PYTORCH_ALLOC_CONF=%s; unset PYTORCH_CUDA_ALLOC_CONF", cudaV))
	}
	for _, name := range []string{"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"} {
		v, ok := f.Env[name]
		if !ok {
			continue
		}
		for _, problem := range checkAllocConf(v) {
			add(problem.sev, fmt.Sprintf("%s=%s: %s", name, v, problem.msg), problem.fix)
		}
	}
	return fs
}

type allocProblem struct {
	sev      report.Severity
	msg, fix string
}

// checkAllocConf validates "key:value,key:value" as the caching allocator
// parses it at start-up.
func checkAllocConf(v string) []allocProblem {
	var out []allocProblem
	opts := map[string]string{}
	// roundup_power2_divisions may hold a bracketed list with commas.
	depth, start := 0, 0
	var items []string
	for i, c := range v {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, v[start:i])
				start = i + 1
			}
		}
	}
	items = append(items, v[start:])
	for _, item := range items {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, val, ok := strings.Cut(item, ":")
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		if !ok {
			out = append(out, allocProblem{report.Error, fmt.Sprintf("%q is not key:value", item), "Write options as key:value, comma-separated, e.g. expandable_segments:True"})
			continue
		}
		if !allocOptions[k] {
			out = append(out, allocProblem{report.Warning, fmt.Sprintf("unknown allocator option %q (torch rejects options it does not know at start-up)", k), "Check the spelling against https://docs.pytorch.org/docs/stable/notes/cuda.html#memory-management"})
			continue
		}
		opts[k] = val
		switch k {
		case "max_split_size_mb":
			if n, err := strconv.ParseFloat(val, 64); err != nil || n <= 20 {
				out = append(out, allocProblem{report.Error, "max_split_size_mb must be a number of MB above 20", "Use e.g. max_split_size_mb:128"})
			}
		case "garbage_collection_threshold":
			if n, err := strconv.ParseFloat(val, 64); err != nil || n <= 0 || n >= 1 {
				out = append(out, allocProblem{report.Error, "garbage_collection_threshold must lie between 0 and 1", "Use e.g. garbage_collection_threshold:0.8"})
			}
		case "expandable_segments":
			if val != "True" && val != "False" {
				out = append(out, allocProblem{report.Error, "expandable_segments takes True or False (capitalised)", "Use expandable_segments:True"})
			}
		case "backend":
			if val != "native" && val != "cudaMallocAsync" {
				out = append(out, allocProblem{report.Error, "backend is native or cudaMallocAsync", "Use backend:cudaMallocAsync or remove it"})
			}
		}
	}
	if opts["backend"] == "cudaMallocAsync" && opts["expandable_segments"] == "True" {
		out = append(out, allocProblem{report.Warning, "expandable_segments applies to the native allocator only; with backend:cudaMallocAsync it has no effect", "Drop one of the two options"})
	}
	return out
}
