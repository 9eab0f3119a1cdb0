#!/usr/bin/env bash
# Builds the wheel (or takes one), installs it offline into a fresh venv and
# runs the installed cudadoctor from there: --version, an explain of a real
# H100 log, `python -m cudadoctor`, and the Python API the notebook
# extension uses. No network: pip runs with --no-index.
#
#   packaging/test_wheel.sh                 # build dist/ wheel for this machine, then test
#   packaging/test_wheel.sh WHEEL           # test a given wheel
#
# Exit 0 pass, 1 fail, 77 skipped (no python3 venv support).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 has no venv/ensurepip (Debian: apt-get install python3-venv)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheel=${1:-}
if [ -z "$wheel" ]; then
	wheel=$(python3 "$root/packaging/build_wheel.py" --out "$work/dist")
fi
echo "wheel: $(basename "$wheel")"

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$wheel" || fail "pip could not install $wheel"

# Activated, the venv's bin is on PATH: the binary is found by name, from
# a directory that is not the checkout.
cd "$work"
export PATH="$work/venv/bin:$PATH"
[ "$(command -v cudadoctor)" = "$work/venv/bin/cudadoctor" ] || fail "cudadoctor on PATH is $(command -v cudadoctor), not the venv's"
version=$(cudadoctor --version)
echo "$version"
echo "$version" | head -1 | grep -qx "cudadoctor [0-9][0-9.]*" || fail "--version's first line: $(echo "$version" | head -1)"
echo "$version" | grep -q "^commit:  [0-9a-f]\{40\}" || fail "--version shows no commit stamp"
echo "$version" | grep -q "^built:   20" || fail "--version shows no build date"

log="$root/testdata/gpu/logs/h100/s06_oom_fragmentation.plain.log"
set +e
out=$(cudadoctor explain "$log")
code=$?
set -e
[ "$code" = 1 ] || fail "explain exited $code, want 1 (an error-severity finding)"
echo "$out" | head -1 | grep -q "^error\[oom-fragmentation\] 62.92 GiB is reserved but unallocated" || fail "explain said: $(echo "$out" | head -3)"
echo "ok: explain finds oom-fragmentation in $(basename "$log")"

"$work/venv/bin/python" -m cudadoctor version | head -1 | grep -qx "cudadoctor [0-9][0-9.]*" || fail "python -m cudadoctor version"
"$work/venv/bin/python" - "$log" <<'PY' || fail "the Python API"
import sys, cudadoctor
rep = cudadoctor.explain(open(sys.argv[1]).read())
assert rep["findings"][0]["class"] == "oom-fragmentation", rep["findings"][0]
assert rep["tool"]["commit"], rep["tool"]
print("ok: cudadoctor.explain() from", cudadoctor.binary())
PY
echo "PASS: $(basename "$wheel") installs offline and runs"
