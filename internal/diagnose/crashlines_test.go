package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
	"github.com/cudadoctor/cudadoctor/internal/report"
)

func TestReportsCrash(t *testing.T) {
	crashes := []string{
		// Shells in other languages.
		"段错误 (核心已转储)",
		"已放弃 (核心已转储)",
		"已放弃",
		"Violación de segmento (`core' generado)",
		"Speicherzugriffsfehler (Speicherabzug geschrieben)",
		"Erreur de segmentation (core dumped)",
		"Ошибка сегментирования (образ памяти сброшен на диск)",
		// Other shells and launchers.
		"zsh: segmentation fault  python main.py",
		"zsh: abort      python train.py",
		"zsh: illegal hardware instruction  python -c 'import tensorflow'",
		"fish: Job 1, 'python train.py' terminated by signal SIGSEGV (Address boundary error)",
		"Aborted",
		"Illegal instruction (core dumped)",
		"run.sh: line 12: 31337 Aborted                 (core dumped) python train.py",
		"run.sh: line 12: 31337 Bus error               python train.py",
		"srun: error: gpu017: task 0: Aborted",
		// Assertion macros.
		`GGML_ASSERT: D:\a\llama-cpp-python\vendor\llama.cpp\ggml-cuda.cu:5925: false`,
		"/src/ggml/src/ggml-cuda/ggml-cuda.cu:1234: GGML_ASSERT(ctx->buffer != nullptr) failed",
		"Assertion failed: (status == cudaSuccess), function launch, file kernels.cc, line 88.",
		// The CUDA toolchain.
		"ptxas fatal   : Unresolved extern function '_Z3foov'",
		"nvlink error   : Undefined reference to '_Z6kernelPf' in 'main.o'",
		`src/attn.cu(112): error: identifier "__hmul2" is undefined`,
		"csrc/rope.cu:40:10: fatal error: cuda_fp16.h: No such file or directory",
		// A program's own words for a failed GPU call.
		"Cuda error (err_no=30) please help!!!!",
		"I got `invalid conguration argument` CUDA Error",
		"GPU error 2 on device 0, restarting miner",
		"NCCL failure: unhandled system error",
		"cuda runtime error (59) : device-side assert triggered",
		"CUDA error code: 700",
	}
	for _, l := range crashes {
		if !reportsCrash(l) {
			t.Errorf("reportsCrash(%q) = false, want true", l)
		}
	}
	quiet := []string{
		"CUDA error checking is enabled for this build",
		"Enabling NCCL error handling (TORCH_NCCL_ASYNC_ERROR_HANDLING=1)",
		"no CUDA error detected after 1000 iterations",
		"found 0 GPU errors, 0 ECC errors",
		"GPU error rate: 0.0",
		"epoch 3 train_error=0.121 val_error=0.133 gpu_error_count=0",
		"Aborted!",
		"Aborted training run 12 at user request, resuming from step 400",
		"PCIe Bus error count: 0",
		"TORCH_CHECK and TORCH_INTERNAL_ASSERT are documented in c10/util/Exception.h",
		"assert_allclose passed for 12 tensors",
		"Assertion failed count: 0",
		"nvcc version 12.1 found, building kernels",
		"compiling src/attn.cu(112) ok",
	}
	for _, l := range quiet {
		if reportsCrash(l) {
			t.Errorf("reportsCrash(%q) = true, want false", l)
		}
	}
}

// A crash line at the end of a GPU job's log gets the generic finding that
// quotes it, not silence.
func TestCrashLineIsNotSilent(t *testing.T) {
	e := New(kb.MustDefault())
	for _, last := range []string{
		"段错误 (核心已转储)",
		`GGML_ASSERT: D:\a\llama.cpp\ggml-cuda.cu:5925: false`,
		"zsh: segmentation fault  python main.py",
		"Aborted",
		"Cuda error (err_no=30) please help!!!!",
	} {
		log := "Device: cuda:0 NVIDIA GeForce RTX 3090\nloading model ...\nstep 10 loss 2.31\n" + last + "\n"
		fs := explainText(t, e, log)
		if len(fs) == 0 || fs[0].Class != "other" || fs[0].Severity < report.Warning || fs[0].Evidence[0].Text != last {
			t.Errorf("%q: want an other finding quoting it, got %+v", last, fs)
		}
	}
}

// A traceback's last line is its exception line whatever the exception's
// type is called; prose pasted under cut frames is not one.
func TestTracebackEndsInUntypedException(t *testing.T) {
	e := New(kb.MustDefault())
	tb := "Traceback (most recent call last):\n  File \"train.py\", line 10, in <module>\n    main()\n"
	fs := explainText(t, e, tb+"BackendCompilerFailed: backend='inductor' raised: CalledProcessError\n")
	if len(fs) != 1 || fs[0].Class != "other" || fs[0].Evidence[0].Text != "BackendCompilerFailed: backend='inductor' raised: CalledProcessError" {
		t.Errorf("untyped exception line: want an other finding quoting it, got %+v", fs)
	}
	for _, l := range []string{"BackendCompilerFailed", "OutOfResources: out of resource", "Stop:"} {
		if !untypedExceptionRE.MatchString(l) {
			t.Errorf("%q: want an exception line", l)
		}
	}
	for _, l := range []string{"this is what I got", "see the log above", "step 10: loss 2.1"} {
		if untypedExceptionRE.MatchString(l) {
			t.Errorf("%q: want no exception line", l)
		}
	}
}
