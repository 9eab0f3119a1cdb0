# A stand-in for torch with just the hooks the capture shim uses.
from . import _C, cuda  # noqa: F401
