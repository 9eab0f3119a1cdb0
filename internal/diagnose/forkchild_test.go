package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// CUDA's initialization error in a multiprocessing child is the fork
// problem, whichever framework printed it; a child that finds no GPU, and
// an initialization error with no child in sight, keep cuda-unavailable.
func TestForkChildInitializationError(t *testing.T) {
	e := New(kb.MustDefault())
	const mx = "mxnet.base.MXNetError: [19:18:11] src/storage/storage.cc:65: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading CUDA: initialization error\n"
	for _, tt := range []struct{ name, log, want string }{
		{"pool worker header", "Process ForkPoolWorker-1:\nTraceback (most recent call last):\n  File \"/x/mxnet/base.py\", line 254, in check_call\n    raise MXNetError(py_str(_LIB.MXGetLastError()))\n" + mx, "fork-reinit"},
		{"remote traceback", "multiprocessing.pool.RemoteTraceback: \n\"\"\"\nTraceback (most recent call last):\n  File \"/x/mxnet/base.py\", line 251, in check_call\n    raise MXNetError(py_str(_LIB.MXGetLastError()))\n" + mx, "fork-reinit"},
		{"process child, driver status", "Process Process-2:\nTraceback (most recent call last):\n  File \"/x/run.py\", line 9, in work\n    ctx.push()\npycuda._driver.LogicError: cuCtxPush failed: CUDA_ERROR_NOT_INITIALIZED: initialization error\n", "fork-reinit"},
		{"no child", mx, "cuda-unavailable"},
		{"child without a GPU", "Process Process-2:\nTraceback (most recent call last):\n  File \"/x/run.py\", line 9, in work\n    x = torch.ones(1).cuda()\nRuntimeError: No CUDA GPUs are available\n", "cuda-unavailable"},
	} {
		fs := explainText(t, e, tt.log)
		if len(fs) == 0 || fs[0].Class != tt.want {
			t.Errorf("%s: findings %+v, want %s first", tt.name, fs, tt.want)
		}
	}
}
