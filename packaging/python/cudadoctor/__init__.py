"""cudadoctor for Python environments and notebooks.

The wheel installs the cudadoctor binary on PATH; this package finds it and
adds an IPython extension:

    %load_ext cudadoctor    # an uncaught CUDA/PyTorch error in a cell is
                            # followed by its diagnosis: class, origin, fixes
    %cudadoctor             # explain the last error again, in full

The diagnosis is the binary's: the extension hands it the formatted
traceback (`cudadoctor explain -`) and prints what it finds. Errors that are
not CUDA or PyTorch failures (a NameError, a KeyboardInterrupt) show nothing.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import traceback

__all__ = ["binary", "explain", "load_ipython_extension", "unload_ipython_extension"]

# How many fixes the short note under a traceback shows; %cudadoctor shows all.
FIRST_FIXES = 2
# The binary answers in milliseconds; a hung one must not hang the kernel.
TIMEOUT_S = 30

_last_traceback = None
_previous_handler = None


def binary():
    """The path of the cudadoctor binary: the one installed with this
    package (the environment's scripts directory), else the first on PATH."""
    here = os.path.join(sysconfig.get_path("scripts"), "cudadoctor")
    if os.access(here, os.X_OK):
        return here
    return shutil.which("cudadoctor")


def explain(text, fmt="json"):
    """Diagnose a log or traceback text; returns the binary's output (the
    parsed report for fmt="json")."""
    exe = binary()
    if exe is None:
        raise FileNotFoundError("the cudadoctor binary is not installed next to this package or on PATH")
    out = subprocess.run(
        [exe, "explain", "--format", fmt, "--color", "never", "--fail-on", "never", "-"],
        input=text, capture_output=True, text=True, timeout=TIMEOUT_S,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or f"cudadoctor exited with status {out.returncode}")
    return json.loads(out.stdout) if fmt == "json" else out.stdout


def _known(findings):
    # "other" is cudadoctor's word for an exception it does not know: in a
    # notebook that is every typo, and the traceback already says it all.
    return [f for f in findings if f.get("class", f.get("rule")) != "other"]


def _where(loc):
    s = loc.get("path", "")
    if loc.get("line"):
        s += f":{loc['line']}"
    if loc.get("code"):
        s += f"    {loc['code']}"
    return s


def summary(findings, fixes=FIRST_FIXES):
    """The short note printed under a traceback."""
    lines = []
    for f in findings:
        lines.append(f"cudadoctor: {f.get('class') or f['rule']}: {f['message']}")
        if f.get("origin"):
            lines.append(f"  origin:    {_where(f['origin'])}")
        if f.get("reported"):
            lines.append(f"  reported:  {_where(f['reported'])} (CUDA reports this error asynchronously)")
        for i, fix in enumerate(f.get("remedies", [])[:fixes]):
            lines.append(f"  fix {i + 1}: " + fix.replace("\n", "\n         "))
    if lines:
        lines.append("  (%cudadoctor shows the whole diagnosis)")
    return "\n".join(lines)


def _note(text):
    try:
        findings = _known(explain(text).get("findings", []))
    except Exception as e:  # the diagnosis must never hide the user's error
        print(f"cudadoctor: could not diagnose this error: {e}", file=sys.stderr)
        return
    if findings:
        print(summary(findings))


def _handler(shell, etype, value, tb, tb_offset=None):
    global _last_traceback
    # IPython's own rendering first, as without the extension.
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    if isinstance(value, (KeyboardInterrupt, SystemExit)):
        return None
    # The plain Python form (the one logs hold) is what cudadoctor reads.
    _last_traceback = "".join(traceback.format_exception(etype, value, tb))
    _note(_last_traceback)
    return None


def _magic(line):
    """%cudadoctor: explain the last error in full (the binary's text view)."""
    text = _last_traceback
    if text is None and getattr(sys, "last_value", None) is not None:
        text = "".join(traceback.format_exception(sys.last_type, sys.last_value, sys.last_traceback))
    if text is None:
        print("cudadoctor: no error to explain yet")
        return
    print(explain(text, fmt="text"), end="")


def load_ipython_extension(ipython):
    global _previous_handler
    _previous_handler = getattr(ipython, "CustomTB", None)
    ipython.set_custom_exc((Exception,), _handler)
    ipython.register_magic_function(_magic, magic_kind="line", magic_name="cudadoctor")


def unload_ipython_extension(ipython):
    ipython.set_custom_exc((), None)
