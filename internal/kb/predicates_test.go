package kb

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/oom"
)

func oomFacts(t *testing.T, msg string) map[string]string {
	t.Helper()
	f := factParsers["oom"]([]string{msg}, 0)
	if f == nil {
		t.Fatalf("not an OOM message: %s", msg)
	}
	return f
}

const (
	msgTooLarge = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 122.07 GiB. GPU 0 has a total capacity of 79.18 GiB of which 78.41 GiB is free. Including non-PyTorch memory, this process has 776.00 MiB memory in use. Of the allocated memory 256.03 MiB is allocated by PyTorch, and 1.97 MiB is reserved by PyTorch but unallocated."
	msgFragment = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 12.19 MiB is free. Including non-PyTorch memory, this process has 79.16 GiB memory in use. Of the allocated memory 15.73 GiB is allocated by PyTorch, and 62.92 GiB is reserved by PyTorch but unallocated."
	msgFull     = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 79.18 GiB of which 40.19 MiB is free. Including non-PyTorch memory, this process has 79.13 GiB memory in use. Of the allocated memory 78.47 GiB is allocated by PyTorch, and 772.50 KiB is reserved by PyTorch but unallocated."
	msgCap      = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 MiB. GPU 0 has a total capacity of 139.80 GiB of which 127.96 GiB is free. Including non-PyTorch memory, this process has 11.83 GiB memory in use. 11.18 GiB allowed; Of the allocated memory 11.17 GiB is allocated by PyTorch, and 890.50 KiB is reserved by PyTorch but unallocated."
	msgOthers   = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.02 GiB is free. Process 1234 has 14.20 GiB memory in use. Including non-PyTorch memory, this process has 6.30 GiB memory in use. Of the allocated memory 5.80 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but unallocated."
)

func withFact(f map[string]string, k, v string) map[string]string {
	f[k] = v
	return f
}

// TestPredicates checks every registered predicate on facts where it must
// hold and where it must not.
func TestPredicates(t *testing.T) {
	cases := []struct {
		name     string
		holds    []map[string]string
		holdsNot []map[string]string
	}{
		{"unallocated_exceeds_request",
			[]map[string]string{oomFacts(t, msgFragment)},
			[]map[string]string{oomFacts(t, msgFull), oomFacts(t, msgTooLarge), oomFacts(t, msgCap), {}}},
		{"request_exceeds_capacity",
			[]map[string]string{oomFacts(t, msgTooLarge), oomFacts(t, "CUDA out of memory. Tried to allocate more than 1EB memory.")},
			[]map[string]string{oomFacts(t, msgFull), oomFacts(t, msgFragment), {}}},
		{"other_processes_hold_memory",
			[]map[string]string{oomFacts(t, msgOthers)},
			[]map[string]string{oomFacts(t, msgFull), oomFacts(t, msgCap), {}}},
		{"memory_fraction_cap",
			[]map[string]string{oomFacts(t, msgCap)},
			[]map[string]string{oomFacts(t, msgFull), oomFacts(t, msgOthers), {}}},
		{"plain_exhaustion",
			[]map[string]string{oomFacts(t, msgFull)},
			[]map[string]string{oomFacts(t, msgFragment), oomFacts(t, msgTooLarge), oomFacts(t, msgCap), oomFacts(t, msgOthers), {},
				withFact(oomFacts(t, msgFull), "memory_growth", "1.3 GiB at line 1 to 76.3 GiB at line 13, over 13 readings")}},
		{"memory_grows",
			[]map[string]string{withFact(oomFacts(t, msgFull), "memory_growth", "1.3 GiB at line 1 to 76.3 GiB at line 13, over 13 readings")},
			[]map[string]string{oomFacts(t, msgFull), {}}},
		{"memory_growth_unseen",
			[]map[string]string{oomFacts(t, msgFull), {}},
			[]map[string]string{{"memory_growth": "2 at line 1 to 9 at line 5, over 5 readings"}}},
		{"card_full",
			[]map[string]string{oomFacts(t, msgFull), oomFacts(t, msgFragment), {"smi_used_mib": "15900", "smi_total_mib": "16160"}, {"free_bytes": "7995392", "total_bytes": "11721572352"}},
			[]map[string]string{oomFacts(t, msgCap), {"smi_used_mib": "2000", "smi_total_mib": "16160"}, {"free_bytes": "11372396544", "total_bytes": "11539054592"}, {}}},
		{"dnn_handle_starved",
			[]map[string]string{{"cudnn_handle_status": "INTERNAL_ERROR"}, {"cudnn_handle_status": "INTERNAL_ERROR", "free_bytes": "1844314112", "total_bytes": "8361017344"}},
			[]map[string]string{{"cudnn_handle_status": "INTERNAL_ERROR", "free_bytes": "46637514752", "total_bytes": "47587131392"}, {"cudnn_handle_status": "NOT_INITIALIZED"}, {"cudnn_status": "INTERNAL_ERROR"}, {}}},
		{"jax_blas_handle_starved",
			[]map[string]string{{"framework": "jax", "cublas_status": "NOT_INITIALIZED"}, {"framework": "jax", "cublas_status": "NOT_INITIALIZED", "free_bytes": "1844314112", "total_bytes": "8361017344"}},
			[]map[string]string{{"framework": "jax", "cublas_status": "NOT_INITIALIZED", "free_bytes": "46637514752", "total_bytes": "47587131392"}, {"framework": "tensorflow", "cublas_status": "NOT_INITIALIZED"}, {"cublas_status": "NOT_INITIALIZED"}, {"framework": "jax", "cublas_status": "EXECUTION_FAILED"}, {}}},
		{"multinomial_after_fp16",
			[]map[string]string{{"probability_check": "probability tensor contains either `inf`, `nan` or element < 0", "half_precision": "torch.float16"}},
			[]map[string]string{{"probability_check": "invalid multinomial distribution (sum of probabilities <= 0)"}, {"half_precision": ".half()"}, {}}},
		{"build_lacks_arch",
			[]map[string]string{{"device_sm": "120", "arch_list": "sm_50 sm_90"}, {}},
			[]map[string]string{{"required_cc": "8.0", "device_cc": "7.5"}, {"engine_cc": "8.6", "device_cc": "7.5"}}},
		{"nccl_not_shm",
			[]map[string]string{{"timeout_ms": "600000"}, {}},
			[]map[string]string{{"nccl_shm": "/dev/shm/nccl-vzIpS6"}}},
		{"nccl_timed_out",
			[]map[string]string{{"timeout_ms": "600000"}},
			[]map[string]string{{"nccl_shm": "/dev/shm/nccl-vzIpS6", "timeout_ms": "600000"}, {}}},
	}
	tested := map[string]bool{}
	for _, c := range cases {
		tested[c.name] = true
		if _, ok := predicates[c.name]; !ok {
			t.Errorf("predicate %s is not registered", c.name)
			continue
		}
		for i, f := range c.holds {
			if !Holds(c.name, f) {
				t.Errorf("%s must hold on case %d (%v)", c.name, i, f)
			}
		}
		for i, f := range c.holdsNot {
			if Holds(c.name, f) {
				t.Errorf("%s must not hold on case %d (%v)", c.name, i, f)
			}
		}
	}
	for _, n := range PredicateNames() {
		if !tested[n] {
			t.Errorf("predicate %s has no test", n)
		}
	}
}

// TestOOMFactsInClassify: the OOM line's numbers reach the verdict's facts,
// decide the refinement, and write the message.
func TestOOMFactsInClassify(t *testing.T) {
	k := MustDefault()
	v, ok := k.Classify([]string{"Traceback (most recent call last):", msgFragment})
	if !ok || v.Class.ID != "oom-fragmentation" || v.Surface.ID != "oom" {
		t.Fatalf("got %+v", v)
	}
	if v.Facts["reserved_unallocated_bytes"] == "" || v.Facts["requested_bytes"] != "25769803776" {
		t.Errorf("facts: %v", v.Facts)
	}
	if got, want := v.Message(), oom.Verdict(mustParse(t, msgFragment)); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if len(v.Why) != 1 {
		t.Errorf("why: %v", v.Why)
	}
	rem := v.Remedies(nil)
	if len(rem) == 0 || !contains(rem[0], "62.92 GiB") {
		t.Errorf("remedies: %q", rem)
	}
	v, _ = k.Classify([]string{msgCap})
	rem = v.Remedies(map[string]string{"origin": "train.py:10"})
	found := false
	for _, r := range rem {
		if contains(r, "11.18 GiB") && contains(r, "127.96 GiB") {
			found = true
		}
		if contains(r, "{") {
			t.Errorf("unfilled remedy %q", r)
		}
	}
	if !found {
		t.Errorf("cap remedy missing: %q", rem)
	}
}

func mustParse(t *testing.T, s string) oom.Message {
	m, ok := oom.Parse(s)
	if !ok {
		t.Fatal("not parsed")
	}
	return m
}

func contains(s, sub string) bool {
	return strings.Contains(s, sub)
}
