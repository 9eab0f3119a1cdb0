package diagnose

import (
	"strings"
	"testing"

	"github.com/cudadoctor/cudadoctor/internal/kb"
)

// A PyTorch error pasted without its "RuntimeError:" line is still a
// failure: it gets an "other" finding that quotes it, with no GPU roots
// offered, since the message names its own cause.
func TestBareTorchErrorIsAFailure(t *testing.T) {
	e := New(kb.MustDefault())
	cases := []string{
		"Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss.\n",
		"some context first\nTrying to backward through the graph a second time (or directly access saved tensors after they have already been freed).\n",
		"element 0 of tensors does not require grad and does not have a grad_fn\n",
		"Default process group has not been initialized, please make sure to call init_process_group.\n",
	}
	for _, c := range cases {
		out := explainText(t, e, c)
		if len(out) != 1 || out[0].Class != "other" {
			t.Errorf("%q: got %+v, want one other finding", c, out)
			continue
		}
		f := out[0]
		if len(f.Evidence) != 1 || !holdsTorchTemplate(f.Evidence[0].Text) {
			t.Errorf("%q: evidence %+v does not quote the message", c, f.Evidence)
		}
		if !strings.Contains(f.Message, "PyTorch error") {
			t.Errorf("%q: message %q", c, f.Message)
		}
		if len(f.Alternatives) != 0 {
			t.Errorf("%q: GPU roots offered for a message that names its cause: %v", c, f.Alternatives)
		}
		if want, _ := torchErrorFix(c); len(f.Remedies) != 1 || f.Remedies[0] != want {
			t.Errorf("%q: remedies %q, want only the message's own fix", c, f.Remedies)
		}
	}
}

// With its exception line in front, the same message still gets its own
// fix rather than advice about drivers and kernels.
func TestTorchErrorWithExceptionGetsItsFix(t *testing.T) {
	e := New(kb.MustDefault())
	const log = `Traceback (most recent call last):
  File "train.py", line 40, in <module>
    loss.backward()
RuntimeError: grad can be implicitly created only for scalar outputs
`
	out := explainText(t, e, log)
	if len(out) != 1 || out[0].Class != "other" {
		t.Fatalf("got %+v, want one other finding", out)
	}
	if r := out[0].Remedies; len(r) != 1 || !strings.Contains(r[0], "loss.mean()") {
		t.Errorf("remedies %q, want the scalar-output fix", r)
	}
}

// Lines of a healthy DDP run that speak of the same things in other words
// stay quiet.
func TestTorchTemplatesQuietOnHealthyLines(t *testing.T) {
	e := New(kb.MustDefault())
	const healthy = `[W reducer.cpp:1300] Warning: find_unused_parameters=True was specified in DDP constructor, but did not find any unused parameters in the forward pass. This flag results in an extra traversal of the autograd graph every iteration.
Epoch 1: loss=0.4312 grad_norm=1.02
retain_graph=True set for the second backward pass
process group initialized: backend=nccl world_size=8
Loaded state_dict for ResNet (all keys matched)
Training finished.
`
	if out := explainText(t, e, healthy); len(out) != 0 {
		t.Errorf("healthy lines gave %+v", out)
	}
	for _, tpl := range torchErrorTemplates {
		if len(tpl) < 6 {
			t.Errorf("template %q is shorter than an anchor may be", tpl)
		}
	}
}

// The host running out of RAM, in PyTorch's and NumPy's words, is said to
// be the machine's memory, with the fix for that, whatever wraps the line.
func TestHostRAMFailures(t *testing.T) {
	e := New(kb.MustDefault())
	for _, c := range []string{
		"Extend: RuntimeError: [enforce fail at alloc_cpu.cpp:73] . DefaultCPUAllocator: not enough memory: you tried to allocate 1073741824 bytes.\n",
		"RuntimeError: [enforce fail at CPUAllocator.cpp:64] . DefaultCPUAllocator: can't allocate memory: you tried to allocate 2147483648 bytes. Error code 12 (Cannot allocate memory)\n",
		"    x = np.zeros((100000, 100000))\nnumpy.core._exceptions._ArrayMemoryError: Unable to allocate 74.5 GiB for an array with shape (100000, 100000) and data type float64\n",
	} {
		out := explainText(t, e, c)
		if len(out) != 1 || out[0].Class != "other" || !strings.Contains(out[0].Message, "RAM ran out") || len(out[0].Remedies) != 1 || out[0].Remedies[0] != hostRAMFix {
			t.Errorf("%q: got %+v", c, out)
		}
	}
}
