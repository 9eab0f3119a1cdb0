#!/usr/bin/env bash
# Measures what `cudadoctor run` costs over running a command directly:
#   1. throughput: 1 GiB through `run -- cat` vs plain `cat` (both into /dev/null);
#      the target is within 10%.
#   2. start-up: `run -- true` vs `true`; the target is under 10 ms added.
# Usage (repo root): bench/run/bench.sh [./cudadoctor]   (needs hyperfine)
# Results go to bench/out/run/ as hyperfine JSON and a summary.
set -euo pipefail
BIN=${1:-./cudadoctor}
SIZE=${SIZE:-1G}
RUNS=${RUNS:-10}
OUTDIR=${OUTDIR:-bench/out/run}
mkdir -p "$OUTDIR"
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)" >&2; exit 3; }
[ -x "$BIN" ] || { echo "no binary at $BIN (go build -o cudadoctor ./cmd/cudadoctor)" >&2; exit 3; }

echo "== throughput: $SIZE through the pipe (cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg))"
hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$OUTDIR/throughput.json" \
  -n plain "bash -c 'head -c $SIZE /dev/zero | cat > /dev/null'" \
  -n wrapped "bash -c 'head -c $SIZE /dev/zero | $BIN run -- cat > /dev/null'"

echo "== start-up: run -- true vs true"
hyperfine -N --warmup 20 --runs "$((RUNS * 20))" --export-json "$OUTDIR/startup.json" \
  -n plain "true" \
  -n wrapped "$BIN run -- true"

python3 - "$OUTDIR" <<'PY'
import json, sys
d = sys.argv[1]
def res(name):
    r = json.load(open(f"{d}/{name}.json"))["results"]
    return {x["command"]: x for x in r}
t = res("throughput"); s = res("startup")
tp, tw = t["plain"]["median"], t["wrapped"]["median"]
sp, sw = s["plain"]["median"], s["wrapped"]["median"]
lines = [
    f"throughput: plain {tp*1000:.0f} ms, wrapped {tw*1000:.0f} ms (median): +{(tw/tp-1)*100:.1f}% (target <= 10%)",
    f"start-up:   plain {sp*1000:.2f} ms, wrapped {sw*1000:.2f} ms (median): +{(sw-sp)*1000:.2f} ms (target < 10 ms)",
]
open(f"{d}/summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
