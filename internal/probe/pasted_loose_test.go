package probe

import (
	"strings"
	"testing"
)

// toolkitOfText is the CUDA version FromText takes the failing stack to
// be built with, "" when it names none.
func toolkitOfText(text string) string {
	p := FromText(strings.Split(text, "\n"))
	if p == nil || p.Facts.Toolkit == nil {
		return ""
	}
	return p.Facts.Toolkit.Version
}

func TestProseAndTagVersions(t *testing.T) {
	for text, want := range map[string]string{
		"GPU: NVIDIA A100\ndocker内看cuda 版本是 10.2":      "10.2",
		"GPU: RTX 3090\nCUDA版本11.3":                    "11.3",
		"GPU: RTX 3090\ncuda版本：11.1，驱动 470":            "11.1",
		"GPU: RTX 3090\nCUDA 버전 11.8":                  "11.8",
		"GPU: RTX A4000\ndeepemhancer `20220530_cu10`": "10.0",
		"GPU: RTX 2080\nimage tag: mylab/train-cu9":    "9.0",
		// Look-alikes: cuDNN's version is not CUDA's; a CUDA 11 major tag
		// does not settle an architecture range; a library name holding
		// "cu10" is no tag.
		"GPU: RTX 3090\ncudnn 版本 8.9":        "",
		"GPU: RTX 3090\nbuilt as `app_cu11`": "",
		"GPU: RTX 3090\nlinking libcu10x.so": "",
		"GPU: RTX 3090\ncuda 版本号 0.5 的示例":    "",
	} {
		if got := toolkitOfText(text); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

// A source or container build's torch version ("1.7.0a0+57bffc3") says
// nothing about its CUDA: a version the report states is taken instead of
// the newest CUDA of the release's wheels; a release wheel's version keeps
// that inference.
func TestSourceBuildTorchVersion(t *testing.T) {
	if got := toolkitOfText("GPU: NVIDIA A100\ncuda version: 10.2, torch: 1.7.0a0+57bffc3"); got != "10.2" {
		t.Errorf("source build: got %q, want the stated 10.2", got)
	}
	if got := toolkitOfText("GPU: NVIDIA A100\ntorch: 1.7.0a0+57bffc3"); got != "" {
		t.Errorf("source build alone: got %q, want none", got)
	}
	if got := toolkitOfText("GPU: NVIDIA A100\ntorch==1.7.0"); got != "11.0" {
		t.Errorf("release wheel: got %q, want 11.0 (the newest of 1.7's wheels)", got)
	}
}

// env/legacy-gpu fails a report that names only Kepler-or-older GPUs and
// no build; a report naming a supported GPU beside it, or any version,
// is left to the other checks.
func TestLegacyGPUCheck(t *testing.T) {
	run := func(text string) Result {
		p := FromText(strings.Split(text, "\n"))
		if p == nil {
			return Result{}
		}
		return legacyGPUCheck.Run(p.Facts)
	}
	for text, want := range map[string]Status{
		"I'm using a Tesla K80, which requires older drivers/cuda.\nNVIDIA-SMI 470.161.03   Driver Version: 470.161.03   CUDA Version: 11.4": Fail,
		"GPU 0: GeForce GTX 780": Fail,
		"Tesla K40m":             Fail,
		// The K80 is the card that works; the T4 fails.
		"When my gpu version is Tesla T4 it fails; on the Tesla K80 the problem was solved.": Pass,
		// A build is named: the arch checks judge it.
		"Tesla K80\ntorch==1.13.1+cu117": Skip,
		"Tesla K80\nCUDA 10.1":           Skip,
		// A healthy collect_env on a supported GPU.
		"PyTorch version: 2.1.0+cu121\nCUDA used to build PyTorch: 12.1\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090": Skip,
		"GPU 0: NVIDIA GeForce RTX 3090": Pass,
	} {
		if got := run(text).Status; got != want {
			t.Errorf("%q: got %v, want %v", text, got, want)
		}
	}
	r := run("Tesla K80")
	if len(r.Findings) != 1 || r.Findings[0].Facts["library_only"] != true || r.Findings[0].Facts["capability"] != "3.7" {
		t.Errorf("K80 finding: %+v", r.Findings)
	}
}

// A CUDA version stated about the host is its driver's, not the build's:
// the one the line states for the container or environment is taken; a
// line about the host alone states no build CUDA.
func TestHostAndContainerCUDA(t *testing.T) {
	for text, want := range map[string]string{
		"GPU: NVIDIA A100\n物理机cuda版本11.2，docker内看cuda 版本是 10.2":          "10.2",
		"GPU: RTX 3090\nhost CUDA 12.2, container CUDA 11.3":             "11.3",
		"GPU: RTX 3090\nnvidia-smi shows CUDA 12.0; conda env CUDA 11.3": "11.3",
		"GPU: RTX 3090\nhost CUDA 12.2":                                  "",
		// Look-alikes: a container named in the same clause keeps it;
		// "host" in another clause does not reach this one.
		"GPU: RTX 3090\nCUDA 11.3 in the docker image on the host": "11.3",
		"GPU: RTX 3090\nrunning on the host, CUDA 10.2":            "10.2",
	} {
		if got := toolkitOfText(text); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}

// The CUDA runtime a framework reports having opened is the stack's CUDA;
// one it could not open is a missing library and says nothing of it.
func TestLoadedCUDARuntime(t *testing.T) {
	for text, want := range map[string]string{
		"GPU 0: GeForce RTX 3090\n2020-12-29 04:45:40.1: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library libcudart.so.10.1": "10.1",
		"GPU 0: GeForce RTX 3080\nI tensorflow/stream_executor/platform/default/dso_loader.cc:48] Successfully opened dynamic library cudart64_110.dll":                         "11.0",
		"GPU 0: GeForce RTX 2080\nI dso_loader.cc:49] Successfully opened dynamic library cudart64_90.dll":                                                                      "9.0",
		"GPU 0: GeForce RTX 3090\nW dso_loader.cc:59] Could not load dynamic library 'libcudart.so.10.1'; dlerror: libcudart.so.10.1: cannot open shared object file":           "",
		"GPU 0: GeForce RTX 3090\nI dso_loader.cc:48] Successfully opened dynamic library libcublas.so.10":                                                                      "",
	} {
		if got := toolkitOfText(text); got != want {
			t.Errorf("%q: got %q, want %q", text, got, want)
		}
	}
}
