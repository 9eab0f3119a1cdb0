package oom

import (
	"strings"
	"testing"
)

const (
	gib = int64(1) << 30
	mib = int64(1) << 20
	kib = int64(1) << 10
)

func approx(got, want int64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	// The messages print two decimals: allow half a unit in the last place.
	tol := want / 200
	if tol < 6*kib {
		tol = 6 * kib
	}
	return got != Unknown && d <= tol
}

func TestParseRealMessages(t *testing.T) {
	cases := []struct {
		name                                                    string
		text                                                    string
		form                                                    string
		requested, capacity, free, this, others, alloc, unalloc int64
		allowed                                                 int64
		verdict                                                 string
	}{
		{
			name:      "s05 request larger than the card (2.11)",
			text:      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 122.07 GiB. GPU 0 has a total capacity of 79.18 GiB of which 78.41 GiB is free. Including non-PyTorch memory, this process has 776.00 MiB memory in use. Of the allocated memory 256.03 MiB is allocated by PyTorch, and 1.97 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)",
			form:      "2.x",
			requested: 12207 * gib / 100, capacity: 7918 * gib / 100, free: 7841 * gib / 100, this: 776 * mib, others: 0,
			alloc: 25603 * mib / 100, unalloc: 197 * mib / 100, allowed: Unknown,
			verdict: "the request (122.07 GiB) is larger than the whole card (79.18 GiB)",
		},
		{
			name:      "s06 fragmentation (2.11)",
			text:      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 12.19 MiB is free. Including non-PyTorch memory, this process has 79.16 GiB memory in use. Of the allocated memory 15.73 GiB is allocated by PyTorch, and 62.92 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.",
			form:      "2.x",
			requested: 24 * gib, capacity: 7918 * gib / 100, free: 1219 * mib / 100, this: 7916 * gib / 100, others: 0,
			alloc: 1573 * gib / 100, unalloc: 6292 * gib / 100, allowed: Unknown,
			verdict: "62.92 GiB is reserved but unallocated: fragmentation (the request was 24.00 GiB)",
		},
		{
			name:      "s28 plain exhaustion (2.11)",
			text:      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 79.18 GiB of which 40.19 MiB is free. Including non-PyTorch memory, this process has 79.13 GiB memory in use. Of the allocated memory 78.47 GiB is allocated by PyTorch, and 772.50 KiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLO",
			form:      "2.x",
			requested: 64 * mib, capacity: 7918 * gib / 100, free: 4019 * mib / 100, this: 7913 * gib / 100, others: 0,
			alloc: 7847 * gib / 100, unalloc: 77250 * kib / 100, allowed: Unknown,
			verdict: "the GPU is full: PyTorch has 78.47 GiB allocated of 79.18 GiB and the request needs 64.00 MiB more",
		},
		{
			name:      "s30 zero bytes unallocated (2.11)",
			text:      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 139.80 GiB of which 3.12 MiB is free. Including non-PyTorch memory, this process has 139.79 GiB memory in use. Of the allocated memory 139.28 GiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_",
			form:      "2.x",
			requested: 2 * mib, capacity: 13980 * gib / 100, free: 312 * mib / 100, this: 13979 * gib / 100, others: 0,
			alloc: 13928 * gib / 100, unalloc: 0, allowed: Unknown,
			verdict: "the GPU is full: PyTorch has 139.28 GiB allocated of 139.80 GiB and the request needs 2.00 MiB more",
		},
		{
			name:      "s33 memory-fraction cap (2.11)",
			text:      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 MiB. GPU 0 has a total capacity of 139.80 GiB of which 127.96 GiB is free. Including non-PyTorch memory, this process has 11.83 GiB memory in use. 11.18 GiB allowed; Of the allocated memory 11.17 GiB is allocated by PyTorch, and 890.50 KiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try sett",
			form:      "2.x",
			requested: 16 * mib, capacity: 13980 * gib / 100, free: 12796 * gib / 100, this: 1183 * gib / 100, others: 0,
			alloc: 1117 * gib / 100, unalloc: 89050 * kib / 100, allowed: 1118 * gib / 100,
			verdict: "a memory-fraction cap of 11.18 GiB applies while the card still has 127.96 GiB free",
		},
		{
			name:      "2.1 typo form, own process listed as Process N",
			text:      "CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacty of 14.75 GiB of which 11.06 MiB is free. Process 3258 has 14.73 GiB memory in use. Of the allocated memory 14.04 GiB is allocated by PyTorch, and 509.85 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
			form:      "2.1",
			requested: 224 * mib, capacity: 1475 * gib / 100, free: 1106 * mib / 100, this: Unknown, others: 0,
			alloc: 1404 * gib / 100, unalloc: 50985 * mib / 100, allowed: Unknown,
			verdict: "the GPU is full: PyTorch has 14.04 GiB allocated of 14.75 GiB and the request needs 224.00 MiB more",
		},
		{
			name:      "1.x form",
			text:      "RuntimeError: CUDA out of memory. Tried to allocate 152.00 MiB (GPU 0; 31.72 GiB total capacity; 24.89 GiB already allocated; 6.12 MiB free; 30.70 GiB reserved in total by PyTorch)",
			form:      "1.x",
			requested: 152 * mib, capacity: 3172 * gib / 100, free: 612 * mib / 100, this: Unknown, others: Unknown,
			alloc: 2489 * gib / 100, unalloc: (3070 - 2489) * gib / 100, allowed: Unknown,
			verdict: "5.81 GiB is reserved but unallocated: fragmentation (the request was 152.00 MiB)",
		},
		{
			name:      "1.x form with a cap",
			text:      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 3.90 GiB already allocated; 11.50 GiB free; 3.94 GiB allowed; 3.96 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
			form:      "1.x",
			requested: 20 * mib, capacity: 1578 * gib / 100, free: 1150 * gib / 100, this: Unknown, others: Unknown,
			alloc: 390 * gib / 100, unalloc: 6 * gib / 100, allowed: 394 * gib / 100,
			verdict: "a memory-fraction cap of 3.94 GiB applies while the card still has 11.50 GiB free",
		},
		{
			name:      "other processes hold the card (2.6)",
			text:      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.02 GiB is free. Process 1234 has 14.20 GiB memory in use. Process 5678 has 2.10 GiB memory in use. Including non-PyTorch memory, this process has 6.30 GiB memory in use. Of the allocated memory 5.80 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but unallocated.",
			form:      "2.x",
			requested: 3 * gib / 2, capacity: 2364 * gib / 100, free: 102 * gib / 100, this: 630 * gib / 100, others: 1630 * gib / 100,
			alloc: 580 * gib / 100, unalloc: 120 * mib, allowed: Unknown,
			verdict: "other processes hold 16.30 GiB of the card (23.64 GiB)",
		},
		{
			name:      "bogus NVML size is dropped",
			text:      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 7.79 GiB of which 12.50 MiB is free. Process 38 has 17179869184.00 GiB memory in use. Of the allocated memory 7.41 GiB is allocated by PyTorch, and 194.35 MiB is reserved by PyTorch but unallocated.",
			form:      "2.x",
			requested: 20 * mib, capacity: 779 * gib / 100, free: 1250 * mib / 100, this: Unknown, others: Unknown,
			alloc: 741 * gib / 100, unalloc: 19435 * mib / 100, allowed: Unknown,
			verdict: "the GPU is full: PyTorch has 7.41 GiB allocated of 7.79 GiB and the request needs 20.00 MiB more",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, ok := Parse(c.text)
			if !ok {
				t.Fatal("not parsed")
			}
			if m.Form != c.form {
				t.Errorf("form %q, want %q", m.Form, c.form)
			}
			check := func(what string, got, want int64) {
				t.Helper()
				if want == Unknown {
					if got != Unknown {
						t.Errorf("%s = %d, want unknown", what, got)
					}
					return
				}
				if want == 0 && got != 0 || want != 0 && !approx(got, want) {
					t.Errorf("%s = %d (%s), want about %d (%s)", what, got, Format(got), want, Format(want))
				}
			}
			check("requested", m.Requested, c.requested)
			check("capacity", m.Capacity, c.capacity)
			check("free", m.Free, c.free)
			check("this process", m.ThisProcess, c.this)
			check("other processes", m.OtherProcesses, c.others)
			check("allocated", m.Allocated, c.alloc)
			check("reserved unallocated", m.ReservedUnallocated, c.unalloc)
			check("allowed", m.Allowed, c.allowed)
			if got := Verdict(m); got != c.verdict {
				t.Errorf("verdict %q\n want %q", got, c.verdict)
			}
		})
	}
}

func TestParseSpecialForms(t *testing.T) {
	m, ok := Parse("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.")
	if !ok || !m.HugeRequest || m.Requested != Unknown || !m.RequestExceedsCapacity() {
		t.Errorf("1EB form: %+v", m)
	}
	if !strings.Contains(Verdict(m), "more than 1 EB") {
		t.Errorf("1EB verdict: %q", Verdict(m))
	}
	m, ok = Parse("CUDA out of memory. Tried to allocate 512 bytes. GPU 1 has a total capacity of 15.00 GiB of which 0 bytes is free. Of the allocated memory 14.00 GiB is allocated by PyTorch, with 2.00 GiB allocated in private pools (e.g., CUDA Graphs), and 1.00 GiB is reserved by PyTorch but unallocated.")
	if !ok || m.Requested != 512 || m.Device != 1 || m.Free != 0 || m.PrivatePools != 2*gib || m.ReservedUnallocated != gib {
		t.Errorf("private pools form: %+v", m)
	}
	if m.OtherProcesses != Unknown {
		t.Errorf("no process list: others = %d, want unknown", m.OtherProcesses)
	}
	m, ok = Parse("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 11.93 GiB total capacity; 4.00 GiB already allocated; 7.33 GiB free; 179.00 KiB cached)")
	if !ok || m.Form != "1.x" || m.ReservedUnallocated != 179*kib || m.ReservedTotal != 4*gib+179*kib {
		t.Errorf("2018 cached form: %+v", m)
	}
	// PyTorch 1.0-1.3: "cached" is the cache's free part, far below "already allocated".
	m, _ = Parse("RuntimeError: CUDA out of memory. Tried to allocate 32.00 MiB (GPU 0; 7.79 GiB total capacity; 6.64 GiB already allocated; 21.00 MiB free; 150.86 MiB cached)")
	if !approx(m.ReservedUnallocated, 15086*mib/100) || m.Fragmented() {
		t.Errorf("1.1 cached form: %+v", m)
	}
	m, _ = Parse("RuntimeError: CUDA out of memory. Tried to allocate 8.13 GiB (GPU 0; 10.76 GiB total capacity; 643.57 MiB already allocated; 8.20 GiB free; 32.43 MiB cached)")
	if got := Verdict(m); got != "CUDA could not allocate 8.13 GiB although the card reports 8.20 GiB free: that free memory is not usable by this process (fragmented, or held by the driver or another context)" {
		t.Errorf("free >= request verdict: %q", got)
	}
	if _, ok := Parse("RuntimeError: CUDA error: out of memory"); ok {
		t.Error("a message without the allocator's numbers must not parse")
	}
	// Issue 126766: a message cut off after "GPU".
	m, ok = Parse("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU ")
	if !ok || m.Requested != 3*gib || m.Capacity != Unknown {
		t.Errorf("truncated form: %+v", m)
	}
	if got := Verdict(m); got != "the GPU ran out of memory and the request needs 3.00 GiB more" {
		t.Errorf("truncated verdict: %q", got)
	}
}

func TestFactsRoundTrip(t *testing.T) {
	m, _ := Parse("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 12.19 MiB is free. Including non-PyTorch memory, this process has 79.16 GiB memory in use. Of the allocated memory 15.73 GiB is allocated by PyTorch, and 62.92 GiB is reserved by PyTorch but unallocated.")
	f := Facts(m)
	for _, k := range []string{"requested_bytes", "capacity_bytes", "free_bytes", "process_bytes", "other_processes_bytes", "allocated_bytes", "reserved_unallocated_bytes"} {
		if f[k] == "" {
			t.Errorf("fact %s missing", k)
		}
	}
	if f["requested_bytes"] != "25769803776" {
		t.Errorf("requested_bytes = %s", f["requested_bytes"])
	}
	if _, ok := f["allowed_bytes"]; ok {
		t.Error("allowed_bytes present without a cap")
	}
	back, ok := FromFacts(f)
	if !ok || back.Requested != m.Requested || back.ReservedUnallocated != m.ReservedUnallocated || back.Fragmented() != m.Fragmented() {
		t.Errorf("round trip: %+v vs %+v", back, m)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		b    int64
		want string
	}{{0, "0 bytes"}, {1024, "1024 bytes"}, {1536, "1.50 KiB"}, {64 * mib, "64.00 MiB"}, {24 * gib, "24.00 GiB"}} {
		if got := Format(c.b); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 12.19 MiB is free. Including non-PyTorch memory, this process has 79.16 GiB memory in use. Of the allocated memory 15.73 GiB is allocated by PyTorch, and 62.92 GiB is reserved by PyTorch but unallocated.")
	f.Add("RuntimeError: CUDA out of memory. Tried to allocate 152.00 MiB (GPU 0; 31.72 GiB total capacity; 24.89 GiB already allocated; 6.12 MiB free; 3.94 GiB allowed; 30.70 GiB reserved in total by PyTorch)")
	f.Add("CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total capacty of 14.75 GiB of which 11.06 MiB is free. Process 3258 has 14.73 GiB memory in use. Process 1 has 17179869184.00 GiB memory in use. Of the allocated memory 14.04 GiB is allocated by PyTorch, with 1.00 GiB allocated in private pools (e.g., CUDA Graphs), and 509.85 MiB is reserved by PyTorch but unallocated.")
	f.Add("CUDA out of memory. Tried to allocate more than 1EB memory.")
	f.Add("CUDA out of memory. Tried to allocate 99999999999999999999999999999.00 GiB. GPU 0 has a total capacity of 0 bytes of which 0 bytes is free.")
	f.Fuzz(func(t *testing.T, s string) {
		m, ok := Parse(s)
		if !ok {
			return
		}
		for _, v := range []int64{m.Requested, m.Capacity, m.Free, m.ThisProcess, m.Allocated, m.ReservedUnallocated, m.Allowed, m.PrivatePools} {
			if v < Unknown {
				t.Fatalf("negative byte count %d in %+v", v, m)
			}
		}
		if Verdict(m) == "" {
			t.Fatal("empty verdict")
		}
		back, ok := FromFacts(Facts(m))
		if !ok || back.Requested != m.Requested || back.Capacity != m.Capacity || back.OtherProcesses != m.OtherProcesses {
			t.Fatalf("facts round trip lost data: %+v vs %+v", back, m)
		}
	})
}

// Cached-but-unallocated memory at least as large as the request reads as
// fragmentation only while the card has room: when the allocation plus
// the request fill 90% of it, the job simply needs less memory.
func TestNearlyFullIsNotFragmentation(t *testing.T) {
	tests := []struct {
		name             string
		text             string
		nearlyFull, frag bool
	}{
		{"nearly full", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.40 GiB is free. Including non-PyTorch memory, this process has 22.15 GiB memory in use. Of the allocated memory 20.10 GiB is allocated by PyTorch, and 2.05 GiB is reserved by PyTorch but unallocated.", true, false},
		{"room left, cache split", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 12.19 MiB is free. Including non-PyTorch memory, this process has 79.16 GiB memory in use. Of the allocated memory 15.73 GiB is allocated by PyTorch, and 62.92 GiB is reserved by PyTorch but unallocated.", false, true},
	}
	for _, tt := range tests {
		m, ok := Parse(tt.text)
		if !ok {
			t.Fatalf("%s: not parsed", tt.name)
		}
		if m.NearlyFull() != tt.nearlyFull || m.Fragmented() != tt.frag {
			t.Errorf("%s: nearly full %v, fragmented %v; want %v, %v", tt.name, m.NearlyFull(), m.Fragmented(), tt.nearlyFull, tt.frag)
		}
		if v := Verdict(m); tt.nearlyFull && !strings.Contains(v, "nearly full") {
			t.Errorf("%s: verdict %q does not say the card is nearly full", tt.name, v)
		}
	}
}
