package oom

import (
	"fmt"
	"strconv"
)

// RequestExceedsCapacity: no amount of freeing helps, the one allocation is
// larger than the whole card.
func (m Message) RequestExceedsCapacity() bool {
	return m.HugeRequest || (m.Requested > 0 && m.Capacity > 0 && m.Requested > m.Capacity)
}

// CapApplies: a set_per_process_memory_fraction cap is in force and the
// card itself still had room for the request.
func (m Message) CapApplies() bool {
	if m.Allowed == Unknown {
		return false
	}
	if m.Capacity > 0 && m.Allowed >= m.Capacity {
		return false
	}
	return m.Free == Unknown || m.Requested == Unknown || m.Free >= m.Requested
}

// Fragmented: the allocator holds at least the requested amount as cached
// but unallocated memory, yet found no block for it, and that cache is a
// noticeable share of the card, and the card is not nearly full.
func (m Message) Fragmented() bool {
	return m.cacheCouldServe() && !m.NearlyFull()
}

// cacheCouldServe: the cached-but-unallocated memory is at least the
// request and a noticeable share of the card (5%; 1 GiB when the capacity
// is unknown).
func (m Message) cacheCouldServe() bool {
	if m.ReservedUnallocated == Unknown || m.Requested == Unknown || m.RequestExceedsCapacity() {
		return false
	}
	if m.ReservedUnallocated < m.Requested {
		return false
	}
	if m.Capacity > 0 {
		return m.ReservedUnallocated*20 >= m.Capacity
	}
	return m.ReservedUnallocated >= 1<<30
}

// NearlyFull: what PyTorch had allocated plus the request fill at least
// 90% of the card. Then the cached-but-unallocated memory is no explanation
// (the allocation would barely fit even unfragmented): the job needs less
// memory, not another allocator setting.
func (m Message) NearlyFull() bool {
	return m.Capacity > 0 && m.Allocated != Unknown && m.Requested != Unknown && m.Requested > 0 &&
		(m.Allocated+m.Requested)*10 >= m.Capacity*9
}

// OthersHoldMemory: processes other than the failing one hold at least a
// tenth of the card.
func (m Message) OthersHoldMemory() bool {
	if m.OtherProcesses == Unknown || m.OtherProcesses <= 0 {
		return false
	}
	if m.Capacity > 0 {
		return m.OtherProcesses*10 >= m.Capacity
	}
	return m.Requested > 0 && m.OtherProcesses >= m.Requested
}

// CardFull: CUDA reported less free memory than the request, or under 2%
// of the card.
func (m Message) CardFull() bool {
	if m.Free == Unknown {
		return false
	}
	if m.Requested > 0 && m.Free < m.Requested {
		return true
	}
	return m.Capacity > 0 && m.Free*50 < m.Capacity
}

// Verdict says in one line what the numbers imply, most decisive reading
// first: an impossible request, a memory-fraction cap, fragmentation,
// other processes, plain exhaustion.
func Verdict(m Message) string {
	switch {
	case m.HugeRequest:
		return "the request (more than 1 EB) cannot fit any GPU: a size computation overflowed or a shape is wrong"
	case m.RequestExceedsCapacity():
		return fmt.Sprintf("the request (%s) is larger than the whole card (%s)", Format(m.Requested), Format(m.Capacity))
	case m.CapApplies():
		s := fmt.Sprintf("a memory-fraction cap of %s applies", Format(m.Allowed))
		if m.Free != Unknown {
			s += fmt.Sprintf(" while the card still has %s free", Format(m.Free))
		}
		return s
	case m.Fragmented():
		return fmt.Sprintf("%s is reserved but unallocated: fragmentation (the request was %s)", Format(m.ReservedUnallocated), Format(m.Requested))
	case m.Free != Unknown && m.Requested > 0 && m.Free >= m.Requested && !m.CardFull():
		return fmt.Sprintf("CUDA could not allocate %s although the card reports %s free: that free memory is not usable by this process (fragmented, or held by the driver or another context)", Format(m.Requested), Format(m.Free))
	case m.OthersHoldMemory():
		s := fmt.Sprintf("other processes hold %s of the card", Format(m.OtherProcesses))
		if m.Capacity > 0 {
			s += fmt.Sprintf(" (%s)", Format(m.Capacity))
		}
		return s
	}
	var s string
	switch {
	case m.NearlyFull() && m.cacheCouldServe():
		// The cache could hold the request, which invites a fragmentation
		// reading; the numbers say the card is simply nearly full.
		return fmt.Sprintf("the card is nearly full: PyTorch has %s allocated of %s and the request needs %s more (%.0f%% of the card); the %s reserved but unallocated is not the problem",
			Format(m.Allocated), Format(m.Capacity), Format(m.Requested), 100*float64(m.Allocated+m.Requested)/float64(m.Capacity), Format(m.ReservedUnallocated))
	case m.Allocated != Unknown && m.Capacity > 0:
		s = fmt.Sprintf("the GPU is full: PyTorch has %s allocated of %s", Format(m.Allocated), Format(m.Capacity))
	case m.Capacity > 0 && m.Free != Unknown:
		s = fmt.Sprintf("the GPU is full: %s free of %s", Format(m.Free), Format(m.Capacity))
	default:
		s = "the GPU ran out of memory"
	}
	if m.Requested > 0 {
		s += fmt.Sprintf(" and the request needs %s more", Format(m.Requested))
	}
	return s
}

// Facts exposes the numbers with stable keys, in bytes, for the knowledge
// base's predicates and for JSON output. Unknown quantities are left out.
func Facts(m Message) map[string]string {
	f := map[string]string{"oom_form": m.Form}
	put := func(k string, v int64) {
		if v != Unknown {
			f[k] = strconv.FormatInt(v, 10)
		}
	}
	put("requested_bytes", m.Requested)
	put("capacity_bytes", m.Capacity)
	put("free_bytes", m.Free)
	put("process_bytes", m.ThisProcess)
	put("other_processes_bytes", m.OtherProcesses)
	put("allocated_bytes", m.Allocated)
	put("reserved_unallocated_bytes", m.ReservedUnallocated)
	put("reserved_bytes", m.ReservedTotal)
	put("allowed_bytes", m.Allowed)
	put("private_pools_bytes", m.PrivatePools)
	if m.HugeRequest {
		f["requested_over_1eb"] = "true"
	}
	if m.Device >= 0 {
		f["device"] = strconv.Itoa(m.Device)
	}
	if len(m.Processes) > 0 {
		var s string
		for i, p := range m.Processes {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf("%d:%d", p.PID, p.Bytes)
		}
		f["processes"] = s
	}
	return f
}

// FromFacts rebuilds a Message from Facts' output (what the knowledge
// base's predicates receive).
func FromFacts(f map[string]string) (Message, bool) {
	if f["oom_form"] == "" && f["requested_bytes"] == "" {
		return Message{}, false
	}
	get := func(k string) int64 {
		v, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil {
			return Unknown
		}
		return v
	}
	m := Message{Form: f["oom_form"], Device: -1, Requested: get("requested_bytes"), HugeRequest: f["requested_over_1eb"] == "true",
		Capacity: get("capacity_bytes"), Free: get("free_bytes"), ThisProcess: get("process_bytes"),
		OtherProcesses: get("other_processes_bytes"), Allocated: get("allocated_bytes"),
		ReservedUnallocated: get("reserved_unallocated_bytes"), ReservedTotal: get("reserved_bytes"),
		Allowed: get("allowed_bytes"), PrivatePools: get("private_pools_bytes")}
	if d, err := strconv.Atoi(f["device"]); err == nil {
		m.Device = d
	}
	return m, true
}

// Format prints a byte count as PyTorch's format_size does.
func Format(b int64) string {
	switch {
	case b < 0:
		return "?"
	case b <= 1024:
		return fmt.Sprintf("%d bytes", b)
	case b <= 1<<20:
		return fmt.Sprintf("%.2f KiB", float64(b)/(1<<10))
	case b <= 1<<30:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	default:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
}
