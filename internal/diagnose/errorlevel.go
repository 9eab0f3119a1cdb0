package diagnose

import (
	"bytes"

	"github.com/cudadoctor/cudadoctor/internal/lazyre"
)

// Programs log a failure of the GPU stack at their logger's error level
// and go on or stop without an exception: glog and absl ("E1204
// 09:49:11.362414  4324 common.cpp:123] Cannot create Cublas handle",
// TensorFlow's "2019-01-23 21:21:11.073710: E
// tensorflow/stream_executor/cuda/cuda_driver.cc:313] failed call to
// cuInit: UNKNOWN ERROR (303)"), ONNX Runtime ("[E:onnxruntime:Default,
// cuda_call.cc:118 CudaCall] ..."), spdlog, loguru and Elixir's Logger
// ("[error] ..."), logfmt ("level=error msg=..."), Python's logging
// ("ERROR:root:..."). Such a line is the failure of the run when its
// message names the GPU stack. TensorFlow and JAX also log, at the error
// level, lines a healthy start-up prints (the plugin factories registered
// twice): those stay quiet.

// errorLevelRE is a logger's error-level prefix; the match ends where the
// message begins, so that a source path in the prefix
// ("stream_executor/cuda/cuda_driver.cc") does not count as the message
// naming CUDA.
var errorLevelRE = lazyre.New(`` +
	// glog and absl: severity E, the date, the time (absl's early form
	// "E0000 00:00:1764926939.003861"), the thread and the source line.
	`^\s*E\d{4} \d\d:\d\d:\d+(?:\.\d+)?\s+\d+\s+\S+:\d+\]\s` +
	// TensorFlow's form after its own time stamp, or bare at the head of
	// the line in its oldest releases.
	`|(?:^\s*|\d:\s+)E [^\s\]]+:\d+\]\s` +
	// ONNX Runtime's error severity with its logger and source.
	`|\[E:onnxruntime:[^\]]*\]\s*` +
	// spdlog, loguru, Elixir's Logger; logfmt; Python's logging with a
	// logger's name.
	`|\[(?:error|err)\]\s*|\blevel="?(?:error|ERROR|err)"?\s|^\s*ERROR:[\w.]+:`)

// startupNoiseRE are error-level messages that TensorFlow, JAX and XLA
// print on a healthy start-up: a plugin's factory registered a second
// time when two of them load the same CUDA library, and the NUMA node of a
// GPU that the kernel does not report.
var startupNoiseRE = lazyre.New(`Unable to register cu\w+ factory|Attempting to register factory for plugin|NUMA node`)

// reportsErrorLevel reports whether a line is logged at the error level
// and its message names the GPU stack.
func reportsErrorLevel(line string) bool {
	loc := errorLevelRE.FindStringIndex(line)
	if loc == nil {
		return false
	}
	msg := line[loc[1]:]
	return gpuStackRE.MatchString(msg) && !startupNoiseRE.MatchString(msg)
}

// failedGPUActionRE is a program's own words for an action on the GPU
// stack that did not happen: "Failed to initialize NVML", "failed to
// allocate 8.00G from device", "Cannot create Cublas handle", "Unable to
// load CUDA runtime". Group 1 is what follows the verb, which must name
// the GPU stack.
var failedGPUActionRE = lazyre.New(`(?:\b[Ff]ailed to|\b[Cc]annot|\b[Uu]nable to)\s+(?:create|initiali[sz]e|init|allocate|load|launch|open|get|query|start|attach|set up)\b(.*)`)

// infoLevelRE: a line its own program logs as information or debugging
// (NCCL's "NCCL INFO Failed to initialize NET plugin IB" on every healthy
// start, glog's I lines, logfmt's level=info) reports nothing that failed
// the run.
var infoLevelRE = lazyre.New(`\b(?:INFO|DEBUG|TRACE)\b|\blevel="?(?:info|debug|trace|INFO|DEBUG)\b|^\s*[IV]\d{4} \d|(?:^\s*|\d:\s+)[IV] [^\s\]]+:\d+\]\s|\[[IV]:onnxruntime:`)

// reportsFailedGPUAction reports whether a line says that an action on the
// GPU stack failed, at a level above information. NCCL as the object is
// left to NCCL's own warnings: its plugins' start-up lines ("Failed to
// initialize NET plugin IB") would match.
func reportsFailedGPUAction(line string) bool {
	m := failedGPUActionRE.FindStringSubmatch(line)
	if m == nil || infoLevelRE.MatchString(line) {
		return false
	}
	for _, w := range gpuStackRE.FindAllString(m[1], -1) {
		if w != "NCCL" && w != "nccl" {
			return true
		}
	}
	return false
}

// errorLevelAnchors are the fixed texts that bring these lines to the
// parser, each with what a line must hold besides. A plain trigger would
// make candidates of the lines around them (NCCL's "Failed to initialize
// NET plugin IB" on every rank of every job, ONNX Runtime's thread
// affinity errors in a container).
var errorLevelAnchors = []struct {
	text string
	line func([]byte) bool
}{
	{"E tensorflow/", errorLevelBytes}, {"E external/", errorLevelBytes}, {"E third_party/", errorLevelBytes},
	// TensorFlow's Windows builds log their build tree's drive path
	// ("2017-12-01 10:00:00.123456: E C:\tf_jenkins\...\cuda_driver.cc:406]").
	{": E C:\\", errorLevelBytes}, {": E T:\\", errorLevelBytes}, {": E D:\\", errorLevelBytes},
	{"[E:onnxruntime", errorLevelBytes},
	{"level=error", errorLevelBytes}, {"level=ERROR", errorLevelBytes}, {"level=\"error", errorLevelBytes},
	{"[error]", errorLevelBytes}, {"ERROR:", errorLevelBytes},
	// glog's E lines hold no fixed text of their own: the GPU words they
	// are about stand for them.
	{"Cublas", errorLevelBytes}, {"cublas", errorLevelBytes}, {"cuBLAS", errorLevelBytes}, {"CUBLAS", errorLevelBytes},
	{"Curand", errorLevelBytes}, {"curand", errorLevelBytes}, {"cuRAND", errorLevelBytes},
	{" CUDA ", errorLevelBytes}, {" CUDA:", errorLevelBytes}, {" GPU: ", errorLevelBytes}, {"cuInit", errorLevelBytes},
	{"Failed to", failedGPUActionBytes}, {"failed to", failedGPUActionBytes},
	{"Cannot create", failedGPUActionBytes}, {"cannot create", failedGPUActionBytes},
	{"Unable to", failedGPUActionBytes}, {"unable to", failedGPUActionBytes},
}

func errorLevelBytes(line []byte) bool {
	return holdsErrorLevelFailure(string(line))
}

func failedGPUActionBytes(line []byte) bool {
	// NCCL logs "NCCL INFO Failed to initialize NET plugin IB" on every
	// rank of every healthy job, tens of thousands of lines in a long
	// log: an information line is dropped before any regex runs (the
	// bytes test is a subset of infoLevelRE's \bINFO\b).
	if bytes.Contains(line, []byte(" INFO ")) {
		return false
	}
	return reportsFailedGPUAction(string(line))
}

// holdsErrorLevelFailure: the line is one of the two forms above, or a
// program's own CUDA check failing (cudamacro.go).
func holdsErrorLevelFailure(line string) bool {
	return reportsErrorLevel(line) || reportsFailedGPUAction(line) || reportsCUDASourceError(line)
}
