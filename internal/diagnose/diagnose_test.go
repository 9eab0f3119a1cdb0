package diagnose

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// The engine's own tests run against a small knowledge base of test
// classes (testdata/kb), so they exercise grouping, location and rank
// logic independently of the real knowledge base's wording.
func testEngine(t testing.TB) *Engine {
	t.Helper()
	k, err := kb.Load(os.DirFS("testdata/kb"), ".")
	if err != nil {
		t.Fatal(err)
	}
	return New(k)
}

const logs = "../../testdata/gpu/logs/"

func explainFiles(t testing.TB, e *Engine, paths ...string) []report.Finding {
	t.Helper()
	var ins []Input
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ins = append(ins, Input{Name: p, Reader: f})
	}
	out, err := e.Explain(context.Background(), ins)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func explainText(t testing.TB, e *Engine, text string) []report.Finding {
	t.Helper()
	out, err := e.Explain(context.Background(), []Input{{Name: "t.log", Reader: strings.NewReader(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func line(l *report.Location) int {
	if l == nil {
		return 0
	}
	return l.Line
}

func rank(f report.Finding) int {
	if f.Rank == nil {
		return -1
	}
	return *f.Rank
}

func TestFixtures(t *testing.T) {
	e := testEngine(t)
	tests := []struct {
		log              string
		class            string
		rank             int
		origin, reported int
		related          []int // ranks named as consequences
		message          string
	}{
		{log: "h100/s01_embedding_oob.plain.log", class: "device-assert-index", rank: -1, origin: 0, reported: 5, message: "(vectorized_gather_kernel, 896 threads)"},
		{log: "h100/s01_embedding_oob.blocking.log", class: "device-assert-index", rank: -1, origin: 4},
		{log: "h100/s05_oom.plain.log", class: "oom", rank: -1, origin: 3},
		{log: "h100/s12_fork_reinit.blocking.log", class: "fork-reinit", rank: -1, origin: 5},
		{log: "h100/s26_dataloader_worker_cuda.plain.log", class: "fork-reinit", rank: -1, origin: 8},
		{log: "h100/s09_triton_illegal.plain.log", class: "illegal-address", rank: -1, origin: 0, reported: 14},
		{log: "h100/s09_triton_illegal.sanitizer.log", class: "illegal-address", rank: -1, origin: 13, reported: 14, message: "scale_kernel"},
		{log: "h100/s09_triton_illegal.blocking.log", class: "illegal-address", rank: -1, origin: 13},
		{log: "h200x2/n1_desync_timeout.plain.log", class: "nccl-error", rank: 0, origin: 14, reported: 12},
		{log: "h200x2/n2_rank_crash.plain.log", class: "device-assert-index", rank: 1, origin: 0, reported: 17, related: []int{0}},
		{log: "h200x2/n4_shape_mismatch.plain.log", class: "nccl-error", rank: 1, origin: 9},
		{log: "h200x2/n4_shape_mismatch.detail.log", class: "nccl-error", rank: 0, origin: 9, related: []int{1}, message: "1000 vs 1024 elements"},
	}
	for _, tt := range tests {
		t.Run(tt.log, func(t *testing.T) {
			fs := explainFiles(t, e, logs+tt.log)
			if len(fs) == 0 {
				t.Fatal("no finding")
			}
			f := fs[0]
			if f.Class != tt.class || rank(f) != tt.rank {
				t.Errorf("class %s rank %d, want %s rank %d (%s)", f.Class, rank(f), tt.class, tt.rank, f.Message)
			}
			if line(f.Origin) != tt.origin || line(f.Reported) != tt.reported {
				t.Errorf("origin %d reported %d, want %d %d", line(f.Origin), line(f.Reported), tt.origin, tt.reported)
			}
			var rel []int
			for _, r := range f.Related {
				if r.Rank != nil {
					rel = append(rel, *r.Rank)
				}
			}
			if len(rel) != len(tt.related) || (len(rel) > 0 && rel[0] != tt.related[0]) {
				t.Errorf("related ranks %v, want %v", rel, tt.related)
			}
			if !strings.Contains(f.Message, tt.message) {
				t.Errorf("message %q lacks %q", f.Message, tt.message)
			}
			for _, other := range fs[1:] {
				if other.Severity == report.Error && other.Class == f.Class {
					t.Errorf("duplicate finding %s: %s", other.Class, other.Message)
				}
			}
		})
	}
}

func TestAsyncRemedyNamesCommand(t *testing.T) {
	e := testEngine(t)
	f := explainFiles(t, e, logs+"h100/s01_embedding_oob.plain.log")[0]
	joined := strings.Join(f.Remedies, "\n")
	for _, want := range []string{"cudadoctor run -- python /workspace/faultlab/scenarios/s01_embedding_oob.py",
		"CUDA_LAUNCH_BLOCKING=1 python /workspace/faultlab/scenarios/s01_embedding_oob.py", "TORCH_USE_CUDA_DSA is a build-time option"} {
		if !strings.Contains(joined, want) {
			t.Errorf("remedies lack %q:\n%s", want, joined)
		}
	}
	if f.Facts["reported_asynchronously"] != true {
		t.Errorf("facts %v", f.Facts)
	}
	if strings.Contains(joined, "{") {
		t.Errorf("unfilled placeholder in remedies:\n%s", joined)
	}
	// In blocking mode the traceback names the origin: no re-run advice.
	b := explainFiles(t, e, logs+"h100/s01_embedding_oob.blocking.log")[0]
	if strings.Contains(strings.Join(b.Remedies, "\n"), "asynchronously") {
		t.Errorf("blocking-mode log told to re-run: %v", b.Remedies)
	}
}

func TestCommandFromLog(t *testing.T) {
	e := testEngine(t)
	log := "$ python train.py --bs 64\n/x/IndexKernel.cu:9: k: block: [0,0,0], thread: [1,0,0] Assertion `idx < n && \"index out of bounds\"` failed.\n" +
		"Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n    y = x.cpu()\n" +
		"RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	f := explainText(t, e, log)[0]
	if !strings.Contains(strings.Join(f.Remedies, "\n"), "cudadoctor run -- python train.py --bs 64") {
		t.Errorf("remedies: %v", f.Remedies)
	}
	if f.Origin != nil || line(f.Reported) != 3 {
		t.Errorf("origin %v reported %v", f.Origin, f.Reported)
	}
}

func TestHealthyAndEmpty(t *testing.T) {
	e := testEngine(t)
	for _, p := range []string{"h200x2/n3_debug_info.plain.log", "h100/s19_seed_amp_masked.plain.log"} {
		if fs := explainFiles(t, e, logs+p); len(fs) != 0 {
			t.Errorf("%s: %d findings, first %s", p, len(fs), fs[0].Message)
		}
	}
	if fs := explainText(t, e, ""); len(fs) != 0 {
		t.Errorf("empty: %v", fs)
	}
}

func TestPerRankFiles(t *testing.T) {
	// n2's combined log split into one file per rank (as a directory of
	// per-rank logs would give): the root cause is still rank 1.
	dir := t.TempDir()
	b, err := os.ReadFile(logs + "h200x2/n2_rank_crash.plain.log")
	if err != nil {
		t.Fatal(err)
	}
	var r0, r1 []string
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "[rank0]:"):
			r0 = append(r0, strings.TrimPrefix(l, "[rank0]:"))
		default:
			r1 = append(r1, strings.TrimPrefix(l, "[rank1]:"))
		}
	}
	r0 = append(r0, "[E1122 05:37:30.1 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=30000) ran for 30001 milliseconds before timing out.")
	p0, p1 := filepath.Join(dir, "rank_0.log"), filepath.Join(dir, "rank_1.log")
	os.WriteFile(p0, []byte(strings.Join(r0, "\n")), 0o644)
	os.WriteFile(p1, []byte(strings.Join(r1, "\n")), 0o644)
	fs := explainFiles(t, testEngine(t), p0, p1)
	if len(fs) == 0 || fs[0].Class != "device-assert-index" || rank(fs[0]) != 1 {
		t.Fatalf("got %+v", fs)
	}
	found := false
	for _, r := range fs[0].Related {
		if r.Rank != nil && *r.Rank == 0 && r.Class == "nccl-error" {
			found = true
		}
	}
	if !found {
		t.Errorf("rank 0's timeout is not a related consequence: %+v", fs[0].Related)
	}
	for _, f := range fs[1:] {
		if f.Class == "nccl-error" {
			t.Errorf("rank 0's timeout reported as its own finding")
		}
	}
}

func TestWindowKeepsRecentWithinBudget(t *testing.T) {
	w := &window{budget: 64 << 10}
	for i := 0; i < 5000; i++ {
		w.push(logparse.Event{Line: i + 1, Lines: []logparse.Line{{N: i + 1, Text: strings.Repeat("x", 1000)}}})
	}
	items := w.items()
	if w.bytes > w.budget || len(items) == 0 || items[len(items)-1].Line != 5000 || len(items) > 64 {
		t.Errorf("window holds %d events, %d bytes (budget %d), last line %d", len(items), w.bytes, w.budget, items[len(items)-1].Line)
	}
}

func TestLastFailureOfAHugeErrorLogIsKept(t *testing.T) {
	e := testEngine(t)
	e.keepBytes = 128 << 10
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		b.WriteString("[W1122 05:35:14.401199093 Utils.hpp:137] Warning: RuntimeError: CUDA error: unspecified launch failure, retrying step ")
		b.WriteString(strings.Repeat("z", 400))
		b.WriteString("\nstep done\n")
	}
	b.WriteString(oomTraceback)
	fs := explainText(t, e, b.String())
	found := false
	for _, f := range fs {
		found = found || f.Class == "oom"
	}
	if !found {
		t.Errorf("the OOM at the end of the log is lost: %d findings", len(fs))
	}
}

const oomTraceback = "Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n    x = torch.randn(4_000_000, 8192, device=\"cuda\")\n" +
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 122.07 GiB. GPU 0 has a total capacity of 79.18 GiB of which 78.41 GiB is free.\n"

// PyTorch 1.x printed a bare "CUDA error: ..." with no note about
// asynchronous reporting: the traceback line must not become the origin.
func TestOldBareCUDAErrorIsNotLocated(t *testing.T) {
	log := "/pytorch/aten/src/THC/THCTensorIndex.cu:361: void indexSelectLargeIndex(TensorInfo<T, IndexType>): block: [234,0,0], thread: [63,0,0] Assertion `srcIndex < srcSelectDimSize && \"index out of bounds\"` failed.\n" +
		"Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss.backward()\nRuntimeError: CUDA error: device-side assert triggered\n"
	f := explainText(t, testEngine(t), log)[0]
	if f.Origin != nil || line(f.Reported) != 88 {
		t.Errorf("origin %+v reported %+v", f.Origin, f.Reported)
	}
}

func TestSummaryNamesTheRankOfUnprefixedLogs(t *testing.T) {
	log := "E0301 10:00:01.123000 77 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: -9) local_rank: 3 (pid: 4242) of binary: /usr/bin/python3\n" +
		"Root Cause (first observed failure):\n[0]:\n  time      : 2024-03-01_10:00:01\n  host      : gpu-node-7\n  rank      : 3 (local_rank: 3)\n  exitcode  : -9 (pid: 4242)\n  error_file: <N/A>\n  traceback : Signal 9 (SIGKILL) received by PID 4242\n==========\n" +
		"Traceback (most recent call last):\n  File \"/home/u/train.py\", line 3, in <module>\n    x = torch.randn(4_000_000, 8192, device=\"cuda\")\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 122.07 GiB. GPU 0 has a total capacity of 79.18 GiB of which 78.41 GiB is free.\n"
	f := explainText(t, testEngine(t), log)[0]
	if rank(f) != 3 || f.Facts["signal"] != "SIGKILL" {
		t.Errorf("rank %d facts %v", rank(f), f.Facts)
	}
	for _, r := range f.Related {
		if r.Rank != nil && *r.Rank == 3 {
			t.Errorf("the failing rank is its own consequence: %+v", r)
		}
	}
}

// torchrun --tee prefixes ("[default1]:") number ranks per node: they are
// recorded as local ranks, and become a global rank only where torchrun's
// summary maps one to the other.
func TestLocalRankPrefixes(t *testing.T) {
	b, err := os.ReadFile(logs + "h200x2/n2_rank_crash.plain.log")
	if err != nil {
		t.Fatal(err)
	}
	local := strings.NewReplacer("[rank0]:", "[default0]:", "[rank1]:", "[default1]:").Replace(string(b))
	withSummary := explainText(t, testEngine(t), local)[0]
	if withSummary.Facts["local_rank"] != 1 || rank(withSummary) != 1 {
		t.Errorf("with torchrun's summary: local_rank %v rank %d, want 1 and 1", withSummary.Facts["local_rank"], rank(withSummary))
	}
	cut := local[:strings.Index(local, "E1122 05:36:55.349000 1284 torch/distributed/elastic")]
	alone := explainText(t, testEngine(t), cut)[0]
	if alone.Facts["local_rank"] != 1 || alone.Rank != nil {
		t.Errorf("without a summary: local_rank %v rank %v, want 1 and none", alone.Facts["local_rank"], alone.Rank)
	}
	for _, r := range alone.Related {
		if r.Rank != nil {
			t.Errorf("a related entry claims global rank %d from a local prefix", *r.Rank)
		}
	}
	if f := explainText(t, testEngine(t), string(b))[0]; f.Facts["local_rank"] != nil || rank(f) != 1 {
		t.Errorf("[rank1]: prefixes: local_rank %v rank %d", f.Facts["local_rank"], rank(f))
	}
}

// A failure of no class is never silent, and its finding keeps the advice
// that would settle it (the status's own first).
func TestUnclassifiedFailureKeepsItsAdvice(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct{ log, message, remedy string }{
		{"D:\\darknet> darknet.exe detector train cfg/obj.data\nCUDA Error: unknown error\n", "cudaErrorUnknown", "nvidia_uvm"},
		{"THCudaCheck FAIL file=/pytorch/torch/lib/THC/THCGeneral.c line=70 error=30 : unknown error\n", "cudaErrorUnknown", "nvidia_uvm"},
		// A status no class stands for, and one newer than the table,
		// each alone on its line with no exception before it.
		{"CUDA error encountered at: /work/cpp/src/bitmask/null_mask.cu:93: 801 cudaErrorNotSupported operation not supported.\n", "cudaErrorNotSupported", "cudadoctor env"},
		{"cuLaunchKernel: CUDA_ERROR_KEY_ROTATION\n", "CUDA_ERROR_KEY_ROTATION", "cudadoctor env"},
		// A log's own error tag on a line about the GPU stack.
		{"2024-05-01 12:00:01 [ERROR] CUDA stream pool exhausted on node gpu-17\n", "CUDA stream pool exhausted", "cudadoctor env"},
		{"Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n    f()\nValueError: the widget is not frobnicated\n", "ValueError: the widget", "cudadoctor env"},
		// A paste cut off after its last frame: the traceback says
		// something raised, the deepest frame is quoted, and the first
		// advice asks for the rest of the log.
		{"Traceback (most recent call last):\n  File \"demo.py\", line 82, in <module>\n    demo = Demo(cfg)\n  File \"/opt/lib/build.py\", line 22, in build_model\n    model.to(torch.device(cfg.MODEL.DEVICE))\n", "ends before its error line", "up to its end"},
	} {
		fs := explainText(t, e, c.log)
		if len(fs) != 1 || fs[0].Class != "other" || !strings.Contains(fs[0].Message, c.message) {
			t.Errorf("%q: %v", c.log, fs)
			continue
		}
		if !strings.Contains(strings.Join(fs[0].Remedies, "\n"), c.remedy) {
			t.Errorf("%q: remedies lack %q: %v", c.log, c.remedy, fs[0].Remedies)
		}
	}
}

// TestBareCUDAErrorNumber: "CUDA error" is both a signature's anchor and a
// trigger of the status layer, so a line that names the error only by its
// number reaches the parser whatever the signature's other words.
func TestBareCUDAErrorNumber(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct{ log, class string }{
		{"[2024-03-15 10:30:10] CUDA error: error code 34\n[2024-03-15 10:30:10] miner terminated\n", "cuda-unavailable"},
		{"CUDA error 100\n", "cuda-unavailable"},
	} {
		fs := explainText(t, e, c.log)
		if len(fs) == 0 || fs[0].Class != c.class {
			t.Errorf("%q: got %v, want %s", c.log, fs, c.class)
		}
	}
}

// An error printed on the line of a traceback header, before it, is read
// even when the traceback is cut before its exception line.
func TestMessageBeforeTracebackHeader(t *testing.T) {
	e := New(kb.MustDefault())
	log := "(Worker pid=7) ERROR 01-19 03:55:24 utils.py:233] Exception in worker while processing method init_device: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method, Traceback (most recent call last):\n" +
		"(Worker pid=7) ERROR 01-19 03:55:24 utils.py:233]   File \"/x/worker.py\", line 166, in init_device\n" +
		"(Worker pid=7) ERROR 01-19 03:55:24 utils.py:233]     torch.cuda.set_device(self.device)\n"
	fs := explainText(t, e, log)
	if len(fs) == 0 || fs[0].Class != "fork-reinit" {
		t.Errorf("got %v, want fork-reinit", fs)
	}
	// A label in front of the header is no message: the label adds no finding.
	tb := "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    f()\nRuntimeError: CUDA error: out of memory\n"
	if a, b := explainText(t, e, tb), explainText(t, e, "traceback : "+tb); len(a) != len(b) {
		t.Errorf("label read as a message: %v vs %v", a, b)
	}
}

// A REPL's or notebook's answer to torch.cuda.is_available(), after blank
// lines or an empty prompt, is read with its question; True is no failure.
func TestAvailabilityAnswer(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct{ log, class string }{
		{"import torch\nprint(torch.cuda.is_available())\n\nreturn False\n", "cuda-unavailable"},
		{">>> torch.cuda.is_available()\n>>>\nFalse\n", "cuda-unavailable"},
		{"In [2]: torch.cuda.is_available()\n\nOut[2]: False\n", "cuda-unavailable"},
		{">>> torch.cuda.is_available()\nTrue\n", ""},
		{"print(torch.cuda.is_available())\nloading data\nFalse\n", ""},
		// The answer in a sentence, and a question taken into a message
		// that began on an earlier line (a numbered list of commands).
		{"1. nvidia-docker run --rm -ti pytorch/pytorch:latest\n1. import torch\n1. torch.cuda.is_available()\n\nIt returns False because CUDA is not existing.\n", "cuda-unavailable"},
		{">>> torch.cuda.is_available()\n\nIt returns True here, so the driver is fine.\n", ""},
		// How many GPUs CUDA sees, printed by a REPL: zero is the failure.
		{">>> import torch\n>>> torch.cuda.device_count()\n0\n", "cuda-unavailable"},
		{">>> torch.cuda.device_count()\n4\n", ""},
		{"if torch.cuda.device_count() == 0:\n    sys.exit('needs a GPU')\n", ""},
	} {
		fs := explainText(t, e, c.log)
		got := ""
		if len(fs) > 0 {
			got = fs[0].Class
		}
		if got != c.class {
			t.Errorf("%q: got %q, want %q", c.log, got, c.class)
		}
	}
}

// A crash as Windows, faulthandler or an IDE words it is a failure of no
// known class; a clean exit is none.
func TestCrashWordings(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct {
		log  string
		fail bool
	}{
		{"Process finished with exit code -1073741819 (0xC0000005)\n", true},
		{"Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)\n", true},
		{"Windows fatal exception: access violation\n", true},
		{"Process finished with exit code 0\n", false},
	} {
		if fs := explainText(t, e, c.log); (len(fs) > 0) != c.fail {
			t.Errorf("%q: got %v, want a failure: %v", c.log, fs, c.fail)
		}
	}
}

// A log's error tag on a line that names the GPU stack, before or after
// the tag, is a failure of no known class; ERROR in prose, or a tag on a
// line about something else, is none.
func TestErrorTaggedGPULines(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct {
		log  string
		fail bool
	}{
		{"[CUDA] ERROR gpu 0: kernel watchdog fired, file cuda_extra.cu: 487\n", true},
		{"[2021-01-01 10:00:00] ERROR CUDA call failed\n", true},
		{"CUDA ERROR: device kernel crashed\n", true},
		{"2021-08-18 19:36:36,093 - mmdet - ERROR - GPU 0 stopped responding\n", true},
		{"nvcc error: cannot find the GPU toolkit\n", true},
		{"2021-01-01 INFO using GPU 0, no ERROR seen\n", false},
		{"[2021-01-01 10:00:00] ERROR could not reach the tracking server\n", false},
		{"ERROR SUMMARY: 0 errors\n", false},
	} {
		if fs := explainText(t, e, c.log); (len(fs) > 0) != c.fail {
			t.Errorf("%q: got %v, want a failure: %v", c.log, fs, c.fail)
		}
	}
}

// Failures of no class in other programs' words are never silent, and the
// finding quotes the line that reports them: a host-side assertion, a
// TensorFlow fatal log line (not the "Aborted" after it). Their look-alikes
// (an assertion that passed, an info line) stay quiet.
func TestHostAssertionsAndFatalLogLines(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct {
		log, quote string
	}{
		{"Faiss assertion 'err == cudaSuccess' failed in faiss::gpu::StackDeviceMemory::Stack::Stack(int, size_t) at utils/StackDeviceMemory.cpp:33\nAborted (core dumped)\n", "Faiss assertion"},
		{"python: /src/op.cpp:42: void run(): Assertion `status == CUBLAS_STATUS_SUCCESS' failed.\nAborted (core dumped)\n", "Assertion `status"},
		{"2019-03-01 12:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1511] Adding visible gpu devices: 0\n" +
			"2019-03-01 12:00:01.123456: F tensorflow/core/common_runtime/gpu/gpu_util.cc:339] GPU->CPU Memcpy failed\nAborted (core dumped)\n", "GPU->CPU Memcpy failed"},
		{"all checks passed: assertion 'x > 0' held\n", ""},
		{"2019-03-01 12:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1511] Adding visible gpu devices: 0\n", ""},
	} {
		fs := explainText(t, e, c.log)
		switch {
		case c.quote == "" && len(fs) > 0:
			t.Errorf("%q: want no finding, got %v", c.log, fs[0].Message)
		case c.quote != "" && (len(fs) == 0 || !strings.Contains(fs[0].Evidence[0].Text, c.quote)):
			t.Errorf("%q: want a finding quoting %q, got %+v", c.log, c.quote, fs)
		}
	}
}

// A paste that starts below its traceback's header is still a traceback:
// cut at both ends it gets the cut-off finding; with its exception line it
// is classified by it (here a cuDNN load failure, the line as deep as the
// frames after a blank line); a raise statement printed over several lines
// is read whole when the error line itself is missing.
func TestTracebackWithoutHeader(t *testing.T) {
	e := New(kb.MustDefault())
	cut := `  File "/app/modules/processing.py", line 486, in process_images
    res = process_images_inner(p)
  File "/app/modules/processing.py", line 632, in process_images_inner
    samples = p.sample(c)
`
	fs := explainText(t, e, cut)
	if len(fs) == 0 || fs[0].Class != "other" || !strings.Contains(fs[0].Message, "ends before its error line") {
		t.Fatalf("cut traceback: %+v", fs)
	}
	withError := `    File "/env/lib/python3.9/site-packages/paddle/fluid/framework.py", line 2781, in __init__
      for frame in traceback.extract_stack():

    PreconditionNotMetError: Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.
`
	if fs := explainText(t, e, withError); len(fs) == 0 || fs[0].Class != "library-mismatch" {
		t.Errorf("traceback with its error line: %+v", fs)
	}
	raise := `  File "/env/lib/python3.13/site-packages/vllm/v1/core/kv_cache_utils.py", line 699, in check_enough_kv_cache_memory
    raise ValueError("No available memory for the cache blocks. "
                     "Try increasing ` + "`gpu_memory_utilization`" + ` when "
                     "initializing the engine.")
`
	if fs := explainText(t, e, raise); len(fs) == 0 || fs[0].Class != "oom" {
		t.Errorf("multi-line raise: %+v", fs)
	}
}

// torchrun's summary with no error of the worker's own in the input (the
// summary pasted alone, or cut before its entries) is a failure: the
// finding names the rank and exit code it reports.
func TestChildFailedAlone(t *testing.T) {
	e := New(kb.MustDefault())
	log := `torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-02-05_01:02:51
  host      : node1
  rank      : 3 (local_rank: 3)
  exitcode  : 1 (pid: 907695)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
`
	fs := explainText(t, e, log)
	if len(fs) != 1 || fs[0].Class != "other" || !strings.Contains(fs[0].Message, "rank 3 exited with code 1") {
		t.Fatalf("findings: %+v", fs)
	}
	// With @record, the summary carries the worker's traceback: that is
	// the diagnosis, on the summary's rank.
	recorded := strings.Replace(log, "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n",
		"  traceback : Traceback (most recent call last):\n    File \"train.py\", line 20, in main\n      y = model(x)\n"+
			"  torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.10 GiB of which 1.00 GiB is free.\n", 1)
	if fs := explainText(t, e, recorded); len(fs) != 1 || fs[0].Class != "oom" || fs[0].Rank == nil || *fs[0].Rank != 3 {
		t.Errorf("summary with the worker's traceback: %+v", fs)
	}
	cut := strings.SplitAfter(log, "<NO_OTHER_FAILURES>\n")[0]
	if fs := explainText(t, e, cut); len(fs) != 1 || !strings.Contains(fs[0].Message, "a worker failed") {
		t.Errorf("cut summary: %+v", fs)
	}
}

// torchvision's CUDA check printed by a console that wraps at 80 columns
// (rich, click) breaks after "different"; joined back, the pieces lose the
// space there, and the message must still name both CUDA builds.
func TestWrappedTorchvisionCUDACheck(t *testing.T) {
	e := New(kb.MustDefault())
	text := "RuntimeError: Detected that PyTorch and torchvision were compiled with different\n" +
		"CUDA major versions. PyTorch has CUDA Version=12.4 and torchvision has CUDA \n" +
		"Version=11.8. Please reinstall the torchvision that matches your PyTorch \n" +
		"install.\n"
	out := explainText(t, e, text)
	if len(out) == 0 || out[0].Class != "library-mismatch" || fmt.Sprint(out[0].Facts["torch_cuda"]) != "12.4" || fmt.Sprint(out[0].Facts["companion_cuda"]) != "11.8" {
		t.Errorf("got %+v", out)
	}
}
