from . import memory  # noqa: F401

_initialized = False
_queued = []


def _lazy_call(fn, **kwargs):
    if _initialized:
        fn()
    else:
        _queued.append(fn)


def init():
    global _initialized
    for fn in _queued:
        fn()
    _initialized = True


def is_initialized():
    return _initialized
