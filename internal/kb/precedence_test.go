package kb

import (
	"os"
	"regexp"
	"testing"
)

// TestPrecedencePairs pins the orderings the diagnosis depends on: specific
// roots before the surface classes they explain, consequences last.
func TestPrecedencePairs(t *testing.T) {
	k := MustDefault()
	pairs := []struct{ before, after, why string }{
		{"device-assert-target", "device-assert-other", "a loss kernel's assert is more specific than a bare assert"},
		{"device-assert-range", "device-assert-other", "a BCE/multinomial assert is more specific than a bare assert"},
		{"device-assert-index", "device-assert-other", "an indexing kernel's assert is more specific than a bare assert"},
		{"oom-fragmentation", "oom", "fragmentation refines an OOM"},
		{"oom", "cublas-error", "a full card explains cuBLAS failures"},
		{"oom", "cudnn-error", "a full card explains cuDNN failures"},
		{"oom-fragmentation", "cublas-error", "a fragmented card explains cuBLAS failures"},
		{"oom", "nccl-error", "NCCL reports an OOM as an unhandled CUDA error"},
		{"fork-reinit", "cuda-unavailable", "initialization errors in forked workers are fork problems"},
		{"device-assert-index", "cublas-error", "an index assert surfaces later as CUBLAS_STATUS_EXECUTION_FAILED"},
		{"device-assert-index", "nccl-error", "a crashing rank makes the others time out"},
		{"device-assert-index", "illegal-address", "the assert is the first error; later kernels fail on the broken context"},
		{"misaligned-address", "illegal-address", "a misaligned access is the more specific memory error"},
		{"launch-config", "illegal-address", "a refused launch is not sticky; the faults beside it read what its kernel never wrote"},
		{"host-killed", "nccl-error", "a killed rank makes the others time out"},
		{"hardware-fault", "illegal-address", "hardware faults surface as illegal addresses"},
		{"hardware-fault", "nccl-error", "hardware faults break collectives"},
		{"driver-too-old", "cuda-unavailable", "an old driver is the specific reason CUDA is unusable"},
		{"library-mismatch", "cudnn-error", "a shadowing cuDNN explains cuDNN errors"},
		{"library-mismatch", "cublas-error", "a shadowing cuBLAS explains cuBLAS errors"},
		{"deterministic", "cublas-error", "the CUBLAS_WORKSPACE_CONFIG message mentions cuBLAS"},
		{"device-mismatch", "dtype-mismatch", "\"Input type ... and weight type\" names devices before dtypes"},
		{"triton-resources", "oom", "Inductor words Triton's out-of-resource as OutOfMemoryError"},
		{"device-assert-range", "nonfinite", "a range assert is reported; nonfinite is reached by refinement"},
		{"nccl-error", "nonfinite", "a NaN loss is reported only when nothing failed"},
		{"shape-mismatch", "cuda-unavailable", "CUDA start-up warnings on a CPU run must not hide the real error"},
		{"no-kernel-image", "oom", "a GPU the build cannot drive explains what fails on it"},
		{"oom", "nonfinite", "a crash outranks a NaN loss"},
	}
	for _, p := range pairs {
		if k.Rank(p.before) >= k.Rank(p.after) {
			t.Errorf("%s must precede %s: %s", p.before, p.after, p.why)
		}
	}
}

// TestEveryTaxonomyClass holds the knowledge base to docs/taxonomy.md: a
// class for every id there but other, and no class the taxonomy lacks.
func TestEveryTaxonomyClass(t *testing.T) {
	b, err := os.ReadFile("../../docs/taxonomy.md")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	row := regexp.MustCompile("(?m)^\\| ([a-z][a-z0-9-]+) \\|")
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		if m[1] != "id" && m[1] != "other" {
			want[m[1]] = true
		}
	}
	if len(want) == 0 {
		t.Fatal("docs/taxonomy.md: no class rows found")
	}
	have := map[string]bool{}
	for _, c := range MustDefault().Classes {
		have[c.ID] = true
		if !want[c.ID] {
			t.Errorf("knowledge base class %s is not in docs/taxonomy.md", c.ID)
		}
	}
	for id := range want {
		if !have[id] {
			t.Errorf("taxonomy class %s has no knowledge-base file", id)
		}
	}
}

// TestPrecedenceDecides runs the pairs through Classify: lines of both
// classes in one failure come out as the earlier class.
func TestPrecedenceDecides(t *testing.T) {
	k := MustDefault()
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"index assert then cuBLAS", []string{
			"/pytorch/aten/src/ATen/native/cuda/Indexing.cu:702: indexSelectLargeIndex: block: [0,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
			"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`",
		}, "device-assert-index"},
		{"rank crash then timeout", []string{
			"[rank0]:[E1122 05:35:34.637848667 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=20000) ran for 20076 milliseconds before timing out.",
			"  exitcode  : -9 (pid: 1151)",
		}, "host-killed"},
		{"OOM beside a cuDNN failure", []string{
			"RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
			"RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total capacity; 9.80 GiB already allocated; 11.44 MiB free; 9.87 GiB reserved in total by PyTorch)",
		}, "oom"},
		{"assert kernel line beats bare assert", []string{
			"/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [6,0,0] Assertion `t >= 0 && t < n_classes` failed.",
			"RuntimeError: CUDA error: device-side assert triggered",
		}, "device-assert-target"},
		{"fork worker initialization error", []string{
			"RuntimeError: Caught RuntimeError in DataLoader worker process 0.",
			"RuntimeError: CUDA error: initialization error",
		}, "fork-reinit"},
		{"CPU run with a CUDA start-up warning", []string{
			"UserWarning: CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
			"RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x3 and 4x3)",
		}, "shape-mismatch"},
		{"ECC error then illegal address", []string{
			"NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, DBE (double bit error) ECC error",
			"RuntimeError: CUDA error: an illegal memory access was encountered",
		}, "hardware-fault"},
	}
	for _, c := range cases {
		if got := classOf(k, c.lines...); got == "" || got != c.want {
			t.Errorf("%s: got %q, want %s", c.name, got, c.want)
		}
	}
}
