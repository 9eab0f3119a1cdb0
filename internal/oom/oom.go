// Package oom parses the CUDA out-of-memory messages of PyTorch's caching
// allocator, in every wording from 1.x to 2.11, into byte counts, and says
// in one line what the numbers imply.
package oom

import (
	"math"
	"strconv"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Unknown marks a quantity the message does not state.
const Unknown int64 = -1

// Process is one entry of the per-process list (2.1+, read from NVML).
type Process struct {
	PID   int
	Bytes int64
}

// Message is a parsed OOM message. Every byte count is Unknown when the
// wording does not carry it.
type Message struct {
	// Form names the wording: "1.x" (parenthesised list), "2.1" (the
	// "total capacty" typo) or "2.x" (2.2 onwards).
	Form string
	// Device is the GPU index, -1 when not stated.
	Device int
	// Requested is the allocation that failed. HugeRequest marks "more
	// than 1EB", where Requested stays Unknown.
	Requested   int64
	HugeRequest bool
	// Capacity is the card's total memory, Free what CUDA reported free.
	Capacity int64
	Free     int64
	// ThisProcess is the NVML usage of the failing process ("Including
	// non-PyTorch memory, this process has ...").
	ThisProcess int64
	// Processes are the "Process N has X memory in use" entries, which may
	// include the failing process itself (2.1 form, containers).
	Processes []Process
	// OtherProcesses is the memory held by processes other than the
	// failing one (see others()); Unknown when no process is listed.
	OtherProcesses int64
	// Allocated is the memory PyTorch has handed out to tensors
	// (including private pools); ReservedUnallocated is cached by the
	// allocator but not handed out; ReservedTotal is their sum when the
	// message states it (1.x "reserved in total by PyTorch").
	Allocated           int64
	ReservedUnallocated int64
	ReservedTotal       int64
	// Allowed is the per-process cap of set_per_process_memory_fraction.
	Allowed int64
	// PrivatePools is memory allocated in private pools (CUDA Graphs).
	PrivatePools int64
	// BogusNVML is set when NVML reported a nonsense per-process size (the
	// 17179869184.00 GiB artefact); such entries are dropped.
	BogusNVML bool
}

const sizeRE = `([0-9][0-9,]*(?:\.[0-9]+)?) ?(bytes|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)`

var (
	headRE      = lazyre.New(`CUDA out of memory\. Tried to allocate (?:more than 1EB memory|` + sizeRE + `)`)
	hugeRE      = lazyre.New(`Tried to allocate more than 1EB memory`)
	oldGPURE    = lazyre.New(`\(GPU ([0-9]+); ` + sizeRE + ` total capacity`)
	oldAllocRE  = lazyre.New(`; ` + sizeRE + ` already allocated`)
	oldFreeRE   = lazyre.New(`; ` + sizeRE + ` free`)
	oldResRE    = lazyre.New(`; ` + sizeRE + ` reserved in total by PyTorch`)
	oldCacheRE  = lazyre.New(`; ` + sizeRE + ` cached\)`)
	allowedRE   = lazyre.New(sizeRE + ` allowed;`)
	newCapRE    = lazyre.New(`GPU ([0-9]+) has a total (?:capacity|capacty) of ` + sizeRE + ` of which ` + sizeRE + ` is free`)
	thisProcRE  = lazyre.New(`this process has ` + sizeRE + ` memory in use`)
	procRE      = lazyre.New(`Process ([0-9]+) has ` + sizeRE + ` memory in use`)
	newAllocRE  = lazyre.New(`Of the allocated memory ` + sizeRE + ` is allocated by PyTorch`)
	poolsRE     = lazyre.New(`with ` + sizeRE + ` allocated in private pools`)
	newUnallRE  = lazyre.New(sizeRE + ` is reserved by PyTorch but unallocated`)
	capTypoForm = "total capacty"
)

// Parse reads one OOM message (one line, or several joined). It reports
// false when text holds no "CUDA out of memory. Tried to allocate".
func Parse(text string) (Message, bool) {
	m := Message{Device: -1, Requested: Unknown, Capacity: Unknown, Free: Unknown, ThisProcess: Unknown,
		OtherProcesses: Unknown, Allocated: Unknown, ReservedUnallocated: Unknown, ReservedTotal: Unknown,
		Allowed: Unknown, PrivatePools: Unknown}
	loc := headRE.FindStringSubmatchIndex(text)
	if loc == nil {
		return m, false
	}
	head := text[loc[0]:loc[1]]
	rest := text[loc[1]:]
	if hugeRE.MatchString(head) {
		m.HugeRequest = true
	} else if sub := headRE.FindStringSubmatch(head); sub != nil {
		m.Requested = size(sub[1], sub[2])
	}
	if sub := allowedRE.FindStringSubmatch(rest); sub != nil {
		m.Allowed = size(sub[1], sub[2])
	}
	switch {
	case newCapRE.MatchString(rest):
		m.Form = "2.x"
		if strings.Contains(rest, capTypoForm) {
			m.Form = "2.1"
		}
		sub := newCapRE.FindStringSubmatch(rest)
		m.Device = atoi(sub[1])
		m.Capacity = size(sub[2], sub[3])
		m.Free = size(sub[4], sub[5])
		if s := thisProcRE.FindStringSubmatch(rest); s != nil {
			m.ThisProcess = m.sane(size(s[1], s[2]))
		}
		for _, s := range procRE.FindAllStringSubmatch(rest, -1) {
			b := m.sane(size(s[2], s[3]))
			if b == Unknown {
				continue
			}
			m.Processes = append(m.Processes, Process{PID: atoi(s[1]), Bytes: b})
		}
		if s := newAllocRE.FindStringSubmatch(rest); s != nil {
			m.Allocated = size(s[1], s[2])
		}
		if s := poolsRE.FindStringSubmatch(rest); s != nil {
			m.PrivatePools = size(s[1], s[2])
		}
		if s := newUnallRE.FindStringSubmatch(rest); s != nil {
			m.ReservedUnallocated = size(s[1], s[2])
		}
		if m.Allocated != Unknown && m.ReservedUnallocated != Unknown {
			m.ReservedTotal = m.Allocated + m.ReservedUnallocated
		}
	case oldGPURE.MatchString(rest):
		m.Form = "1.x"
		sub := oldGPURE.FindStringSubmatch(rest)
		m.Device = atoi(sub[1])
		m.Capacity = size(sub[2], sub[3])
		if s := oldAllocRE.FindStringSubmatch(rest); s != nil {
			m.Allocated = size(s[1], s[2])
		}
		if s := oldFreeRE.FindStringSubmatch(rest); s != nil {
			m.Free = size(s[1], s[2])
		}
		if s := oldResRE.FindStringSubmatch(rest); s != nil {
			m.ReservedTotal = size(s[1], s[2])
			if m.Allocated != Unknown && m.ReservedTotal >= m.Allocated {
				m.ReservedUnallocated = m.ReservedTotal - m.Allocated
			}
		} else if s := oldCacheRE.FindStringSubmatch(rest); s != nil {
			// PyTorch 1.0-1.3 printed the cached-but-free bytes as "cached"
			// (it can be far below "already allocated").
			m.ReservedUnallocated = size(s[1], s[2])
			if m.Allocated != Unknown {
				m.ReservedTotal = m.Allocated + m.ReservedUnallocated
			}
		}
	default:
		m.Form = "2.x"
	}
	m.OtherProcesses = m.others()
	return m, true
}

// sane drops per-process sizes NVML cannot mean: larger than the card, or
// the 2^34 GiB value it reports when the figure is unavailable.
func (m *Message) sane(b int64) int64 {
	if b == Unknown {
		return Unknown
	}
	if b >= 1<<50 || (m.Capacity > 0 && b > m.Capacity+m.Capacity/10) {
		m.BogusNVML = true
		return Unknown
	}
	return b
}

// others sums the listed processes that are not the failing one. When the
// message names the failing process ("this process has"), every "Process N"
// entry is another process. Otherwise (2.1 wording, or a container where
// NVML's pids differ) the failing process is presumed to be the smallest
// entry that still covers what PyTorch reserved, or failing that the largest.
func (m *Message) others() int64 {
	if len(m.Processes) == 0 {
		if m.ThisProcess != Unknown {
			return 0
		}
		return Unknown
	}
	var sum int64
	for _, p := range m.Processes {
		sum += p.Bytes
	}
	if m.ThisProcess != Unknown {
		return sum
	}
	own := -1
	if m.ReservedTotal != Unknown {
		for i, p := range m.Processes {
			if p.Bytes >= m.ReservedTotal && (own < 0 || p.Bytes < m.Processes[own].Bytes) {
				own = i
			}
		}
	}
	if own < 0 {
		for i, p := range m.Processes {
			if own < 0 || p.Bytes > m.Processes[own].Bytes {
				own = i
			}
		}
	}
	return sum - m.Processes[own].Bytes
}

var units = map[string]float64{
	"bytes": 1, "B": 1,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
	// PyTorch never prints SI units; users' hand-edited reports do.
	"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40,
}

func size(num, unit string) int64 {
	f, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return Unknown
	}
	v := f * units[unit]
	if v >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(math.Round(v))
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return -1
	}
	return n
}
