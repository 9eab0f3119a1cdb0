package diagnose

import (
	"slices"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A cuDNN error next to the cuDNN version the reporter runs keeps its
// verdict but offers a version mismatch first; the same error alone keeps
// the corpus order.
func TestCuesReorderAlternatives(t *testing.T) {
	e := New(kb.MustDefault())
	const bad = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    loss.backward()\nRuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM\n"
	plain := explainText(t, e, bad)
	if len(plain) != 1 || plain[0].Class != "cudnn-error" || len(plain[0].Alternatives) == 0 {
		t.Fatalf("plain: %+v", plain)
	}
	if plain[0].Alternatives[0] == "library-mismatch" {
		t.Fatalf("without a cue library-mismatch should not lead: %v", plain[0].Alternatives)
	}
	cued := explainText(t, e, bad+"\nmy setup: Ubuntu 16.04, CUDA 9.0, CUDNN version: 7.1\n")
	if len(cued) != 1 || cued[0].Class != "cudnn-error" {
		t.Fatalf("cued: %+v", cued)
	}
	if cued[0].Alternatives[0] != "library-mismatch" {
		t.Errorf("the cuDNN version named does not lead the alternatives: %v", cued[0].Alternatives)
	}
	for _, a := range plain[0].Alternatives {
		if !slices.Contains(cued[0].Alternatives, a) {
			t.Errorf("%s dropped: %v", a, cued[0].Alternatives)
		}
	}
}
