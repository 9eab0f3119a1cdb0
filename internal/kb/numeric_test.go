package kb

import "testing"

// TestNumericErrorCodes: libraries that print only the CUDA error number are
// classified by it; other numbers on the line are not mistaken for codes.
func TestNumericErrorCodes(t *testing.T) {
	k := MustDefault()
	cases := []struct{ line, want string }{
		{"CUDA error 700 at /src/kernels/attention.cu:211", "illegal-address"},
		{"terminate called after throwing: CUDA Error: 716", "misaligned-address"},
		{"cudaError code: 209 when launching add_one", "no-kernel-image"},
		{"CUDA error (101) in set_device", "invalid-device-ordinal"},
		{"Cuda error (err_no=2) in kernel scan", "oom"},
		{"CUDA error (error_code=700)", "illegal-address"},
		{"cuda error: errno=46", "device-busy"},
		{"CUDA error (retries=2)", ""},
		{"[2024-03-15 10:30:10] CUDA error: error code 34", "cuda-unavailable"},
		{"cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (34)", "cuda-unavailable"},
		{"failed call to cuInit: UNKNOWN ERROR (7001)", ""},
		{"step 700 loss 0.25", ""},
		{"CUDA error 7001 at foo.cu:1", ""},
		{"Return value 46 from 'cudaStreamCreate(&kernel_stream)'.  Exiting.", "device-busy"},
		{"Encountered a CUDA error: cudaDriver().CuMemcpyDtoHAsync( dstHost, srcDevice, byteCount, hStream.get() ) returned (702): Launch timeout", "launch-timeout"},
		{"cudaMalloc(&buf, bytes) returned 2", "oom"},
		{"load_weights() returned 2 tensors", ""},
		{"Return value 46 from my_callback()", ""},
		{"[torch_memory_saver.cpp] CUresult error  result=2 file=csrc/torch_memory_saver.cpp func=cu_mem_create line=103 (5)", "oom"},
		{"CUresult = 700 in cuCtxSynchronize", "illegal-address"},
		{"checkpoint saved, result=2 file=ckpt/model.pt", ""},
		{"CUresult error result=0", ""},
		{"numba.cuda.cudadrv.driver.LinkerError: [218] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR", "no-kernel-image"},
		{"LinkerError: [222] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR", "driver-too-old"},
		{"CU result: 700 at cuStreamSynchronize", "illegal-address"},
		{"[2] Call to the data loader results in 3 batches", ""},
		{"[218] Call to cuFoo took 3 ms", ""},
		{"MCU result: 700 samples", ""},
		{"RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was att", "driver-too-old"},
		{"RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupp", "driver-too-old"},
		{"Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized", "cuda-unavailable"},
		{"Error 804: forward compat issue in my_device_count() wrapper", ""},
	}
	for _, c := range cases {
		if got := classOf(k, c.line); got != c.want {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
}

// TestStatusContexts: a generic CUDA message counts where the line speaks
// of a CUDA error in a wrapper's own words, and a classless status is
// still found (the engine names it in an "other" finding).
func TestStatusContexts(t *testing.T) {
	k := MustDefault()
	cases := []statusCase{
		{"[reformat.cu::operator()::1606] Error Code 1: Cuda Runtime (invalid resource handle)", "cudaErrorInvalidResourceHandle"},
		{`transform_detail.hpp:386: error: (-217) invalid resource handle`, "cudaErrorInvalidResourceHandle"},
		{"ERROR: (CUDA) invalid resource handle (cuda_color_spinor_field.cu:53 in cudaColorSpinorField())", "cudaErrorInvalidResourceHandle"},
		{"Error while loading: invalid resource handle", ""},
		{"raise the error `peer access is not supported between these two device`", "cudaErrorPeerAccessUnsupported"},
		{"cudaDeviceEnablePeerAccess: peer access is already enabled", "cudaErrorPeerAccessAlreadyEnabled"},
		{"the camera handle was invalid resource handle of the UI", ""},
		{"tiny-cuda-nn/multi_stream.h:44 cudaStreamCreate(&m_stream) failed with error unknown error", "cudaErrorUnknown"},
		{"my_kernel() failed with error unknown error", ""},
		{"terminate called after throwing an instance of 'thrust::system::system_error' what():  parallel_for failed: out of memory", "cudaErrorMemoryAllocation"},
		{"thrust version 1.9 out of memory", ""},
		{"MemoryError: cuMemAlloc failed: out of memory", "cudaErrorMemoryAllocation"},
		{"MemoryError: buffer_alloc failed: out of memory", ""},
		{"OptiX Error: Encountered a CUDA error: kernel launch timeout", "cudaErrorLaunchTimeout"},
		{"cudaSetDevice failed: cudaErrorDeviceAlreadyInUse", "cudaErrorDeviceAlreadyInUse"},
	}
	checkFirstStatus(t, k, cases)
}

// TestStatusNameSpellings: a CUDA status name is found however a wrapper
// spells it: apart from its prefix, in CamelCase or in the other API's
// upper-case style; words of prose after "CUDA error" are no name.
func TestStatusNameSpellings(t *testing.T) {
	k := MustDefault()
	cases := []statusCase{
		{"I find the error CUDAError InsufficientDriver. My CUDA version is 12.9", "cudaErrorInsufficientDriver"},
		{"RuntimeError: cudaError_t.NoDevice", "cudaErrorNoDevice"},
		{"CUDA error: INVALID_DEVICE", "cudaErrorInvalidDevice"},
		{"cuda.CUresult.CUDA_ERROR_INSUFFICIENT_DRIVER", "cudaErrorInsufficientDriver"},
		{"CudaError IllegalAddress in kernel", "cudaErrorIllegalAddress"},
		{`this returns "CudaInvalidResourceHandle" for me`, "cudaErrorInvalidResourceHandle"},
		{"# torch.AcceleratorError: CUDA error: operation not permitt", "cudaErrorStreamCaptureUnsupported"},
		{"RuntimeError: CUDA error: peer access is", ""},
		{"_Check_ failed: result == ncclSuccess (1 vs. 0)  unhandled cuda _error_", "ncclUnhandledCudaError"},
		{"Check failed: error == cudaSuccess (2 vs. 0)", "cudaErrorMemoryAllocation"},
		{"Check failed: error == cudaSuccess (8 vs. 0)", "cudaErrorInvalidDeviceFunction"},
		{"Check failed: error == cudaSuccess (4 vs. 0)", ""},
		{"Check failed: status == CUBLAS_STATUS_SUCCESS (13 vs. 0)", "CUBLAS_STATUS_EXECUTION_FAILED"},
		{"Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. 0)  CUDNN_STATUS_EXECUTION_FAILED", "CUDNN_STATUS_EXECUTION_FAILED"},
		{"Check failed: (cufftPlanMany(&plan_noinv_1 , 1, &n, __null, 0, 0, __null, 0, 0, CUFFT_R2C, hw)) == CUFFT_SUCCESS (2 vs. 0) ...", "CUFFT_ALLOC_FAILED"},
		{"Check failed: status == CUSOLVER_STATUS_SUCCESS (7 vs. 0)", "CUSOLVER_STATUS_INTERNAL_ERROR"},
		{"Check failed: status == CURAND_STATUS_SUCCESS (102 vs. 0)", "CURAND_STATUS_ALLOCATION_FAILED"},
		{"Check failed: status == CUFFT_SUCCESS (99 vs. 0)", ""},
		{"F0831 12:39:16.699000  1090 hl_cuda_device.cc:530] Check failed: cudaSuccess == cudaStat (0 vs. 35) Cuda Error: CUDA driver version is insufficient for CUDA runtime version", "cudaErrorInsufficientDriver"},
		{"Check failed: cudaSuccess == cudaStreamCreateWithFlags(&stream_, 0x01) (0 vs. 2) no error.", "cudaErrorMemoryAllocation"},
		{"Check failed: CUBLAS_STATUS_SUCCESS == status (0 vs. 13)", "CUBLAS_STATUS_EXECUTION_FAILED"},
		{"Check failed: cudaSuccess == err (0 vs. 0)", ""},
		{"NvidiaKernel.cpp:82 Check failed: cuLinkAddFile_v2( link_state, CU_JIT_INPUT_FATBINARY, gpu_rt_path.c_str(), 0, nullptr, nullptr) == CUDA_SUCCESS (218 == 0) ptxas application ptx input", "cudaErrorInvalidPtx"},
		{"Check failed: cuInit(0) == CUDA_SUCCESS (100 == 0)", "cudaErrorNoDevice"},
		{"Check failed: cuInit(0) == CUDA_SUCCESS (0 == 0)", ""},
		{"expected err == CUDA_SUCCESS (218 == 218)", ""},
		{"CUDA error: Some Words here", ""},
		{"terminate called after throwing an instance of 'c10::CUDAError'", ""},
	}
	checkFirstStatus(t, k, cases)
}

// statusCase is a line and the name of the first status found on it ("":
// none).
type statusCase struct{ line, want string }

func checkFirstStatus(t *testing.T, k *KB, cases []statusCase) {
	t.Helper()
	for _, c := range cases {
		got := ""
		if hs := k.Statuses(c.line); len(hs) > 0 {
			got = hs[0].Status.Name
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.line, got, c.want)
		}
	}
}

// TestEveryStatusIsRead: every runtime status has a name the layer reads,
// statuses the table does not list still count when their name has a known
// family's form, and a name that is no error does not.
func TestEveryStatusIsRead(t *testing.T) {
	k := MustDefault()
	cases := []statusCase{
		{"CUDA error encountered at: null_mask.cu:93: 801 cudaErrorNotSupported operation not supported.", "cudaErrorNotSupported"},
		{"CUDA_ERROR_NOT_PERMITTED", "cudaErrorNotPermitted"},
		{"cuCtxCreate returned CUDA_ERROR_INVALID_CONTEXT", "cudaErrorDeviceUninitialized"},
		{"CUDA error 805 in cudaSetDevice", "cudaErrorMpsConnectionFailed"},
		// A name newer than the table: a status of no class.
		{"cuModuleGetFunction: CUDA_ERROR_KEY_ROTATION", "CUDA_ERROR_KEY_ROTATION"},
		{"RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM_NULL_POINTER", "CUDNN_STATUS_BAD_PARAM_NULL_POINTER"},
		{"cudnnFinalize failed: CUDNN_STATUS_NOT_SUPPORTED_SOME_FUTURE_CASE", "CUDNN_STATUS_NOT_SUPPORTED_SOME_FUTURE_CASE"},
		{"assert status == CUSPARSE_STATUS_SUCCESS", ""},
		{"plan = CUFFT_R2C", ""},
		{"ncclCommInitRank", ""},
		// Numbers where both numberings name a status: the obscure
		// profiler status loses to the common one.
		{"Check failed: error == cudaSuccess (8 vs. 0)", "cudaErrorInvalidDeviceFunction"},
	}
	checkFirstStatus(t, k, cases)
	classes := []struct{ line, class string }{
		{"RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", "library-mismatch"},
		{"CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED", "library-mismatch"},
		{"cudnnFinalize failed: CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH", "no-kernel-image"},
		{"CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED", "oom"},
		{"cudnn error: CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH", "cudnn-error"},
		{"CUDA error: unspecified launch failure in prior launch", "illegal-address"},
		{"cudaErrorStreamCaptureUnjoined: capturing stream has unjoined work", "graph-capture"},
	}
	for _, c := range classes {
		if got := classOf(k, c.line); got != c.class {
			t.Errorf("%q: classified as %q, want %q", c.line, got, c.class)
		}
	}
}
