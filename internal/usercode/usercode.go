// Package usercode answers, once for every command, whether a stack frame's
// file is the user's own code rather than a library, the interpreter, a
// launcher or compiled code.
package usercode

import (
	"path"
	"strings"
)

// libraryParts are path parts of code that is not the user's: installed
// packages, the standard library, the frameworks a traceback passes
// through even from a source checkout, and the launchers that start a job.
var libraryParts = []string{
	"site-packages/", "dist-packages/", "/lib/python", "/lib64/python", "<frozen", "importlib",
	"/torch/", "/triton/", "/cupy/", "cupy_backends/", "/multiprocessing/",
	"/bin/torchrun", "/bin/accelerate", "/bin/deepspeed", "/_pytest/", "/runpy.py", "/threading.py",
}

// libraryRoots are the same packages named relative to a checkout's root
// (a traceback from inside the PyTorch repository says torch/nn/...).
var libraryRoots = []string{"torch/", "triton/", "cupy/", "numpy/", "multiprocessing/"}

// IsUser reports whether a frame's file is the user's code. An empty path
// is not; neither is a compiled extension's source (Cython, C, C++, CUDA),
// which is never what a user edits to fix a Python-side failure.
func IsUser(file string) bool {
	p := strings.ReplaceAll(file, `\`, "/")
	if p == "" || isCompiled(p) {
		return false
	}
	for _, m := range libraryParts {
		if strings.Contains(p, m) {
			return false
		}
	}
	for _, r := range libraryRoots {
		if strings.HasPrefix(p, r) {
			return false
		}
	}
	return true
}

func isCompiled(p string) bool {
	switch path.Ext(p) {
	case ".pyx", ".pxd", ".pxi", ".so", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hpp":
		return true
	}
	return false
}
