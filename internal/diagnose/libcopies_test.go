package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A library's error next to a listing that names that library (or another
// CUDA library) in two releases is the two releases meeting; the same error
// next to a listing of one release each, and a healthy log with two
// releases listed, are not.
func TestLibraryCopiesRootLibraryErrors(t *testing.T) {
	e := New(kb.MustDefault())
	cudnnFailure := "Traceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n    out = model(x)\nRuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n\n"
	for _, tc := range []struct {
		name, log string
		want      string // the top finding's class, "" for no finding
		line      string // a listing line quoted as evidence
	}{
		{"two cuDNN wheels in collect_env's pip list", cudnnFailure +
			"Versions of relevant libraries:\n[pip3] nvidia-cudnn-cu11==8.5.0.96\n[pip3] nvidia-cudnn-cu12==8.9.2.26\n[pip3] torch==2.1.0\n",
			"library-mismatch", "nvidia-cudnn-cu11==8.5.0.96"},
		{"two cuDNN releases in collect_env's file list", cudnnFailure +
			"cuDNN version: Probably one of the following:\n/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.5\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.2.1\nHIP runtime version: N/A\n",
			"library-mismatch", "libcudnn.so.7.6.5"},
		{"one release of each library", cudnnFailure +
			"[pip3] nvidia-cublas-cu12==12.1.3.1\n[pip3] nvidia-cudnn-cu12==8.9.2.26\n",
			"cudnn-error", ""},
		{"pip swapping one release for another", cudnnFailure +
			"  Attempting uninstall: nvidia-cudnn-cu11\n    Found existing installation: nvidia-cudnn-cu11 8.5.0.96\nSuccessfully installed nvidia-cudnn-cu12-8.9.2.26\n",
			"cudnn-error", ""},
		{"a healthy run that lists two releases",
			"epoch 1 loss 0.53\n[pip3] nvidia-cudnn-cu11==8.5.0.96\n[pip3] nvidia-cudnn-cu12==8.9.2.26\nepoch 2 loss 0.41\n",
			"", ""},
	} {
		fs := explainText(t, e, tc.log)
		if tc.want == "" {
			if len(fs) != 0 {
				t.Errorf("%s: want no finding, got %+v", tc.name, fs)
			}
			continue
		}
		if len(fs) == 0 || fs[0].Class != tc.want {
			t.Errorf("%s: want a %s finding first, got %+v", tc.name, tc.want, fs)
			continue
		}
		if tc.line == "" {
			continue
		}
		quoted := false
		for _, ev := range fs[0].Evidence {
			quoted = quoted || strings.Contains(ev.Text, tc.line)
		}
		if !quoted {
			t.Errorf("%s: evidence %+v does not quote %q", tc.name, fs[0].Evidence, tc.line)
		}
	}
}
