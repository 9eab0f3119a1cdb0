#!/usr/bin/env bash
# Builds the linux/arm64 wheel with Debian's cross compiler and runs the
# aarch64 binary it carries under qemu-user, beside the amd64 one built from
# the same checkout with the same stamps: every command below must give the
# same standard output, standard error and exit status on both. Checks the
# arm64 wheel's tag against the glibc versions its binary needs.
#
#   packaging/test_arm64.sh              # exit 0 pass, 1 fail, 77 skipped
#
# Needs qemu-user, gcc-aarch64-linux-gnu and libc6-dev-arm64-cross
# (installed with apt-get when missing and running as root). The arm64
# build compiles tree-sitter's C with the cross compiler: several minutes
# on 2 cores. Not part of `go test ./...`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
ok() { echo "ok: $*"; }

[ "$(uname -m)" = x86_64 ] || skip "this test runs an arm64 binary under qemu beside the native amd64 one; the machine is $(uname -m)"
sysroot=/usr/aarch64-linux-gnu
have() { command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null && [ -e "$sysroot/lib/ld-linux-aarch64.so.1" ]; }
if ! have; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing Debian's qemu-user and aarch64 cross compiler ..." >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null 2>&1 ||
			skip "apt-get could not install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
	fi
	have || skip "needs qemu-aarch64, aarch64-linux-gnu-gcc and $sysroot (Debian: qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
fi
command -v go >/dev/null || skip "go is not on PATH"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One invocation builds both, so version, commit and date are the same.
start=$(date +%s)
python3 "$root/packaging/build_wheel.py" --arch amd64 --arch arm64 --out "$work/dist" >"$work/wheels" ||
	fail "build_wheel.py could not build the wheels"
echo "built in $(($(date +%s) - start))s:"
sed 's|.*/|  |' "$work/wheels"
amd=$(grep '_x86_64\.whl$' "$work/wheels") || fail "no x86_64 wheel"
arm=$(grep '_aarch64\.whl$' "$work/wheels") || fail "no aarch64 wheel"

# The binaries, as pip would install them, and the tag the wheel claims.
python3 - "$amd" "$work/amd64" "$arm" "$work/arm64" <<'PY' || fail "the wheels' contents"
import os, sys, zipfile
for whl, out in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    z = zipfile.ZipFile(whl)
    [script] = [n for n in z.namelist() if n.endswith(".data/scripts/cudadoctor")]
    open(out, "wb").write(z.read(script))
    os.chmod(out, 0o755)
    [wheel] = [n for n in z.namelist() if n.endswith(".dist-info/WHEEL")]
    tags = [l.split(": ", 1)[1] for l in z.read(wheel).decode().splitlines() if l.startswith("Tag: ")]
    assert len(tags) == 1 and whl.endswith("-" + tags[0] + ".whl"), (whl, tags)
    open(out + ".tag", "w").write(tags[0])
PY
file "$work/arm64" | grep -q "ELF 64-bit LSB .*ARM aarch64.*ld-linux-aarch64.so.1" || fail "the aarch64 wheel carries: $(file "$work/arm64")"

# The tag must be the newest GLIBC_2.N the binary's dynamic symbols name
# (manylinux starts at 2.17), read here with the cross binutils' objdump.
needed=$(aarch64-linux-gnu-objdump -T "$work/arm64" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n -u | tail -n 1)
minor=${needed#GLIBC_2.}
[ "$minor" -ge 17 ] || minor=17
[ "$(cat "$work/arm64.tag")" = "py3-none-manylinux_2_${minor}_aarch64" ] ||
	fail "the arm64 wheel is tagged $(cat "$work/arm64.tag"), but its binary needs $needed"
ok "$(basename "$arm"): an aarch64 ELF whose newest glibc symbol version is $needed, tagged $(cat "$work/arm64.tag")"

arm64() { qemu-aarch64 -L "$sysroot" "$work/arm64" "$@"; }
amd64() { "$work/amd64" "$@"; }
cd "$root"
log=testdata/gpu/logs/h100/s01_embedding_oob.plain.log
cases=(
	"version" # the same but for linux/arm64
	"explain $log"
	"explain --format json $log"
	"explain --format sarif $log"
	"lint testdata/lint/recall/pairs/cd113-set-device/hazard.py"
	"lint --format json internal/pycheck/rules/testdata"
	"rules device-assert-index"
	"env --no-python"
	"run -- sh -c 'cat $log >&2; exit 3'"
	"explain no-such-file.log"
)
export CUDADOCTOR_RERUN=0 NO_COLOR=1
n=0
for c in "${cases[@]}"; do
	n=$((n + 1))
	set +e
	eval "amd64 $c" >"$work/amd.out" 2>"$work/amd.err"
	amd_code=$?
	t0=$(date +%s.%N)
	eval "arm64 $c" >"$work/arm.out" 2>"$work/arm.err"
	arm_code=$?
	t1=$(date +%s.%N)
	set -e
	if [ "$c" = version ]; then
		# The one line that must differ: the platform Go built for.
		grep -q '^go: .* linux/arm64$' "$work/arm.out" || fail "arm64 version: $(cat "$work/arm.out")"
		sed -i 's|linux/arm64$|linux/amd64|' "$work/arm.out"
	fi
	if [ "$c" = "env --no-python" ]; then
		# dlerror's text under qemu sometimes lacks strerror's part.
		sed -i 's/: No such file or directory//g' "$work/amd.out" "$work/arm.out"
	fi
	[ "$arm_code" = "$amd_code" ] || fail "cudadoctor $c: arm64 exited $arm_code, amd64 $amd_code; arm64 stderr: $(head -c 600 "$work/arm.err")"
	cmp -s "$work/amd.out" "$work/arm.out" || { diff "$work/amd.out" "$work/arm.out" | head -20 >&2; fail "cudadoctor $c: stdout differs"; }
	cmp -s "$work/amd.err" "$work/arm.err" || { diff "$work/amd.err" "$work/arm.err" | head -20 >&2; fail "cudadoctor $c: stderr differs"; }
	printf 'ok: %-70.70s exit %s, %6d+%d bytes out+err, same on both; arm64 under qemu %.2fs\n' \
		"$c" "$arm_code" "$(wc -c <"$work/arm.out")" "$(wc -c <"$work/arm.err")" "$(echo "$t1 - $t0" | bc)"
done

# A few answers that must be there, so that two equally broken builds fail.
# (explain and lint exit 1 for what they find.)
arm64 explain "$log" >"$work/explain.txt" || true
head -1 "$work/explain.txt" | grep -q '^error\[device-assert-index\]' || fail "arm64 explain did not find device-assert-index"
arm64 lint --format json internal/pycheck/rules/testdata >"$work/lint.json" || true
python3 - "$work/lint.json" <<'PY' || fail "arm64 lint"
import json, sys
d = json.load(open(sys.argv[1]))
codes = sorted({f["rule"] for f in d["findings"]})
assert len(codes) >= 10 and "CD101" in codes, codes
print("ok: arm64 lint (tree-sitter through cgo) finds", len(d["findings"]), "hazards of", len(codes), "rules")
PY
set +e
arm64 run -- sh -c "cat $log >&2; exit 3" >/dev/null 2>"$work/run.err"
code=$?
set -e
[ "$code" = 3 ] && grep -q '^error\[device-assert-index\]' "$work/run.err" || fail "arm64 run: exit $code, $(tail -3 "$work/run.err")"
ok "arm64 run passes the child's exit 3 through and diagnoses its output"
arm64 version | head -1
echo "PASS: the arm64 build runs $n commands under qemu as the amd64 build does"
