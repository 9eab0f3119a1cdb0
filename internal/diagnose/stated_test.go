package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

func TestUnseenGPUStated(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		// RVC-Project/Retrieval-based-Voice-Conversion-WebUI issue 1980.
		{"It seems like torch.cuda does not recognize the gpu.", true},
		// rbbrdckybk/dream-factory issue 15.
		{"[controller] >>> detected 0 total GPU device(s)...", true},
		// JonathanFly/bark issue 28 (the program's warning as retold).
		{`Second "No GPU being used. Careful, Inference might be extremely slow!" message`, true},
		{"My GPU is not detected, nvidia-smi shows it fine", true},
		{"No CUDA devices found", true},
		{"the program can't find my GPU", true},
		// p-e-w/heretic issue 30; YuxinWenRick/hard-prompts-made-easy issue 8.
		{"No GPU or other accelerator detected. Operations will be slow.", true},
		{"run.py fails to detect the gpu.  I have a 3090Ti and all the current drivers installed.", true},
		{"the benchmark failed to find the config file", false},
		{"If no GPU is found, the script runs on the CPU.", false},
		{"when the GPU is not detected, pass --cpu", false},
		{"No GPU found, skipping test_cuda_ops", false},
		{"Why is the GPU not detected?", false},
		{"GPU detected: NVIDIA A100-SXM4-80GB", false},
		{"detected 8 total GPU device(s)...", false},
		{"It's not that the GPU is not detected; training is just slow.", false},
		{"the file was not found", false},
	} {
		if got := unseenGPUStated([]string{c.text}) >= 0; got != c.want {
			t.Errorf("%q: got %v, want %v", c.text, got, c.want)
		}
	}
}

// The stated findings answer where nothing else in the input failed, and
// stay quiet on the look-alikes a healthy log holds.
func TestStatedFindings(t *testing.T) {
	e := New(kb.MustDefault())
	tactic := "[11/16/2023-04:25:27] [TRT] [W] Tactic Device request: 66048MB Available: 32510MB. Device memory is insufficient to use tactic.\n" +
		"[11/16/2023-04:25:27] [TRT] [W] UNSUPPORTED_STATESkipping tactic 0 due to insufficient memory on requested size of 66048 detected for tactic 0x0000000000000018.\n"
	old := "[07/28/2024-14:47:29] [TRT] [W] Tactic Device request: 538MB Available: 166MB. Device memory is insufficient to use tactic.\n" +
		"[07/28/2024-14:47:31] [TRT] [W] Skipping tactic 3 due to insuficient memory on requested size of 538 detected for tactic 4.\n" +
		"Try decreasing the workspace size with IBuilderConfig::setMaxWorkspaceSize().\n"
	for _, c := range []struct {
		name, log, want string
	}{
		{"gpu not seen", "It seems like torch.cuda does not recognize the gpu.\n", "cuda-unavailable"},
		{"tool counts none", "[controller] >>> detected 0 total GPU device(s)...\n", "cuda-unavailable"},
		{"conditional", "If no GPU is found, the script runs on the CPU.\n", ""},
		{"repl true", ">>> torch.cuda.is_available()\nTrue\n>>> torch.cuda.device_count()\n8\n", ""},
		// The builder's memory warnings end the log: the build ran short.
		{"tactics end the log", tactic, "oom"},
		{"tactics and advice end the log", old, "oom"},
		// The build went on after them: warnings only.
		{"build goes on", tactic + "[11/16/2023-04:26:02] [TRT] [I] Total Activation Memory: 1073741824\n[11/16/2023-04:26:02] [TRT-LLM] [I] Engine generation completed in 35.2 sec\n", ""},
		// A single skipped tactic asked about (NVIDIA/TensorRT-LLM issue 493).
		{"one tactic", "[11/28/2023-15:47:38] [TRT] [W] UNSUPPORTED_STATESkipping tactic 4 due to insufficient memory on requested size of 66048 detected for tactic 0x000000000000001f.\n", ""},
		// A real failure in the input answers for itself.
		{"failure wins", "It seems like the GPU is not detected.\nRuntimeError: CUDA error: out of memory\n", "oom"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := explainText(t, e, c.log)
			got := ""
			if len(fs) > 0 {
				got = fs[0].Class
			}
			if got != c.want {
				t.Errorf("got %q, want %q (%+v)", got, c.want, fs)
			}
		})
	}
}

func TestCUDASourceError(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []struct {
		log  string
		want string
	}{
		// ahban/OpenGLSC issue 3.
		{"[ERROR][File:D:/GLSC/OpenGLSC-master/src/gpu_lsc.cu][Line:379]\n", "other"},
		{"ERROR in kernels.cu:123\n", "other"},
		{"Error at nms.cu line 88\n", "other"},
		{"CHECK_CUDA failed\n", "other"},
		// The macro's message naming the status answers with its class.
		{"cudaCheckError() failed : no kernel image is available for execution on the device\n", "no-kernel-image"},
		{"Added CHECK_CUDA macros; none failed in the test run\n", ""},
		{"[INFO] no error in kernels.cu:12 so far\n", ""},
		{"compiling kernels.cu:12 done, 0 errors\n", ""},
	} {
		fs := explainText(t, e, c.log)
		got := ""
		if len(fs) > 0 {
			got = fs[0].Class
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.log, got, c.want)
		}
	}
	// A compiler's diagnostic is not the program's check.
	if reportsCUDASourceError(`src/kernels.cu(12): error: identifier "foo" is undefined`) {
		t.Error("nvcc's diagnostic read as a failed check")
	}
}
