package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A library failure next to a reading of the card's memory in nvidia-smi's
// CSV form (--query-gpu=memory.used,memory.total --format=csv): a full card
// makes it the out-of-memory it stands for, a nearly empty one leaves the
// library's own class.
func TestMemoryReadingsNextToLibraryFailure(t *testing.T) {
	e := New(kb.MustDefault())
	cudnn := "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n"
	for _, c := range []struct{ log, want string }{
		{cudnn + "index, name, memory.used [MiB], memory.total [MiB]\n0, NVIDIA GeForce RTX 3090, 24150 MiB, 24576 MiB\n", "oom"},
		{cudnn + "index, name, memory.used [MiB], memory.total [MiB]\n0, NVIDIA GeForce RTX 3090, 150 MiB, 24576 MiB\n", "cudnn-error"},
		{cudnn + "memory.used [MiB], memory.total [MiB]\n11000 MiB, 11264 MiB\n", "oom"},
	} {
		fs := explainText(t, e, c.log)
		if len(fs) == 0 || fs[0].Class != c.want {
			t.Errorf("%q: got %+v, want %s", c.log, fs, c.want)
		}
	}
}
