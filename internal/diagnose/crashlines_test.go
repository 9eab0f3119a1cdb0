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
		// Other runtimes, loggers and the kernel.
		`D:\LOG\ik_llama.cpp\ggml\src\ggml.c:11754: fatal error`,
		"src/engine.cpp:88:3: error: 'cudaStream_t' was not declared in this scope",
		`Exception in thread "main" java.lang.UnsatisfiedLinkError: no jcuda-natives in java.library.path`,
		"panic: runtime error: invalid memory address or nil pointer dereference",
		`Error: DriverError(CUDA_ERROR_NOT_FOUND, "named symbol not found") when loading cast_f32_bf16`,
		"ERROR: LoadError: CUDA driver not functional",
		"ERROR: ArgumentError: cannot take the CPU address of a CuArray",
		"# ERROR: a type error was thrown during kernel execution.",
		`I got "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: RET_CHECK failure (gpu_compiler.cc:641) dnn != nullptr".`,
		"2023-02-14 22:00:43.394357: E external/xla/status_macros.cc:57] INTERNAL: RET_CHECK failure (gpu_compiler.cc:626) dnn != nullptr",
		"*** Check failure stack trace: ***",
		"[FATAL] engine build failed",
		"CRITICAL:root:worker 3 lost its device",
		"[1234567.890] python[4242]: segfault at 0 ip 00007f3a2c1b2e10 sp 00007ffd5e0c8a30 error 4 in libcuda.so.535.104.05[7f3a2c000000+1c00000]",
		"traps: python3[9911] general protection fault ip:7f00 sp:7ffd error:0 in libnvidia-ml.so.1",
		"    ** On entry to GEMM_EX  parameter number 12 had an illegal value",
		`C:\Temp\tmpjq12u9wr\__triton_launcher.c(123): error C2059: syntax error: '}'`,
		"Error: Found no Cycles device of the specified type",
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
		"utils.cpp:42: errors=0 warnings=3",
		"kernels.cc:17: warning: unused variable 'err'",
		"Exception handling is enabled in thread pools",
		"no panic: the run finished",
		"Error: 0.0213 (val), 0.0198 (train)",
		"Error: None",
		"Error: N/A",
		"launcher.c(12): warning C4996: 'strcpy' may be unsafe",
		"ERROR: Could not find a version that satisfies the requirement apex==0.9.10dev (from versions: none)",
		"ERROR      0.12      0.10      0.09",
		"see torch.cuda.OutOfMemoryError in the docs for how to catch it",
		"RET_CHECK failures: 0",
		"[INFO] FATAL errors are reported on stderr",
		"CRITICAL section entered by worker 3",
		"segfault handler installed",
		"entry to GEMM_EX was validated",
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

// An exit code that is not 0 is the failure line of a log that holds no
// other, and exit 0 is no failure (TestSlurmTailKeepsTheTaskError: a
// traceback cut before its error line says more than a launcher's exit code).
func TestExitCodeIsTheLastResort(t *testing.T) {
	e := New(kb.MustDefault())
	for _, last := range []string{
		"Process finished with exit code 1",
		"subprocess.CalledProcessError: Command 'nvcc' returned non-zero exit status 1.",
		"ollama_llama_server exited with exit code 139",
		"[2023-10-17 22:42:02,885] [ERROR] [launch.py:321:sigkill_handler] ['python', '-u', 'train.py', '--local_rank=0'] exits with return code = 1",
	} {
		fs := explainText(t, e, "Device: cuda:0 NVIDIA GeForce RTX 3090\nloading model ...\n"+last+"\n")
		if len(fs) == 0 || fs[0].Class != "other" || fs[0].Evidence[0].Text != last {
			t.Errorf("%q: want an other finding quoting it, got %+v", last, fs)
		}
	}
	for _, l := range []string{"Process finished with exit code 0", "exit status 0", "exits with return code = 0", "the exit code is documented in README", "zero exit code expected"} {
		if exitCodeRE.MatchString(l) {
			t.Errorf("%q: want no exit-code line", l)
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
