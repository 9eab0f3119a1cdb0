package kb

import "testing"

// TestJoinedReadingBorrowsNoContext: a generic message ("out of memory")
// that a line holds whole, without an error context of its own, does not
// become a CUDA status because the next line says "CUDA error": a wrapped
// error puts its context first. The same words after the context, on one
// line or wrapped, still count.
func TestJoinedReadingBorrowsNoContext(t *testing.T) {
	k := MustDefault()
	advice := "INFO 01-20 19:51:03 model_runner.py:505] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing `gpu_memory_utilization` or enforcing eager mode."
	capture := "[E ProcessGroupNCCL.cpp:915] [Rank 0] NCCL watchdog thread terminated with exception: CUDA error: operation not permitted when stream is capturing"
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"advice before another error", []string{advice, capture}, ""},
		{"advice from a Ray worker", []string{"(RayWorkerVllm pid=117639) " + advice, capture + "        "}, ""},
		{"unknown error before a CUDA error", []string{"step 3 finished with an unknown error", "RuntimeError: CUDA error: device-side assert triggered"}, ""},
		{"context wrapped before the message", []string{"RuntimeError: CUDA error:", "out of memory"}, "cudaErrorMemoryAllocation"},
		{"message wrapped in the middle", []string{"RuntimeError: CUDA error: out of", "memory"}, "cudaErrorMemoryAllocation"},
	} {
		got := ""
		for _, h := range k.StatusesAt(c.lines, 0) {
			if h.Status.Class != "graph-capture" && h.Status.Class != "device-assert-other" {
				got = h.Status.Name
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
