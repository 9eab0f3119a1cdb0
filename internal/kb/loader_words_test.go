package kb

import (
	"strings"
	"testing"
)

// TestLoaderAndEngineWordings: a CUDA library the loader could not load in
// any loader's words, a TensorRT engine from another TensorRT release, and
// ptxas refusing code for the requested target; each with look-alikes that
// must not take the class.
func TestLoaderAndEngineWordings(t *testing.T) {
	k := MustDefault()
	cases := []struct{ text, want string }{
		{"I tensorflow/stream_executor/cuda/cuda_dnn.cc:1062] Unable to load cuDNN DSO.", "library-mismatch"},
		{"I c:\\tf_jenkins\\workspace\\stream_executor\\dso_loader.cc:119] Couldn't open CUDA library cudnn64_5.dll", "library-mismatch"},
		{`Unable to dynamically load the \"cudnn\" shared library - searched for library names: [\"cudnn.dll\"]`, "library-mismatch"},
		{"Could not locate cudnn_ops_infer64_8.dll.", "library-mismatch"},
		{"RuntimeError: Failed to load libcublasLt.so.12", "library-mismatch"},
		{"cannot load cuBLAS library", "library-mismatch"},
		{"[TRT] [E] 1: [stdArchiveReader.cpp::StdArchiveReader::40] Error Code 1: Serialization (Serialization assertion stdVersionRead == serializationVersion failed.Version tag does not match. Note: Current Version: 213, Serialized Engine Version: 232)", "library-mismatch"},
		{`engine.cpp:1104: bool nvinfer1::rt::Engine::deserialize(const void*, std::size_t, nvinfer1::IGpuAllocator&, nvinfer1::IPluginFactory*): Assertion ` + "`" + `size >= bsize && "Mismatch between allocated memory size and expected size of serialized engine."' failed.`, "library-mismatch"},
		{"ERROR: The engine plan file is not compatible with this version of TensorRT, expecting library version 8.2.1 got 8.2.3, please rebuild.", "library-mismatch"},
		{`[E:onnxruntime:Default, provider_bridge_ort.cc:2369 onnxruntime::TryGetProviderInfo_CUDA] provider_bridge_ort.cc:1962 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : Error loading "C:\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll" which depends on "cudnn64_9.dll" which is missing. (Error 126: "The specified module could not be found.")`, "library-mismatch"},
		{"ptxas /tmp/tmpxft_00001af0-6_sm90_q64n32.ptx, line 10531; error   : Instruction 'tensormap.replace' not supported on .target 'sm_120'", "no-kernel-image"},
		{"ptxas /tmp/x.ptx, line 77; error   : Feature '.bf16' requires .target sm_80 or higher", "no-kernel-image"},
		// Look-alikes: success lines, model files, the driver library,
		// TensorFlow's optional TensorRT warning, a prose mention.
		{"I tensorflow/stream_executor/dso_loader.cc:111] successfully opened CUDA library libcudnn.so locally", ""},
		{"Failed to load cudnn_model.pth from disk", ""},
		{"Could not open cudnn.h for reading", ""},
		{"W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory", ""},
		{"Could not find cuda drivers on your machine, GPU will not be used.", "cuda-unavailable"},
		{"I tensorflow/stream_executor/dso_loader.cc:105] Couldn't open CUDA library libcuda.so.1. LD_LIBRARY_PATH: /usr/local/cuda/lib64:", "cuda-unavailable"},
		{"I tensorflow/stream_executor/dso_loader.cc:105] Couldn't open CUDA library libcudart.so.8.0. LD_LIBRARY_PATH: /usr/local/cuda/lib64:", "library-mismatch"},
		{`stderr: nvidia-container-cli: initialization error: nvml error: driver not loaded\\n\"": unknown.`, "cuda-unavailable"},
		{"nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown", ""},
		{"we could not load the cuDNN benchmark results quickly, so it was disabled", ""},
		{"Loading TensorRT engine: /workspace/models/yolox_l.engine", ""},
	}
	for _, c := range cases {
		if got := classOf(k, strings.Split(c.text, "\n")...); got != c.want {
			t.Errorf("%.90q: got %q, want %q", c.text, got, c.want)
		}
	}
	v, _ := k.Classify([]string{"Version tag does not match. Note: Current Version: 213, Serialized Engine Version: 232)"})
	if v.Facts["trt_engine_serial"] != "232" || !strings.Contains(v.Message(), "format 232") {
		t.Errorf("facts %v message %q", v.Facts, v.Message())
	}
}
