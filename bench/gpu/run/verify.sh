#!/usr/bin/env bash
# GPU verification of `cudadoctor run` (localisation of asynchronous CUDA errors).
# Runs in the repository root of the GPU machine with a prebuilt ./cudadoctor:
#   OUT=/some/dir bash bench/gpu/run/verify.sh
# For every scenario whose failure CUDA reports asynchronously (and s22, whose in-place
# write autograd reports at backward()) it runs
#   ./cudadoctor run --report $OUT/<s>.json -- python3 testdata/gpu/scenarios/<s>.py
# (stdout+stderr saved to $OUT/<s>.txt), plus a healthy scenario (s19, compared with a
# direct run), --sanitize on s09, a byte-exact passthrough check, Ctrl-C fidelity,
# --memory-snapshot on s28 (out of memory), and bench/run/bench.sh. Prints a table: scenario | exit | class | reported | origin | FAULT.
# Needs: python3 with torch (found at /opt/torch/.venv/bin/python or on PATH),
# compute-sanitizer (on PATH or under /usr/local/cuda*/bin). No network, no Go.
# Takes about 3-5 minutes (each case is capped at 4 minutes).
set -uo pipefail
OUT=${OUT:?set OUT to a directory for the results}
mkdir -p "$OUT/bin"
[ -x ./cudadoctor ] || { echo "no ./cudadoctor in $(pwd)" >&2; exit 3; }
SCEN=testdata/gpu/scenarios
START=$(date +%s)

# python3 with torch: the venv's, else the one on PATH; exposed as "python3".
PY=""
for c in /opt/torch/.venv/bin/python "$(command -v python3 || true)"; do
  if [ -n "$c" ] && [ -x "$c" ] && "$c" -c 'import torch' 2>/dev/null; then PY=$c; break; fi
done
[ -n "$PY" ] || { echo "no python3 with torch found" >&2; exit 3; }
# A wrapper, not a symlink: a venv's python found through a symlink elsewhere
# no longer sees its pyvenv.cfg, so it would lose the venv's packages.
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" > "$OUT/bin/python3"
chmod +x "$OUT/bin/python3"
export PATH="$OUT/bin:$PATH"
SAN=$(command -v compute-sanitizer || ls -d /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1 || true)
[ -n "$SAN" ] && export PATH="$PATH:$(dirname "$SAN")"
{
  echo "python: $PY ($("$PY" -c 'import torch; print(torch.__version__, torch.version.cuda)' 2>/dev/null))"
  echo "compute-sanitizer: ${SAN:-not found}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  ./cudadoctor --version
} | tee "$OUT/setup.txt"

run_case() { # name, then cudadoctor arguments
  local name=$1; shift
  local t0=$(date +%s.%N)
  timeout 240 ./cudadoctor run --report "$OUT/$name.json" "$@" > "$OUT/$name.txt" 2>&1
  echo $? > "$OUT/$name.exit"
  echo "$name: exit $(cat "$OUT/$name.exit") in $(python3 -c "import time; print(round(time.time()-$t0,1))")s"
}

for s in s01_embedding_oob s02_index_oob s03_ce_target_oob s04_bce_range s09_triton_illegal s10_cupy_misaligned s23_multinomial_nan s22_inplace_autograd s19_seed_amp_masked; do
  run_case "$s" -- python3 "$SCEN/$s.py"
done
run_case s09_triton_illegal.sanitize --sanitize --rerun-timeout 200s -- python3 "$SCEN/s09_triton_illegal.py"

# A successful run is untouched: same exit status and output as a direct run
# (s19 prints a loss value that may differ in the last digits between runs).
python3 "$SCEN/s19_seed_amp_masked.py" > "$OUT/s19_direct.txt" 2>&1; echo $? > "$OUT/s19_direct.exit"

# Byte-exact passthrough of 100 MB of random bytes on stdout.
head -c 100000000 /dev/urandom > "$OUT/random.bin"
a=$(sha256sum < "$OUT/random.bin" | cut -c1-16)
b=$(./cudadoctor run -- cat "$OUT/random.bin" | sha256sum | cut -c1-16)
rm -f "$OUT/random.bin"
echo "passthrough sha256: direct $a, through run $b" | tee "$OUT/passthrough.txt"

# --memory-snapshot: the leaking scenario runs out of memory; the wrapper's capture must
# write a snapshot and the report must hold the output's oom finding, then memory/* findings.
mkdir -p "$OUT/snaps"
timeout 300 ./cudadoctor run --memory-snapshot "$OUT/snaps" --report "$OUT/s28_memsnap.json" -- \
    python3 "$SCEN/s28_leak_oom.py" > "$OUT/s28_memsnap.txt" 2>&1; echo $? > "$OUT/s28_memsnap.exit"
python3 - "$OUT" <<'PY' | tee -a "$OUT/s28_memsnap.txt"
import json, os, sys
out = sys.argv[1]
snaps = sorted(os.listdir(f"{out}/snaps"))
try:
    rules = [f["rule"] for f in json.load(open(f"{out}/s28_memsnap.json"))["findings"]]
except Exception as e:
    rules = [f"no report: {e}"]
ok = bool(snaps) and rules[:1] and not rules[0].startswith("memory/") and any(r.startswith("memory/") for r in rules)
print(f"memory-snapshot ({'ok' if ok else 'FAIL'}): snapshots {snaps}; findings {rules}")
PY

# Ctrl-C fidelity: SIGINT must end the wrapped command exactly as it ends the command run
# directly, under the same conditions. A script's background job starts with SIGINT
# ignored (no job control), so the check runs twice: with job control (`set -m`: the job
# gets its own process group and SIGINT is not ignored; python dies of it, 130) and
# without (SIGINT ignored and inherited; python sleeps on and exits 0).
: > "$OUT/sigint.txt"
sigint_case() {  # $1: sleep seconds; rest: prefix ("" or the wrapper); sets $status
    local secs=$1; shift
    "$@" python3 -c "import time; print('sleeping', flush=True); time.sleep($secs)" >> "$OUT/sigint.txt" 2>&1 &
    local pid=$!; sleep 3; kill -INT $pid; wait $pid; status=$?
}
set -m
sigint_case 30;                       direct=$status
sigint_case 30 ./cudadoctor run --;   wrapped=$status
set +m
sigint_case 6;                        direct_ign=$status
sigint_case 6 ./cudadoctor run --;    wrapped_ign=$status
verdict=ok; [ "$direct" = "$wrapped" ] && [ "$direct_ign" = "$wrapped_ign" ] || verdict=MISMATCH
echo "SIGINT ($verdict): job control: direct exit $direct, wrapped $wrapped (want equal, 130); SIGINT ignored: direct $direct_ign, wrapped $wrapped_ign (want equal, 0)" | tee -a "$OUT/sigint.txt"

# Overhead of the wrapper (throughput and start-up).
OUTDIR="$OUT/bench" bash bench/run/bench.sh ./cudadoctor > "$OUT/bench.txt" 2>&1 || echo "bench failed, see $OUT/bench.txt"

python3 - "$OUT" "$SCEN" <<'PY' | tee "$OUT/table.md"
import json, os, re, sys
out, scen = sys.argv[1], sys.argv[2]
def fault(s):
    for i, l in enumerate(open(f"{scen}/{s}.py"), 1):
        if "# FAULT" in l:
            return i
    return None
def loc(l):
    return f"{os.path.basename(l['path'])}:{l['line']}" if l else "-"
print("| scenario | exit | class | reported | origin | FAULT line | ok |")
print("|---|---|---|---|---|---|---|")
cases = ["s01_embedding_oob", "s02_index_oob", "s03_ce_target_oob", "s04_bce_range", "s09_triton_illegal",
         "s10_cupy_misaligned", "s23_multinomial_nan", "s22_inplace_autograd", "s09_triton_illegal.sanitize", "s19_seed_amp_masked"]
for c in cases:
    s = c.split(".")[0]
    code = open(f"{out}/{c}.exit").read().strip()
    try:
        rep = json.load(open(f"{out}/{c}.json"))
    except Exception as e:
        print(f"| {c} | {code} | (no report: {e}) | | | {fault(s)} | NO |"); continue
    f = rep["findings"][0] if rep["findings"] else {}
    origin = f.get("origin"); want = fault(s)
    if s == "s19_seed_amp_masked":
        direct = open(f"{out}/s19_direct.exit").read().strip()
        txt = open(f"{out}/{c}.txt").read()
        ok = code == direct == "0" and not f and "cudadoctor" not in txt
        print(f"| {c} (healthy; direct exit {direct}) | {code} | - | - | - | - | {'yes' if ok else 'NO'} |"); continue
    ok = bool(origin) and origin["line"] == want and os.path.basename(origin["path"]) == s + ".py"
    extra = ""
    if c.endswith("sanitize"):
        facts = f.get("facts", {})
        extra = f" kernel {facts.get('kernel')} at {facts.get('kernel_source')}"
        ok = ok and str(facts.get("kernel_source", "")).endswith(":9")
    print(f"| {c} | {code} | {f.get('class', '-')}{extra} | {loc(f.get('reported'))} | {loc(origin)} | {want} | {'yes' if ok else 'NO'} |")
PY
echo
cat "$OUT/bench/summary.txt" 2>/dev/null
echo "total $(( $(date +%s) - START ))s; transcripts, reports and table in $OUT"
