package kb

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseKernelAssert(t *testing.T) {
	cases := []struct {
		line string
		want map[string]string
	}{
		{
			"/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: block: [118,0,0], thread: [3,0,0] Assertion `ind >=0 && ind < ind_dim_size && \"vectorized gather kernel index out of bounds\"` failed.",
			map[string]string{"kernel_src": "/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu", "kernel_line": "16", "kernel": "vectorized_gather_kernel",
				"block": "118,0,0", "thread": "3,0,0", "assertion": "ind >=0 && ind < ind_dim_size && \"vectorized gather kernel index out of bounds\""},
		},
		{
			"[rank1]:/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu:109: _assert_async_cuda_kernel: block: [0,0,0], thread: [0,0,0] Assertion `probability tensor contains either `inf`, `nan` or element < 0` failed.",
			map[string]string{"kernel_src": "[rank1]:/pytorch/aten/src/ATen/native/cuda/TensorCompare.cu", "kernel_line": "109", "kernel": "_assert_async_cuda_kernel",
				"block": "0,0,0", "thread": "0,0,0", "assertion": "probability tensor contains either `inf`, `nan` or element < 0"},
		},
		{
			// Windows builds print no function name.
			"C:/cb/pytorch_1000000000000/work/aten/src/THC/THCTensorIndex.cu:218: block: [0,0,0], thread: [106,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
			map[string]string{"block": "0,0,0", "thread": "106,0,0", "assertion": "srcIndex < srcSelectDimSize"},
		},
		{"no kernel line here", nil},
	}
	for _, c := range cases {
		if got := parseKernelAssert(c.line); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s\n got %v\nwant %v", c.line, got, c.want)
		}
	}
}

func TestNormaliseFacts(t *testing.T) {
	f := map[string]string{
		"kernel":              "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, unsigned int, 2, 2, -2, true>(cuda::detail::TensorInfo<float, unsigned int>) [with T = float]",
		"driver_cuda_version": "11040",
	}
	normaliseFacts(f)
	if f["kernel"] != "indexSelectLargeIndex" {
		t.Errorf("kernel = %q", f["kernel"])
	}
	if f["driver_cuda"] != "11.4" {
		t.Errorf("driver_cuda = %q", f["driver_cuda"])
	}
}

func TestFill(t *testing.T) {
	s, ok := Fill("the {what} at {origin}", map[string]string{"what": "index", "origin": "a.py:3"})
	if !ok || s != "the index at a.py:3" {
		t.Errorf("Fill = %q, %v", s, ok)
	}
	if _, ok := Fill("the {what} at {origin}", map[string]string{"what": "index"}); ok {
		t.Error("Fill with a missing fact must report false")
	}
	if _, ok := Fill("at {origin}", map[string]string{"origin": ""}); ok {
		t.Error("an empty fact must not fill a hole")
	}
}

// TestMessagesAndRemedies checks the verdict sentences written from facts and
// that remedies drop when their holes stay empty.
func TestMessagesAndRemedies(t *testing.T) {
	k := MustDefault()
	cases := []struct {
		lines []string
		class string
		msg   string
	}{
		{[]string{"/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [6,0,0] Assertion `t >= 0 && t < n_classes` failed."},
			"device-assert-target", "a class label is outside [0, num_classes) in kernel nll_loss_forward_reduce_cuda_kernel_2d"},
		{[]string{"RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x5 and 10x10)"},
			"shape-mismatch", "the shapes 10x5 and 10x10 cannot be multiplied"},
		{[]string{"RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver"},
			"driver-too-old", "the NVIDIA driver supports CUDA 11.4 only, older than this PyTorch build needs"},
		{[]string{"RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_addmm)"},
			"device-mismatch", "an operation received tensors on cuda:0 and cpu (wrapper_CUDA_addmm)"},
		{[]string{"RuntimeError: CUDA error: device-side assert triggered"},
			"device-assert-other", "a CUDA kernel hit a device-side assertion"},
	}
	for _, c := range cases {
		v, ok := k.Classify(c.lines)
		if !ok || v.Class.ID != c.class {
			t.Errorf("%v: classified as %v", c.lines, v.Class)
			continue
		}
		if got := v.Message(); got != c.msg {
			t.Errorf("%s: message %q, want %q", c.class, got, c.msg)
		}
	}
	v, _ := k.Classify([]string{"RuntimeError: CUDA error: device-side assert triggered"})
	without := v.Remedies(nil)
	with := v.Remedies(map[string]string{"command": "python train.py"})
	if len(with) != len(without)+1 {
		t.Errorf("a {command} remedy must appear only when the command is known: %d vs %d", len(with), len(without))
	}
	for _, r := range with {
		if strings.Contains(r, "{") {
			t.Errorf("unfilled remedy %q", r)
		}
	}
}

func FuzzParseKernelAssert(f *testing.F) {
	f.Add("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:111: operator(): block: [0,0,0], thread: [2,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.")
	f.Add("C:/x.cu:218: block: [0,0,0], thread: [106,0,0] Assertion `a` failed.")
	f.Add(": block: [")
	f.Add("a:1: : block: [] thread: [ Assertion `")
	f.Fuzz(func(t *testing.T, line string) {
		f := parseKernelAssert(line)
		for k, v := range f {
			if len(v) > len(line) {
				t.Fatalf("fact %s longer than the line", k)
			}
		}
		normaliseFacts(f)
	})
}

// TestWrappedOOMMessage: a report that wraps the OOM message over several
// lines still yields every number.
func TestWrappedOOMMessage(t *testing.T) {
	k := MustDefault()
	v, ok := k.Classify([]string{
		"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity;",
		"  8.26 GiB already allocated; 1.49 GiB free; 20.47 GiB reserved in total by PyTorch)",
		"Traceback (most recent call last):",
		"  1.00 GiB already allocated; 2.00 GiB free; 3.00 GiB reserved in total by PyTorch)",
	})
	if !ok || v.Class.ID != "oom-fragmentation" {
		t.Fatalf("classified as %v", v.Class)
	}
	if v.Facts["capacity_bytes"] == "" || v.Facts["reserved_unallocated_bytes"] == "" {
		t.Errorf("facts of the wrapped message missing: %v", v.Facts)
	}
	if got, want := v.Facts["free_bytes"], "1599875318"; got != want {
		t.Errorf("free_bytes = %s, want %s (the line after the traceback must not count)", got, want)
	}
}

// FuzzClassify: any text, split into lines, classifies without a panic and
// yields a message and remedies without unfilled holes.
func FuzzClassify(f *testing.F) {
	k := MustDefault()
	for _, c := range k.Classes {
		for _, ex := range c.Examples.Match {
			f.Add(ex.Text)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, ok := k.Classify(strings.Split(text, "\n"))
		if !ok {
			return
		}
		if v.Message() == "" {
			t.Fatal("empty message")
		}
		for _, r := range v.Remedies(map[string]string{"origin": "a.py:1"}) {
			if holeRE.MatchString(r) {
				t.Fatalf("unfilled remedy %q", r)
			}
		}
	})
}

func TestRuntimeErrorFacts(t *testing.T) {
	k := MustDefault()
	v, ok := k.Classify([]string{
		"torch.AcceleratorError: CUDA error: device-side assert triggered",
		"Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
	})
	if !ok || v.Facts["cuda_error"] != "cudaErrorAssert" || v.Facts["cuda_error_message"] != "device-side assert triggered" {
		t.Errorf("facts: %v", v.Facts)
	}
	v, _ = k.Classify([]string{"RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/aten/src/THC/generic/THCTensorMath.cu:26"})
	if got := v.Facts["cuda_error_message"]; got != "device-side assert triggered" {
		t.Errorf("old form message fact: %q", got)
	}
	v, _ = k.Classify([]string{"RuntimeError: CUDA error: out of memory (malloc at /opt/conda/conda-bld/pytorch/work/c10/cuda/CUDACachingAllocator.cpp:241)"})
	if got := v.Facts["cuda_error_message"]; got != "out of memory" {
		t.Errorf("message fact with a location: %q", got)
	}
}

// TestRepeatsCountsLines: a signature with repeats fires only when that
// many lines of the failure match it; fewer are a notice.
func TestRepeatsCountsLines(t *testing.T) {
	k := MustDefault()
	line := "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768"
	for n, want := range map[int]bool{1: false, 2: false, 3: true, 5: true} {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = line
		}
		v, ok := k.Classify(lines)
		if !ok || v.Class.ID != "nonfinite" {
			t.Fatalf("%d overflow lines: not nonfinite", n)
		}
		if failure := !v.Notice(); failure != want {
			t.Errorf("%d overflow lines: a failure=%v, want %v", n, failure, want)
		}
	}
}

// A notice yields to any failure among the same lines, and has neither
// alternatives nor remedies.
func TestNoticeYieldsToFailures(t *testing.T) {
	k := MustDefault()
	note := "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0"
	v, ok := k.Classify([]string{note, "RuntimeError: CUDA error: an illegal memory access was encountered"})
	if !ok || v.Class.ID != "illegal-address" || v.Notice() {
		t.Errorf("with an illegal address: %v notice %v", v.Class, v.Notice())
	}
	v, ok = k.Classify([]string{note})
	if !ok || !v.Notice() || len(v.Alternatives) != 0 || len(v.Remedies(nil)) != 0 || !strings.Contains(v.Message(), "routine") {
		t.Errorf("alone: notice %v, alternatives %v, remedies %v, message %q", v.Notice(), v.Alternatives, v.Remedies(nil), v.Message())
	}
}

// A line that says how the job ended (Yields) is the failure only when
// nothing before it in the same failure reported an error: after one, it
// is that error's echo, whatever the error's class.
func TestEndingYieldsToEarlierError(t *testing.T) {
	k := MustDefault()
	cancel := "slurmstepd: error: *** JOB 7 ON gpu01 CANCELLED AT 2025-01-01T00:00:00 DUE TO TIME LIMIT ***"
	kill := "[2025-08-21 17:57:28,991] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 841253"
	cases := []struct {
		name  string
		lines []string
		want  string // "" for no class
	}{
		{"cancel alone", []string{"step 1200 loss 0.41", cancel}, "host-killed"},
		{"cancel after an exception", []string{"AttributeError: ckpt_dir", cancel}, ""},
		{"cancel after an exception behind a rank prefix", []string{"[rank1]: KeyError: 'label'", cancel}, ""},
		{"cancel after a known failure that ranks below it", []string{"NCCL WARN NET/Socket : Connection closed by remote peer 10.0.0.2<38412>", cancel}, "nccl-error"},
		{"cancel before the exception", []string{cancel, "KeyboardInterrupt: ", "ValueError: late"}, "host-killed"},
		{"launcher kill after a rank's exception", []string{"AssertionError: untested optimizer", kill, kill}, ""},
		{"launcher kill alone", []string{kill}, "host-killed"},
		{"two endings", []string{kill, cancel}, "host-killed"},
	}
	for _, c := range cases {
		if got := classOf(k, c.lines...); got != c.want {
			t.Errorf("%s: classified as %q, want %q", c.name, got, c.want)
		}
	}
}
