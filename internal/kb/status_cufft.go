package kb

import (
	"strconv"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// cufftResultRE is a cufftResult that TensorFlow's and XLA's FFT support
// (stream_executor/cuda/cuda_fft.cc) logs by number after the step that
// failed: "failed to create cuFFT batched plan:2", "failed to make cuFFT
// batched plan:5", "failed to set work area for cuFFT plan:13", "Failed to
// run cuFFT routine cufftExecC2C: 6". The number reads through the cuFFT
// table (2 is CUFFT_ALLOC_FAILED); the line must say the step failed and
// name the library before the number ("using cuFFT plan: 3 stages" is no
// status).
var cufftResultRE = lazyre.New(`(?i:\bfail(?:ed|ure)?\b)[^\n]{0,40}?\bcuFFT\b[^:\n]{0,40}?\b(?:plan|routine \w+): ?(\d{1,2})\b`)

func cufftResultCode(t *statusTable, line string, add func(*Status, string)) {
	for _, m := range cufftResultRE.FindAllStringSubmatch(line, -1) {
		n, _ := strconv.Atoi(m[1])
		add(t.libCode["cufft"][n], m[0])
	}
}
