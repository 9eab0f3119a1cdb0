#!/usr/bin/env bash
# Tests the IPython extension in a real Jupyter kernel: a notebook loads
# the extension (%load_ext cudadoctor), a cell raises the out-of-memory error
# recorded on an H100 (testdata/gpu/logs/h100/s06_oom_fragmentation.plain.log,
# raised as the same exception type and message, without torch or a GPU),
# `jupyter nbconvert --execute` runs it, and the saved outputs must show the
# traceback followed by cudadoctor's diagnosis (class, origin, first fixes),
# %cudadoctor's full diagnosis, and nothing for an ordinary ZeroDivisionError.
#
#   packaging/test_notebook.sh            # build the wheel for this machine, then test
#   packaging/test_notebook.sh WHEEL
#
# Needs Debian's python3-ipython, python3-ipykernel, jupyter-nbconvert
# (installed with apt-get when missing and running as root). Exit 0 pass,
# 1 fail, 77 skipped (packages missing and not installable).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || skip "Debian's /usr/bin/python3 is not installed"
have() { "$py" -c 'import IPython, ipykernel, nbconvert, nbformat' 2>/dev/null; }
if ! have; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing Debian's IPython, ipykernel and nbconvert ..." >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			python3-ipython python3-ipykernel jupyter-nbconvert python3-nbconvert python3-nbformat python3-venv >/dev/null 2>&1 ||
			skip "apt-get could not install python3-ipython python3-ipykernel jupyter-nbconvert"
	fi
	have || skip "IPython, ipykernel and nbconvert are not importable by $py, and installing them needs root and apt-get"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheel=${1:-}
if [ -z "$wheel" ]; then
	wheel=$(python3 "$root/packaging/build_wheel.py" --out "$work/dist")
fi
# The venv sees Debian's Jupyter (system site packages) and gets cudadoctor
# from the wheel, offline.
"$py" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$wheel" || fail "pip could not install $wheel"
# A kernel of the venv's own Python: Debian's default python3 kernel would
# run /usr/bin/python3, which does not see the wheel.
mkdir -p "$work/jupyter/kernels/cudadoctor-venv"
cat >"$work/jupyter/kernels/cudadoctor-venv/kernel.json" <<JSON
{"argv": ["$work/venv/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
 "display_name": "cudadoctor test venv", "language": "python"}
JSON
export JUPYTER_PATH="$work/jupyter"

oom_line=$(grep -m1 '^torch.OutOfMemoryError: ' "$root/testdata/gpu/logs/h100/s06_oom_fragmentation.plain.log")
mkdir -p "$work/lib/site-packages"
OOM_MESSAGE=${oom_line#torch.OutOfMemoryError: } "$work/venv/bin/python" - "$work/cuda.ipynb" "$work/lib/site-packages" <<'PY'
import os, sys, nbformat
message = os.environ["OOM_MESSAGE"]
# Stands in for torch: a library under site-packages whose empty() raises
# torch.OutOfMemoryError with the recorded message, as torch.empty did.
with open(os.path.join(sys.argv[2], "fake_torch.py"), "w") as f:
    f.write("class OutOfMemoryError(RuntimeError):\n    pass\n\n"
            "OutOfMemoryError.__module__ = 'torch'\n\n"
            f"def empty(nbytes):\n    raise OutOfMemoryError({message!r})\n")
nb = nbformat.v4.new_notebook()
nb.cells = [
    nbformat.v4.new_code_cell("%load_ext cudadoctor"),
    nbformat.v4.new_code_cell(f"import sys; sys.path.insert(0, {sys.argv[2]!r})\nfrom fake_torch import empty\nbig = empty(24 << 30)\n"),
    nbformat.v4.new_code_cell("%cudadoctor"),
    nbformat.v4.new_code_cell("1 / 0"),
]
nbformat.write(nb, sys.argv[1])
PY

(cd "$work" && "$work/venv/bin/python" -m jupyter nbconvert --to notebook --execute --allow-errors \
	--ExecutePreprocessor.timeout=120 --ExecutePreprocessor.kernel_name=cudadoctor-venv --output executed.ipynb cuda.ipynb >"$work/nbconvert.log" 2>&1) ||
	{ cat "$work/nbconvert.log" >&2; fail "jupyter nbconvert --execute failed"; }

"$work/venv/bin/python" - "$work/executed.ipynb" <<'PY' || fail "the notebook's outputs are not what the extension should show"
import re, sys, nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
def texts(cell):
    return [(o.output_type, o.get("text", "") or "\n".join(o.get("traceback", [])) or str(o.get("data", {}).get("text/plain", "")))
            for o in cell.outputs]
ok = True
def check(cond, what, cell):
    global ok
    if not cond:
        ok = False
        print("missing:", what, "\n  outputs:", [(k, t[-400:]) for k, t in texts(cell)], file=sys.stderr)
load, raised, magic, plain = nb.cells
check(not load.outputs, "a silent %load_ext cudadoctor", load)
kinds = [o.output_type for o in raised.outputs]
check("error" in kinds, "the traceback of the raising cell", raised)
note = "".join(o.get("text", "") for o in raised.outputs if o.output_type == "stream")
check(kinds.index("error") < kinds.index("stream") if "stream" in kinds and "error" in kinds else False, "the diagnosis after the traceback", raised)
check(note.startswith("cudadoctor: oom-fragmentation: 62.92 GiB is reserved but unallocated"), "the class and message", raised)
check(re.search(r"\n  origin: .*:3    big = empty\(24 << 30\)\n", note), "the origin (the cell's line 3)", raised)
check("\n  fix 1: Start the process with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" in note, "the first fix", raised)
check("\n  fix 2: " in note and "\n  fix 3: " not in note, "two fixes, not more", raised)
full = "".join(o.get("text", "") for o in magic.outputs)
check(full.startswith("error[oom-fragmentation] 62.92 GiB is reserved but unallocated"), "%cudadoctor's full diagnosis", magic)
check("  fix:\n    1. " in full, "%cudadoctor's fixes", magic)
check(not any("cudadoctor" in t for _, t in texts(plain)), "silence for ZeroDivisionError", plain)
check(any(k == "error" for k, _ in texts(plain)), "the ZeroDivisionError traceback", plain)
print(note)
sys.exit(0 if ok else 1)
PY
echo "PASS: %load_ext cudadoctor diagnoses a CUDA error under its traceback in a Jupyter kernel"
