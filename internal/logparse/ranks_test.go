package logparse

import (
	"strings"
	"testing"
)

// "N: " in front of lines is srun --label's task label only where the log
// shows tasks; a numbered list of the same shape is not ranks.
func TestSrunLabelsNeedEvidence(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		want      bool
	}{
		{"CUDA.jl device listing", "julia> CUDA.versioninfo()\nCUDA.jl: 3 devices:\n" +
			"  0: NVIDIA GeForce GTX 1080 Ti (sm_61, 225 MiB / 10.9 GiB available)\n" +
			"  1: NVIDIA GeForce GTX 1080 Ti (sm_61, 10.7 GiB / 10.9 GiB available)\n" +
			"  2: NVIDIA GeForce GTX 1080 Ti (sm_61, 10.7 GiB / 10.9 GiB available)\n", false},
		{"numbered steps", "What I did:\n1: installed torch 2.1\n2: ran python train.py\n3: got the error below\n", false},
		{"device names printed twice", "before:\n0: NVIDIA A100\n1: NVIDIA A100\nafter:\n0: NVIDIA A100\n1: NVIDIA A100\n", false},
		{"line-numbered code", "10: import torch\n11: x = torch.zeros(3)\n12: y = x.cuda()\nRuntimeError: CUDA error: out of memory\n", false},
		{"a task's lines in a row", "0: step 1\n1: step 1\n1: Traceback (most recent call last):\n", true},
		{"tasks taking turns", "0: a\n1: a\n0: b\n1: b\n0: c\n1: c\n", true},
		{"one task's output", "3: RuntimeError: CUDA error: out of memory\n", true},
		{"one task's output, timestamped", "2024-06-01T10:00:00Z 3: x\n2024-06-01T10:00:01Z 3: y\n", true},
		{"srun around torchrun", "notes\n3: [rank3]:RuntimeError: x\n", true},
		{"no labels", "GPU 0: NVIDIA A100 (UUID: GPU-1)\nGPU 1: NVIDIA A100 (UUID: GPU-2)\n", true},
	} {
		if got := srunLabels([]byte(tc.log)); got != tc.want {
			t.Errorf("%s: srunLabels = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A numbered list's numbers are no ranks: the error line below one keeps
// no rank, and the traceback after it is read whole.
func TestNumberedListIsNoRanks(t *testing.T) {
	tb := "Traceback (most recent call last):\n" +
		"  File \"train.py\", line 9, in <module>\n" +
		"    loss = model(x)\n" +
		"RuntimeError: CUDA error: out of memory\n"
	for name, head := range map[string]string{
		"steps":   "What I did:\n1: installed torch 2.1 with pip\n2: ran python train.py\n3: RuntimeError: CUDA error: out of memory\n",
		"listing": "CUDA.jl: 2 devices:\n  0: NVIDIA A100 (sm_80, 1.2 GiB / 40 GiB available)\n  1: NVIDIA A100 (sm_80, 39 GiB / 40 GiB available)\n",
	} {
		evs := parseString(t, head+tb)
		if len(evs) == 0 {
			t.Fatalf("%s: no events", name)
		}
		for _, ev := range evs {
			if ev.Rank != -1 || ev.SrunLabel {
				t.Errorf("%s: event at line %d has rank %d (srun %v):\n%s", name, ev.Line, ev.Rank, ev.SrunLabel, summarize(evs))
			}
		}
		last := evs[len(evs)-1]
		if len(last.Chain) != 1 || last.Chain[0].Type != "RuntimeError" || len(last.Chain[0].Frames) != 1 {
			t.Errorf("%s: traceback not read whole:\n%s", name, summarize(evs))
		}
	}
	// The same lines behind srun's labels, one task's output or several
	// tasks', are ranks.
	var one, two strings.Builder
	for i, l := range strings.SplitAfter(strings.TrimSuffix(tb, "\n"), "\n") {
		one.WriteString("5: " + l)
		if i == 1 {
			two.WriteString("0: step 3 done\n")
		}
		two.WriteString("1: " + l)
	}
	for name, log := range map[string]string{"one task": one.String() + "\n", "two tasks": two.String() + "\n"} {
		evs := parseString(t, log)
		want := 5
		if name == "two tasks" {
			want = 1
		}
		if len(evs) != 1 || evs[0].Rank != want || !evs[0].SrunLabel || len(evs[0].Chain) != 1 || len(evs[0].Chain[0].Frames) != 1 {
			t.Errorf("%s: events:\n%s", name, summarize(evs))
		}
	}
}

// What is typed at a REPL's or a notebook's prompt after a traceback is
// input, not the rest of the exception's message; a line the program
// printed there is.
func TestPromptEndsTraceback(t *testing.T) {
	tb := "Traceback (most recent call last):\n" +
		"  File \"<stdin>\", line 1, in <module>\n" +
		"RuntimeError: CUDA error: out of memory\n"
	for _, next := range []string{
		">>> torch.cuda.memory_allocated()\n0\n",
		">>>\n",
		"> >>> torch.cuda.memory_allocated()\n",
		"... print(x)\n",
		"In [5]: torch.cuda.memory_allocated()\n",
		"Out[5]: 0\n",
	} {
		evs := parseString(t, ">>> x.cuda()\n"+tb+next)
		if len(evs) != 1 || len(evs[0].Lines) != 1 || len(evs[0].Chain[0].Lines) != 1 {
			t.Errorf("after %q:\n%s", next, summarize(evs))
		}
	}
	for _, next := range []string{
		"CUDA kernel errors might be asynchronously reported at some other API call\n",
		"Inputs were on cuda:0\n",
		"...and 3 more\n",
	} {
		evs := parseString(t, tb+next)
		if len(evs) != 1 || len(evs[0].Chain[0].Lines) != 2 {
			t.Errorf("after %q: the printed line is not the message's:\n%s", next, summarize(evs))
		}
	}
}

// A paste marks frames it left out with "..." or "[...]": the frames go
// on after the mark, which is no exception line.
func TestElidedFrames(t *testing.T) {
	for _, mark := range []string{"...", "[...]", "  ...", "(...)", "<snip>", "…"} {
		log := "Traceback (most recent call last):\n" +
			"  File \"a.py\", line 3, in <module>\n" +
			"    main()\n" +
			mark + "\n" +
			"  File \"b.py\", line 5, in f\n" +
			"    x.cuda()\n" +
			"RuntimeError: CUDA error: out of memory\n"
		evs := parseString(t, log)
		if len(evs) != 1 || len(evs[0].Chain) != 1 {
			t.Fatalf("%q: events:\n%s", mark, summarize(evs))
		}
		e := evs[0].Chain[0]
		if e.Type != "RuntimeError" || len(e.Frames) != 2 || e.Frames[0].Code != "main()" {
			t.Errorf("%q: events:\n%s", mark, summarize(evs))
		}
	}
	// A line that only starts with dots is the exception line it is.
	log := "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n...Error: x\n"
	evs := parseString(t, log)
	if len(evs) != 1 || evs[0].Chain[0].Message != "...Error: x" {
		t.Errorf("events:\n%s", summarize(evs))
	}
}

// Code pasted with its line numbers (an editor's "12  x = ...", a
// viewer's "12: x = ...") above a traceback is neither ranks nor frames.
func TestLineNumberedCodeAboveTraceback(t *testing.T) {
	tb := "Traceback (most recent call last):\n" +
		"  File \"t.py\", line 12, in <module>\n" +
		"    y = x.cuda()\n" +
		"RuntimeError: CUDA error: out of memory\n"
	for _, sep := range []string{"  ", ": ", "\t", " | "} {
		code := "10" + sep + "import torch\n11" + sep + "x = torch.zeros(3)\n12" + sep + "y = x.cuda()\n"
		evs := parseString(t, code+"\n"+tb)
		if len(evs) != 1 || evs[0].Rank != -1 || evs[0].Line != 5 || len(evs[0].Chain) != 1 ||
			evs[0].Chain[0].Type != "RuntimeError" || len(evs[0].Chain[0].Frames) != 1 || evs[0].Chain[0].Frames[0].Line != 12 {
			t.Errorf("%q: events:\n%s", sep, summarize(evs))
		}
	}
}
