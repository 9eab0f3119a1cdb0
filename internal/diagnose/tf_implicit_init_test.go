package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// TensorFlow's "CUDA runtime implicit initialization ... failed. Status:"
// is CUDA being unusable when the status names no class of its own, and
// the status's class when it does.
func TestTensorFlowImplicitInitialization(t *testing.T) {
	e := New(kb.MustDefault())
	const head = "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 failed. Status: "
	for _, tt := range []struct{ status, want string }{
		{"unknown error", "cuda-unavailable"},
		{"unrecognized error code", "cuda-unavailable"},
		{"device kernel image is invalid", "no-kernel-image"},
		{"all CUDA-capable devices are busy or unavailable", "device-busy"},
		{"out of memory", "oom"},
	} {
		fs := explainText(t, e, head+tt.status+"\n")
		if len(fs) == 0 || fs[0].Class != tt.want {
			t.Errorf("status %q: findings %+v, want %s first", tt.status, fs, tt.want)
		}
	}
}
