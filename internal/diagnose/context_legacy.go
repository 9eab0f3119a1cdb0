package diagnose

import "github.com/cudadoctor/cudadoctor/internal/report"

// libraryFailure: the finding is cuBLAS or cuDNN failing, the way a
// library with no code for the GPU surfaces (NOT_INITIALIZED,
// ARCH_MISMATCH, EXECUTION_FAILED). A pasted check inferred from the GPU
// alone, with no build named (env/legacy-gpu marks its finding
// library_only), explains only such a failure.
func libraryFailure(f *report.Finding) bool {
	return f.Class == "cublas-error" || f.Class == "cudnn-error"
}
