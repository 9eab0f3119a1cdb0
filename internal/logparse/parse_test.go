package logparse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseString(t testing.TB, s string) []Event {
	t.Helper()
	var evs []Event
	pf := NewPrefilter(append(Triggers(), "CUDA error", "out of memory"))
	if err := Parse(context.Background(), strings.NewReader(s), "t.log", pf, func(e Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestCleanLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\n", "plain"},
		{"crlf\r\n", "crlf"},
		{"10%|#   \r50%|#####  \r100%|########|\n", "100%|########|"},
		{"\x1b[31mRuntimeError\x1b[0m: CUDA error\n", "RuntimeError: CUDA error"},
		{"bad \xff\xfe utf8\n", "bad \uFFFD\uFFFD utf8"},
		{"bar 99%\r   \r\n", "bar 99%"},
		{`"\u001b[0;31mOutOfMemoryError\u001b[0m: CUDA out of memory."` + "\n", `"OutOfMemoryError: CUDA out of memory."`},
		{`'\x1b[1mRuntimeError\x1b[0m' \033[31mred\033[0m` + "\n", `'RuntimeError' red`},
		{`C:\Users\ana\x1b\train.py` + "\n", `C:\Users\ana\x1b\train.py`},
		// the process's next words printed on the bar's line
		{"train:  10%|#         | 1/10 [00:01<00:09, 1.0it/s]\rtrain:  20%|##        | 2/10 [00:02<00:08, 1.0it/s, loss=0.3]RuntimeError: CUDA error: x\n", "RuntimeError: CUDA error: x"},
		{"42%|████▏     | 390/928 [00:22<00:31, 3.21it/s]Traceback (most recent call last):\n", "Traceback (most recent call last):"},
		{"train:  20%|##        | 2/10 [00:02<00:08, 1.0it/s]\n", "train:  20%|##        | 2/10 [00:02<00:08, 1.0it/s]"},
		// another process's bar drawn over a message printed without its own line break
		{"torch.OutOfMemoryError: CUDA out of memory.\r  5%|5         | 5/100 [00:01<00:20, 4.8it/s]\n", "torch.OutOfMemoryError: CUDA out of memory."},
		{"[rank1]: RuntimeError: CUDA error: x\r 1%|1         | 1/100 [00:01<01:39, 1.0it/s]\r 2%|2         | 2/100 [00:02<01:38, 1.0it/s]\r   \n", "[rank1]: RuntimeError: CUDA error: x"},
		// frames alone keep the last one
		{" 1%|1         | 1/100 [00:01<01:39, 1.0it/s]\r 2%|2         | 2/100 [00:02<01:38, 1.0it/s]\n", " 2%|2         | 2/100 [00:02<01:38, 1.0it/s]"},
	}
	for _, tt := range tests {
		if got := cleanLine([]byte(tt.in)); got != tt.want {
			t.Errorf("cleanLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Colour codes inside a message do not hide its words from the prefilter,
// and removing them keeps every line break.
func TestColouredLog(t *testing.T) {
	for in, want := range map[string]string{
		"a\x1b[31mb\x1b[0mc\n":   "abc\n",
		"x\x1b[3\ny\n":           "x\ny\n", // a sequence cut by the line's end
		"plain\n":                "plain\n",
		"\x1b]0;title\x07text\n": "text\n",
	} {
		if got := string(stripEscapes([]byte(in))); got != want {
			t.Errorf("stripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
	log := "\x1b[32mepoch 1\x1b[0m\n" +
		"\x1b[31mRuntimeError: CUDA\x1b[0m error: an illegal memory access was encountered\n"
	evs := parseString(t, log)
	if len(evs) != 1 || evs[0].Line != 2 || len(evs[0].Lines) == 0 ||
		evs[0].Lines[0].Text != "RuntimeError: CUDA error: an illegal memory access was encountered" {
		t.Errorf("events: %s", summarize(evs))
	}
}

func TestStripRank(t *testing.T) {
	tests := []struct {
		in   string
		rank int
		rest string
	}{
		{"[rank1]: Traceback (most recent call last):", 1, "Traceback (most recent call last):"},
		{"[rank0]:[E1122 05:43:58.555 ProcessGroupNCCL.cpp:689] x", 0, "[E1122 05:43:58.555 ProcessGroupNCCL.cpp:689] x"},
		{"[default3]:  File \"a.py\", line 1", 3, " File \"a.py\", line 1"},
		{"[1,2]<stderr>:RuntimeError: x", 2, "RuntimeError: x"},
		{"12: Traceback (most recent call last):", 12, "Traceback (most recent call last):"},
		{"3: [rank11]:Traceback (most recent call last):", 11, "Traceback (most recent call last):"},
		{"0: [default2]:  File \"a.py\", line 1", 2, " File \"a.py\", line 1"},
		{"4: [note] not a rank", 4, "[note] not a rank"},
		{"7:", 7, ""}, // an empty line of task 7, its trailing space trimmed
		// the task's logger stamps its lines behind srun's label
		{"6: 2020-11-24 20:22:28.106 /bin/bash: line 27: 318 Killed sh start.sh", 6, "/bin/bash: line 27: 318 Killed sh start.sh"},
		{"6: 2020 was a year", 6, "2020 was a year"},
		{"no prefix", -1, "no prefix"},
		{"[rankX]: nope", -1, "[rankX]: nope"},
	}
	for _, tt := range tests {
		r, rest := stripRank(tt.in)
		if r != tt.rank || rest != tt.rest {
			t.Errorf("stripRank(%q) = %d %q, want %d %q", tt.in, r, rest, tt.rank, tt.rest)
		}
	}
}

// torchrun inside srun --label: the task's label, then the rank prefix
// with no space after it; the events carry torchrun's rank.
func TestTorchrunInsideSrun(t *testing.T) {
	log := `1: [rank1]:Traceback (most recent call last):
1: [rank1]:  File "/job/train.py", line 12, in <module>
1: [rank1]:    out = model(batch)
1: [rank1]:RuntimeError: CUDA error: out of memory
`
	evs := parseString(t, log)
	if len(evs) != 1 || evs[0].Rank != 1 || evs[0].SrunLabel || len(evs[0].Chain) != 1 ||
		evs[0].Chain[0].Type != "RuntimeError" || evs[0].Chain[0].Frames[0].Line != 12 {
		t.Errorf("events: %s", summarize(evs))
	}
}

// srun --label interleaves its tasks' lines: a message of one task goes
// on across the other tasks' lines, not across a line of no task.
func TestInterleavedTaskMessage(t *testing.T) {
	log := "2: NCCL WARN Cuda failure 'out of memory'\n" +
		"0: step 5 done\n" +
		"2: while allocating the receive buffers\n" +
		"2: of channel 3\n" +
		"Traceback (most recent call last):\n" +
		"2: later words\n"
	pf := NewPrefilter([]string{"Cuda failure"})
	var evs []Event
	if err := Parse(context.Background(), strings.NewReader(log), "t.log", pf, func(e Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	if len(evs) == 0 || evs[0].Rank != 2 || evs[0].EndLine != 4 || len(evs[0].Lines) != 3 {
		t.Errorf("events: %s", summarize(evs))
	}
}

func TestC10Prefix(t *testing.T) {
	lv, ts, msg, ok := c10Prefix("[E1122 05:43:58.555329701 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog")
	if !ok || lv != 'E' || ts != "1122 05:43:58.555329701" || msg != "[Rank 0] Watchdog" {
		t.Errorf("c10: %c %q %q %v", lv, ts, msg, ok)
	}
	lv, ts, msg, ok = c10Prefix("E1122 05:36:55.349000 1284 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: -6)")
	if !ok || lv != 'E' || ts != "1122 05:36:55.349000000" || msg != "failed (exitcode: -6)" {
		t.Errorf("torchrun: %c %q %q %v", lv, ts, msg, ok)
	}
	if _, _, _, ok := c10Prefix("Error: nothing"); ok {
		t.Error("plain line taken for a log prefix")
	}
}

func TestInterleavedRanksStayApart(t *testing.T) {
	log := `[rank0]: Traceback (most recent call last):
[rank1]: Traceback (most recent call last):
[rank0]:   File "/w/a.py", line 3, in <module>
[rank1]:   File "/w/a.py", line 4, in <module>
[rank0]:     x()
[rank1]:     y()
[rank0]: RuntimeError: CUDA error: zero
[rank1]: ValueError: one
`
	evs := parseString(t, log)
	type got struct {
		Rank, Line int
		Type       string
	}
	var g []got
	for _, e := range evs {
		g = append(g, got{e.Rank, e.Chain[0].Frames[0].Line, e.Chain[0].Type})
	}
	want := []got{{0, 3, "RuntimeError"}, {1, 4, "ValueError"}}
	if d := cmp.Diff(want, g); d != "" {
		t.Error(d)
	}
}

func TestChainedAndMultilineMessage(t *testing.T) {
	log := `Traceback (most recent call last):
  File "/w/t.py", line 9, in <module>
    y.sum().item()
    ^^^^^^^^^^^^^^
torch.AcceleratorError: CUDA error: first
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/w/t.py", line 7, in <module>
    with g:
RuntimeError: second
`
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 2 {
		t.Fatalf("events: %s", summarize(evs))
	}
	c := evs[0].Chain
	if c[0].Frames[0].Line != 9 || c[0].Frames[0].Code != "y.sum().item()" || len(c[0].Lines) != 2 || c[1].Type != "RuntimeError" {
		t.Errorf("chain: %s", summarize(evs))
	}
}

func TestAssertFloodFolded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 900; i++ {
		b.WriteString("/p/IndexKernel.cu:111: operator(): block: [3,0,0], thread: [")
		b.WriteString(strings.Repeat("1", 1+i%3))
		b.WriteString(",0,0] Assertion `idx < n && \"index out of bounds\"` failed.\n")
	}
	evs := parseString(t, b.String())
	if len(evs) != 1 || evs[0].Count != 900 || evs[0].Assert.Kernel != "operator()" || evs[0].Assert.Block != "3,0,0" || evs[0].Assert.Thread != "1,0,0" || evs[0].EndLine != 900 {
		t.Errorf("flood: %s", summarize(evs))
	}
}

func TestSummaryRootCause(t *testing.T) {
	log := `torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-11-22_05:36:55
  host      : node7
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 1326)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 1326
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-11-22_05:36:55
  host      : node7
  rank      : 3 (local_rank: 1)
  exitcode  : -9 (pid: 1327)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 1327
============================================================
`
	evs := parseString(t, "Traceback (most recent call last):\n  File \"/v/bin/torchrun\", line 10, in <module>\n    sys.exit(main())\n"+log)
	var s *Summary
	for _, e := range evs {
		if e.Summary != nil {
			s = e.Summary
		}
	}
	if s == nil || s.Title != "train.py" || len(s.Failures) != 2 {
		t.Fatalf("summary: %s", summarize(evs))
	}
	r := s.Root()
	if r == nil || r.Rank != 3 || r.LocalRank != 1 || r.ExitCode != -9 || r.Signal != "SIGKILL" || r.Host != "node7" {
		t.Errorf("root: %+v", r)
	}
	if s.Failures[0].Signal != "SIGTERM" || s.Failures[0].Root {
		t.Errorf("other: %+v", s.Failures[0])
	}
}

func TestBinaryAndEdges(t *testing.T) {
	pf := NewPrefilter(Triggers())
	err := Parse(context.Background(), bytes.NewReader([]byte("PK\x03\x04\x00\x00garbage")), "train.log", pf, func(Event) {})
	if !errors.Is(err, ErrBinary) || err.Error() != "train.log: binary data, not a text log" {
		t.Errorf("binary: %v", err)
	}
	if evs := parseString(t, ""); len(evs) != 0 {
		t.Errorf("empty: %v", evs)
	}
	// A line far longer than the read buffer, then a traceback: counted once, no panic.
	long := strings.Repeat("x", 3*chunkSize) + "\nTraceback (most recent call last):\n  File \"/a.py\", line 2, in f\nValueError: v"
	evs := parseString(t, long)
	if len(evs) != 1 || evs[0].Line != 2 || evs[0].Chain[0].Type != "ValueError" {
		t.Errorf("long line: %s", summarize(evs))
	}
}

func TestPrefilterFindsEveryOccurrence(t *testing.T) {
	// Lengths differ, so each pattern is found by the block of it the table
	// indexes (its rarest minLen bytes), wherever the sampling falls.
	pats := []string{"CUDA out of memory", "Traceback (most recent call last)", "NCCL error", "Xid",
		"loss is nan", "nan loss", "Killed", "NCCL WARN ", "loss': nan"}
	pf := NewPrefilter(pats)
	noise := "vm:1392:1392 [0] NCCL INFO Channel 00/24 : 0 1 via P2P/CUMEM error\n"
	for _, p := range pats {
		for pad := 0; pad < 40; pad++ {
			buf := []byte(noise + strings.Repeat("a", pad) + p + " tail\n" + noise)
			c := pf.Cursor(buf)
			if got := c.Next(0); got != len(noise) {
				t.Fatalf("pattern %q at pad %d: next=%d want %d", p, pad, got, len(noise))
			}
			if got := c.Next(len(buf) - len(noise)); got != -1 {
				t.Fatalf("pattern %q: phantom hit %d", p, got)
			}
			if ids := pf.LinePatterns(buf[len(noise):len(buf)-len(noise)], nil); !slices.Contains(ids, slices.Index(pats, p)) {
				t.Fatalf("pattern %q at pad %d: LinePatterns %v", p, pad, ids)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("[rank1]: Traceback (most recent call last):\n[rank1]:   File \"a.py\", line 1, in <module>\n[rank1]: RuntimeError: CUDA error: x\n"))
	f.Add([]byte("/a.cu:1: k: block: [0,0,0], thread: [0,0,0] Assertion `x` failed.\n"))
	f.Add([]byte("multiprocessing.pool.RemoteTraceback: \n\"\"\"\nTraceback (most recent call last):\n  File \"a.py\", line 1\nE: x\n\"\"\"\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\nE: y\n"))
	f.Add([]byte("[rank0]:[E1122 05:35:38.655882093 ProcessGroupNCCL.cpp:733] Stack trace of the failed collective: \n#0 all_reduce from /a/b.py:3\n\nRoot Cause (first observed failure):\n[0]:\n  rank      : 1 (local_rank: 1)\n  exitcode  : -6 (pid: 1)\n=====\n"))
	f.Add([]byte("========= Invalid __global__ write of size 4 bytes\n=========         Host Frame: <module> in a.py:13\n=========\n"))
	f.Add([]byte("\x1b[31mx\r\ny\rz\xff\n"))
	pf := NewPrefilter(append(Triggers(), "CUDA error", "Error"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = Parse(context.Background(), bytes.NewReader(b), "f", pf, func(e Event) {
			if e.Line < 1 || e.EndLine < e.Line {
				t.Fatalf("bad line range %d-%d", e.Line, e.EndLine)
			}
		})
	})
}

func TestIPythonTraceback(t *testing.T) {
	log := `---------------------------------------------------------------------------
OutOfMemoryError                          Traceback (most recent call last)
Cell In[5], line 3
      1 model = Net().cuda()
      2 x = torch.randn(10**6, 10**4, device="cuda")
----> 3 y = model(x)

File ~/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py:1501, in Module._call_impl(self, *args, **kwargs)
   1496 # hooks
-> 1501     return forward_call(*args, **kwargs)

OutOfMemoryError: CUDA out of memory. Tried to allocate 38.15 GiB
`
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 1 {
		t.Fatalf("events: %s", summarize(evs))
	}
	e := evs[0].Chain[0]
	want := []Frame{{Path: "In[5]", Line: 3, Code: "y = model(x)", LogLine: 3},
		{Path: "~/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", Line: 1501, Function: "Module._call_impl", Code: "return forward_call(*args, **kwargs)", LogLine: 8}}
	if d := cmp.Diff(want, e.Frames); d != "" || e.Type != "OutOfMemoryError" {
		t.Errorf("frames (-want +got):\n%s\ntype %q", d, e.Type)
	}
}

// Python 2 era notebooks print library frames from the compiled files
// ("module.pyc in cuda(self)"): those are frames too, and a short paste
// with two long lines is no re-flowed one whose arrow lines are rests.
func TestIPythonCompiledFrames(t *testing.T) {
	log := `RuntimeErrorTraceback (most recent call last)
<ipython-input-19-56b1ce2851dc> in <module>()
---> 16     net.cuda()

/usr/local/lib/python2.7/dist-packages/torch/nn/modules/module.pyc in cuda(self, device_id)
--> 147         return self._apply(lambda t: t.cuda(device_id))

RuntimeError: cuda runtime error (46) : all CUDA-capable devices are busy or unavailable
`
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 1 {
		t.Fatalf("events: %s", summarize(evs))
	}
	fr := evs[0].Chain[0].Frames
	if len(fr) != 2 || fr[1].Path != "/usr/local/lib/python2.7/dist-packages/torch/nn/modules/module.pyc" || fr[1].Line != 147 || fr[1].Function != "cuda" || fr[1].Code == "" {
		t.Errorf("frames: %+v", fr)
	}
}

func TestTimestampedLines(t *testing.T) {
	log := "2024-05-01T10:00:00.123456789Z stderr F Traceback (most recent call last):\n" +
		"2024-05-01T10:00:00.123456789Z stderr F   File \"/app/train.py\", line 7, in <module>\n" +
		"2024-05-01T10:00:00.123456789Z stderr F     loss.backward()\n" +
		"2024-05-01T10:00:00.123456789Z stderr F RuntimeError: CUDA error: an illegal memory access was encountered\n"
	evs := parseString(t, log)
	if len(evs) != 1 || evs[0].Chain[0].Frames[0].Line != 7 || evs[0].Chain[0].Frames[0].Code != "loss.backward()" {
		t.Errorf("events: %s", summarize(evs))
	}
}

// The CRI log format (Kubernetes) writes an empty line as its time and
// stream tag alone: still an empty line, which ends a message.
func TestTimestampedEmptyLine(t *testing.T) {
	for in, want := range map[string]string{
		"2024-05-01T10:00:00.5Z stderr F":        "",
		"2024-05-01T10:00:00.5Z stdout P":        "",
		"2024-05-01T10:00:00.5Z":                 "",
		"2024-05-01T10:00:00.5Z stderr F x":      "x",
		"2024-05-01T10:00:00.5Z stderrF x":       "stderrF x",
		"2024-05-01 10:00:00,123 - trainer - ok": "- trainer - ok",
		"2024-05-01T10:00:00.5Zstderr F x":       "2024-05-01T10:00:00.5Zstderr F x",
	} {
		if got := stripStamp(in); got != want {
			t.Errorf("stripStamp(%q) = %q, want %q", in, got, want)
		}
	}
	log := "2024-05-01T10:00:00.1Z stderr F RuntimeError: CUDA error: out of memory\n" +
		"2024-05-01T10:00:00.1Z stderr F\n" +
		"2024-05-01T10:00:00.2Z stderr F RuntimeError: CUDA error: an illegal memory access was encountered\n"
	if evs := parseString(t, log); len(evs) != 2 {
		t.Errorf("events: %s", summarize(evs))
	}
}

func TestParseAssert(t *testing.T) {
	tests := []struct {
		in   string
		want Assert
		ok   bool
	}{
		{"/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:111: operator(): block: [0,0,0], thread: [3,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.",
			Assert{File: "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu", Line: 111, Kernel: "operator()", Block: "0,0,0", Thread: "3,0,0", Expr: "-sizes[i] <= index && index < sizes[i] && \"index out of bounds\""}, true},
		{"/w/Indexing.cu:1422: void indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>(cuda::detail::TensorInfo<T, IndexType>, int, long): block: [23,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
			Assert{File: "/w/Indexing.cu", Line: 1422, Kernel: "void indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>(cuda::detail::TensorInfo<T, IndexType>, int, long)", Block: "23,0,0", Thread: "96,0,0", Expr: "srcIndex < srcSelectDimSize"}, true},
		{"test.cu:11: void testAssert(): block: [0,0,0], thread: [0,0,0] Assertion `should_be_one` failed.",
			Assert{File: "test.cu", Line: 11, Kernel: "void testAssert()", Block: "0,0,0", Thread: "0,0,0", Expr: "should_be_one"}, true},
		{"Assertion `x` failed.", Assert{}, false},
		{"a: block: [1], thread: [2] Assertion `x` failed.", Assert{}, false},
	}
	for _, tt := range tests {
		got, ok := parseAssert(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseAssert(%q) = %+v %v, want %+v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestIndentedPaste(t *testing.T) {
	log := "    Traceback (most recent call last):\n      File \"/home/u/train.py\", line 12, in <module>\n        out = model(x)\n" +
		"    RuntimeError: CUDA error: an illegal memory access was encountered\n    CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 1 {
		t.Fatalf("events: %s", summarize(evs))
	}
	e := evs[0].Chain[0]
	if e.Type != "RuntimeError" || e.Frames[0].Code != "out = model(x)" || len(e.Lines) != 2 {
		t.Errorf("events: %s", summarize(evs))
	}
}

func TestPrefilterWholeNumbers(t *testing.T) {
	pf := NewPrefilter([]string{"214", " 46"})
	for _, tt := range []struct {
		line string
		hit  bool
	}{
		{"cudaErrorECCUncorrectable 214\n", true},
		{"CUDA error 214: x\n", true},
		{"step 12145 loss\n", false},
		{"tokens/s 150214\n", false},
		{"code 46\n", true},
		{"code 460\n", false},
	} {
		if got := pf.Cursor([]byte(tt.line)).Next(0) == 0; got != tt.hit {
			t.Errorf("%q: hit %v, want %v", tt.line, got, tt.hit)
		}
	}
}

func TestQuotedPaste(t *testing.T) {
	// A traceback quoted in an issue with Markdown's "> ", one level nested.
	log := "> > Traceback (most recent call last):\n> >   File \"/home/u/train.py\", line 12, in <module>\n> >     out = model(x)\n" +
		"> > RuntimeError: CUDA error: an illegal memory access was encountered\n"
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 1 {
		t.Fatalf("events: %s", summarize(evs))
	}
	e := evs[0].Chain[0]
	if e.Type != "RuntimeError" || len(e.Frames) != 1 || e.Frames[0].Path != "/home/u/train.py" || e.Frames[0].Code != "out = model(x)" {
		t.Errorf("events: %s", summarize(evs))
	}
	for in, want := range map[string]string{">>> torch.zeros(1).cuda()": "torch.zeros(1).cuda()", ">": "", "> x": "x", ">> x": "x", ">x": ">x", "->x": "->x"} {
		if got := stripQuote(in); got != want {
			t.Errorf("stripQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapedPaste(t *testing.T) {
	// A whole traceback inside one JSON string: its lines are read, and
	// they keep the physical line's number.
	log := "starting\n{\"message\": \"Traceback (most recent call last):\\n  File \\\"/w/train.py\\\", line 7, in <module>\\n    y = f(x)\\nRuntimeError: CUDA error: an illegal memory access was encountered\\n\"}\n"
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 1 {
		t.Fatalf("events: %s", summarize(evs))
	}
	e := evs[0].Chain[0]
	if e.Type != "RuntimeError" || len(e.Frames) != 1 || e.Frames[0].Path != "/w/train.py" || e.Frames[0].Line != 7 || evs[0].Line != 2 {
		t.Errorf("events: %s", summarize(evs))
	}
	// Three "\n" in a path are not a log.
	if got := escapedLines(`C:\new\nets\nodes\nine.txt`); got != nil {
		t.Errorf("a Windows path was split: %q", got)
	}
}

func TestLoggerPrefixes(t *testing.T) {
	// vLLM logs every traceback line with its own prefix, and Ray tags the
	// worker that printed it.
	log := "INFO 04-30 10:20:35 [monitor.py:33] torch.compile takes 13.93 s in total\n" +
		"ERROR 04-30 10:20:36 [core.py:396] Traceback (most recent call last):\n" +
		"ERROR 04-30 10:20:36 [core.py:396]   File \"/env/vllm/v1/engine/core.py\", line 387, in run_engine_core\n" +
		"ERROR 04-30 10:20:36 [core.py:396]     engine_core = EngineCoreProc(*args, **kwargs)\n" +
		"ERROR 04-30 10:20:36 [core.py:396] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n" +
		"(RayWorkerWrapper pid=4242, ip=10.0.0.2) RuntimeError: CUDA error: an illegal memory access was encountered\n"
	evs := parseString(t, log)
	var types []string
	for _, ev := range evs {
		for _, e := range ev.Chain {
			types = append(types, e.Type)
			if e.Type == "torch.OutOfMemoryError" && (len(e.Frames) != 1 || e.Frames[0].Line != 387) {
				t.Errorf("frames: %+v", e.Frames)
			}
		}
	}
	if !slices.Contains(types, "torch.OutOfMemoryError") {
		t.Errorf("events: %s", summarize(evs))
	}
	// The same lines behind a launcher's or a collector's prefix.
	for _, prefix := range []string{"2: [rank2]:", "2024-05-01T10:00:00.5Z stderr F "} {
		var b strings.Builder
		for _, l := range strings.SplitAfter(log, "\n") {
			if l != "" {
				b.WriteString(prefix + l)
			}
		}
		found := false
		for _, ev := range parseString(t, b.String()) {
			for _, e := range ev.Chain {
				found = found || (e.Type == "torch.OutOfMemoryError" && len(e.Frames) == 1 && e.Frames[0].Line == 387)
			}
		}
		if !found {
			t.Errorf("behind %q: no OutOfMemoryError with its frame", prefix)
		}
	}
	for in, want := range map[string]string{
		"(RayWorkerWrapper pid=4242, ip=10.0.0.2) x": "x",
		"(pid=7) x": "x",
		"ERROR 04-30 10:20:36 [core.py:396]   File": "  File",
		"ERROR: not a logger prefix":                "ERROR: not a logger prefix",
	} {
		if got := stripLogger(in); got != want {
			t.Errorf("stripLogger(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLabelledTracebackHeader(t *testing.T) {
	// torchrun's failure summary puts the traceback behind "traceback : ",
	// so the header's depth says nothing; the exception line is the one left
	// of the frames.
	log := "traceback : Traceback (most recent call last):\n" +
		"    File \"/w/train.py\", line 162, in main\n" +
		"      torch.cuda.set_device(device)\n" +
		"  RuntimeError: CUDA error: invalid device ordinal\n" +
		"  For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 1 {
		t.Fatalf("events: %s", summarize(evs))
	}
	e := evs[0].Chain[0]
	if e.Type != "RuntimeError" || e.Message != "CUDA error: invalid device ordinal" || len(e.Frames) != 1 || e.Frames[0].Code != "torch.cuda.set_device(device)" {
		t.Errorf("events: %s", summarize(evs))
	}
	// A code line that happens to look like "name.attr" stays code.
	log = "Traceback (most recent call last):\n  File \"/w/a.py\", line 3, in <module>\n    torch.cuda.synchronize\nRuntimeError: boom\n"
	evs = parseString(t, log)
	if len(evs) != 1 || evs[0].Chain[0].Type != "RuntimeError" || evs[0].Chain[0].Frames[0].Code != "torch.cuda.synchronize" {
		t.Errorf("events: %s", summarize(evs))
	}
}

func TestPaddedPaste(t *testing.T) {
	// A terminal copy that lost its line breaks but kept each line's
	// padding to the window width.
	pad := strings.Repeat(" ", 40)
	log := "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 899505 closing signal SIGTERM" + pad +
		"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 4 (pid: 899509) of binary: /usr/bin/python" + pad +
		"Traceback (most recent call last):\n"
	got := paddedLines(strings.TrimRight(log, "\n"))
	if len(got) != 3 || !strings.HasPrefix(got[1], "ERROR:torch.distributed") || got[2] != "Traceback (most recent call last):" {
		t.Errorf("padded lines: %q", got)
	}
	// One wide gap is an aligned column, not lost breaks.
	if got := paddedLines("| 0  NVIDIA H100 80GB HBM3" + pad + "On | 00000000:18:00.0 Off |" + strings.Repeat("x", 200)); got != nil {
		t.Errorf("a table row was split: %q", got)
	}
}

func TestOwnOutputIsNotEvidence(t *testing.T) {
	// cudadoctor run prints its diagnosis into the same stream as the
	// program; read again, it quotes the assertion a second time.
	log := "/w/k.cu:5: k: block: [0,0,0], thread: [1,0,0] Assertion `i < n` failed.\n" +
		"RuntimeError: CUDA error: device-side assert triggered\n" +
		"cudadoctor: re-running with CUDA_LAUNCH_BLOCKING=1 (stops after 1m10s) ...\n" +
		"error[device-assert-other] kernel k failed its assertion `i < n` (1 threads)\n" +
		"  --> output:1\n" +
		"  evidence:\n" +
		"    output:1: /w/k.cu:5: k: block: [0,0,0], thread: [1,0,0] Assertion `i < n` failed.\n" +
		"    output:2: RuntimeError: CUDA error: device-side assert triggered\n" +
		"\n" +
		"warning[other] something else\n" +
		"  fix:\n" +
		"    1. do this\n" +
		"Traceback (most recent call last):\n" +
		"  File \"/w/a.py\", line 3, in <module>\n" +
		"RuntimeError: later\n"
	evs := parseString(t, log)
	asserts, tbs := 0, 0
	for _, ev := range evs {
		if ev.Line >= 3 && ev.Line <= 12 {
			t.Errorf("an event from cudadoctor's own lines: %s", summarize([]Event{ev}))
		}
		switch ev.Kind {
		case KindAssert:
			asserts++
		case KindTraceback:
			tbs++
		}
	}
	if asserts != 1 || tbs != 1 {
		t.Errorf("want the program's assert and the traceback after the block: %s", summarize(evs))
	}
}

// An input that fits in one chunk is parsed inline, a longer one through
// the reading and scanning goroutines: around the boundary (the last line
// ending just before, at or after it, with or without a final newline) both
// must see the same events.
func TestOneChunkAndManyChunksParseAlike(t *testing.T) {
	failure := "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"a.py\", line 1, in <module>\n[rank1]: RuntimeError: CUDA error: out of memory\n"
	line := "step 10 | loss 2.31\n"
	for _, extra := range []int{-2, -1, 0, 1, 2} {
		for _, tail := range []string{"\n", ""} {
			body := failure + "trailer" + tail
			fill := chunkSize + extra - len(body)
			pad := strings.Repeat(line, fill/len(line))
			pad += strings.Repeat("y", fill-len(pad)-1) + "\n"
			s := pad + body
			evs := parseString(t, s)
			lines := strings.Count(pad, "\n")
			want := summarize(parseString(t, failure))
			got := summarize(shift(evs, -lines))
			if len(s) != chunkSize+extra || got != want {
				t.Errorf("size %d: got\n%swant\n%s", len(s), got, want)
			}
		}
	}
}

func shift(evs []Event, by int) []Event {
	for i := range evs {
		evs[i].Line += by
		evs[i].EndLine += by
		for j := range evs[i].Lines {
			evs[i].Lines[j].N += by
		}
	}
	return evs
}

// rich's boxed traceback (accelerate, Typer, Lightning CLIs): frames as
// "PATH:LINE in FUNC", a path broken over two box lines, the frame's line
// marked with ❱, a locals panel, and the exception under the box.
func TestRichTraceback(t *testing.T) {
	log := `step 12 loss 2.1
╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /home/ana/project/train.py:88 in main                                        │
│                                                                              │
│    86 │   │   batch = {k: v.to("cuda") for k, v in batch.items()}            │
│    87 │   │   out = model(**batch)                                           │
│ ❱  88 │   │   loss = out.loss.item()                                         │
│                                                                              │
│ ╭─────────────────────────────── locals ───────────────────────────────╮     │
│ │ step = 12                                                            │     │
│ ╰──────────────────────────────────────────────────────────────────────╯     │
│                                                                              │
│ /home/ana/miniconda3/envs/x/lib/python3.10/site-packages/torch/nn/modules/mo │
│ dule.py:1532 in _wrapped_call_impl                                           │
│                                                                              │
│ ❱ 1532 │   │   │   return self._call_impl(*args, **kwargs)                   │
╰──────────────────────────────────────────────────────────────────────────────╯
RuntimeError: CUDA error: device-side assert triggered
CUDA kernel errors might be asynchronously reported at some other API call, so
the stacktrace below might be incorrect.
`
	evs := parseString(t, log)
	var tb *Event
	for i := range evs {
		if evs[i].Kind == KindTraceback {
			tb = &evs[i]
		}
	}
	if tb == nil || len(tb.Chain) != 1 {
		t.Fatalf("no traceback: %+v", evs)
	}
	e := tb.Chain[0]
	want := []Frame{
		{Path: "/home/ana/project/train.py", Line: 88, Function: "main", Code: "loss = out.loss.item()", LogLine: 3},
		{Path: "/home/ana/miniconda3/envs/x/lib/python3.10/site-packages/torch/nn/modules/module.py", Line: 1532, Function: "_wrapped_call_impl", Code: "return self._call_impl(*args, **kwargs)", LogLine: 14},
	}
	if diff := cmp.Diff(want, e.Frames); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	if e.Type != "RuntimeError" || e.Message != "CUDA error: device-side assert triggered" || e.Lines[0].N != 18 {
		t.Errorf("exception %q %q on line %d", e.Type, e.Message, e.Lines[0].N)
	}
}

// An exception group's frame is taken away: each sub-exception is a
// traceback of its own, and a table after the group keeps its bars.
func TestExceptionGroup(t *testing.T) {
	log := `  + Exception Group Traceback (most recent call last):
  |   File "/app/server.py", line 10, in main
  |     async with asyncio.TaskGroup() as tg:
  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/app/worker.py", line 5, in run
    |     x = torch.zeros(10**12, device="cuda")
    | torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3725.29 GiB.
    +------------------------------------
| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |
`
	var got []string
	for _, ev := range parseString(t, log) {
		for _, e := range ev.Chain {
			for _, f := range e.Frames {
				got = append(got, fmt.Sprintf("%s:%d %s", f.Path, f.Line, f.Code))
			}
			got = append(got, fmt.Sprintf("%s: %s (line %d)", e.Type, e.Message, e.Lines[0].N))
		}
	}
	want := []string{
		"/app/server.py:10 async with asyncio.TaskGroup() as tg:",
		"ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception) (line 4)",
		"/app/worker.py:5 x = torch.zeros(10**12, device=\"cuda\")",
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3725.29 GiB. (line 9)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tracebacks (-want +got):\n%s", diff)
	}
	p := &parser{}
	if s := p.exceptionGroup("| a | b |"); s != "| a | b |" {
		t.Errorf("a table row outside a group became %q", s)
	}
}

// docker compose's "service-N  | " prefix goes, so the frames behind it are
// frames; a table row keeps its bars.
func TestComposePrefix(t *testing.T) {
	for in, want := range map[string]string{
		"vllm-1  |   File \"/app/run.py\", line 44, in main": "  File \"/app/run.py\", line 44, in main",
		"proj_trainer_1 | RuntimeError: CUDA error":          "RuntimeError: CUDA error",
		"| loss | nan |":    "| loss | nan |",
		"epoch  | 1 | 0.52": "epoch  | 1 | 0.52",
	} {
		if got := stripCompose(in); got != want {
			t.Errorf("stripCompose(%q) = %q, want %q", in, got, want)
		}
	}
}

// A log saved as UTF-16 with a byte-order mark (PowerShell's redirect)
// parses as its UTF-8 text does, in either byte order.
func TestUTF16Log(t *testing.T) {
	text := "step 1\r\nTraceback (most recent call last):\r\n  File \"C:\\Users\\ana\\train.py\", line 9, in <module>\r\n    x = f()\r\nRuntimeError: CUDA error: out of memory\r\n"
	want := summarize(parseString(t, text))
	for name, bom := range map[string][]byte{"little-endian": {0xff, 0xfe}, "big-endian": {0xfe, 0xff}} {
		b := append([]byte(nil), bom...)
		for _, r := range text {
			if name == "little-endian" {
				b = append(b, byte(r), byte(r>>8))
			} else {
				b = append(b, byte(r>>8), byte(r))
			}
		}
		if LooksBinary(b) {
			t.Errorf("%s: judged binary", name)
		}
		if got := summarize(parseString(t, string(b))); got != want {
			t.Errorf("%s: got\n%swant\n%s", name, got, want)
		}
	}
}
