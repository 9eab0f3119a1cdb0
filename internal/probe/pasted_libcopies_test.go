package probe

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindLibraryCopies(t *testing.T) {
	tests := []struct {
		name string
		text string
		want LibraryCopies
		ok   bool
	}{
		{
			name: "collect_env pip list with two cuDNN wheels",
			text: "Versions of relevant libraries:\n[pip3] numpy==1.24.1\n[pip3] nvidia-cudnn-cu11==8.5.0.96\n[pip3] nvidia-cudnn-cu12==8.9.2.26\n[pip3] torch==2.1.0",
			want: LibraryCopies{Library: "cuDNN", Releases: []string{"cu11", "cu12"}, Lines: []int{2, 3}}, ok: true,
		},
		{
			name: "pip list columns",
			text: "Package            Version\nnvidia-cublas-cu11 11.10.3.66\nnvidia-cublas-cu12 12.1.3.1\ntorch 2.0.1",
			want: LibraryCopies{Library: "cuBLAS", Releases: []string{"cu11", "cu12"}, Lines: []int{1, 2}}, ok: true,
		},
		{
			name: "collect_env names two cuDNN releases on the system",
			text: "cuDNN version: Probably one of the following:\n/usr/lib/x86_64-linux-gnu/libcudnn.so.7.6.3\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.6.0\n/usr/lib/x86_64-linux-gnu/libcudnn_adv_infer.so.8.6.0\nHIP runtime version: N/A",
			want: LibraryCopies{Library: "cuDNN", Releases: []string{"7", "8"}, Lines: []int{1, 2}}, ok: true,
		},
		{
			name: "one cuDNN release with its sub-libraries",
			text: "cuDNN version: Probably one of the following:\n/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.2\n/usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8.9.2\n/usr/lib/x86_64-linux-gnu/libcudnn_cnn_train.so.8.9.2\nHIP runtime version: N/A",
		},
		{
			name: "one release of each library",
			text: "[pip3] nvidia-cublas-cu12==12.1.3.1\n[pip3] nvidia-cudnn-cu12==8.9.2.26\n[pip3] nvidia-nccl-cu12==2.18.1",
		},
		{
			name: "pip replacing one release by another is no listing",
			text: "Collecting nvidia-cudnn-cu12==8.9.2.26\n  Attempting uninstall: nvidia-cudnn-cu11\n    Found existing installation: nvidia-cudnn-cu11 8.5.0.96\n    Uninstalling nvidia-cudnn-cu11-8.5.0.96:\n      Successfully uninstalled nvidia-cudnn-cu11-8.5.0.96\nSuccessfully installed nvidia-cudnn-cu12-8.9.2.26",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FindLibraryCopies(strings.Split(tt.text, "\n"))
			if ok != tt.ok {
				t.Fatalf("found = %v, want %v (%+v)", ok, tt.ok, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("copies (-want +got):\n%s", diff)
			}
		})
	}
}
