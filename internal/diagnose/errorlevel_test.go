package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// Error-level lines about the GPU stack, in each logger's form, and
// failed actions on it: each is a failure line.
func TestErrorLevelLinesAreFailures(t *testing.T) {
	for _, l := range []string{
		"E1204 09:49:11.362414  4324 common.cpp:123] Cannot create Cublas handle. Cublas won't be available.",
		"E0000 00:00:1732000000.123456   12345 cuda_driver.cc:1001] failed to allocate 8.00G (8589934592 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY",
		"2020-06-30 10:00:00.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN ERROR (303)",
		"E tensorflow/stream_executor/cuda/cuda_driver.cc:466] failed call to cuInit: CUDA_ERROR_NO_DEVICE",
		"2024-05-01 10:00:00.123456: E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: UNKNOWN ERROR (303)",
		"2023-05-09 18:38:36.929865635 [E:onnxruntime:Default, cuda_call.cc:118 CudaCall] CUDA failure 100: no CUDA-capable device is detected",
		"08:23:37.926 [error] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR",
		`time=2024-05-01T10:00:00.000Z level=ERROR source=server.go:612 msg="llama runner terminated" error="CUDA error"`,
		"ERROR:root:GPU 0 is not responding",
		"Failed to initialize NVML: Unknown Error",
		"failed to allocate 8.00G (8589934592 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY",
		"Unable to load CUDA runtime, falling back to the CPU",
		"[W:onnxruntime:Default, onnxruntime_pybind_state.cc:541 CreateExecutionProviderInstance] Failed to create CUDAExecutionProvider",
	} {
		if fatalLine([]string{l}) != 0 {
			t.Errorf("not a failure line: %s", l)
		}
	}
}

// What a healthy run logs at the error level, or says it could not do at
// the information level, is not a failure: TensorFlow's and JAX's plugin
// factories registered twice, ONNX Runtime's thread affinity in a
// container, NCCL's plugin search, glog's I lines, and error-level lines
// about no part of the GPU stack.
func TestErrorLevelLookAlikesStayQuiet(t *testing.T) {
	for _, l := range []string{
		"2024-03-01 12:00:00.123456: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
		"E0000 00:00:1764926939.010441    4436 cuda_blas.cc:1407] Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered",
		"2024-03-01 12:00:00.123501: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:607] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered",
		"2024-01-01 10:00:00.0000000 [E:onnxruntime:Default, env.cc:234 ThreadMain] pthread_setaffinity_np failed for thread: 123, index: 1, mask: {2, }, error code: 22 error msg: Invalid argument.",
		"2023-01-01 00:00:00.000000: E tensorflow/core/grappler/optimizers/meta_optimizer.cc:954] layout failed: INVALID_ARGUMENT: Size of values 0 does not match size of permutation 4",
		"vm:1393:1393 [1] NCCL INFO Failed to initialize NET plugin IB",
		"node1:42:42 [0] NCCL INFO Failed to open libibverbs.so[.1]",
		"I0220 20:04:35.553834     6 device_cuda.cpp:2107] Failed to load CUDA kernels, using the CPU",
		`time=2024-05-01T10:00:00.000Z level=INFO source=gpu.go:221 msg="unable to load cudart library" error="no such file"`,
		"[error] failed to fetch https://example.org/shard-3.tar, retrying",
		"ERROR:root:could not read config.yaml",
		"Failed to load image Python extension: libc10_cuda.so: cannot open shared object file",
		"The CUDA kernels of this op are compiled on first use; failed to build? See the README.",
	} {
		if fatalLine([]string{l}) >= 0 {
			t.Errorf("a failure line: %s", l)
		}
	}
}

// The anchors of these line forms keep a healthy line that holds their
// text but not the rest out of verification.
func TestErrorLevelAnchorsNeedTheirLine(t *testing.T) {
	pf := New(kb.MustDefault()).prefilter()
	for _, line := range []string{
		"2024-01-01 10:00:00.0000000 [E:onnxruntime:Default, env.cc:234 ThreadMain] pthread_setaffinity_np failed for thread: 123, index: 1, mask: {2, }, error code: 22 error msg: Invalid argument.",
		"[error] failed to fetch https://example.org/shard-3.tar, retrying",
		"Cannot create the output directory, using /tmp",
		"level=error msg=\"upload of checkpoint 12 failed\"",
	} {
		buf := []byte(line + "\n")
		cur := pf.Cursor(buf)
		if cur.Next(0) < 0 {
			continue
		}
		if pf.Accept(buf[:len(line)], cur.LineIDs(0, len(line), nil)) {
			t.Errorf("a healthy line is a candidate: %s", line)
		}
	}
}

// The anchors bring the error-level lines they stand for to the parser,
// TensorFlow's Windows form (its build tree's drive path) too.
func TestErrorLevelAnchorsBringTheirLines(t *testing.T) {
	pf := New(kb.MustDefault()).prefilter()
	for _, line := range []string{
		`2018-03-01 10:00:00.123456: E C:\tf_jenkins\workspace\rel-win\M\windows-gpu\PY\36\tensorflow\core\common_runtime\gpu\gpu_util.cc:100] GPU sync failed`,
		"2020-06-30 10:00:00.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to cuInit: UNKNOWN ERROR (303)",
	} {
		buf := []byte(line + "\n")
		cur := pf.Cursor(buf)
		if cur.Next(0) < 0 || !pf.Accept(buf[:len(line)], cur.LineIDs(0, len(line), nil)) {
			t.Errorf("not a candidate: %s", line)
		}
		if fatalLine([]string{line}) != 0 {
			t.Errorf("not a failure line: %s", line)
		}
	}
}
