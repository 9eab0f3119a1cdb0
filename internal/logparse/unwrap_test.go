package logparse

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// cut breaks every line of s longer than width into pieces of exactly
// width characters, as a terminal copy does.
func cut(s string, width int) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		for len(l) > width {
			b.WriteString(l[:width] + "\n")
			l = l[width:]
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

const wrapTraceback = `Epoch 3 step 1200 loss 2.31
Traceback (most recent call last):
  File "/home/ana/miniconda3/envs/train/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/ana/miniconda3/envs/train/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 116, in forward
    return F.linear(input, self.weight, self.bias)
  File "/home/ana/project/train.py", line 88, in step
    loss = model(batch.to("cuda")).sum()
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
`

// A traceback cut at a terminal's width parses as the same traceback, with
// the line numbers of the input (each piece still counts as a line).
func TestHardWrappedTracebackIsJoined(t *testing.T) {
	plain := parseString(t, wrapTraceback)
	for _, width := range []int{80, 94, 120} {
		wrapped := cut(wrapTraceback, width)
		if got := detectWrap([]byte(wrapped)); got.mode != hardWrap || got.width != width {
			t.Fatalf("width %d: detected %+v", width, got)
		}
		evs := parseString(t, wrapped)
		if len(evs) != len(plain) {
			t.Fatalf("width %d: %d events, want %d", width, len(evs), len(plain))
		}
		ex, pex := evs[0].Chain, plain[0].Chain
		if len(ex) != 1 || len(pex) != 1 {
			t.Fatalf("width %d: exceptions %d, want 1", width, len(ex))
		}
		if ex[0].Message != pex[0].Message || len(ex[0].Frames) != len(pex[0].Frames) {
			t.Errorf("width %d: message %q with %d frames, want %q with %d", width, ex[0].Message, len(ex[0].Frames), pex[0].Message, len(pex[0].Frames))
		}
		// The message line is the wrapped file's line that begins it.
		want := 0
		for i, l := range strings.Split(wrapped, "\n") {
			if strings.HasPrefix(l, "RuntimeError: CUDA error") {
				want = i + 1
			}
		}
		if n := ex[0].Lines[0].N; n != want {
			t.Errorf("width %d: message on line %d, want %d", width, n, want)
		}
	}
}

// Layouts that share one width without being wrapped are left alone: a
// log that was never wrapped, a drawn table, and fixed-format progress.
func TestUnwrappedLayoutsStay(t *testing.T) {
	smi := `+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |
+-----------------------------------------+------------------------+----------------------+
`
	var metrics strings.Builder
	for i := 0; i < 20; i++ {
		metrics.WriteString("step 00" + string(rune('0'+i%10)) + "00 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82\n")
	}
	// torch prints a tensor broken after commas at 80 columns; with a
	// sanitizer's 132-column hint, each the longest line once.
	tensor := "tensor([[-0.4521,  1.2211, -0.3310, -1.9001,  0.1187,  0.9914, -0.2277,  0.5310],\n" +
		"         -1.1843, -1.9361, -1.7141, -0.4443, -0.7404, -1.2247, -1.2806, -1.8722],\n" +
		"        device='cuda:0')\nRuntimeError: Function 'MulBackward0' returned nan values in its 0th output.\n"
	hint := "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" on CUDA API call to cudaStreamSynchronize.\n" +
		"Search for `cudaErrorLaunchFailure' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n"
	long := strings.Repeat("loading shard\n", 50)
	for name, s := range map[string]string{"traceback": wrapTraceback, "nvidia-smi": smi, "metrics": metrics.String(),
		"tensor": tensor, "sanitizer hint in a long log": long + hint + long} {
		wr := detectWrap([]byte(s))
		out, joins := wr.join([]byte(s), nil)
		if string(out) != s || len(joins) != 0 {
			t.Errorf("%s: changed (detected %+v):\n%s", name, wr, out)
		}
	}
}

// A paste re-flowed at word boundaries gets its spaces back.
func TestWordWrappedMessageIsJoined(t *testing.T) {
	msg := "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_addmm)"
	flowed := `Traceback (most recent call last):
  File "train.py", line 9, in <module>
    y = model(x)
RuntimeError: Expected all tensors to be on the same device, but found
at least two devices, cuda:0 and cpu! (when checking argument for
argument mat1 in method wrapper_addmm)
This happened while training the model on the second epoch after the
checkpoint was loaded from disk and moved to the GPU.
The same script ran for weeks on the old machine with one GPU; it fails
on the new one since we moved the data loading into worker processes and
the model onto two cards.
Setting CUDA_LAUNCH_BLOCKING=1 moves the error to another line of the
forward pass, which is why we think the traceback we pasted above is not
where the problem is.
`
	wr := detectWrap([]byte(flowed))
	if wr.mode != wordWrap || wr.width != 72 {
		t.Fatalf("detected %+v", wr)
	}
	out, _ := wr.join([]byte(flowed), nil)
	if !strings.Contains(string(out), "\n"+msg+"\n") {
		t.Errorf("message not restored:\n%s", out)
	}
}

// A scheduler's line after a piece that fills the width is its own line.
func TestSchedulerLineIsNotARest(t *testing.T) {
	wr := wrapping{mode: hardWrap, width: 20}
	if _, ok := wr.continues([]byte("    out = net(batch)"), []byte("srun: error: node1: task 0: Exited with exit code 1")); ok {
		t.Error("srun's line joined to the piece before it")
	}
	if _, ok := wr.continues([]byte("    out = net(batch)"), []byte(".to(device)")); !ok {
		t.Error("the rest of a cut line not joined")
	}
}

// A short paste shows its wrap only a few times: re-flowed lines that end
// at different widths, or two terminal pieces of one width wider than
// re-flowing tools fill to. Two lines of nearly one width at 80 or less
// prove little: the second is joined only if it cannot open a sentence.
func TestShortPasteWrapping(t *testing.T) {
	warning := "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for: PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.0.1+cu118)"
	flowed := flow(warning, 72) + "    Python 3.10.11 (you have 3.10.11)\n"
	wr := detectWrap([]byte(flowed))
	if out, _ := wr.join([]byte(flowed), nil); !strings.HasPrefix(string(out), warning+"\n") {
		t.Errorf("re-flowed short paste not joined (detected %+v):\n%s", wr, out)
	}
	msg := "Error: RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination"
	if wr := detectWrap([]byte("python txt2img.py --plms\n\n" + cut(msg, 94))); wr.mode != hardWrap || wr.width != 94 {
		t.Errorf("two pieces of 94 columns: detected %+v", wr)
	}
	same := "RuntimeError: CUDA error: an illegal memory access was encountered here\n" +
		"Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions..\n"
	wr = detectWrap([]byte(same))
	if out, joins := wr.join([]byte(same), nil); string(out) != same || len(joins) != 0 {
		t.Errorf("two unwrapped lines of nearly one width changed (detected %+v):\n%s", wr, out)
	}
}

// flow re-flows s at width on word boundaries, as a mail client does.
func flow(s string, width int) string {
	var b strings.Builder
	col := 0
	for i, w := range strings.Fields(s) {
		switch {
		case i > 0 && col+1+len(w) > width:
			b.WriteByte('\n')
			col = 0
		case i > 0:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String() + "\n"
}

// brokenPatterns are phrases of the kind the knowledge base anchors on,
// each with spaces a re-flowing tool may break at.
var brokenPatterns = []string{"CUDA out of memory", "device-side assert triggered",
	"no kernel image is available", "CUBLAS_STATUS_EXECUTION_FAILED when calling", "unhandled system error"}

// parseLines parses s with brokenPatterns and Triggers and returns the
// text of every event line by its number.
func parseLines(t *testing.T, s string) map[int]string {
	t.Helper()
	pf := NewPrefilter(append(Triggers(), brokenPatterns...))
	got := map[int]string{}
	err := Parse(context.Background(), strings.NewReader(s), "t.log", pf, func(e Event) {
		for _, l := range e.Lines {
			got[l.N] = l.Text
		}
		for _, ex := range e.Chain {
			for _, l := range ex.Lines {
				got[l.N] = l.Text
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A phrase broken at a space across a line end is joined back even where
// the paste is too short or mixed to show how it was wrapped: the phrase
// itself shows the break. Line numbers stay those of the input.
func TestBrokenPhraseIsJoined(t *testing.T) {
	for _, tc := range []struct {
		name, log, want string
		line            int
	}{{
		name: "reflowed at 80 columns",
		log: "Epoch 3 step 1200 loss 2.31\n" +
			"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total\n" +
			"capacity; 75.20 GiB already allocated)\n",
		want: "RuntimeError: CUDA out of memory.", line: 2,
	}, {
		name: "phrase across the break",
		log: "step 10\n" +
			"torch.OutOfMemoryError: the allocator reports CUDA out of\n" +
			"memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.15 GiB\n",
		want: "torch.OutOfMemoryError: the allocator reports CUDA out of memory. Tried to allocate 20.00 MiB.", line: 2,
	}, {
		name: "quoted traceback",
		log: "> Traceback (most recent call last):\n" +
			">   File \"train.py\", line 12, in <module>\n" +
			">     loss.backward()\n" +
			"> RuntimeError: CUDA error: device-side assert\n" +
			"> triggered. Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
		want: "RuntimeError: CUDA error: device-side assert triggered.", line: 4,
	}, {
		name: "indented continuation, kept space, CRLF",
		log: "[rank0]: step 5\r\n" +
			"    RuntimeError: CUDA error: no kernel image is \r\n" +
			"        available for execution on the device (sm_120 is not supported)\r\n",
		want: "RuntimeError: CUDA error: no kernel image is available for execution on the device", line: 2,
	}, {
		name: "NCCL, three lines",
		log: "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled\n" +
			"system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n" +
			"ncclSystemError: System call (e.g. socket, malloc) or external library call failed\n",
		want: "NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error (run with", line: 1,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseLines(t, tc.log)
			if !strings.Contains(got[tc.line], tc.want) {
				t.Errorf("line %d reads %q, want it to hold %q (all: %v)", tc.line, got[tc.line], tc.want, got)
			}
		})
	}
}

// Two lines that only happen to put a phrase's words on either side of a
// line end stay apart: a short line is not a re-flowed one, a phrase's
// edge space is no inner break, and a record or table row opens a line of
// its own.
func TestUnbrokenLinesStayApart(t *testing.T) {
	for _, tc := range []struct{ name, log string }{
		{"short line", "allocator: CUDA out of\nmemory pool enabled, 2 GiB reserved for the cache\n"},
		{"record after", "2024-05-01 12:00:01 worker 3 reports its allocator ran CUDA out of\n[rank1]: memory stats: 12 GiB reserved, 3 GiB active, 1 GiB inactive\n"},
		{"table row after", "| torch 2.3.0 built for sm_80 sm_90: no kernel image is |\n| available for sm_120 cards in this build, per the matrix          |\n"},
		{"different words", "RuntimeError: the kernel launch failed with an unhandled system\nerrors counter reset at step 400; continuing the run without a restart\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := []byte(tc.log)
			pf := NewPrefilter(append(Triggers(), brokenPatterns...))
			if _, joins := candidates(pf, buf, nil, true); len(joins) != 0 || string(buf) != tc.log {
				t.Errorf("joined at %v:\n%s", joins, buf)
			}
		})
	}
}

// The prefilter's twin for pastes finds a phrase broken at each of its
// inner spaces, in every way a line end can stand for the space; an
// indented or quoted rest it finds where its sampling meets the unbroken
// part of the phrase (the parse tests above), which this does not promise.
// The filter for long logs finds only whole phrases.
func TestPrefilterFindsBrokenPhrase(t *testing.T) {
	pf := NewPrefilter(brokenPatterns)
	for _, pat := range brokenPatterns {
		for i := 0; i < len(pat); i++ {
			if pat[i] != ' ' || !innerBreak([]byte(pat), i) {
				continue
			}
			for _, brk := range lineEnds {
				head := strings.Repeat("x", 60) + " " + pat[:i]
				buf := []byte("step 1\n" + head + brk + pat[i+1:] + " tail\nstep 2\n")
				cur := pf.Pasted.Cursor(buf)
				if n := cur.Next(0); n != 7 || len(cur.Breaks) != 1 {
					t.Errorf("%q broken by %q: line %d, breaks %v", pat, brk, n, cur.Breaks)
				}
				if n := pf.Cursor(buf).Next(0); n != -1 {
					t.Errorf("%q broken by %q: the filter for long logs found line %d", pat, brk, n)
				}
			}
		}
	}
}

// One message repeated with other numbers and re-flowed alike ends every
// copy at one width: that is no terminal's cut, and joining its pieces
// without a space ("isinsufficient") would lose the message. Distinct
// lines cut at one width stay a hard wrap.
func TestRepeatedReflowedMessageIsNoCut(t *testing.T) {
	var b strings.Builder
	for dev := 105; dev < 112; dev++ {
		fmt.Fprintf(&b, "Failed to initialize CUDA device #%d: CUDA driver version is\ninsufficient for CUDA runtime version\n", dev)
	}
	if wr := detectWrap([]byte(b.String())); wr.mode == hardWrap {
		t.Errorf("repeated re-flowed message read as %+v", wr)
	}
	if wr := detectWrap([]byte(cut(wrapTraceback, 80))); wr.mode != hardWrap || wr.width != 80 {
		t.Errorf("traceback cut at 80 read as %+v", wr)
	}
}

// A pattern broken at a space with one short side ("is" / "not in [0, ")
// is found when the other side is long; two short sides are not.
func TestPrefilterFindsShortSideBreak(t *testing.T) {
	pf := NewPrefilter([]string{"is not in [0, ", "to the gpu"})
	buf := []byte("step 1\nInvalidArgumentError: indices[6,4] = 23624 is\nnot in [0, 23624)\n")
	cur := pf.Pasted.Cursor(buf)
	if n := cur.Next(0); n != 7 || len(cur.Breaks) != 1 {
		t.Errorf("short-side break: line %d, breaks %v", n, cur.Breaks)
	}
	buf = []byte("step 1\nthe weights were copied from the host to\nthe gpu memory\n")
	cur = pf.Pasted.Cursor(buf)
	if n := cur.Next(0); n != -1 {
		t.Errorf("two short sides: line %d, breaks %v", n, cur.Breaks)
	}
}

// Where a whole pattern on the next line and a pattern broken across the
// line end share a window, the broken one, which starts first, wins, so
// its break is joined.
func TestPrefilterPrefersEarlierBrokenMatch(t *testing.T) {
	for _, pats := range [][]string{{"out of memory", "memory"}, {"memory", "out of memory"}} {
		pf := NewPrefilter(pats)
		buf := []byte("src/storage/./pooled_storage_manager.h:157: cudaMalloc failed: out of\nmemory\n")
		cur := pf.Pasted.Cursor(buf)
		if n := cur.Next(0); n != 0 || len(cur.Breaks) != 1 {
			t.Errorf("%q: line %d, breaks %v", pats, n, cur.Breaks)
		}
	}
	// Look-alike: the whole pattern on one line is found with no break.
	pf := NewPrefilter([]string{"out of memory", "memory"})
	cur := pf.Pasted.Cursor([]byte("x\ncudaMalloc failed: out of memory\n"))
	if n := cur.Next(0); n != 2 || len(cur.Breaks) != 0 {
		t.Errorf("whole pattern: line %d, breaks %v", n, cur.Breaks)
	}
}

// A line the scan finds for one pattern ("Traceback", "RuntimeError:")
// still has a second pattern broken across its end, or across the end of
// the line before it, looked for: the scan stops at a line's first find.
func TestBrokenPhraseBehindAFoundLine(t *testing.T) {
	for _, tc := range []struct {
		name, log, want string
	}{{
		name: "across the found line's end",
		log: "step 1\n" +
			"Traceback (most recent call last): RuntimeError: CUBLAS_STATUS_EXECUTION_FAILED\n" +
			"when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda)`\n",
		want: "CUBLAS_STATUS_EXECUTION_FAILED when calling",
	}, {
		name: "across the end of the line before",
		log: "step 1\n" +
			"the job stopped after the allocator on rank 3 reported that it ran CUDA out\n" +
			"of memory. Traceback (most recent call last) follows in the attached file\n",
		want: "ran CUDA out of memory. Traceback",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			buf := []byte(tc.log)
			pf := NewPrefilter(append(Triggers(), brokenPatterns...))
			_, joins := candidates(pf, buf, nil, true)
			if len(joins) != 1 || !strings.Contains(string(buf), tc.want) {
				t.Errorf("joins %v:\n%s", joins, buf)
			}
		})
	}
}

// Two lines next to a found line, which only happen to end and open with
// a phrase's words, stay apart; a '>' that the text goes on from (">= 0")
// is the text's, not a mail client's quote mark, so the line is not read
// from behind it.
func TestFoundLineNeighboursStayApart(t *testing.T) {
	for _, tc := range []struct{ name, log string }{
		{"short line after a found one", "Traceback (most recent call last):\nallocator: CUDA out of\nmemory pool enabled, 2 GiB reserved for the cache\n"},
		{"different words", "Traceback (most recent call last): the launch reported an unhandled system\nerrors counter reset at step 400; continuing the run without a restart\n"},
		{"comparison, no quote", "Traceback (most recent call last): the value must be in range; CUDA out of\n>= 2 GiB memory budgets are refused by the planner, see the docs\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := []byte(tc.log)
			pf := NewPrefilter(append(Triggers(), brokenPatterns...))
			if _, joins := candidates(pf, buf, nil, true); len(joins) != 0 || string(buf) != tc.log {
				t.Errorf("joined at %v:\n%s", joins, buf)
			}
		})
	}
}

// breakEnd skips indents and quote marks ("> ", ">> ") but not a '>' the
// text goes on from.
func TestBreakEndQuoteMarks(t *testing.T) {
	for _, tc := range []struct {
		buf  string
		want int
	}{
		{"a\n> b", 4}, {"a\n>> b", 5}, {"a\n  b", 4}, {"a\n>= 0", 2}, {"a\n  >= 0", 4}, {"a\n>>> x", 6}, {"a\n>\n", 3},
	} {
		if got := breakEnd([]byte(tc.buf), 1); got != tc.want {
			t.Errorf("breakEnd(%q) = %d, want %d", tc.buf, got, tc.want)
		}
	}
}

// A re-flowed paste may end as many lines at its longest width as just
// short of it, which is what a terminal's cut shows too; each short line
// going on with a word that would not have fitted tells the re-flow, and
// its pieces get their spaces back. A cut whose short lines go on with
// words that would have fitted stays a cut.
func TestReflowTieIsNoCut(t *testing.T) {
	msg := "E tensorflow/stream_executor/cuda/cuda_dnn.cc:347] Loaded runtime CuDNN library: 5103 (compatibility version 5100) but source was compiled with 4007 (compatibility version 4000). If using a binary install, upgrade your CuDNN library to match. If building from sources, make sure the library loaded at runtime matches a compatible version specified during compile configuration."
	flowed := flow(msg, 72)
	wr := detectWrap([]byte(flowed))
	if wr.mode != wordWrap {
		t.Fatalf("re-flowed message read as %+v:\n%s", wr, flowed)
	}
	if out, _ := wr.join([]byte(flowed), nil); string(out) != msg+"\n" {
		t.Errorf("re-flowed message not restored (%+v):\n%s", wr, out)
	}
	// A cut at 72 whose short lines go on with words that would have
	// fitted ("in", "at"), though one goes on with one that would not.
	log := "2024-05-01 12:00:01 worker 3: loading shard 17 of 64 from the local cache\n" +
		"2024-05-01 12:00:02 worker 3: RuntimeError: CUDA error: an illegal memory access was encountered\n" +
		"2024-05-01 12:00:02 worker 3: the training loop stops after it\n" +
		"in step 1200\n" +
		"2024-05-01 12:00:02 worker 3: CUDA kernel errors might be asynchronously reported at some other API call\n" +
		"2024-05-01 12:00:03 worker 3: checkpoint written before the failure\n" +
		"Checkpointing: done\n" +
		"2024-05-01 12:00:04 worker 3: For debugging consider passing CUDA_LAUNCH_BLOCKING=1 to the job\n" +
		"2024-05-01 12:00:05 worker 3: the last checkpoint is kept on the node\n" +
		"at /scratch/ckpt\n"
	if wr := detectWrap([]byte(cut(log, 72))); wr.mode != hardWrap || wr.width != 72 {
		t.Errorf("log cut at 72 read as %+v:\n%s", wr, cut(log, 72))
	}
}

// A paste of one long line a terminal cut mid-word shows no width twice,
// but a phrase cut between two of its letters ("funct" / "ion") where the
// line before is as wide as a terminal is joined back with nothing
// between, LF or CRLF.
func TestGluedBreakIsJoined(t *testing.T) {
	pats := []string{"invalid device function", "CUBLAS_STATUS_EXECUTION_FAILED when calling"}
	msg := "GPU plugin exception: function_attributes(): after cudaFuncGetAttributes: invalid device function"
	for _, le := range []string{"\n", "\r\n"} {
		for _, width := range []int{80, 94} {
			buf := []byte(strings.ReplaceAll(cut(msg, width), "\n", le))
			pf := NewPrefilter(append(Triggers(), pats...))
			cands, joins := candidates(pf, buf, nil, true)
			if len(cands) != 1 || len(joins) != 1 || !strings.HasPrefix(string(buf), msg+" ") && !strings.HasPrefix(string(buf), msg+"\r") {
				t.Errorf("cut at %d (%q): candidates %v, joins %v:\n%q", width, le, cands, joins, buf)
			}
		}
	}
}

// Lines that put a phrase's letters on either side of a line end without
// a terminal's cut stay apart: the line before is narrower than a
// terminal, ends in a blank, or holds less than minSideBytes of the
// phrase; and the filter for long logs never looks across lines.
func TestUncutLinesStayApart(t *testing.T) {
	pats := []string{"invalid device function", "CUBLAS_STATUS_EXECUTION_FAILED when calling"}
	long := strings.Repeat("x", 70) + " "
	for name, log := range map[string]string{
		"narrow line":    "kernel launch: invalid device funct\nion table rebuilt\n",
		"blank at end":   long + "invalid device funct \nion table rebuilt\n",
		"two letters":    long + "CUBLAS_STATUS_EXECUTION_FAILED when calli\nng the handle\n",
		"indented rest":  long + "invalid device funct\n  ion table rebuilt\n",
		"two bytes head": long + "in\nvalid device function table rebuilt\n",
	} {
		buf := []byte(log)
		pf := NewPrefilter(append(Triggers(), pats...))
		if _, joins := candidates(pf, buf, nil, true); len(joins) != 0 || string(buf) != log {
			t.Errorf("%s: joined at %v:\n%s", name, joins, buf)
		}
	}
	buf := []byte(cut("GPU plugin exception: function_attributes(): after cudaFuncGetAttributes: invalid device function", 94))
	if n := NewPrefilter(pats).Cursor(buf).Next(0); n != -1 {
		t.Errorf("the filter for long logs found line %d of a cut phrase", n)
	}
}
