package logparse

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func parseWithPrefilter(t *testing.T, pf *Prefilter, s string) []Event {
	t.Helper()
	var evs []Event
	if err := Parse(context.Background(), strings.NewReader(s), "t.log", pf, func(ev Event) { evs = append(evs, ev) }); err != nil {
		t.Fatal(err)
	}
	return evs
}

// A message re-flowed in a paste too short to judge its layout leaves its
// head on the line before the text the prefilter finds; the message event
// keeps that line first, so the knowledge base can read the two joined.
func TestMessageKeepsItsWrappedHead(t *testing.T) {
	pf := NewPrefilter([]string{"with link time reference"})
	log := "OSError:\n/opt/conda/lib/python3.7/site-packages/nvidia/cublas/lib/libcublas.so.11:\n" +
		"symbol cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined\n" +
		"in file libcublasLt.so.11 with link time reference\n"
	evs := parseWithPrefilter(t, pf, log)
	if len(evs) != 1 || len(evs[0].Lines) != 2 {
		t.Fatalf("events %+v, want one message of two lines", evs)
	}
	// The path opens no sentence: it stays a line of its own; the head
	// goes back to it, and no further ("OSError:" ends a line with room).
	if l := evs[0].Lines[0]; l.N != 2 || !strings.HasPrefix(l.Text, "/opt/conda/") || !strings.HasSuffix(l.Text, "libcublas.so.11: symbol cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined") {
		t.Errorf("head %+v, want lines 2-3 joined", l)
	}
	if l := evs[0].Lines[1]; l.N != 4 || !strings.HasPrefix(l.Text, "in file") {
		t.Errorf("rest %+v, want line 4", l)
	}
}

// A re-flowed loader message puts the long quoted path it failed to load
// on a line of its own; the quote mark opens no record there, and the
// head ("... when trying to load") stays with it.
func TestQuotedPathKeepsItsHead(t *testing.T) {
	pf := NewPrefilter([]string{"onnxruntime_providers_cuda"})
	log := "onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL :\n" +
		"LoadLibrary failed with error 126 \"\" when trying to load\n" +
		"\"C:\\env\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll\"\n"
	evs := parseWithPrefilter(t, pf, log)
	if len(evs) != 1 || len(evs[0].Lines) != 2 {
		t.Fatalf("events %+v, want one message of two lines", evs)
	}
	if l := evs[0].Lines[0]; l.N != 2 || !strings.HasPrefix(l.Text, "LoadLibrary failed") {
		t.Errorf("head %+v, want line 2", l)
	}
}

// Lines that cannot be a head and its rest stay apart: a rest that opens
// a sentence or a record, a head too short to have been broken for width,
// a row of a table, a head that is a found line of its own, and a long
// log's lines (no paste).
func TestGenuineLinesGetNoHead(t *testing.T) {
	pf := NewPrefilter([]string{"with link time reference", "Traceback (most"})
	for _, tc := range []struct{ name, log string }{
		{"capital", "the loader could not resolve every symbol of the cublas library here\nLoader says: with link time reference\n"},
		{"short head", "loading libraries\nin file libcublasLt.so.11 with link time reference\n"},
		{"table row", "| libcublas.so.11   | symbol cublasLtHSHMatmulAlgoInit not defined |\nin file libcublasLt.so.11 with link time reference\n"},
		{"record", "some long line of the training script's own output that goes on a bit\nTraceback (most recent call last): with link time reference\n"},
		{"quoted path after a sentence", "the loader could not resolve every symbol of the cublas library here.\n\"/opt/lib/libcublasLt.so.11\" with link time reference\n"},
		{"quoted word, no path", "the loader could not resolve every symbol of the cublas library in\n\"libcublasLt\" with link time reference\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, ev := range parseWithPrefilter(t, pf, tc.log) {
				if ev.Kind == KindMessage && len(ev.Lines) > 1 && ev.Lines[0].N < ev.Line {
					t.Errorf("head kept: %+v", ev.Lines)
				}
			}
		})
	}
	// A log longer than a chunk was written by a program: no head.
	long := strings.Repeat("step 100 loss 0.25 lr 3e-4 tokens/s 12345 grad norm 0.5\n", 3<<15) +
		"symbol cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined\n" +
		"in file libcublasLt.so.11 with link time reference\n"
	for _, ev := range parseWithPrefilter(t, pf, long) {
		if ev.Kind == KindMessage && len(ev.Lines) > 1 && ev.Lines[0].N < ev.Line {
			t.Errorf("long log: head kept: %+v", ev.Lines)
		}
	}
}

// A candidate line the caller's Accept refuses alone is judged with the
// head the line before holds: "no" / "compatible GPUs were discovered".
// A head of three lines is one line of the event, numbered by its first.
func TestAcceptReadsTheHead(t *testing.T) {
	pf := NewPrefilter([]string{"discovered"})
	pf.Accept = func(line []byte, _ []int) bool { return bytes.Contains(line, []byte("no compatible GPUs")) }
	evs := parseWithPrefilter(t, pf, "time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:377 msg=\"no\ncompatible GPUs were discovered\"\n")
	if len(evs) != 1 || len(evs[0].Lines) != 2 || evs[0].Lines[0].N != 1 {
		t.Fatalf("events %+v, want one message from line 1", evs)
	}
	evs = parseWithPrefilter(t, pf, "time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:377 msg=\"after\nprobing all the devices of the machine there were no\ncompatible GPUs were discovered\"\n")
	if len(evs) != 1 || evs[0].Lines[0].N != 1 || !strings.HasPrefix(evs[0].Lines[0].Text, "time=") || !strings.HasSuffix(evs[0].Lines[0].Text, "msg=\"after probing all the devices of the machine there were no") {
		t.Fatalf("events %+v, want one message with its head from line 1", evs)
	}
	// The same rest after a head that opens nothing of it stays refused.
	evs = parseWithPrefilter(t, pf, "time=2025-04-29T20:11:09.132Z level=INFO source=gpu.go:217 msg=\"looking for\ncompatible GPUs were discovered: 2\"\n")
	if len(evs) != 0 {
		t.Errorf("events %+v, want none", evs)
	}
}

// A message re-flowed at the time it names leaves the time at the start of
// the next line, where it reads like a log collector's stamp; it stays the
// message's text when the message's own line has no stamp. In a collected
// log every line has one, and the collector's is set aside as before.
func TestWrappedTimeIsNoStamp(t *testing.T) {
	pf := NewPrefilter([]string{"CANCELLED AT"})
	evs := parseWithPrefilter(t, pf, "Peak GPU Mem (GB): 7.92\nslurmstepd: error: *** JOB 761567 ON gn1206 CANCELLED AT\n2025-08-21T20:11:13 ***\n")
	if len(evs) != 1 || len(evs[0].Lines) != 2 || evs[0].Lines[1].Text != "2025-08-21T20:11:13 ***" {
		t.Fatalf("events %+v, want the time kept on line 3", evs)
	}
	evs = parseWithPrefilter(t, pf, "2025-08-21T20:11:12 stderr F Peak GPU Mem (GB): 7.92\n2025-08-21T20:11:13 stderr F slurmstepd: error: *** JOB 761567 ON gn1206 CANCELLED AT\n2025-08-21T20:11:13 stderr F ***\n")
	if len(evs) != 1 || len(evs[0].Lines) != 2 || evs[0].Lines[1].Text != "***" {
		t.Fatalf("events %+v, want the collector's stamps set aside", evs)
	}
	// A short message line followed by a stamped one: the stamp is the
	// collector's.
	evs = parseWithPrefilter(t, pf, "CANCELLED AT noon\n2025-08-21T20:11:13 next run starts\n")
	if len(evs) != 1 || len(evs[0].Lines) != 2 || evs[0].Lines[1].Text != "next run starts" {
		t.Fatalf("events %+v, want the stamp set aside", evs)
	}
}

// A tqdm frame a terminal cut at its width leaves its counts and timing at
// the start of the next line, with what the process printed next after
// them; the tail is dropped as a whole frame is. Text that only looks like
// a count stays.
func TestProgressTailIsDropped(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"            | 3787/62565 [04:47<1:10:53, 13.82it/s]Killed", "Killed"},
		{"| 0/2 [00:00<?, ?it/s]Killed", "Killed"},
		{"  12.0M/1.20G [00:03<05:12, 3.80MB/s]RuntimeError: CUDA error: out of memory", "RuntimeError: CUDA error: out of memory"},
		{"| 3787/62565 [04:47<1:10:53, 13.82it/s]", "| 3787/62565 [04:47<1:10:53, 13.82it/s]"},
		{"| 12/24 [ok] | a < b", "| 12/24 [ok] | a < b"},
		{"step 3/10 [00:01<00:02] loss 0.5", "step 3/10 [00:01<00:02] loss 0.5"},
	} {
		if got := cleanLine([]byte(c.in)); got != c.want {
			t.Errorf("cleanLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A paste re-flowed at words puts a frame's long path on a line of its
// own: "  File", the path and "line N, in f" are joined back into the
// frame they were, with the input's line numbers. A "File" line that is
// prose, or a quoted line that is no path, stays apart.
func TestSplitFrameIsJoined(t *testing.T) {
	path := "/home/ana/miniconda3/envs/train/lib/python3.10/site-packages/torch/nn/modules/module.py"
	log := "Traceback (most recent call last):\n  File\n\"" + path + "\",\nline 1532, in _wrapped_call_impl\n    return self._call_impl(*args, **kwargs)\nRuntimeError: CUDA error: out of memory\n"
	evs := parseString(t, log)
	if len(evs) != 1 || len(evs[0].Chain) != 1 || len(evs[0].Chain[0].Frames) != 1 {
		t.Fatalf("events %+v, want one traceback with one frame", evs)
	}
	fr := evs[0].Chain[0].Frames[0]
	if fr.Path != path || fr.Line != 1532 || fr.Function != "_wrapped_call_impl" || fr.LogLine != 2 {
		t.Errorf("frame %+v", fr)
	}
	if l := evs[0].Chain[0].Lines[0]; l.N != 6 {
		t.Errorf("exception line %d, want 6", l.N)
	}
	for _, s := range []string{
		"Open the\nFile\n\"menu\" and pick Save\n",
		"  File\n\"" + path + "\" is missing, so we fall back\n",
	} {
		buf := []byte(s)
		if joins := joinSplitFrames(buf, nil); len(joins) != 0 || string(buf) != s {
			t.Errorf("%q: joined at %v: %q", s, joins, buf)
		}
	}
}
