package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// tfjaxTemplates are the messages TensorFlow, XLA and JAX print for
// CUDA-level failures, filled with realistic values and laid out as the
// frameworks print them: glog lines ("2021-03-01 12:00:00.123456: E
// tensorflow/...cc:NNN]", absl's "E0301 12:00:00.123456 12345 file.cc:NNN]")
// and the Python exception lines that carry the same status. Each row names
// the source file that prints the template and the releases that print it in
// that form. The recognition they test is the knowledge base's, not a
// report's: a report is one wording, these are the wordings.
var tfjaxTemplates = []struct {
	name, log, want string
}{
	// --- out of memory ---

	// tensorflow/core/common_runtime/bfc_allocator.cc (TF 1.x-2.x; tsl/framework/bfc_allocator.cc
	// in TF 2.13+ and jaxlib 0.4): the allocator's own warning, followed by its summary.
	{"bfc ran out", "2021-03-01 12:00:00.123456: W tensorflow/core/common_runtime/bfc_allocator.cc:456] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.00GiB (rounded to 2147483648)requested by op Conv2D\n2021-03-01 12:00:00.123470: I tensorflow/core/common_runtime/bfc_allocator.cc:991] Stats:\n", "oom"},
	// tensorflow/core/common_runtime/bfc_allocator.cc (TF 1.0-1.12): "Allocator (GPU_0_bfc) ran out of memory trying to allocate %s.  Current allocation summary follows."
	{"bfc ran out tf1", "W tensorflow/core/common_runtime/bfc_allocator.cc:273] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.46GiB.  Current allocation summary follows.\n", "oom"},
	// tsl/framework/bfc_allocator.cc (jaxlib 0.4.x): JAX's BFC allocator through absl logging.
	{"bfc ran out jax", "W0301 12:00:00.123456 140212 bfc_allocator.cc:479] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.00GiB (rounded to 17179869184)requested by op \n", "oom"},
	// tensorflow/core/framework/op_kernel.cc / tensor.cc (TF 1.x-2.x): the op's status, as a
	// Python exception (errors_impl since TF 1.x; "Resource exhausted:" in TF 1.x status text).
	{"tf oom tensor", "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[32,64,112,112] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n\t [[{{node conv2d/Conv2D}}]]\n", "oom"},
	{"tf1 oom tensor status", "2018-05-01 10:00:00.000001: W tensorflow/core/framework/op_kernel.cc:1318] OP_REQUIRES failed at conv_ops.cc:693 : Resource exhausted: OOM when allocating tensor with shape[64,256,56,56] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n", "oom"},
	// tensorflow/python/eager (TF 2.x eager): "failed to allocate memory" on an op.
	{"tf2 eager failed alloc", "tensorflow.python.framework.errors_impl.ResourceExhaustedError: failed to allocate memory [Op:AddV2]\n", "oom"},
	// tensorflow/core/common_runtime/gpu/gpu_util.cc / copy_tensor.cc (TF 2.x): host-to-device
	// copy whose destination tensor could not be allocated.
	{"tf dst tensor", "tensorflow.python.framework.errors_impl.InternalError: Failed copying input tensor from /job:localhost/replica:0/task:0/device:CPU:0 to /job:localhost/replica:0/task:0/device:GPU:0 in order to run _EagerConst: Dst tensor is not initialized.\n", "oom"},
	// tensorflow/core/common_runtime/gpu/gpu_device.cc (TF 1.13-2.x): the first cudaSetDevice/cudaFree of the process.
	{"tf implicit init oom", "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 failed. Status: out of memory\n", "oom"},
	// tensorflow/stream_executor/cuda/cuda_driver.cc (TF 1.x-2.x): cuDevicePrimaryCtxRetain at start-up.
	{"tf ctx retain oom", "tensorflow.python.framework.errors_impl.InternalError: failed initializing StreamExecutor for CUDA device ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory; total memory reported: 11721506816\n", "oom"},
	// tensorflow/stream_executor/cuda/cuda_driver.cc DeviceAllocate (TF 1.x-2.x, an I line): "failed to allocate %s (%d bytes) from device: %s".
	{"tf device allocate", "2020-05-01 10:00:00.000001: I tensorflow/stream_executor/cuda/cuda_driver.cc:763] failed to allocate 3.91G (4196401152 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    model.fit(x)\nSystemError: <built-in function TFE_Py_ExecuteCancelable> returned a result with an error set\n", "oom"},
	// tensorflow/stream_executor/cuda/cuda_driver.cc HostAllocate (TF 1.x-2.x): pinned host memory.
	{"tf pinned host", "2020-06-01 08:00:00.000001: E tensorflow/stream_executor/cuda/cuda_driver.cc:936] failed to alloc 8589934592 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n2020-06-01 08:00:00.000100: W ./tensorflow/core/common_runtime/gpu/gpu_host_allocator.h:44] could not allocate pinned host memory of size: 8589934592\nKilled\n", "oom"},
	// xla/service/... through PjRt (jaxlib 0.3.15+: XlaRuntimeError; 0.4.36+: JaxRuntimeError).
	{"jax resource exhausted", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.\n", "oom"},
	{"jax 0.5 resource exhausted", "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 8.00GiB.\n", "oom"},
	// jaxlib 0.1.x-0.2.x: the status reaches Python as a RuntimeError, "Resource exhausted:" spelled as words.
	{"jax 0.2 resource exhausted", "RuntimeError: Resource exhausted: Out of memory while trying to allocate 13421772800 bytes.\n", "oom"},
	// xla/pjrt/pjrt_stream_executor_client.cc (jaxlib 0.3-0.4): the replica's failure logged before the exception.
	{"jax pjrt oom glog", "2022-11-03 10:11:12.345678: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client.cc:2085] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.\n", "oom"},
	{"jax pjrt oom absl", "E0301 12:00:00.123456   12345 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.\n", "oom"},
	// xla/stream_executor/cuda/cuda_driver.cc LoadCubin (TF 2.x XLA, jaxlib 0.4): a module could not be loaded because the card was full.
	{"cubin oom", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to load in-memory CUBIN (compiled for a different GPU?).: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n", "oom"},
	{"tf cubin oom", "tensorflow.python.framework.errors_impl.InternalError: Failed to load in-memory CUBIN: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n", "oom"},
	// xla/stream_executor/cuda/cuda_driver.cc LaunchKernel (jaxlib 0.3-0.4): "Failed to launch CUDA kernel: %s with block dimensions: ...".
	{"jax launch oom", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: fusion_3 with block dimensions: 256x1x1 and grid dimensions: 1024x1x1: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n", "oom"},
	// jaxlib/gpu/gpu_kernel_helpers.cc (jaxlib 0.1.x-0.4): "CUDA operation failed: %s" around cudaGetErrorString.
	{"jaxlib cuda op oom", "RuntimeError: CUDA operation failed: out of memory\n", "oom"},
	// tensorflow/stream_executor/cuda/cuda_blas.cc (TF 1.x-2.x): handle creation fails on a full card.
	{"tf cublas handle alloc", "2019-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_blas.cc:510] failed to create cublas handle: CUBLAS_STATUS_ALLOC_FAILED\n", "oom"},
	// tensorflow/stream_executor/cuda/cuda_dnn.cc (TF 1.x-2.x, XLA): cuDNN's handle, ALLOC_FAILED.
	{"tf cudnn handle alloc", "2019-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_dnn.cc:373] Could not create cudnn handle: CUDNN_STATUS_ALLOC_FAILED\n", "oom"},

	// --- cuBLAS ---

	// tensorflow/core/kernels/matmul_op.cc (TF 1.x-2.x): "Blas GEMM launch failed : a.shape=..., b.shape=..., m=..., n=..., k=...".
	{"tf blas gemm", "tensorflow.python.framework.errors_impl.InternalError: Blas GEMM launch failed : a.shape=(100, 784), b.shape=(784, 10), m=100, n=10, k=784\n\t [[Node: MatMul = MatMul[T=DT_FLOAT, transpose_a=false, transpose_b=false, _device=\"/job:localhost/replica:0/task:0/device:GPU:0\"](_arg_x_0_0/_1, Variable/read)]]\n", "cublas-error"},
	{"tf blas sgemm", "tensorflow.python.framework.errors_impl.InternalError: Blas SGEMM launch failed : m=3136, n=32, k=576 [Op:Conv2D]\n", "cublas-error"},
	// tensorflow/core/kernels/batch_matmul_op_impl.h (TF 1.x-2.x).
	{"tf blas batched", "tensorflow.python.framework.errors_impl.InternalError: Blas xGEMMBatched launch failed : a.shape=[192,17,64], b.shape=[192,17,64], m=17, n=17, k=64, batch_size=192 [Op:BatchMatMulV2]\n", "cublas-error"},
	// tensorflow/stream_executor/stream.cc (TF 1.x-2.x) and stream_executor/gpu (TF 2.11+, XLA).
	{"tf blas without support", "tensorflow.python.framework.errors_impl.InternalError: Attempting to perform BLAS operation using StreamExecutor without BLAS support [Op:MatMul]\n", "cublas-error"},
	// tensorflow/stream_executor/cuda/cuda_blas.cc (TF 1.x-2.x): handle creation, NOT_INITIALIZED.
	{"tf cublas handle", "2019-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_blas.cc:428] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED\n2019-03-01 12:00:00.123600: W tensorflow/stream_executor/stream.cc:2041] attempting to perform BLAS operation using StreamExecutor without BLAS support\n", "cublas-error"},
	// tensorflow/stream_executor/cuda/cuda_blas.cc DoBlasInternalImpl (TF 1.x-2.x).
	{"tf cublas routine", "2019-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_blas.cc:652] failed to run cuBLAS routine: CUBLAS_STATUS_EXECUTION_FAILED\n", "cublas-error"},
	// jaxlib/gpu/gpu_kernel_helpers.cc ErrorString(cublasStatus_t) (jaxlib 0.1.x-0.4).
	{"jaxlib cublas words", "RuntimeError: jaxlib/gpu/blas_kernels.cc:108: operation gpublasCreate(&handle) failed: cuBlas has not been initialized\n", "cublas-error"},

	// --- cuDNN ---

	{"tf cudnn handle", "2019-04-11 14:19:59.264535: E tensorflow/stream_executor/cuda/cuda_dnn.cc:334] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n2019-04-11 14:19:59.264600: E tensorflow/stream_executor/cuda/cuda_dnn.cc:338] Possibly insufficient driver version: 418.56.0\n", "oom"},
	// tensorflow/core/kernels/conv_ops.cc (TF 1.13-2.x).
	{"tf conv algorithm", "tensorflow.python.framework.errors_impl.UnknownError:  Failed to get convolution algorithm. This is probably because cuDNN failed to initialize, so try looking to see if a warning log message was printed above.\n\t [[node conv2d/Conv2D (defined at train.py:40) ]] [Op:__inference_train_function_1234]\n", "cudnn-error"},
	// tensorflow/core/kernels/conv_ops.cc autotuning (TF 2.x): no algorithm ran.
	{"tf no algorithm", "tensorflow.python.framework.errors_impl.NotFoundError: No algorithm worked! [Op:Conv2D]\n", "cudnn-error"},
	// tensorflow/core/kernels/cudnn_rnn_ops.cc (TF 1.x-2.x).
	{"tf cudnn rnn", "tensorflow.python.framework.errors_impl.InternalError: Failed to call ThenRnnForward with model config: [rnn_mode, rnn_input_mode, rnn_direction_mode]: 2, 0, 0 , [num_layers, input_size, num_units, dir_count, max_seq_length, batch_size, cell_num_units]: [1, 64, 64, 1, 100, 32, 64] [Op:CudnnRNN]\n", "cudnn-error"},
	// tensorflow/core/kernels/fused_batch_norm_op.cc (TF 1.x-2.x).
	// tensorflow/core/kernels/pooling_ops_common.cc (TF 1.x-2.x; "cudnn PoolForward" in TF 1.0-1.4):
	// the cuDNN pooling call's status as the op's error.
	{"tf dnn pool forward", "tensorflow.python.framework.errors_impl.InternalError: dnn PoolForward launch failed [Op:MaxPool]\n", "cudnn-error"},
	{"tf1 cudnn pool backward", "InternalError (see above for traceback): cudnn PoolBackward launch failed\n\t [[Node: gradients/pool1_grad/MaxPoolGrad = MaxPoolGrad[T=DT_FLOAT]()]]\n", "cudnn-error"},
	// xla/service/gpu/conv_algorithm_picker.cc (TF XLA, jaxlib 0.2-0.4): the autotuner refused every engine.
	{"xla conv all algorithms", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: All algorithms tried for %cudnn-conv = (f32[1,64,64,32]{2,1,3,0}, u8[0]{0}) custom-call(f32[1,64,64,3]{2,1,3,0} %p0, f32[3,3,3,32]{1,0,2,3} %p1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, custom_call_target=\"__cudnn$convForward\" failed. Falling back to default algorithm.  Per-algorithm errors:\n", "cudnn-error"},
	// glog CHECK_EQ around a cuDNN/cuBLAS call (Caffe, TF 1.x contrib kernels): the failing status is the number, not the SUCCESS name.
	{"glog cudnn check", "F0501 10:00:00.000000  1234 cudnn_conv_layer.cpp:53] Check failed: status == CUDNN_STATUS_SUCCESS (4 vs. 0)  CUDNN_STATUS_INTERNAL_ERROR\n*** Check failure stack trace: ***\n", "cudnn-error"},
	{"tf cudnn launch failure", "tensorflow.python.framework.errors_impl.InternalError: cuDNN launch failure : input shape ([32,64,56,56]) [Op:FusedBatchNormV3]\n", "cudnn-error"},
	// xla/service/gpu/gpu_conv_algorithm_picker.cc (jaxlib 0.3-0.4).
	{"xla dnn init", "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed. Look at the errors above for more details.\n", "cudnn-error"},
	// tensorflow/stream_executor/cuda/cuda_dnn.cc status check (TF 1.x-2.x).
	{"tf cudnn check failed", "2019-03-01 12:00:00.123456: F tensorflow/stream_executor/cuda/cuda_dnn.cc:521] Check failed: cudnnSetTensorNdDescriptor(handle_.get(), elem_type, nd, dims.data(), strides.data()) == CUDNN_STATUS_SUCCESS (3 vs. 0)batch_descriptor: {count: 0 feature_map_count: 64 spatial: 0 0  value_min: 0.000000 value_max: 0.000000 layout: BatchDepthYX}\n", "cudnn-error"},

	// --- libraries that do not fit ---

	// tensorflow/stream_executor/cuda/cuda_dnn.cc (TF 1.x-2.x, XLA in jaxlib 0.3-0.4).
	{"cudnn loaded vs compiled", "2021-10-13 17:19:29.385716: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.  CuDNN library needs to have matching major version and equal or higher minor version. If using a binary install, upgrade your CuDNN library.  If building from sources, make sure the library loaded at runtime is compatible with the version specified during compile configuration.\n", "library-mismatch"},
	{"xla cudnn loaded vs compiled", "E0301 12:00:00.123456   12345 cuda_dnn.cc:535] Loaded runtime CuDNN library: 8.6.0 but source was compiled with: 8.9.4.  CuDNN library needs to have matching major version and equal or higher minor version. If using a binary install, upgrade your CuDNN library.  If building from sources, make sure the library loaded at runtime is compatible with the version specified during compile configuration.\n", "library-mismatch"},
	// tensorflow/core/kernels (TF 2.x): cuDNN did not load at all.
	{"tf dnn not found", "tensorflow.python.framework.errors_impl.UnimplementedError: DNN library is not found.\n\t [[{{node conv2d/Conv2D}}]] [Op:__inference_train_function_850]\n", "library-mismatch"},
	{"xla dnn not found", "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library is not found.\n", "library-mismatch"},
	// tensorflow/stream_executor/platform/default/dso_loader.cc (TF 1.x-2.x), then gpu_device.cc skips the GPU.
	{"tf dlopen", "2022-07-10 15:08:09.276131: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64\n2022-07-10 15:08:09.276917: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu for how to download and setup the required libraries for your platform.\nSkipping registering GPU devices...\n", "library-mismatch"},
	// jax/_src/xla_bridge.py (jaxlib 0.4.x) _check_cuda_versions.
	{"jax cudnn built against", "RuntimeError: Unable to initialize backend 'cuda': Found cuDNN version 8600, but JAX was built against version 8800, which is newer. The copy of cuDNN that is installed must be at least as new as the version against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n", "library-mismatch"},
	{"jax backend failed", "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n", "cuda-unavailable"},
	{"jax cuda backend failed warning", "CUDA backend failed to initialize: Found CUDA version 12010, but JAX was built against version 12020, which is newer. The copy of CUDA that is installed must be at least as new as the version against which JAX was built. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n", "library-mismatch"},
	// jax_plugins/xla_cuda12 (jax 0.4.26+): a CUDA library of the plugin cannot be loaded.
	{"jax unable to load lib", "RuntimeError: Unable to initialize backend 'cuda': Unable to load cuSPARSE. Is it installed? (you may need to uninstall the jax[cuda12] extra and reinstall)\n", "library-mismatch"},
	// xla/stream_executor/cuda/cuda_asm_compiler.cc (jaxlib 0.4, TF 2.x XLA): the ptxas found is older than XLA needs.
	{"xla ptxas too old", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: XLA requires ptxas version 11.8 or higher\n", "library-mismatch"},
	// xla/service/gpu/nvptx_compiler.cc / llvm_gpu_backend (TF 2.x XLA, jaxlib 0.1-0.4): libdevice not found.
	{"xla libdevice", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: libdevice not found at ./libdevice.10.bc\n", "library-mismatch"},
	{"tf libdevice dir", "2021-03-01 12:00:00.123456: W tensorflow/compiler/xla/service/gpu/nvptx_compiler.cc:77] Can't find libdevice directory ${CUDA_DIR}/nvvm/libdevice. This may result in compilation or runtime failures, if the program we try to run uses routines from libdevice.\n2021-03-01 12:00:01.000000: F tensorflow/compiler/xla/service/gpu/llvm_gpu_backend/gpu_backend_lib.cc:464] Internal: libdevice not found at ./libdevice.10.bc\n", "library-mismatch"},
	// tensorflow/stream_executor/gpu/asm_compiler.cc (TF 2.x): ptxas rejects the GPU's architecture.
	{"ptxas fatal sm", "2021-03-01 12:00:00.123456: E tensorflow/stream_executor/gpu/asm_compiler.cc:63] ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'\n", "library-mismatch"},

	// --- kernels for another GPU, driver too old ---

	{"tf implicit init image", "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 failed. Status: device kernel image is invalid\n", "no-kernel-image"},
	{"cubin no binary", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to load in-memory CUBIN: CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available for execution on the device\n", "no-kernel-image"},
	// tensorflow/core/util/gpu_launch_config.h / gpu_kernel_helper.h TF_CHECK_OK (TF 2.x): the launch status of a TF kernel.
	{"tf non-ok launch image", "2021-03-01 12:00:00.123456: F ./tensorflow/core/kernels/random_op_gpu.h:232] Non-OK-status: GpuLaunchKernel(FillPhiloxRandomKernelLaunch<Distribution>, num_blocks, block_size, 0, d.stream(), key, counter, gen, data, size, dist) status: Internal: invalid device function\nAborted (core dumped)\n", "no-kernel-image"},
	{"tf non-ok launch image upper", "2023-03-01 12:00:00.123456: F tensorflow/core/kernels/gpu_utils.cc:95] Non-OK-status: GpuLaunchKernel(RedzoneCheckKernel, 1, 1, 0, stream, ptr) status: INTERNAL: no kernel image is available for execution on the device\n", "no-kernel-image"},
	{"tf non-ok launch resources", "2021-03-01 12:00:00.123456: F tensorflow/core/kernels/segment_reduction_ops_gpu.cu.cc:205] Non-OK-status: GpuLaunchKernel(SortedSegmentReductionCustomKernel, config.block_count, config.thread_per_block, 0, d.stream(), input_outer_dim_size) status: Internal: too many resources requested for launch\n", "launch-config"},
	{"tf implicit init driver", "tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. Status: CUDA driver version is insufficient for CUDA runtime version\n", "driver-too-old"},
	{"xla ptx unsupported", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to load PTX text as a module: CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain.\n", "driver-too-old"},
	// tensorflow/stream_executor/cuda/cuda_diagnostics.cc (TF 1.x-2.x): libcuda and the kernel module differ.
	{"tf kernel vs dso", "2019-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:332] kernel version 418.67.0 does not match DSO version 440.33.1 -- cannot find working devices in this configuration\n", "driver-too-old"},

	// --- no GPU, busy GPU ---

	// tensorflow/stream_executor/cuda/cuda_driver.cc Init (TF 1.x-2.x, XLA cuda_platform.cc in jaxlib 0.4).
	{"tf cuinit unknown", "2021-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:328] failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error\nTraceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n    assert tf.config.list_physical_devices('GPU')\nAssertionError\n", "cuda-unavailable"},
	{"jax no visible gpu", "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices. (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)\n", "cuda-unavailable"},
	{"jax no platform", "RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. Platforms present are: cpu\n", "cuda-unavailable"},
	{"tf implicit init busy", "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:0 failed. Status: all CUDA-capable devices are busy or unavailable\n", "device-busy"},

	// --- kernel faults reported by the driver ---

	// tensorflow/stream_executor/cuda/cuda_driver.cc SynchronizeContext (TF 1.x-2.x); TF 0.x printed the bare name.
	{"tf sync illegal", "2018-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:1110] could not synchronize on CUDA context: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered :: *** Begin stack trace ***\n\ttensorflow::CurrentStackTrace()\n\t*** End stack trace ***\n", "illegal-address"},
	{"tf0 sync illegal instruction", "E c:\\tf_jenkins\\home\\workspace\\release-win\\device\\gpu\\os\\windows\\tensorflow\\stream_executor\\cuda\\cuda_driver.cc:1110] could not synchronize on CUDA context: CUDA_ERROR_ILLEGAL_INSTRUCTION :: No stack trace available\n", "illegal-address"},
	// tensorflow/stream_executor/cuda/cuda_event.cc (TF 1.x) / gpu_event.cc, then gpu_event_mgr.cc.
	// tensorflow/core/common_runtime/gpu/gpu_event_mgr.cc (TF 1.x-2.x; device_event_mgr.cc in TF 2.12+):
	// the fatal line alone, the polling error above it cut off.
	{"tf event status alone", "2021-05-11 01:07:22.182286: F tensorflow/core/common_runtime/gpu/gpu_event_mgr.cc:220] Unexpected Event status: 1\nAborted (core dumped)\n", "illegal-address"},
	{"tf event status absl", "F0301 12:00:00.123456   12345 device_event_mgr.cc:223] Unexpected Event status: 1\n", "illegal-address"},
	{"tf event polling", "2018-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_event.cc:49] Error polling for event status: failed to query event: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure\n2018-03-01 12:00:00.123500: F tensorflow/core/common_runtime/gpu/gpu_event_mgr.cc:208] Unexpected Event status: 1\n", "illegal-address"},
	// tensorflow/stream_executor/cuda/cuda_event.cc (TF 2.x), then common_runtime/device/device_event_mgr.cc.
	{"tf2 event polling illegal", "2022-01-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_event.cc:29] Error polling for event status: failed to query event: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\n2022-01-01 12:00:00.123500: F tensorflow/core/common_runtime/device/device_event_mgr.cc:221] Unexpected Event status: 1\nAborted (core dumped)\n", "illegal-address"},
	{"tf gpu sync failed illegal", "tensorflow.python.framework.errors_impl.InternalError: GPU sync failed\n2018-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:1032] could not synchronize on CUDA context: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered :: No stack trace available\n", "illegal-address"},
	// xla/pjrt/pjrt_stream_executor_client.cc + xla/stream_executor/cuda (jaxlib 0.3-0.4).
	{"jax complete kernels", "E0301 12:00:00.123456   12345 pjrt_stream_executor_client.cc:2085] Execution of replica 0 failed: INTERNAL: Failed to complete all kernels launched on stream 0x55d0c5a3e4a0: CUDA error: : CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\njaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to complete all kernels launched on stream 0x55d0c5a3e4a0: CUDA error: : CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\n", "illegal-address"},
	{"jax memcpy illegal", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CUDA error: Failed to memcpy from device to host: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered\n", "illegal-address"},
	{"jax launch misaligned", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: fusion_12 with block dimensions: 128x1x1 and grid dimensions: 64x1x1: CUDA_ERROR_MISALIGNED_ADDRESS: misaligned address\n", "misaligned-address"},
	{"jaxlib cuda op illegal", "RuntimeError: CUDA operation failed: an illegal memory access was encountered\n", "illegal-address"},
	{"tf ecc", "2021-03-01 12:00:00.123456: E tensorflow/stream_executor/cuda/cuda_driver.cc:1059] could not synchronize on CUDA context: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error encountered :: *** Begin stack trace ***\n", "hardware-fault"},
}

func TestTFJAXTemplates(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range tfjaxTemplates {
		out := explainText(t, e, c.log)
		got := ""
		if len(out) > 0 {
			got = out[0].Class
			if out[0].Severity < report.Error {
				got += " (" + out[0].Severity.String() + ")"
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q\n%s", c.name, got, c.want, strings.TrimSpace(c.log))
		}
	}
}
