package diagnose

import (
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// TestCommandEchoKeepsItsOutput: a shell prompt echoing the command is
// remembered for the remedies, but the program output the parser groups
// with it is still read (a REPL session pasted from its "$ python").
func TestCommandEchoKeepsItsOutput(t *testing.T) {
	e := New(kb.MustDefault())
	log := "$ python\n" +
		"Python 3.10.7 (tags/v3.10.7:6cc6b13, Sep  5 2022, 14:08:36) [MSC v.1933 64 bit (AMD64)] on win32\n" +
		">>> import jax\n" +
		"2022-09-18 11:52:21.036734: W external/org_tensorflow/tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
	fs := explainText(t, e, log)
	if len(fs) != 1 || fs[0].Class != "library-mismatch" {
		t.Fatalf("the loader warning after an echoed command: %+v", fs)
	}
	// The echo alone, and the echo of a healthy run, stay quiet.
	for _, quiet := range []string{"$ python train.py --lr 1e-3\n", "$ python train.py\nepoch 1 loss 0.52\nepoch 2 loss 0.41\n"} {
		if fs := explainText(t, e, quiet); len(fs) != 0 {
			t.Errorf("%q: %+v", quiet, fs)
		}
	}
}
