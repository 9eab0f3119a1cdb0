package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A cuFFT status with no cause on an Ada GPU is the cuFFT of CUDA 11.7 and
// older (https://github.com/c-yn/AdaIR/issues/8, pytorch/pytorch#88038);
// a CUDA version that rules the old cuFFT out, another GPU, or a cuFFT
// status that names its own cause leave the finding as it was.
func TestCuFFTOnAdaGPU(t *testing.T) {
	e := New(kb.MustDefault())
	const fft = "  File \"train.py\", line 12, in <module>\n    spec = torch.stft(x, 400)\nRuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n"
	for _, c := range []struct {
		name, log, want string
	}{
		{"RTX 4090 in collect_env", fft + "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\n", "no-kernel-image"},
		{"4090 in Chinese prose", "您好，在3090可以运行，但切换到4090上就出现RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR，请问这个该如何解决？\n", "no-kernel-image"},
		{"L40S and no CUDA version", fft + "GPU 0: NVIDIA L40S\n", "no-kernel-image"},
		{"RTX 4090 under a cu121 build", fft + "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\nCUDA used to build PyTorch: 12.1\n", "other"},
		{"RTX 3090", fft + "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090\n", "other"},
		{"no GPU named", fft, "other"},
		{"a status with its own cause", "RuntimeError: cuFFT error: CUFFT_INVALID_SIZE\nGPU 0: NVIDIA GeForce RTX 4090\n", "other"},
	} {
		fs := explainText(t, e, c.log)
		if len(fs) == 0 || fs[0].Class != c.want {
			t.Errorf("%s: got %+v, want %s", c.name, fs, c.want)
		}
	}
}

func TestCudaTenths(t *testing.T) {
	for in, want := range map[string]int{"11.7": 117, "11.8.0": 118, "12.1": 121, "10": 0, "x.y": 0, "12.10": 0} {
		if got := cudaTenths(in); got != want {
			t.Errorf("cudaTenths(%q) = %d, want %d", in, got, want)
		}
	}
}
