package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestExpandGPUNames(t *testing.T) {
	for in, want := range map[string]string{
		"GPU:3080":                       "GPU:RTX 3080",
		"GPU: 2080ti":                    "GPU: RTX 2080 Ti",
		"Graphics card: 1660 super":      "Graphics card: GTX 1660 Super",
		"I am training on a 4090":        "I am training on a RTX 4090",
		"with my 1080 Ti it works":       "with my GTX 1080 Ti it works",
		"we have 4 A6000 cards":          "we have 4 NVIDIA A6000 cards",
		"nvidia 3090":                    "nvidia RTX 3090",
		"|   0  A100-SXM4-40GB  On  |":   "|   0  NVIDIA A100-SXM4-40GB  On  |",
		"two 3090s GPUs":                 "two RTX 3090s GPUs",
		"GPU 0: NVIDIA GeForce RTX 3080": "GPU 0: NVIDIA GeForce RTX 3080",
		"GPU: RTX 3080":                  "GPU: RTX 3080",
		"Tesla V100-SXM2-16GB":           "Tesla V100-SXM2-16GB",
		"NVIDIA A100-SXM4-80GB":          "NVIDIA A100-SXM4-80GB",
		"step 3080 loss 0.12":            "step 3080 loss 0.12",
		"on a 1080p monitor":             "on a 1080p monitor",
		"with a 1080 x 720 image":        "with a 1080 x 720 image",
		"GPU: 1080 MB free":              "GPU: 1080 MB free",
		"in 2080 steps":                  "in 2080 steps",
		"i use 3060.":                    "i use RTX 3060.",
		"I am using 2080 Ti right now.":  "I am using RTX 2080 Ti right now.",
		"we have 2 3090s":                "we have 2 RTX 3090s",
		"I have 1080 images":             "I have 1080 images",
		"we use 2080 samples per step":   "we use 2080 samples per step",
		"Unable to determine the device handle for GPU0000:03:00.0": "Unable to determine the device handle for GPU0000:03:00.0",
		"I use 3080ti /tensorflow 1.15":                             "I use RTX 3080 Ti /tensorflow 1.15",
		"我有一个3060和一个4070":                                           "我有一个RTX 3060和一个RTX 4070",
		"物理机：4090":                                                  "物理机：RTX 4090",
		"3090으로 업그레이드를 한 후":                                         "RTX 3090으로 업그레이드를 한 후",
		"训练到第3080步时报错":                                              "训练到第3080步时报错",
		"3080개의 이미지":                                                "3080개의 이미지",
		"切换到4090上就出现":                                               "切换到RTX 4090上就出现",
		"用的是3090显卡":                                                 "用的是RTX 3090显卡",
		"训练到3080步时报错":                                               "训练到3080步时报错",
	} {
		if got := expandGPUNames(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// A GPU named the short way is judged as its full name is: an RTX 3080
// (sm_86) under CUDA 10.1 has no kernels, so the cuBLAS failure is
// no-kernel-image (https://github.com/PhilipZRH/ferm/issues/1); without a
// GPU word the number is not a GPU.
func TestShortGPUNameFeedsArchFacts(t *testing.T) {
	e := New(kb.MustDefault())
	fail := "`CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling cublasSgemm`\n"
	fs := explainText(t, e, fail+"There is my info of environment:\nGPU:3080\nDriver:455\nCuda:10.1\n")
	if len(fs) != 1 || fs[0].Class != "no-kernel-image" {
		t.Fatalf("GPU:3080 under CUDA 10.1: %+v", fs)
	}
	if fs[0].Alternatives[0] != "cublas-error" {
		t.Errorf("the surface is not the first alternative: %v", fs[0].Alternatives)
	}
	fs = explainText(t, e, fail+"it fails at step 3080\nCuda:10.1\n")
	if len(fs) != 1 || fs[0].Class != "cublas-error" {
		t.Errorf("a step number was read as a GPU: %+v", fs)
	}
	// A first-person "I use 3060" names the card too; "I have 1080
	// images" does not.
	thc := "RuntimeError: cublas runtime error : the GPU program failed to execute at /pytorch/aten/src/THC/THCBlas.cu:441\n" +
		"conda install pytorch==1.0.0 torchvision==0.2.1 cuda100 -c pytorch\n"
	fs = explainText(t, e, thc+"i use 3060.\n")
	if len(fs) != 1 || fs[0].Class != "no-kernel-image" {
		t.Errorf("RTX 3060 under torch 1.0: %+v", fs)
	}
	fs = explainText(t, e, thc+"I have 1080 images in the set\n")
	if len(fs) != 1 || fs[0].Class != "cublas-error" {
		t.Errorf("an image count was read as a GPU: %+v", fs)
	}
	// The same card under a CUDA that knows it stays a cuBLAS error.
	fs = explainText(t, e, fail+"GPU: 3080\nCuda:11.1\n")
	if len(fs) != 1 || fs[0].Class != "cublas-error" {
		t.Errorf("RTX 3080 under CUDA 11.1: %+v", fs)
	}
}

// A GPU one minor architecture past the build (an RTX 4090, sm_89, under
// CUDA 11.7, which compiles up to sm_86) runs the build's sm_86 code: its
// libraries' kernel launches may fail, but creating a cuBLAS handle does
// not depend on them, so that failure stays a cuBLAS error. Across a major
// architecture (an RTX 3090 under CUDA 10.2) it does not.
func TestHandleCreationAndBinaryCompatibility(t *testing.T) {
	e := New(kb.MustDefault())
	create := "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"
	gemm := "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n"
	for _, c := range []struct{ log, want string }{
		{create + "GPU: RTX 4090\ncuda:11.7\n", "cublas-error"},
		{gemm + "GPU: RTX 4090\ncuda:11.7\n", "no-kernel-image"},
		{create + "GPU: RTX 3090\ncuda:10.2\n", "no-kernel-image"},
	} {
		fs := explainText(t, e, c.log)
		if len(fs) != 1 || fs[0].Class != c.want {
			t.Errorf("%q: got %+v, want %s", c.log, fs, c.want)
		}
	}
}

// TensorFlow's own statement that it has no binaries for the GPU's
// compute capability explains a CUDA failure after it
// (https://github.com/tensorflow/tensorflow/issues/97387: an RTX 5080 and
// CUDA_ERROR_INVALID_HANDLE), not a Python error of the program's own, and
// alone (an H100 that JIT-compiles and then trains) it is no failure.
func TestTensorFlowPTXStatement(t *testing.T) {
	e := New(kb.MustDefault())
	warn := "W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] TensorFlow was not built with CUDA kernel binaries compatible with compute capability 12.0. CUDA kernels will be jit-compiled from PTX, which could take 30 minutes or longer.\n"
	fs := explainText(t, e, warn+"\nCUDA_ERROR_INVALID_HANDLE\n")
	if len(fs) != 1 || fs[0].Class != "no-kernel-image" {
		t.Fatalf("a CUDA failure after the PTX statement: %+v", fs)
	}
	if fs[0].Evidence[0].Line != 1 {
		t.Errorf("the evidence is not the pasted statement: %+v", fs[0].Evidence)
	}
	h100 := strings.Replace(warn, "12.0", "9.0", 1)
	oserr := "Traceback (most recent call last):\n  File \"serve.py\", line 3, in <module>\n    load()\nOSError: /ckpt does not appear to have a file named config.json.\n"
	for _, c := range []struct{ log, want string }{
		{h100 + oserr, "other"},
		{h100 + "Epoch 1/10\n100/100 [==============================] - 41s 12ms/step - loss: 0.3012\n", ""},
	} {
		fs := explainText(t, e, c.log)
		got := ""
		for _, f := range fs {
			if f.Severity >= report.Warning {
				got = f.Class
			}
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q (%+v)", c.log, got, c.want, fs)
		}
	}
}

// A GPU known only by its printed capability is judged as a named one:
// llama.cpp's banner for a GB10 (12.1, a name the table lacks) under a
// stated CUDA 11.8, which compiles up to sm_90, explains the cuBLAS
// failure; the same banner under CUDA 12.9 does not.
func TestPrintedCapabilityFeedsArchFacts(t *testing.T) {
	e := New(kb.MustDefault())
	fail := "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n"
	banner := "  Device 0: NVIDIA GB10, compute capability 12.1, VMM: yes\n"
	for _, c := range []struct{ cuda, want string }{{"11.8", "no-kernel-image"}, {"12.9", "cublas-error"}} {
		fs := explainText(t, e, banner+"Cuda compilation tools, release "+c.cuda+", V"+c.cuda+".89\n"+fail)
		if len(fs) != 1 || fs[0].Class != c.want {
			t.Errorf("CUDA %s: got %+v, want %s", c.cuda, fs, c.want)
		}
	}
}

// A bare wheel tag in prose is the build's CUDA: an RTX 4090 (sm_89)
// under cu117 has no cuFFT kernels
// (https://github.com/voicepaw/so-vits-svc-fork/issues/200); under cu118
// it has.
func TestWheelTagFeedsArchFacts(t *testing.T) {
	e := New(kb.MustDefault())
	fail := "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n"
	for _, c := range []struct{ tag, want string }{{"cu117", "no-kernel-image"}, {"cu118", ""}} {
		fs := explainText(t, e, "pytorch with "+c.tag+" causing CUFFT_INTERNAL_ERROR on RTX 4090\n"+fail)
		if len(fs) == 0 {
			t.Fatalf("%s: no finding", c.tag)
		}
		if got := fs[0].Class; (c.want != "" && got != c.want) || (c.want == "" && got == "no-kernel-image") {
			t.Errorf("%s: got %s", c.tag, got)
		}
	}
}

// A driver whose PTX compiler rejects the code's newer PTX is the root of
// a failed PTX load (Numba's bare "[218] ... UNKNOWN_CUDA_ERROR"), and of
// nothing else: the same ptxas line after a Triton compile error, or a
// missing kernel image beside a driver older than the torch build, keep
// their own class.
func TestPTXNewerThanDriver(t *testing.T) {
	e := New(kb.MustDefault())
	ptxas := "ptxas application ptx input, line 9; fatal   : Unsupported .version 6.3; current version is '6.1'\n"
	for _, c := range []struct{ log, want string }{
		{"LinkerError: [218] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR\n" + ptxas, "driver-too-old"},
		{"RuntimeError: CUDA driver error: a PTX JIT compilation failed\n" + ptxas, "driver-too-old"},
		{"LinkerError: [218] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR\n" + strings.Replace(ptxas, "6.1", "6.5", 1), "no-kernel-image"},
		{"RuntimeError: CUDA error: no kernel image is available for execution on the device\n| NVIDIA-SMI 418.87   Driver Version: 418.87   CUDA Version: 10.1 |\nPyTorch version: 1.7.1+cu110\n", "no-kernel-image"},
	} {
		fs := explainText(t, e, c.log)
		if len(fs) == 0 || fs[0].Class != c.want {
			t.Errorf("%q: got %+v, want %s", c.log, fs, c.want)
		}
	}
}
