package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

// TestFrameworkTemplates runs the message templates that frameworks other
// than PyTorch print for CUDA-level failures, filled with realistic values,
// through the whole engine. Each row names the source file (and release)
// its format string comes from; the class is what the status or failure
// behind the message is, not what one report happened to show.
func TestFrameworkTemplates(t *testing.T) {
	e := New(kb.MustDefault())
	cases := []struct{ name, log, want string }{
		// PaddlePaddle: paddle/phi/core/enforce.h (2.3-3.x; paddle/fluid/platform/enforce.h before)
		// build_nvidia_error_msg: "CUDA error(%d), %s. " then GetExternalErrorMsg's
		// "\n  [Hint: '%s'. %s]" (or "[Hint: Please search for the error code(%d) on website (%s) ...]"),
		// thrown as ExternalError; without the C++ stack (FLAGS_call_stack_level<2)
		// SimplifyErrorTypeFormat prints "(External) ...".
		{"paddle cuda 700", "OSError: (External) CUDA error(700), an illegal memory access was encountered. \n  [Hint: 'cudaErrorIllegalAddress'. The device encountered a load or store instruction on an invalid memory address. This leaves the process in an inconsistentstate and any further CUDA work will return the same error. To continue using CUDA, the process must be terminated and relaunched. ] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:258)\n", "illegal-address"},
		{"paddle cuda 2", "ExternalError: CUDA error(2), out of memory. \n  [Hint: 'cudaErrorMemoryAllocation'. The API call failed because it was unable to allocate enough memory to perform the requested operation. ] (at /paddle/paddle/fluid/platform/gpu_info.cc:307)\n", "oom"},
		{"paddle cuda 209", "RuntimeError: (External) CUDA error(209), no kernel image is available for execution on the device. \n  [Hint: 'cudaErrorNoKernelImageForDevice'. This indicates that there is no kernel image available that is suitable for the device. ] (at ../paddle/phi/kernels/funcs/elementwise_base.h:1200)\n", "no-kernel-image"},
		{"paddle cuda 35", "ExternalError: CUDA error(35), CUDA driver version is insufficient for CUDA runtime version. \n  [Hint: Please search for the error code(35) on website (https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html#group__CUDART__TYPES_1g3f51e3575c2178246db0a94a430e0038) to get Nvidia's official solution and advice about CUDA Error.] (at /paddle/paddle/fluid/platform/gpu_info.cc:99)\n", "driver-too-old"},
		{"paddle cuda 100", "OSError: (External) CUDA error(100), no CUDA-capable device is detected. \n  [Hint: 'cudaErrorNoDevice'. This indicates that no CUDA-capable devices were detected by the installed CUDA driver. ] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:66)\n", "cuda-unavailable"},
		{"paddle cuda 719", "OSError: (External) CUDA error(719), unspecified launch failure. \n  [Hint: 'cudaErrorLaunchFailure'. An exception occurred on the device while executing a kernel. ] (at /paddle/paddle/phi/backends/gpu/cuda/cuda_info.cc:258)\n", "illegal-address"},
		{"paddle cuda 719 hint only", "  [Hint: 'cudaErrorLaunchFailure'. An exception occurred on the device while executing a kernel. Common causes include dereferencing an invalid device pointer and accessing out of bounds shared memory.] (at /paddle/paddle/fluid/platform/device/gpu/gpu_info.cc:306)\n", "illegal-address"},
		{"paddle cuda after kernel", "FatalError: CUDA error after kernel (roi_align): CUDA error(98), invalid device function. \n", "no-kernel-image"},
		// build_nvidia_error_msg(cudnnStatus_t): "CUDNN error(%d), %s. " with cudnnGetErrorString's name.
		{"paddle cudnn 4", "OSError: (External) CUDNN error(4), CUDNN_STATUS_INTERNAL_ERROR. \n  [Hint: 'CUDNN_STATUS_INTERNAL_ERROR'.  An internal cuDNN operation failed.  ] (at /paddle/paddle/phi/kernels/gpudnn/conv_kernel.cu:395)\n", "cudnn-error"},
		{"paddle cudnn 9", "ExternalError: CUDNN error(9), CUDNN_STATUS_NOT_SUPPORTED. \n  [Hint: 'CUDNN_STATUS_NOT_SUPPORTED'.  The functionality requested is not presently supported by cuDNN.  ] (at /paddle/paddle/fluid/operators/conv_cudnn_op.cu:300)\n", "cudnn-error"},
		// build_nvidia_error_msg(cublasStatus_t): "CUBLAS error(%d). " and the hint, which may not name the status.
		{"paddle cublas 13", "OSError: (External) CUBLAS error(13). \n  [Hint: 'CUBLAS_STATUS_EXECUTION_FAILED'. The GPU program failed to execute. This is often caused by a launch failure of the kernel on the GPU, which can be caused by multiple reasons. ] (at /paddle/paddle/phi/kernels/funcs/blas/blas_impl.cu.h:35)\n", "cublas-error"},
		{"paddle cublas 3 by number", "ExternalError: CUBLAS error(3). \n  [Hint: Please search for the error code(3) on website (https://docs.nvidia.com/cuda/cublas/index.html#cublasstatus_t) to get Nvidia's official solution and advice about CUBLAS Error.] (at /paddle/paddle/fluid/platform/cuda_helper.h:107)\n", "oom"},
		{"paddle cublas 1 by number", "ExternalError: CUBLAS error(1). \n  [Hint: Please search for the error code(1) on website (https://docs.nvidia.com/cuda/cublas/index.html#cublasstatus_t) to get Nvidia's official solution and advice about CUBLAS Error.] (at /paddle/paddle/fluid/platform/cuda_helper.h:107)\n", "cublas-error"},
		// DeepSpeed: csrc/transformer/cublas_wrappers.cu (and csrc/includes for the
		// inference kernels), fprintf(stderr, "!!!! kernel execution error. (m: %d,
		// n: %d, k: %d, error: %d) \n", m, n, k, (int)status) after cublasGemmEx.
		{"deepspeed gemm 13", "!!!! kernel execution error. (m: 768, n: 4608, k: 3072, error: 13) \n", "cublas-error"},
		{"deepspeed gemm 3", "!!!! kernel execution error. (m: 1024, n: 8192, k: 1024, error: 3) \n", "oom"},
		// build_nvidia_error_msg(ncclResult_t): "NCCL error(%d), %s. " with ncclGetErrorString's text.
		{"paddle nccl 2", "OSError: (External) NCCL error(2), unhandled system error. \n  [Hint: 'ncclSystemError'. A call to the system failed.  ] (at /paddle/paddle/fluid/platform/collective_helper.cc:128)\n", "nccl-error"},
		{"paddle nccl 1 by number", "ExternalError: NCCL error(1), unhandled cuda error. (at /paddle/paddle/fluid/platform/collective_helper.cc:66)\n", "nccl-error"},
		// build_nvidia_error_msg(CUresult): "CU error(%d). "
		{"paddle cu 2", "ExternalError: CU error(2). \n  [Hint: Please search for the error code(2) on website (https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html) to get Nvidia's official solution and advice about CU Error.] (at /paddle/paddle/fluid/platform/device/gpu/gpu_info.cc:301)\n", "oom"},
		// The whole of what Paddle prints with FLAGS_call_stack_level=2: the Python
		// traceback, GetCurrentTraceBackString's "C++ Traceback (most recent call last):"
		// and GetCompleteTraceBackString's "Error Message Summary:" (paddle/phi/core/enforce.cc, enforce.h).
		{"paddle full", `Traceback (most recent call last):
  File "train.py", line 88, in <module>
    loss.backward()
  File "/usr/local/lib/python3.10/dist-packages/paddle/base/dygraph/tensor_patch_methods.py", line 342, in backward
    core.eager.run_backward([self], grad_tensor, retain_graph)
OSError: 

--------------------------------------
C++ Traceback (most recent call last):
--------------------------------------
0   egr::Backward(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool)
1   egr::RunBackward(std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool, bool, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&, bool, std::vector<paddle::Tensor, std::allocator<paddle::Tensor> > const&)
2   phi::MatmulGradKernel<float, phi::GPUContext>(phi::GPUContext const&, phi::DenseTensor const&, phi::DenseTensor const&, phi::DenseTensor const&, bool, bool, phi::DenseTensor*, phi::DenseTensor*)
3   phi::funcs::Blas<phi::GPUContext>::GEMM<float>(CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, float, float const*, float const*, float, float*) const
4   common::enforce::EnforceNotMet::EnforceNotMet(common::ErrorSummary const&, char const*, int)
5   common::enforce::GetCurrentTraceBackString[abi:cxx11](bool)

----------------------
Error Message Summary:
----------------------
ExternalError: CUBLAS error(13). 
  [Hint: Please search for the error code(13) on website (https://docs.nvidia.com/cuda/cublas/index.html#cublasstatus_t) to get Nvidia's official solution and advice about CUBLAS Error.] (at /paddle/paddle/phi/kernels/funcs/blas/blas_impl.cu.h:35)
`, "cublas-error"},
		// paddle/phi/core/memory/allocation/allocator_facade / gpu_info.cc (RecordedGpuMalloc):
		// ResourceExhausted "\n\nOut of memory error on GPU %d. Cannot allocate %s memory on GPU %d,
		// %s memory has been allocated and available memory is only %s.\n\n"
		{"paddle oom", "ResourceExhaustedError: \n\nOut of memory error on GPU 0. Cannot allocate 1.203125GB memory on GPU 0, 10.543213GB memory has been allocated and available memory is only 512.000000MB.\n\nPlease check whether there is any other process using GPU 0.\n1. If yes, please stop them, or start PaddlePaddle on another GPU.\n2. If no, please decrease the batch size of your model. \n (at /paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:79)\n", "oom"},
		{"paddle oom simple", "MemoryError: (ResourceExhausted) Out of memory error on GPU 0. Cannot allocate 256.000244MB memory on GPU 0, 15.744141GB memory has been allocated and available memory is only 34.687500MB.\n", "oom"},
		{"paddle oom 1.8", "Error: Out of memory error on GPU 0. Cannot allocate 3.062500GB memory on GPU 0, available memory is only 1.574219GB.\n", "oom"},
		// paddle/phi/backends/dynload/dynamic_loader.cc GetDsoHandleFromSearchPath:
		// PreconditionNotMet "The third-party dynamic library (%s) that Paddle depends on is not
		// configured correctly. (error code is %s)\n  Suggestions: ..."
		{"paddle dso", "PreconditionNotMetError: The third-party dynamic library (libcudnn.so) that Paddle depends on is not configured correctly. (error code is /usr/local/cuda/lib64/libcudnn.so: cannot open shared object file: No such file or directory)\n  Suggestions:\n  1. Check if the third-party dynamic library (e.g. CUDA, CUDNN) is installed correctly and its version is matched with paddlepaddle you installed.\n", "library-mismatch"},
		{"paddle dso simple", "RuntimeError: (PreconditionNotMet) The third-party dynamic library (cublas64_11.dll;cublas64_110.dll) that Paddle depends on is not configured correctly. (error code is 126)\n", "library-mismatch"},
		// paddle/phi/backends/dynload/cudnn.cc (EnforceCUDNNLoaded): "Cannot load cudnn shared library. Cannot invoke method %s."
		{"paddle cudnn dso", "PreconditionNotMetError: Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion.\n  [Hint: cudnn_dso_handle should not be null.] (at /paddle/paddle/phi/backends/dynload/cudnn.cc:64)\n", "library-mismatch"},
		// python/paddle/utils/cpp_extension / paddle/fluid/platform/device/gpu/gpu_info.cc (2.4+):
		// "The GPU architecture in your current machine is %s, which is not compatible with Paddle
		// installation with arch: %s, it is recommended to install the corresponding wheel package ..."
		{"paddle arch", "W0321 10:22:31.112 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 6.1, Driver API Version: 12.0, Runtime API Version: 11.8\nUserWarning: The GPU architecture in your current machine is Pascal, which is not compatible with Paddle installation with arch: 70 75 80 86 , it is recommended to install the corresponding wheel package according to the installation information on the official Paddle website.\n", "no-kernel-image"},

		// CUDA samples, Common/helper_cuda.h check(): "CUDA error at %s:%d code=%d(%s) \"%s\" \n"
		{"helper_cuda check", "CUDA error at bandwidthTest.cu:686 code=2(cudaErrorMemoryAllocation) \"cudaMalloc((void **)&d_idata, memSize)\" \n", "oom"},
		{"helper_cuda check 35", "CUDA error at ../../common/inc/helper_cuda.h:708 code=35(cudaErrorInsufficientDriver) \"cudaGetDeviceCount(&device_count)\" \n", "driver-too-old"},
		{"helper_cuda check legacy", "CUDA error at C:/ProgramData/NVIDIA Corporation/CUDA Samples/v9.2/common/inc/helper_cuda.h:1160 code=30(cudaErrorUnknown) \"cudaGetDeviceCount(&device_count)\" \n", ""},
		// helper_cuda.h __getLastCudaError: "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n"
		{"getLastCudaError", "simpleTexture.cu(126) : getLastCudaError() CUDA error : Kernel execution failed : (209) no kernel image is available for execution on the device.\n", "no-kernel-image"},
		{"getLastCudaError 98", "matrixMul.cu(290) : getLastCudaError() CUDA error : Kernel execution failed : (98) invalid device function.\n", "no-kernel-image"},
		// The gpuErrchk/gpuAssert macro most CUDA C code copies: "GPUassert: %s %s %d\n"
		{"gpuassert oom", "GPUassert: out of memory /home/user/src/kernel.cu 45\n", "oom"},
		{"gpuassert 700", "GPUassert: an illegal memory access was encountered main.cu 120\n", "illegal-address"},
		{"gpuassert 209", "GPUassert: no kernel image is available for execution on the device kernel.cu 77\n", "no-kernel-image"},
		// Thrust, thrust/system/cuda/detail/core/util.h throw_on_error and parallel_for:
		// system_error(what_arg: "parallel_for failed", cuda_category) -> "parallel_for failed: cudaErrorInvalidDeviceFunction: invalid device function"
		{"thrust parallel_for", "terminate called after throwing an instance of 'thrust::system::system_error'\n  what():  parallel_for failed: cudaErrorInvalidDeviceFunction: invalid device function\nAborted (core dumped)\n", "no-kernel-image"},
		{"thrust sync", "terminate called after throwing an instance of 'thrust::system::system_error'\n  what():  for_each: failed to synchronize: cudaErrorIllegalAddress: an illegal memory access was encountered\n", "illegal-address"},
		{"thrust bad_alloc", "terminate called after throwing an instance of 'thrust::system::detail::bad_alloc'\n  what():  std::bad_alloc: cudaErrorMemoryAllocation: out of memory\n", "oom"},
		// CUDA 10 thrust spelled the message without the name: "parallel_for failed: invalid device function"
		{"thrust old", "terminate called after throwing an instance of 'thrust::system::system_error'\n  what():  parallel_for failed: invalid device function\n", "no-kernel-image"},
		{"thrust old oom", "terminate called after throwing an instance of 'thrust::system::detail::bad_alloc'\n  what():  std::bad_alloc: out of memory\n", "oom"},

		// CuPy: cupy_backends/cuda/api/runtime.pyx CUDARuntimeError.__init__: "%s: %s" % (cudaGetErrorName, cudaGetErrorString)
		{"cupy runtime 100", "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected\n", "cuda-unavailable"},
		{"cupy runtime 35", "cupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version\n", "driver-too-old"},
		{"cupy runtime 700", "cupy.cuda.runtime.CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was encountered\n", "illegal-address"},
		// cupy_backends/cuda/api/driver.pyx CUDADriverError: "%s: %s" % (cuGetErrorName, cuGetErrorString)
		{"cupy driver 209", "cupy.cuda.driver.CUDADriverError: CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available for execution on the device\n", "no-kernel-image"},
		{"cupy driver 222", "cupy_backends.cuda.api.driver.CUDADriverError: CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain.\n", "driver-too-old"},
		// cupy/cuda/memory.pyx OutOfMemoryError: "Out of memory allocating {:,} bytes (allocated so far: {:,} bytes{})."
		{"cupy oom", "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 1,073,741,824 bytes (allocated so far: 14,495,514,624 bytes).\n", "oom"},
		{"cupy oom limit", "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 536,870,912 bytes (allocated so far: 2,147,483,648 bytes, limit set to: 2,147,483,648 bytes).\n", "oom"},
		{"cupy oom v7", "cupy.cuda.memory.OutOfMemoryError: out of memory to allocate 8589934592 bytes (total 17179869184 bytes)\n", "oom"},
		// cupy_backends/cuda/libs/cublas.pyx CUBLASError: the status name
		{"cupy cublas", "cupy_backends.cuda.libs.cublas.CUBLASError: CUBLAS_STATUS_NOT_INITIALIZED\n", "cublas-error"},

		// Numba: numba/cuda/cudadrv/driver.py _check_ctypes_error: "[%s] Call to %s results in %s" (errcode, fname, errname)
		{"numba 700", "numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuMemcpyDtoH results in UNKNOWN_CUDA_ERROR\n", "illegal-address"},
		{"numba 2 name", "numba.cuda.cudadrv.driver.CudaAPIError: [2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY\n", "oom"},
		{"numba 209", "numba.cuda.cudadrv.driver.CudaAPIError: [209] Call to cuModuleLoadDataEx results in CUDA_ERROR_NO_BINARY_FOR_GPU\n", "no-kernel-image"},
		{"numba linker 222", "numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in CUDA_ERROR_UNSUPPORTED_PTX_VERSION\n", "driver-too-old"},
		// numba/cuda/cudadrv/driver.py Driver.__init__ / error.py CudaSupportError: "Error at driver init: %s"
		{"numba init lib", "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: \nCUDA driver library cannot be found.\nIf you are sure that a CUDA driver is installed,\ntry setting environment variable NUMBA_CUDA_DRIVER\nwith the file path of the CUDA driver shared library.\n", "cuda-unavailable"},
		{"numba init 100", "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)\n", "cuda-unavailable"},
		{"numba init 999", "numba.cuda.cudadrv.error.CudaSupportError: Error at driver init: Call to cuInit results in UNKNOWN_CUDA_ERROR (-1)\n", "cuda-unavailable"},

		// MXNet: src/storage/pooled_storage_manager.h: LOG(FATAL) << "cudaMalloc failed: " << cudaGetErrorString(e)
		{"mxnet malloc", "[12:00:00] src/storage/./pooled_storage_manager.h:157: cudaMalloc failed: out of memory\n", "oom"},
		// mshadow/base.h / include/mxnet/base.h CUDA_CALL: CHECK(e == cudaSuccess || e == cudaErrorCudartUnloading) << "CUDA: " << cudaGetErrorString(e)
		{"mxnet cuda call", "mxnet.base.MXNetError: [09:51:04] src/engine/threaded_engine.cc:328: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading: CUDA: an illegal memory access was encountered\n", "illegal-address"},
		{"mxnet cuda call oom", "mxnet.base.MXNetError: [10:44:28] src/operator/./cudnn_convolution-inl.h:79: Check failed: e == cudaSuccess || e == cudaErrorCudartUnloading: CUDA: out of memory\n", "oom"},
		{"mxnet cuda call old", "MXNetError: [15:29:50] include/mxnet/./tensor_blob.h:257: Check failed: e == cudaSuccess CUDA: invalid device function\n", "no-kernel-image"},
		// CUDNN_CALL: CHECK_EQ(e, CUDNN_STATUS_SUCCESS) << "cuDNN: " << cudnnGetErrorString(e)
		{"mxnet cudnn", "mxnet.base.MXNetError: [07:33:43] src/operator/nn/./cudnn/cudnn_convolution-inl.h:1114: Check failed: e == CUDNN_STATUS_SUCCESS (4 vs. 0) : cuDNN: CUDNN_STATUS_INTERNAL_ERROR\n", "cudnn-error"},

		// ONNX Runtime: onnxruntime/core/providers/cuda/cuda_call.cc CudaCall:
		// "%s failure %d: %s ; GPU=%d ; hostname=%s ; file=%s ; line=%d ; expr=%s; %s"
		{"ort cuda 2", "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : CUDA failure 2: out of memory ; GPU=0 ; hostname=c2f4 ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_allocator.cc ; line=47 ; expr=cudaMalloc((void**)&p, size);\n", "oom"},
		{"ort cuda 700", "2023-10-31 09:21:04.2 [E:onnxruntime:Default, cuda_call.cc:116 CudaCall] CUDA failure 700: an illegal memory access was encountered ; GPU=0 ; hostname=gpu01 ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=311 ; expr=cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)); \n", "illegal-address"},
		{"ort cuda 35", "[E:onnxruntime:Default, cuda_call.cc:118 CudaCall] CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version ; GPU=0 ; hostname=x ; expr=cudaSetDevice(info_.device_id); \n", "driver-too-old"},
		{"ort cudnn 4", "[E:onnxruntime:Default, cuda_call.cc:118 CudaCall] CUDNN failure 4: CUDNN_STATUS_INTERNAL_ERROR ; GPU=0 ; hostname=x ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=178 ; expr=cudnnCreate(&cudnn_handle_); \n", "cudnn-error"},
		{"ort cublas 3", "[E:onnxruntime:Default, cuda_call.cc:118 CudaCall] CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=x ; file=/onnxruntime_src/onnxruntime/core/providers/cuda/cuda_execution_provider.cc ; line=168 ; expr=cublasCreate(&cublas_handle_); \n", "oom"},
		// onnxruntime/core/framework/bfc_arena.cc AllocateRawInternal: ORT_THROW("Failed to allocate memory for requested buffer of size ", rounded_bytes)
		{"ort bfc", "2024-01-15 11:02:33.1 [E:onnxruntime:, sequential_executor.cc:514 ExecuteKernel] Non-zero status code returned while running Conv node. Name:'/conv1/Conv' Status Message: /onnxruntime_src/onnxruntime/core/framework/bfc_arena.cc:376 void* onnxruntime::BFCArena::AllocateRawInternal(size_t, bool, onnxruntime::Stream*, bool, onnxruntime::WaitNotificationFn) Failed to allocate memory for requested buffer of size 2147483648\n", "oom"},
		// onnxruntime/core/platform/windows/env.cc LoadDynamicLibrary: "LoadLibrary failed with error %d \"%s\" when trying to load \"%s\""
		{"ort loadlibrary", "[E:onnxruntime:Default, provider_bridge_ort.cc:1480 onnxruntime::TryGetProviderInfo_CUDA] C:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_bridge_ort.cc:1193 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary failed with error 126 \"\" when trying to load \"C:\\Python310\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll\"\n", "library-mismatch"},
		// posix env.cc: "Failed to load library libonnxruntime_providers_cuda.so with error: %s"
		{"ort dlopen", "[E:onnxruntime:Default, provider_bridge_ort.cc:1548 TryGetProviderInfo_CUDA] /onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1209 onnxruntime::Provider& onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object file: No such file or directory\n", "library-mismatch"},

		// TensorRT: ILogger messages "[TRT] [E] %d: [%s::%s::%d] Error Code %d: %s (%s)"
		// (ErrorCode 1 kINTERNAL "Cuda Runtime"/"Cuda Driver", 2 kOUT_OF_MEMORY "OutOfMemory"); 8.x-10.x
		{"trt runtime oom", "[06/12/2023-10:11:12] [TRT] [E] 1: [defaultAllocator.cpp::allocate::20] Error Code 1: Cuda Runtime (out of memory)\n", "oom"},
		{"trt oom", "[TRT] [E] 2: [virtualMemoryBuffer.cpp::resizePhysical::145] Error Code 2: OutOfMemory (no further information)\n", "oom"},
		{"trt oom 10", "[01/10/2025-09:30:01] [TRT] [E] [resizingAllocator.cpp::allocate::74] Error Code 2: OutOfMemory (Requested size was 4294967296 bytes.)\n", "oom"},
		{"trt driver", "[TRT] [E] 1: [reformat.cpp::executeCutensor::384] Error Code 1: CuTensor (Internal cuTensor permutate execute failed)\n[TRT] [E] 1: [checkMacros.cpp::catchCudaError::203] Error Code 1: Cuda Runtime (an illegal memory access was encountered)\n", "illegal-address"},
		{"trt driver handle", "[TRT] [E] 1: [convolutionRunner.cpp::executeConv::458] Error Code 1: Cuda Driver (invalid resource handle)\n", ""},
		{"trt 209", "[TRT] [E] 1: [caskUtils.cpp::trtSmToCask::147] Error Code 1: Cuda Runtime (no kernel image is available for execution on the device)\n", "no-kernel-image"},
		// The builder's memory warning alone is a tactic it skipped; the
		// build's own error that follows names no class, and is reported
		// as an unclassified TensorRT error (oom among its alternatives).
		{"trt requested", "[TRT] [W] Requested amount of GPU memory (8589934592 bytes) could not be allocated. There may not be enough free memory for allocation to succeed.\n[TRT] [E] 2: [builder.cpp::buildSerializedNetwork::751] Error Code 2: Internal Error (Assertion engine != nullptr failed. )\n", "other"},

		// llama.cpp / ggml: ggml/src/ggml-cuda/ggml-cuda.cu ggml_cuda_error:
		// "CUDA error: %s\n  current device: %d, in function %s at %s:%d\n  %s\n" (2024+)
		{"ggml oom", "CUDA error: out of memory\n  current device: 0, in function alloc at /llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:360\n  cuMemCreate(&handle, reserve_size, &prop, 0)\n/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:70: CUDA error\n", "oom"},
		{"ggml 209", "ggml_cuda_compute_forward: MUL_MAT failed\nCUDA error: no kernel image is available for execution on the device\n  current device: 0, in function ggml_cuda_compute_forward at /llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:2326\n  err\n", "no-kernel-image"},
		{"ggml 98", "CUDA error: invalid device function\n  current device: 1, in function ggml_cuda_op_flatten at ggml-cuda.cu:10085\n  cudaGetLastError()\nGGML_ASSERT: ggml-cuda.cu:255: !\"CUDA error\"\n", "no-kernel-image"},
		// 2023 ggml-cuda.cu CUDA_CHECK: "CUDA error %d at %s:%d: %s\n"
		{"ggml old oom", "CUDA error 2 at /home/user/llama.cpp/ggml-cuda.cu:6862: out of memory\n", "oom"},
		// 2023 ggml-cuda.cu CUBLAS_CHECK: "cuBLAS error %d at %s:%d: %s\n" with cublasGetStatusString's text.
		{"ggml old cublas 15", "cuBLAS error 15 at ggml-cuda.cu:7956: the requested functionality is not supported\n", "cublas-error"},
		{"ggml old cublas 3", "cuBLAS error 3 at /home/user/llama.cpp/ggml-cuda.cu:6251: the resource allocation failed\n", "oom"},
		// The same words without a file:line are no status: the line stays a generic error, not an out-of-memory.
		{"cublas count, no place", "retrying: 2 cuBLAS error 3 at startup were logged before\n", ""},
		{"ggml old 222", "CUDA error 222 at ggml-cuda.cu:7024: the provided PTX was compiled with an unsupported toolchain.\n", "driver-too-old"},
		// ggml_cuda_host_malloc: "%s: failed to allocate %.2f MiB of pinned memory: %s\n" (a warning: falls back to pageable memory)
		{"ggml pinned", "ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: out of memory\n", "oom"},
		// ggml_backend_cuda_buffer_type_alloc_buffer: "%s: allocating %.2f MiB on device %d: cudaMalloc failed: %s\n"
		{"ggml alloc", "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory\nllama_model_load: error loading model: unable to allocate backend buffer\n", "oom"},

		// Triton: triton/runtime/errors.py OutOfResources: "out of resource: %s, Required: %d, Hardware limit: %d. Reducing block sizes or `num_stages` may help."
		{"triton smem", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n", "triton-resources"},
		{"triton old", "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.\n", "triton-resources"},
	}
	// A warning the program goes on after is a notice, not a failure.
	notices := map[string]bool{"ggml pinned": true}
	for _, c := range cases {
		out := explainText(t, e, c.log)
		if len(out) > 0 && (out[0].Severity == report.Info) != notices[c.name] {
			t.Errorf("%s: severity %s", c.name, out[0].Severity)
		}
		got := ""
		if len(out) > 0 {
			got = out[0].Class
		}
		want := c.want
		if want == "" {
			want = "other"
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", c.name, got, want)
		}
	}
}

// TestFrameworkStartupLinesQuiet: what these frameworks print on a healthy
// start is not a failure.
func TestFrameworkStartupLinesQuiet(t *testing.T) {
	e := New(kb.MustDefault())
	for _, l := range []string{
		// paddle/phi/backends/gpu/gpu_resources.cc InitGpuProperties
		"W0321 10:22:31.112 12345 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2, Runtime API Version: 11.8\n",
		"W0321 10:22:31.118 12345 gpu_resources.cc:164] device: 0, cuDNN Version: 8.9.\n",
		// ggml-cuda.cu ggml_cuda_init
		"ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n",
		// TensorRT builder info
		"[TRT] [I] [MemUsageChange] Init CUDA: CPU +2, GPU +0, now: CPU 30, GPU 1123 (MiB)\n",
		// ONNX Runtime session start
		"2024-01-15 11:02:30.9 [I:onnxruntime:, inference_session.cc:1583 Initialize] Initializing session.\n",
	} {
		if out := explainText(t, e, l); len(out) != 0 {
			t.Errorf("%q: got %+v, want nothing", l, out)
		}
	}
}
