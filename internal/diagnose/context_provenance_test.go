package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// An inferred full card (a cuDNN status read as memory, the user's words
// about allow_growth) gives way to a build that cannot run on the GPU only
// when a tool printed the build and the GPU; versions the user writes in a
// sentence do not overturn it.
func TestInferredRootYieldsToPrintedFacts(t *testing.T) {
	e := New(kb.MustDefault())
	const algo = "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution\n"
	const printed = "PyTorch version: 1.11.0+cu102\nCUDA used to build PyTorch: 10.2\nGPU models and configuration: \nGPU 0: NVIDIA GeForce RTX 3090\n"
	const handle = "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n"
	for _, tc := range []struct {
		name, log, class, alt string
	}{
		{"bare", algo, "oom", "cudnn-error"},
		{"printed environment", algo + printed, "no-kernel-image", "oom"},
		{"stated environment", "rtx 3090, cuda10.2, torch 1.11\n" + algo, "oom", "cudnn-error"},
		{"words, stated", "\"allow_growth = True\" solves the issue for my system below\nrtx 2080ti, ubuntu18.04, cuda9.0, cudnn7, tf1.9\n" + handle, "oom", "cudnn-error"},
		{"words, printed", "\"allow_growth = True\" solves the issue\n" + printed + handle, "no-kernel-image", "oom"},
	} {
		fs := explainText(t, e, tc.log)
		if len(fs) == 0 {
			t.Errorf("%s: no finding", tc.name)
			continue
		}
		if f := fs[0]; f.Class != tc.class || len(f.Alternatives) == 0 || f.Alternatives[0] != tc.alt {
			t.Errorf("%s: %s (alternatives %v), want %s then %s", tc.name, f.Class, f.Alternatives, tc.class, tc.alt)
		}
	}
}
