package usercode

import "testing"

func TestIsUser(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/work/train.py", true},
		{"train.py", true},
		{`C:\Users\me\proj\train.py`, true},
		{"/home/me/proj/models/net.py", true},
		{"<ipython-input-3-0b1c>", true},
		{"/tmp/ipykernel_123/2345.py", true},
		{"", false},
		{"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", false},
		{"/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py", false},
		{"/usr/lib/python3.10/threading.py", false},
		{"/usr/lib64/python3.9/runpy.py", false},
		{"<frozen importlib._bootstrap>", false},
		{"/home/me/pytorch/torch/nn/functional.py", false},
		{"torch/nn/functional.py", false},
		{"/home/me/triton/python/triton/runtime/jit.py", false},
		{"/opt/conda/bin/torchrun", false},
		{"/usr/local/bin/deepspeed", false},
		{"/home/me/proj/.venv/lib/python3.11/site-packages/mylib/x.py", false},
		{"/opt/src/cupy/cuda/memory.pyx", false},
		{"cupy_backends/cuda/api/driver.pyx", false},
		{"/opt/ext/kernels.cu", false},
		{"/usr/lib/python3.10/multiprocessing/process.py", false},
	}
	for _, tc := range tests {
		if got := IsUser(tc.path); got != tc.want {
			t.Errorf("IsUser(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
