package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// The re-run advice names the launcher the log shows: srun --label's "N: "
// prefixes come from srun, "[rankN]:" from torchrun.
func TestRerunAdviceNamesTheLauncher(t *testing.T) {
	e := New(kb.MustDefault())
	body := "/w/k.cu:5: k: block: [0,0,0], thread: [1,0,0] Assertion `i < n` failed.\n" +
		"Traceback (most recent call last):\n" +
		"  File \"train.py\", line 9, in <module>\n" +
		"    loss = model(x)\n" +
		"RuntimeError: CUDA error: device-side assert triggered\n" +
		"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	prefixed := func(p string) string {
		var b strings.Builder
		b.WriteString(strings.Replace(p, "N", "0", 1) + "step 1 loss 0.5\n")
		for _, l := range strings.SplitAfter(strings.TrimSuffix(body, "\n"), "\n") {
			b.WriteString(strings.Replace(p, "N", "1", 1) + strings.TrimSuffix(l, "\n") + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct{ prefix, want, not string }{
		{"N: ", "srun --label -n 2 cudadoctor run -- python train.py", "torchrun"},
		{"[rankN]:", "cudadoctor run -- torchrun --nproc_per_node=2 train.py", "srun"},
	} {
		fs := explainText(t, e, prefixed(tc.prefix))
		if len(fs) != 1 {
			t.Fatalf("%q: %d findings", tc.prefix, len(fs))
		}
		all := strings.Join(fs[0].Remedies, "\n")
		if !strings.Contains(all, tc.want) || strings.Contains(all, tc.not) {
			t.Errorf("%q: remedies do not name %q (or name %q):\n%s", tc.prefix, tc.want, tc.not, all)
		}
	}
}

// srun --label interleaves the tasks' lines: one task's training going on
// does not say another task got over the non-finite values it reported,
// and the reporting task's lines stay one message across the others.
func TestOtherTasksLossDoesNotClearNaN(t *testing.T) {
	e := New(kb.MustDefault())
	log := "0: step 10 loss 0.71\n" +
		"1: step 10 loss 0.70\n" +
		"1: /env/torch/autograd/graph.py:824: UserWarning: Error detected in AddmmBackward0. Traceback of forward call that caused the error:\n" +
		"0: step 11 loss 0.69\n" +
		"1:   File \"/job/train.py\", line 40, in <module>\n" +
		"0: step 12 loss 0.68\n" +
		"1:     out = net(x)\n" +
		"1:\n" +
		"0: step 13 loss 0.67\n"
	fs := explainText(t, e, log)
	if len(fs) != 1 || fs[0].Class != "nonfinite" {
		t.Fatalf("findings: %+v", fs)
	}
	// The task's own loss going on finite after it is a step it got over:
	// what is left is information, not a failure.
	for _, f := range explainText(t, e, log+"1: step 13 loss 0.66\n") {
		if f.Severity >= report.Warning || !strings.Contains(f.Message, "did not stop the run") {
			t.Errorf("task 1's finite loss after its warning: %s %q, want information that the run went on", f.Severity, f.Message)
		}
	}
}

// The lines Slurm writes after a task failed are the scheduler's, not the
// task's: they neither stand in for the task's error line nor hide it.
func TestSlurmTailKeepsTheTaskError(t *testing.T) {
	e := New(kb.MustDefault())
	tail := "srun: error: node17: task 1: Exited with exit code 1\n" +
		"srun: launch/slurm: _step_signal: Terminating StepId=4711.0\n" +
		"slurmstepd: error: *** STEP 4711.0 ON node17 CANCELLED AT 2024-06-01T10:00:00 ***\n"
	oom := "Traceback (most recent call last):\n" +
		"  File \"/job/train.py\", line 40, in <module>\n" +
		"    out = net(x)\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.50 GiB is free.\n"
	if fs := explainText(t, e, oom+tail); len(fs) == 0 || fs[0].Class != "oom" {
		t.Errorf("an OOM traceback then Slurm's tail: %+v", fs)
	}
	// A traceback cut before its error line is still reported as one.
	cut := "Traceback (most recent call last):\n" +
		"  File \"/job/train.py\", line 40, in <module>\n" +
		"    out = net(x)\n"
	fs := explainText(t, e, cut+tail)
	if len(fs) == 0 || fs[0].Class != "other" || !strings.Contains(fs[0].Message, "ends before its error line") {
		t.Errorf("a cut traceback then Slurm's tail: %+v", fs)
	}
}
