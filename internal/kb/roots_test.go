package kb

import "testing"

// A refined verdict keeps the message's own class as its first
// alternative, and a class's own alternatives say what tells them apart.
func TestRefinedVerdictAlternatives(t *testing.T) {
	k := MustDefault()
	line := "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 79.18 GiB of which 18.00 GiB is free. Including non-PyTorch memory, this process has 61.00 GiB memory in use. Of the allocated memory 30.00 GiB is allocated by PyTorch, and 30.00 GiB is reserved by PyTorch but unallocated."
	v, ok := k.Classify([]string{line})
	if !ok || v.Class.ID != "oom-fragmentation" || v.Surface.ID != "oom" {
		t.Fatalf("verdict %v %v", v.Class, v.Surface)
	}
	if len(v.Alternatives) == 0 || v.Alternatives[0].Class != "oom" {
		t.Errorf("alternatives %+v, want oom first", v.Alternatives)
	}
	if k.SettleBy("oom-fragmentation", "oom") == "" || k.SettleBy("oom", "oom-fragmentation") == "" {
		t.Error("oom and oom-fragmentation do not say what tells them apart")
	}
	if s := k.SettleBy("oom", "no-such-class"); s != "" {
		t.Errorf("SettleBy of an unnamed alternative = %q", s)
	}
}
