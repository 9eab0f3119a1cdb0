package kb

import (
	"strconv"

	"github.com/cudadoctor/cudadoctor/internal/oom"
)

// predicates is the registry that refinements' and remedies' `when:`
// fields name. Each entry is unit-tested in predicates_test.go.
var predicates = map[string]Predicate{
	// oom -> oom-fragmentation: the allocator caches at least the request
	// as reserved-but-unallocated memory, a noticeable share of the card.
	"unallocated_exceeds_request": oomHolds(oom.Message.Fragmented),
	// The one allocation is larger than the whole card.
	"request_exceeds_capacity": oomHolds(oom.Message.RequestExceedsCapacity),
	// Other processes hold at least a tenth of the card.
	"other_processes_hold_memory": oomHolds(oom.Message.OthersHoldMemory),
	// A set_per_process_memory_fraction cap is in force.
	"memory_fraction_cap": oomHolds(oom.Message.CapApplies),
	// Plain exhaustion: none of the more specific readings above applies.
	"plain_exhaustion": func(f map[string]string) bool {
		m, ok := oom.FromFacts(f)
		return ok && m.CardFull() && !m.RequestExceedsCapacity() && !m.CapApplies() && !m.Fragmented() && !m.OthersHoldMemory() && f["memory_growth"] == ""
	},
	// The log shows the allocated memory climbing reading after reading
	// (the memory_growth fact): a leak, which a smaller batch only delays.
	"memory_grows": func(f map[string]string) bool {
		return f["memory_growth"] != ""
	},
	// No growth was seen: whether memory grows is still to be checked.
	"memory_growth_unseen": func(f map[string]string) bool {
		return f["memory_growth"] == ""
	},
	// The card had no room left: from an OOM message's numbers, from an
	// nvidia-smi table pasted next to the failure (95% or more in use),
	// from XLA's memory reading or a start-up device listing (5% or less
	// free).
	"card_full": cardFull,
	// TensorFlow or XLA could not create a cuDNN handle with an internal
	// error, and no memory reading shows half the card free: both reserve
	// most of the card at start-up (TensorFlow nearly all of it, JAX 75%),
	// so cuDNN's handle found no room. NOT_INITIALIZED, which XLA pairs
	// with a driver hint, and a reading with ample free memory do not
	// count.
	"dnn_handle_starved": func(f map[string]string) bool {
		if f["cudnn_handle_status"] != "INTERNAL_ERROR" {
			return false
		}
		share, ok := freeShare(f)
		return !ok || share < 0.5
	},
	// JAX could not initialise cuBLAS: JAX reserves most of the card when it
	// starts (75% by default, XLA_PYTHON_CLIENT_PREALLOCATE), so cuBLAS's
	// handle found no room, unless a memory reading shows half the card
	// free.
	"jax_blas_handle_starved": func(f map[string]string) bool {
		if f["framework"] != "jax" || f["cublas_status"] != "NOT_INITIALIZED" {
			return false
		}
		share, ok := freeShare(f)
		return !ok || share < 0.5
	},
	// A multinomial probability check failed and the run computes in half
	// precision: the probabilities overflowed to inf/nan.
	"multinomial_after_fp16": func(f map[string]string) bool {
		return f["probability_check"] != "" && f["half_precision"] != ""
	},
	// An NCCL failure that is not about /dev/shm: collective-order and
	// debugging advice apply; to a shared-memory error they do not.
	"nccl_not_shm": func(f map[string]string) bool {
		return f["nccl_shm"] == ""
	},
	// The build lacks the GPU's architecture, not the GPU a feature nor a
	// TensorRT engine the GPU it was built on: a "needs compute capability
	// X or newer" message (bfloat16 on a T4) is fixed by the program's
	// settings or other hardware, an engine from another GPU by building
	// it here; neither by another wheel.
	"build_lacks_arch": func(f map[string]string) bool {
		return f["required_cc"] == "" && f["engine_cc"] == ""
	},
	// A collective timed out: only then can raising the timeout be a fix.
	"nccl_timed_out": func(f map[string]string) bool {
		return f["timeout_ms"] != "" && f["nccl_shm"] == ""
	},
}

func oomHolds(p func(oom.Message) bool) Predicate {
	return func(f map[string]string) bool {
		m, ok := oom.FromFacts(f)
		return ok && p(m)
	}
}

func cardFull(f map[string]string) bool {
	if m, ok := oom.FromFacts(f); ok && m.CardFull() {
		return true
	}
	used, err1 := strconv.ParseFloat(f["smi_used_mib"], 64)
	total, err2 := strconv.ParseFloat(f["smi_total_mib"], 64)
	if err1 == nil && err2 == nil && total > 0 && used >= 0.95*total {
		return true
	}
	// XLA logs the card's free memory when a library handle cannot be
	// created; 5% or less free is the same full card in other words, and
	// so is a start-up device listing that found 5% or less free (other
	// processes held the rest).
	if share, ok := freeShare(f); ok && share <= 0.05 {
		return true
	}
	if share, ok := startupFreeShare(f); ok && share <= 0.05 {
		return true
	}
	share, ok := autobatchShare(f)
	return ok && share >= autobatchFullShare
}

// freeShare is the share of the card XLA's memory reading found free.
func freeShare(f map[string]string) (float64, bool) {
	free, err1 := strconv.ParseFloat(f["free_bytes"], 64)
	total, err2 := strconv.ParseFloat(f["total_bytes"], 64)
	if err1 != nil || err2 != nil || total <= 0 {
		return 0, false
	}
	return free / total, true
}
