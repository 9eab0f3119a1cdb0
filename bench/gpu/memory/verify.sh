#!/usr/bin/env bash
# GPU verification of 'cudadoctor memory' (run in the repo root of the GPU
# machine, with a prebuilt ./cudadoctor, python3 + torch, and $OUT set):
#
#   (a) the capture shim ('run --memory-snapshot' mechanism) on scenario
#       s28_leak_oom.py, run with plain python: a snapshot must be written on
#       the OOM and the analysis must find the leak and the OOM;
#       a program that never imports torch must not get torch imported;
#   (b) a large snapshot (about 1 GiB: many allocations with deep stacks) is
#       produced with torch and 'cudadoctor memory' is timed on it with
#       /usr/bin/time -v; peak RSS must stay within 3x the file size.
#
# Everything goes to $OUT; the summary is $OUT/summary.txt. Exit 0 when all
# checks pass. Budget: under 8 minutes.
set -uo pipefail
OUT=${OUT:?set OUT to the output directory}
mkdir -p "$OUT"
BIN=${BIN:-./cudadoctor}
TARGET_MB=${TARGET_MB:-1024}
summary="$OUT/summary.txt"
: > "$summary"
fail=0
say() { echo "$*" | tee -a "$summary"; }
check() { if eval "$2"; then say "PASS $1"; else say "FAIL $1"; fail=1; fi; }
start_all=$(date +%s)

say "== environment"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))' 2>&1 | tee -a "$summary"
"$BIN" --version | tee -a "$summary"

say "== (a) capture shim on s28_leak_oom.py"
cap="$OUT/capture"
rm -rf "$cap"
(
  eval "$("$BIN" memory --print-capture-env "$cap")"
  export CUDADOCTOR_MEMORY_STACKS=python
  python3 -c 'import sys; print("torch imported at start:", "torch" in sys.modules)' > "$OUT/a_notorch.txt" 2>&1
  t0=$(date +%s.%N)
  timeout 300 python3 testdata/gpu/scenarios/s28_leak_oom.py > "$OUT/a_s28.log" 2>&1
  echo "exit $?" >> "$OUT/a_s28.log"
  t1=$(date +%s.%N)
  echo "s28 wall seconds: $(python3 -c "print(round($t1 - $t0, 1))")" >> "$OUT/a_s28.log"
)
tail -3 "$OUT/a_s28.log" | tee -a "$summary"
check "non-torch program left alone" "grep -q 'torch imported at start: False' '$OUT/a_notorch.txt'"
check "s28 failed with an OOM" "grep -q 'OutOfMemoryError' '$OUT/a_s28.log'"
snap=$(ls -t "$cap"/*.pickle 2>/dev/null | head -1)
check "a snapshot was written on the OOM" "[ -n '$snap' ] && [ -s '$snap' ]"
if [ -n "$snap" ]; then
  ls -la "$cap" >> "$summary"
  "$BIN" memory --format json --html "$OUT/a_s28.html" "$snap" > "$OUT/a_s28.json" 2> "$OUT/a_s28.err"
  rc=$?
  "$BIN" memory --fail-on never "$snap" > "$OUT/a_s28.txt" 2>&1
  head -40 "$OUT/a_s28.txt" >> "$summary"
  check "analysis exit code 1 (errors found)" "[ $rc = 1 ]"
  check "leak found" "grep -q '\"rule\": \"memory/growth\"' '$OUT/a_s28.json'"
  check "OOM event found" "grep -q '\"rule\": \"memory/oom\"' '$OUT/a_s28.json'"
  check "leak attributed to s28_leak_oom.py" "grep -q 's28_leak_oom.py:6' '$OUT/a_s28.txt'"
fi

say "== (b) large snapshot (target ${TARGET_MB} MiB)"
cat > "$OUT/make_large.py" <<'PY'
import os, sys, time
import torch

path, n_allocs, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.cuda.memory._record_memory_history(max_entries=4_000_000, stacks="all")
keep = []

def level(n, i):
    if n == 0:
        t = torch.empty(512 * (1 + i % 97), dtype=torch.uint8, device="cuda")
        if i % 8 == 0:
            keep.append(t)
        return
    level(n - 1, i)

t0 = time.time()
for i in range(n_allocs):
    level(depth, i)
torch.cuda.synchronize()
t1 = time.time()
torch.cuda.memory._dump_snapshot(path)
t2 = time.time()
print("allocs %d depth %d record %.1fs dump %.1fs size %d" % (n_allocs, depth, t1 - t0, t2 - t1, os.path.getsize(path)))
# Recording cost per allocation only: the dump's cost is mostly fixed
# (seconds whatever the size), so charging it per allocation would shrink
# the large snapshot far below its target.
print("SECONDS_PER_ALLOC %.9f" % ((t1 - t0) / n_allocs))
PY
depth=24
calib="$OUT/calib.pickle"
timeout 120 python3 "$OUT/make_large.py" "$calib" 4000 $depth > "$OUT/b_calib.txt" 2>&1
cat "$OUT/b_calib.txt" | tee -a "$summary"
csize=$(stat -c %s "$calib" 2>/dev/null || echo 0)
rm -f "$calib"
if [ "$csize" -gt 0 ]; then
  n=$(( TARGET_MB * 1024 * 1024 / (csize / 4000) ))
  # Keep the recording within about 200 s, whatever the machine (the dump of
  # a 1 GiB snapshot adds about two minutes more).
  spa=$(awk '/SECONDS_PER_ALLOC/ {print $2}' "$OUT/b_calib.txt")
  n=$(python3 -c "print(min($n, int(200 / max($spa, 1e-9))))")
  say "allocations for the large snapshot: $n"
  big="$OUT/large.pickle"
  timeout 400 python3 "$OUT/make_large.py" "$big" "$n" $depth > "$OUT/b_make.txt" 2>&1
  cat "$OUT/b_make.txt" | tee -a "$summary"
  if [ -s "$big" ]; then
    size=$(stat -c %s "$big")
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -v "$BIN" memory --format json --fail-on never "$big" > "$OUT/b_large.json" 2> "$OUT/b_time.txt"
      rc=$?
    else
      # Same numbers from the kernel's accounting of the child.
      python3 - "$BIN" "$big" > "$OUT/b_large.json" 2> "$OUT/b_time.txt" <<'PY'
import resource, subprocess, sys, time
t0 = time.time()
rc = subprocess.call([sys.argv[1], "memory", "--format", "json", "--fail-on", "never", sys.argv[2]])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write("Maximum resident set size (kbytes): %d\nElapsed (wall clock) time (h:mm:ss or m:ss): %.2f\nUser time (seconds): %.2f\n" % (ru.ru_maxrss, time.time() - t0, ru.ru_utime))
sys.exit(rc)
PY
      rc=$?
    fi
    rss_kb=$(grep 'Maximum resident set size' "$OUT/b_time.txt" | awk '{print $NF}')
    wall=$(grep 'Elapsed (wall clock)' "$OUT/b_time.txt" | awk '{print $NF}')
    user=$(grep 'User time' "$OUT/b_time.txt" | awk '{print $NF}')
    ratio=$(python3 -c "print(round($rss_kb * 1024 / $size, 2))")
    say "large snapshot: $size bytes; cudadoctor exit $rc, wall $wall, user ${user}s, max RSS ${rss_kb} KB, RSS/file = $ratio"
    grep -o '"peak_allocated_bytes": [0-9]*' "$OUT/b_large.json" | head -1 | tee -a "$summary"
    check "large snapshot analysed" "[ $rc = 0 ]"
    check "peak RSS <= 3x file size" "python3 -c 'import sys; sys.exit(0 if $ratio <= 3 else 1)'"
    rm -f "$big"
  else
    say "FAIL no large snapshot produced"; fail=1
  fi
else
  say "FAIL calibration produced no snapshot"; fail=1
fi
say "total seconds: $(( $(date +%s) - start_all ))"
exit $fail
