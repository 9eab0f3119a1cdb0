package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A bare device assert says nothing of its kernel; the words around it can.
func TestContextWordsRefineABareAssert(t *testing.T) {
	e := New(kb.MustDefault())
	bare := "RuntimeError: CUDA error: device-side assert triggered\n" +
		"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"

	fs := explainText(t, e, "I have got 4 labels and it fails; binary worked.\n"+bare)
	if len(fs) != 1 || fs[0].Class != "device-assert-target" {
		t.Fatalf("with a label count: %+v", fs)
	}
	if len(fs[0].Alternatives) == 0 || fs[0].Alternatives[0] != "device-assert-other" {
		t.Errorf("the surface class is not the first alternative: %v", fs[0].Alternatives)
	}
	found := false
	for _, ev := range fs[0].Evidence {
		if ev.Line == 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("the line that showed it is not evidence: %+v", fs[0].Evidence)
	}

	// Reports are written in many languages: "labels out of range" in Chinese
	// (https://github.com/chenyuntc/simple-faster-rcnn-pytorch/issues/198, where
	// the class count had not been changed for the dataset), or "class" (类别).
	for _, prose := range []string{
		"查了好多资料，有人说是标签超出范围，但是我查了标签页没有问题啊，\n",
		"数据集的类别数改了吗？\n",
	} {
		if fs := explainText(t, e, bare+prose); len(fs) != 1 || fs[0].Class != "device-assert-target" {
			t.Errorf("%q: %+v", prose, fs)
		}
	}

	if fs := explainText(t, e, "training my language model\n"+bare); len(fs) != 1 || fs[0].Class != "device-assert-other" {
		t.Errorf("without such words: %+v", fs)
	}

	// A custom kernel's own assertion is known: prose does not override it.
	withKernel := "model_args.num_labels = 3\n" +
		"/w/kernels/topk.cu:41: void topk_kernel(float *): block: [0,0,0], thread: [3,0,0] Assertion `k <= 1024` failed.\n" + bare
	if fs := explainText(t, e, withKernel); len(fs) != 1 || fs[0].Class != "device-assert-other" {
		t.Errorf("a known custom assertion was refined by prose: %+v", fs)
	}
}

// An NCCL failure in a report that says NCCL was built for another CUDA is
// the two CUDAs, not the network (https://github.com/NVIDIA/nccl-tests/issues/6:
// "my nccl depends on a different CUDA version (11.0) than I have on my
// system (10.2)"; https://github.com/horovod/horovod/issues/108).
func TestContextWordsNCCLBuiltForAnotherCUDA(t *testing.T) {
	e := New(kb.MustDefault())
	fail := "Test NCCL failure common.cu:777 'unhandled cuda error'\n"
	for _, prose := range []string{
		"By using NCCL_DEBUG=WARN I notice that my nccl depends on a different CUDA version (11.0) than I have on my system(10.2).\n",
		"I use the latest NCCL version which force used cuda9.0.\n",
	} {
		fs := explainText(t, e, fail+prose)
		if len(fs) != 1 || fs[0].Class != "library-mismatch" {
			t.Errorf("%q: %+v", prose, fs)
		}
	}
	// Naming NCCL's CUDA without saying it differs is no evidence.
	for _, prose := range []string{
		"NCCL version 2.4.8+cuda10.2\n",
		"nccl is installed. The job was built for 8 GPUs with cuda 11.\n",
	} {
		if fs := explainText(t, e, fail+prose); len(fs) != 1 || fs[0].Class != "nccl-error" {
			t.Errorf("%q: %+v", prose, fs)
		}
	}
}

// A cuDNN or cuBLAS status in a report that speaks of running out of memory
// or of the framework's up-front reservation is the full card
// (https://github.com/tensorflow/tensorflow/issues/27144: "setting
// `allow_growth=True` allows the toy program to run").
func TestContextWordsMemoryBehindLibraryStatus(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct{ fail, prose string }{
		{"RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n", "Looks like setting `allow_growth=True` allows the toy program to run.\n"},
		{"RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n", "Other runs on this machine fail with a plain out of memory error instead.\n"},
		{"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n", "It works with TF_FORCE_GPU_ALLOW_GROWTH=true set.\n"},
	} {
		fs := explainText(t, e, c.fail+c.prose)
		if len(fs) != 1 || fs[0].Class != "oom" {
			t.Errorf("%q: %+v", c.prose, fs)
		}
	}
	for _, fail := range []string{"RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n", "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n"} {
		if fs := explainText(t, e, fail+"It fails on the first convolution.\n"); len(fs) != 1 || fs[0].Class == "oom" {
			t.Errorf("without such words: %+v", fs)
		}
	}
}

// A cuDNN or cuBLAS status that the report ties to the batch size (it comes
// with a larger batch, goes with a smaller one) is the card running full
// (https://github.com/pytorch/pytorch/issues/27588: "When my batch size is
// 20 i get the mentioned error"; batch size 10 ran). A batch size that is
// only an argument's value, or was changed without effect, says nothing.
func TestContextWordsBatchSizeBehindLibraryStatus(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct{ fail, prose string }{
		{"RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR\n", "When my batch size is 20 i get the mentioned error:\n"},
		{"RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n", "It only appears when I have multiple GPU and the batch size is too large ( for my task it is ok for 128 but not 256).\n"},
		{"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`\n", "Reducing the batch size to 8 makes it run.\n"},
	} {
		fs := explainText(t, e, c.fail+c.prose)
		if len(fs) != 1 || fs[0].Class != "oom" {
			t.Errorf("%q: %+v", c.prose, fs)
		}
	}
	for _, c := range []struct{ fail, prose string }{
		{"RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n", "Namespace(affinity='single_unique', batch_size=16, clamp_len=400, cuda=True)\n"},
		{"RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemmStridedBatched( handle, opa, opb, m, n, k, &alpha, a, lda, stridea, b, ldb, strideb, &beta, c, ldc, stridec, num_batches)`\n", "I turned down batch_ size, but this error also occurs.\n"},
	} {
		if fs := explainText(t, e, c.fail+c.prose); len(fs) != 1 || fs[0].Class == "oom" {
			t.Errorf("%q: %+v", c.prose, fs)
		}
	}
}

// XLA falls back to the driver's PTX compiler when the toolkit's ptxas does
// not know the GPU; the invalid image the driver then reports is the old
// toolkit, not a build without the architecture. The same invalid image
// without that warning stays what it says.
func TestContextWordsXLAPtxasTooOld(t *testing.T) {
	e := New(kb.MustDefault())
	invalid := "2024-02-01 09:00:00.200000: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:864] failed to load PTX text as a module: CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid\n"
	warning := "2024-02-01 09:00:00.100000: W external/xla/xla/stream_executor/gpu/asm_compiler.cc:232] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 9.0\n"
	fs := explainText(t, e, warning+invalid)
	if len(fs) != 1 || fs[0].Class != "library-mismatch" {
		t.Fatalf("with the ptxas warning: %+v", fs)
	}
	if len(fs[0].Alternatives) == 0 || fs[0].Alternatives[0] != "no-kernel-image" {
		t.Errorf("the surface class is not the first alternative: %v", fs[0].Alternatives)
	}
	// external/xla/xla/ is where jaxlib keeps XLA's sources: the fixes speak
	// of JAX, not of PyTorch.
	if fs[0].Facts["framework"] != "jax" {
		t.Errorf("framework fact: %v", fs[0].Facts)
	}
	if fs := explainText(t, e, invalid); len(fs) != 1 || fs[0].Class != "no-kernel-image" {
		t.Errorf("without the warning: %+v", fs)
	}
	// The warning alone, when the driver's fallback works, is no failure.
	if fs := explainText(t, e, warning+"step 100 loss 0.42\n"); len(fs) != 0 {
		t.Errorf("the warning alone: %+v", fs)
	}
}
