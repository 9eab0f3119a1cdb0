package diagnose

import (
	"github.com/cudadoctor/cudadoctor/internal/lazyre"
	"github.com/cudadoctor/cudadoctor/internal/logparse"
)

// A process that dies prints its last words in the form of whatever
// printed them, not in PyTorch's: the shell that started it names the
// signal in its own language ("段错误 (核心已转储)", "Speicherzugriffsfehler",
// zsh's "segmentation fault", fish's "terminated by signal SIGSEGV", a bare
// "Aborted"), a C or C++ library stops at its own assertion macro
// ("GGML_ASSERT: ggml-cuda.cu:5925: false", "Assertion failed: x, file y,
// line 3"), the CUDA toolchain says "ptxas fatal :" or "kernel.cu(12):
// error:", and a program of its own says "Cuda error (err_no=30)" or
// "CUDA Error". None of them names a class, and each one is the failure of
// the run: crashLineRE reads them so that the log gets the generic finding
// that quotes the line instead of silence.

// crashLineRE is a line that reports a crash, a failed assertion or a
// failed GPU call in one of the forms above.
var crashLineRE = lazyre.New(`` +
	// A signal as bash and glibc word it in other languages (segmentation
	// fault, core dumped, aborted, illegal instruction, bus error).
	`段错误|核心已转储|^\s*已放弃\s*$|非法指令|总线错误|セグメンテーション違反|コアダンプ|Speicherzugriffsfehler|Speicherabzug geschrieben` +
	`|Violación de segmento|core' generado|Erreur de segmentation|Errore di segmentazione|Falha de segmentação|imagem do núcleo gravada` +
	`|Ошибка сегментирования|образ памяти сброшен|세그멘테이션 오류|코어 덤프됨` +
	// The signal as other shells and launchers word it: zsh's lower-case
	// names, fish's "terminated by signal SIGSEGV", bash's bare "Aborted"
	// or "Illegal instruction" (alone, or after a job's pid, or srun's
	// "task 0: Aborted").
	`|(?i:\bsegmentation fault\b)|^\s*zsh: (?:abort|illegal hardware instruction|bus error|floating point exception)\b` +
	`|\bterminated by signal SIG(?:SEGV|ABRT|ILL|BUS|FPE)\b` +
	`|(?:^\s*|\b\d+\s+|\btask \d+: )(?:Aborted|Illegal instruction|Bus error|Floating point exception)(?:\s*\(core dumped\))?(?:\s*$|\s{2,}\S)` +
	// A C or C++ assertion macro that stops the process: ggml's
	// "GGML_ASSERT: file:line: expr" and "GGML_ASSERT(expr) failed", the C
	// library's "Assertion failed: expr, file f, line n" on Windows and
	// macOS.
	`|\b[A-Z][A-Z0-9]*_ASSERT\w*:\s*\S+:\d+|\b[A-Z][A-Z0-9]*_ASSERT\w*\(.*\)\s*failed\b|^\s*Assertion failed: ` +
	// The CUDA toolchain's own failure lines, and a compiler's error in a
	// CUDA source file.
	`|^\s*(?:nvcc|ptxas|nvlink|fatbinary|cicc)(?:\.exe)?\s*(?:fatal|error)\s*:\s` +
	`|\.cuh?\(\d+\):\s*(?:catastrophic\s+)?error\b|\.cuh?:\d+(?::\d+)?:\s*(?:fatal\s+)?error:`)

// Programs that are not Python, and the loggers and launchers around them,
// word the end of a run in their own forms: a C library's abort at a
// source line ("ggml.c:11754: fatal error"), a Java thread's uncaught
// exception, a Go panic, Julia's "ERROR: LoadError:", a qualified Python
// exception quoted inside prose, a failed XLA/absl RET_CHECK, glog's check
// failure banner, a logger's FATAL or CRITICAL level, the kernel's segfault line, a
// BLAS library's "On entry to GEMM_EX parameter number 9 had an illegal
// value". runtimeFailureRE reads them so that such a log gets the generic
// finding that quotes the line instead of silence.
var runtimeFailureRE = lazyre.New(`` +
	// A C or C++ source file's line followed by an error: an abort macro
	// ("ggml.c:11754: fatal error"), or a compiler's error in GCC's or
	// MSVC's form ("launcher.c(123): error C2059: ...").
	`[\w.\\/-]+\.(?:c|cc|cpp|cxx|h|hpp|m|mm)(?::\d+(?::\d+)?:|\(\d+\):)\s*(?:fatal\s+)?error\b` +
	// Java's uncaught exception, Go's panic, a program's own "Error: "
	// line with a sentence after it (Blender's "Error: Found no Cycles
	// device of the specified type") or Rust's main returning an error
	// value ("Error: DriverError(...)"); a number or "None" after it is a
	// metric or a variable printed.
	`|^\s*Exception in thread "[^"]*" |^panic: \S|^\s*Error: (?:[A-Z][a-z]+(?: [a-z]+)+|[A-Z]\w*[({])` +
	// Julia's error banner with an exception after it, and CUDA.jl's
	// report of an exception inside a kernel.
	`|^\s*ERROR: (?:LoadError|TaskFailedException|[A-Z]\w*(?:Error|Exception))\b|\berror was thrown during kernel execution\b` +
	// A Python exception quoted in prose or a log line: a qualified name
	// ("jaxlib.xla_extension.XlaRuntimeError: ..."), or any name right
	// after a quote.
	`|(?:^|[\s(])(?:[a-z_]\w*\.)+_?[A-Z]\w*(?:Error|Exception): \S|["'\x60]_?[A-Z]\w*(?:Error|Exception): \S` +
	// Failed checks: absl/XLA RET_CHECK, glog's banner after an F line.
	`|\bRET_CHECK failure\b|\*\*\* Check failure stack trace: \*\*\*` +
	// A logger's fatal level.
	`|\[(?:FATAL|CRITICAL)\]|^\s*(?:CRITICAL|FATAL):\w*:` +
	// The kernel's log of a crashed process.
	`|\bsegfault at [0-9a-f]+ ip [0-9a-f]+|\btraps: \S+\[\d+\] (?:general protection|trap )` +
	// A BLAS or LAPACK routine that rejected its arguments (cuBLAS prints
	// the reference BLAS's words).
	`|\bOn entry to \w+ +parameter number \d+ had an illegal value`)

// exitCodeRE is an exit code that is not 0, as an IDE ("Process finished
// with exit code 1"), a subprocess call ("returned non-zero exit status
// 1") or a launcher ("srun: error: node17: task 1: Exited with exit code
// 1", DeepSpeed's "exits with return code = 1") reports it. It says the run failed and nothing of why: it is the
// failure line only of a log that holds no other, and a traceback cut
// before its error line says more than it.
var exitCodeRE = lazyre.New(`(?i:\bexit(?:s|ed)?(?: with)?(?: (?:exit|return))? (?:code|status)\s*[:=]?\s*-?[1-9]\d*\b|\bnon-zero exit (?:code|status)\b)`)

// runtimeTriggers let the lines runtimeFailureRE and exitCodeRE read reach
// the parser.
var runtimeTriggers = []string{
	": fatal error", ": error", "Exception in thread", "panic: ", "Error: ", "ERROR: ", "during kernel execution",
	"Exception: ", "RET_CHECK failure", "Check failure stack trace", "[FATAL]", "[CRITICAL]", "CRITICAL:", "FATAL:",
	"exit code", "Exit code", "exit status", "Exit status", "exited with", "non-zero exit", "return code", "segfault at", "general protection",
	"traps: ", "had an illegal value",
}

// gpuCallFailedRE is a program's own words for a failed GPU call: "Cuda
// error (err_no=30)", "CUDA Error", "GPU error 2", "NCCL failure". Group 1
// is what comes before them, group 2 the word after.
var gpuCallFailedRE = lazyre.New(`(?i)(^|.*?\W)(?:cuda|cudnn|cublas|cufft|cusolver|cusparse|curand|nccl|gpu|nvrtc|nvml)(?:\s+(?:runtime|driver|kernel|api|launch))?\s+(?:error|failure)\b\W*(\w*)`)

// optionAfterRE and noneBeforeRE: the words around "CUDA error" that make
// it an option's or a counter's name ("CUDA error checking", "NCCL error handling") or a
// report of none ("no CUDA error", "without GPU failure").
var (
	optionAfterRE = lazyre.New(`(?i)^(?:check|handl|report|callback|test|count|rate|detect|recover|toleran|injection|simulat)`)
	noneBeforeRE  = lazyre.New(`(?i)\b(?:no|not|without|any|zero|0)\s+$`)
)

// crashTriggers let the lines crashLineRE reads reach the parser; every
// line it matches holds one of them.
var crashTriggers = []string{
	"段错误", "核心已转储", "已放弃", "非法指令", "总线错误", "セグメンテーション違反", "コアダンプ",
	"Speicherzugriffsfehler", "Speicherabzug", "Violación de segmento", "core' generado", "Erreur de segmentation",
	"Errore di segmentazione", "Falha de segmentação", "imagem do núcleo", "Ошибка сегментирования",
	"образ памяти", "세그멘테이션", "코어 덤프",
	"segmentation fault", "Segmentation Fault", "SEGMENTATION FAULT", "zsh: abort", "zsh: illegal", "zsh: bus error",
	"zsh: floating", "terminated by signal", "Aborted", "Illegal instruction", "Bus error", "Floating point exception",
	"_ASSERT", "Assertion failed: ",
	"nvcc fatal", "nvcc error", "ptxas fatal", "ptxas error", "nvlink fatal", "nvlink error", "fatbinary fatal",
	"fatbinary error", "cicc fatal", "): error", "): catastrophic error",
	"Cuda error", "cuda error", "CUDA Error", "CUDA ERROR", "Cuda Error", "CUDA error", "CUDA failure", "Cuda failure",
	"cuda failure", "CUDA Failure", "GPU error", "GPU Error", "GPU ERROR", "gpu error", "GPU failure", "NCCL Error",
	"NCCL failure", "nccl error", "cuDNN Error", "CUDNN Error", "cudnn error", "cuBLAS Error", "cublas error",
	"CUDA runtime error", "CUDA driver error", "CUDA kernel error", "CUDA launch error", "CUDA API error",
	"cuda runtime error", "cuda driver error",
}

// reportsCrash reports whether a line is one of the crash lines above.
func reportsCrash(line string) bool {
	if crashLineRE.MatchString(line) || runtimeFailureRE.MatchString(line) {
		return true
	}
	m := gpuCallFailedRE.FindStringSubmatch(line)
	return m != nil && !noneBeforeRE.MatchString(m[1]) && !optionAfterRE.MatchString(m[2])
}

// untypedExceptionRE is the line Python prints under a traceback's frames
// for an exception whose name the parser does not take for a type (it ends
// in neither Error nor Exception and has no module path:
// "BackendCompilerFailed: backend='inductor' raised:", "OutOfResources:
// out of resource"): one name, then a colon or the end of the line.
var untypedExceptionRE = lazyre.New(`^[A-Za-z_]\w*(?::\s|:$|$)`)

// endsInException reports whether a traceback has frames and, after them,
// a line in the form of an exception line: Python prints that line only
// for an exception that was raised, whatever its type is called.
func endsInException(exc *logparse.Exception) bool {
	return len(exc.Frames) > 0 && len(exc.Lines) > 0 && untypedExceptionRE.MatchString(exc.Lines[0].Text)
}
