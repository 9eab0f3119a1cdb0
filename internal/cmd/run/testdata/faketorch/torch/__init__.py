# A stand-in for torch with just what the in-place shim touches: tensors
# with version counters, a torch-function mode stack, anomaly mode and a
# backward that fails the way autograd does when a saved tensor changed.
import sys
import traceback

from . import autograd, overrides  # noqa: F401

_modes = []


class SigmoidBackward0:
    pass


class IndexPutBackward0:
    pass


def _dispatch(public, impl, *args):
    if _modes:
        mode = _modes.pop()  # a mode's handler runs with the mode off
        try:
            return mode.__torch_function__(public, (Tensor,), args, {})
        finally:
            _modes.append(mode)
    return impl(*args)


class Tensor:
    def __init__(self, shape, grad_fn=None):
        self.shape = tuple(shape)
        self._version = 0
        self.grad_fn = grad_fn
        self._base = None
        self._saved = None

    def __setitem__(self, key, value):
        return _dispatch(Tensor.__setitem__, _setitem, self, key, value)

    def backward(self):
        return _dispatch(Tensor.backward, _backward, self)


def _setitem(t, key, value):
    t._version += 1
    t.grad_fn = IndexPutBackward0()


def sigmoid(x):
    def impl(x):
        y = Tensor(x.shape, SigmoidBackward0())
        y._saved = (y, y._version, traceback.extract_stack()[:-3])
        return y
    return _dispatch(sigmoid, impl, x)


def _backward(t):
    saved, version, stack = t._saved
    if saved._version != version:
        if autograd._anomaly:
            sys.stderr.write("/x/torch/autograd/graph.py:829: UserWarning: Error detected in SigmoidBackward0. Traceback of forward call that caused the error:\n")
            for fs in stack:
                sys.stderr.write('  File "%s", line %d, in %s\n    %s\n' % (fs.filename, fs.lineno, fs.name, fs.line))
            sys.stderr.write(" (Triggered internally at /pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)\n")
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an inplace operation: "
            "[torch.cuda.FloatTensor [%s]], which is output 0 of SigmoidBackward0, is at version %d; expected version %d instead."
            % (", ".join(str(d) for d in saved.shape), saved._version, version))
