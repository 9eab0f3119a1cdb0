package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A numbered list pasted above a failure (a device listing, the steps
// taken) has srun --label's "N: " shape but is no job's tasks: the
// finding names no rank and no srun, and the traceback's line is read.
// The same failure behind srun's labels keeps its task.
func TestNumberedListNamesNoRank(t *testing.T) {
	e := New(kb.MustDefault())
	tb := "Traceback (most recent call last):\n" +
		"  File \"train.py\", line 9, in <module>\n" +
		"    loss = model(x)\n" +
		"RuntimeError: CUDA error: device-side assert triggered\n" +
		"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	for name, head := range map[string]string{
		"steps": "What I did:\n1: installed torch 2.1 with pip\n2: ran python train.py\n" +
			"3: RuntimeError: CUDA error: device-side assert triggered\n",
		"devices": "CUDA.jl: 3 devices:\n" +
			"  0: NVIDIA GeForce GTX 1080 Ti (sm_61, 225 MiB / 10.9 GiB available)\n" +
			"  1: NVIDIA GeForce GTX 1080 Ti (sm_61, 10.7 GiB / 10.9 GiB available)\n" +
			"  2: NVIDIA GeForce GTX 1080 Ti (sm_61, 10.7 GiB / 10.9 GiB available)\n",
	} {
		fs := explainText(t, e, head+tb)
		if len(fs) != 1 {
			t.Fatalf("%s: %d findings", name, len(fs))
		}
		f := fs[0]
		all := strings.Join(f.Remedies, "\n")
		if f.Rank != nil || strings.Contains(all, "srun") || f.Reported == nil || f.Reported.Line != 9 {
			t.Errorf("%s: rank %v, reported %+v, remedies:\n%s", name, f.Rank, f.Reported, all)
		}
	}
	var b strings.Builder
	b.WriteString("0: step 1 loss 0.5\n")
	for _, l := range strings.SplitAfter(strings.TrimSuffix(tb, "\n"), "\n") {
		b.WriteString("2: " + strings.TrimSuffix(l, "\n") + "\n")
	}
	fs := explainText(t, e, b.String())
	if len(fs) != 1 || fs[0].Rank == nil || *fs[0].Rank != 2 || !strings.Contains(strings.Join(fs[0].Remedies, "\n"), "srun --label") {
		t.Errorf("srun-labelled: %+v", fs)
	}
}
