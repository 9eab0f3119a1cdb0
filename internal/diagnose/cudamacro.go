package diagnose

import "github.com/cudadoctor/cudadoctor/internal/lazyre"

// Programs that write their own CUDA kernels check each call with a macro
// of their own, and its message names the CUDA source file and line where
// the check failed: "[ERROR][File:src/gpu_lsc.cu][Line:379]", "ERROR in
// kernels.cu:123", "Error at nms.cu line 88", or the macro's name with its
// verdict ("CHECK_CUDA failed"). What failed may be missing from the line
// (the macro prints the error string elsewhere, or not at all), but the
// line is the failure of the run: it is never silent.

// cudaSourceErrorRE is such a line: an error word, then a CUDA source file
// with its line; or a checking macro's name (and its call), then its
// failure.
var cudaSourceErrorRE = lazyre.New(`(?i)\b(?:error|failed|failure)\b.*?[\w/\\.:-]*\w\.cuh?\b\W{0,3}(?:\[?\s*line\s*[:=]?\s*\d+|:\s*\d+|\(\d+\)|,?\s+(?:at\s+)?line\s+\d+)` +
	`|\b\w*(?:CHECK_CUDA|CUDA_CHECK|CUDA_SAFE_CALL|checkCudaErrors|cudaCheckError)\w*\b(?:\s*\([^)]*\))?\s*:?\s*(?:failed|failure|error)\b`)

// compilerDiagnosticRE is a compiler's message about a CUDA source file
// ("kernels.cu(12): error: identifier undefined", clang's "kernels.cu:12:5:
// error: ..."): a build that failed, which the build's own readers judge.
var compilerDiagnosticRE = lazyre.New(`\.cuh?(?:\(\d+\)|:\d+:\d+):\s*(?:error|warning|note)\b`)

// cudaSourceAnchors bring such lines to the parser (withLineAnchors).
var cudaSourceAnchors = []struct {
	text string
	line func([]byte) bool
}{
	{"[ERROR]", errorLevelBytes}, {"ERROR in ", errorLevelBytes}, {"Error in ", errorLevelBytes},
	{"ERROR at ", errorLevelBytes}, {"Error at ", errorLevelBytes},
	{"CHECK_CUDA", errorLevelBytes}, {"CUDA_CHECK", errorLevelBytes}, {"CUDA_SAFE_CALL", errorLevelBytes},
	{"checkCudaErrors", errorLevelBytes}, {"cudaCheckError", errorLevelBytes},
}

// reportsCUDASourceError reports whether a line is a program's own check
// failing in a CUDA source file.
func reportsCUDASourceError(line string) bool {
	return cudaSourceErrorRE.MatchString(line) && !compilerDiagnosticRE.MatchString(line) && !infoLevelRE.MatchString(line)
}
