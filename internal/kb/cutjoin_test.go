package kb

import "testing"

// TestTerminalCutIsJoinedGlued: a line a terminal cut at its width breaks
// a word or a number with nothing standing for the break, so the line and
// the next are also read glued; a shorter line, or one ending in a blank,
// is no cut, and its neighbours are read only apart or behind a space.
func TestTerminalCutIsJoinedGlued(t *testing.T) {
	k := MustDefault()
	cancelled := "slurmstepd: error: *** JOB 66799464 ON mb-sky001 CANCELLED AT 2026-01-06T22:02:48 ***"
	limit := "slurmstepd: error: *** JOB 18886 ON compute-permanent-node-954 CANCELLED AT 2023-11-24T10:25:54 DUE TO TIME LIMIT ***"
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"cut in a time", []string{cancelled[:80], cancelled[80:]}, "host-killed"},
		{"cut before a dash", []string{limit[:80], limit[80:]}, "host-killed"},
		{"whole", []string{cancelled}, "host-killed"},
		// Look-alikes: the same words on lines no terminal cut.
		{"short line", []string{"*** JOB 1 ON n1 CANCELLED AT 2026-01-06T22:0", "2:48 ***"}, ""},
		{"blank at the end", []string{cancelled[:79] + " ", cancelled[80:]}, ""},
		{"indented next", []string{cancelled[:80], "  " + cancelled[80:]}, ""},
	} {
		if got := classOf(k, c.lines...); got != c.want {
			t.Errorf("%s: %q: got %q, want %q", c.name, c.lines, got, c.want)
		}
	}
}

// TestLoneWordIsJoined: a word wider than a re-flow's width (a path) stands
// on a line of its own, the message going on around it; line i is also
// read with the next two. A short word on a line of its own, or a next
// line that would have fitted behind it, is no such re-flow.
func TestLoneWordIsJoined(t *testing.T) {
	k := MustDefault()
	path := "file=/scratch/zao/eb/PyTorch/0.3.1/goolfc-2017.02-Python-3.5.2/pytorch-0.3.1/torch/lib/THC/THCGeneral.c"
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"path alone", []string{"THCudaCheck FAIL", path, "line=70 error=30 : unknown error"}, "cudaErrorUnknown"},
		{"short word", []string{"THCudaCheck FAIL", "file=a.c", "line=70 error=30 : unknown error"}, ""},
	} {
		got := ""
		if hs := k.StatusesAt(c.lines, 0); len(hs) > 0 {
			got = hs[0].Status.Name
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}
