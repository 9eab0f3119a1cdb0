package kb

import "testing"

// The framework fact decides which fixes a finding offers, so each
// framework's own spellings must set it: its package in a path or an
// import, its C++ source tree, its error types.
func TestFrameworkFact(t *testing.T) {
	cases := []struct{ line, want string }{
		{`  File "/opt/conda/lib/python3.10/site-packages/jax/_src/dispatch.py", line 1150, in _execute_compiled`, "jax"},
		{`jaxlib.xla_extension.XlaRuntimeError: INTERNAL: cuSolver internal error`, "jax"},
		{`RuntimeError: jaxlib/gpu/solver_kernels.cc:45: operation gpusolverDnCreate(&handle) failed`, "jax"},
		{`E0611 08:35:28.413281  146213 external/xla/xla/stream_executor/cuda/cuda_dnn.cc:535] Could not create cudnn handle`, "jax"},
		{`2023-02-14 22:00:43.393817: E external/org_tensorflow/tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:429] Could not create cudnn handle`, "jax"},
		{`2020-06-11 12:33:17.831797: E tensorflow/stream_executor/cuda/cuda_driver.cc:924] failed to allocate 90.48M`, "tensorflow"},
		{`tensorflow.python.framework.errors_impl.InternalError: Failed to create session.`, "tensorflow"},
		{`2024-03-01 10:00:00.000000: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register cuDNN factory`, "tensorflow"},
		{`  File "/usr/lib/python3/dist-packages/torch_xla/core/xla_model.py", line 1, in mark_step`, ""},
		{`RuntimeError: CUDA error: out of memory`, ""},
		// A directory a user named after the framework is not the framework.
		{`  File "/home/u/jax_study/train.py", line 3, in <module>`, ""},
	}
	for _, c := range cases {
		f := map[string]string{}
		frameworkFact([]string{c.line}, f)
		if f["framework"] != c.want {
			t.Errorf("%q: framework=%q, want %q", c.line, f["framework"], c.want)
		}
	}
}
