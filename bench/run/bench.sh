#!/usr/bin/env bash
# Measures what `cudadoctor run` costs over running a command directly:
#   1. throughput: SIZE (default 1 GiB) of /dev/zero through `run -- cat` vs plain
#      `cat`, both into /dev/null; target: within 10%. Also text lines, for reference.
#   2. start-up: `run -- true` vs `true`; target: under 10 ms added.
# Usage, in the repository root:  bench/run/bench.sh [path/to/cudadoctor]
# Needs python3 only (hyperfine is not required). Writes bench/out/run/summary.txt
# (or $OUTDIR/summary.txt).
set -euo pipefail
BIN=${1:-./cudadoctor}
SIZE=${SIZE:-1G}
RUNS=${RUNS:-7}
STARTS=${STARTS:-200}
OUTDIR=${OUTDIR:-bench/out/run}
mkdir -p "$OUTDIR"
[ -x "$BIN" ] || { echo "no binary at $BIN (go build -o cudadoctor ./cmd/cudadoctor)" >&2; exit 3; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

python3 - "$BIN" "$SIZE" "$RUNS" "$STARTS" "$OUTDIR" <<'PY'
import os, statistics, subprocess, sys, time
bin_, size, runs, starts, outdir = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

def timed(cmd, shell):
    t = time.perf_counter()
    r = subprocess.run(cmd, shell=shell, executable="/bin/bash" if shell else None,
                       stdout=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"command failed ({r.returncode}): {cmd}")
    return dt

def compare(name, plain, wrapped, n, shell):
    for _ in range(2):  # warm-up
        timed(plain, shell); timed(wrapped, shell)
    p, w = [], []
    for _ in range(n):  # alternate, so load changes hit both alike
        p.append(timed(plain, shell)); w.append(timed(wrapped, shell))
    return name, statistics.median(p), statistics.median(w), min(p), min(w)

text = os.path.join(outdir, "text.log")
if not os.path.exists(text):
    line = b"step 1200 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82\n"
    with open(text, "wb") as f:
        f.write(line * ((256 << 20) // len(line)))

rows = [
    compare(f"throughput {size} zeros", f"head -c {size} /dev/zero | cat > /dev/null",
            f"head -c {size} /dev/zero | {bin_} run -- cat > /dev/null", runs, True),
    compare("throughput 256 MiB text", f"cat {text} | cat > /dev/null",
            f"cat {text} | {bin_} run -- cat > /dev/null", runs, True),
    compare("start-up", ["true"], [bin_, "run", "--", "true"], starts, False),
    # The binary's own start (runtime, package initialisation), for reference.
    compare("start-up of the binary alone", ["true"], [bin_, "--version"], starts, False),
]
load = open("/proc/loadavg").read().split()[:3]
lines = [f"machine: {os.cpu_count()} CPUs, load {' '.join(load)}"]
for name, mp, mw, lp, lw in rows:
    if name.startswith("start-up"):
        lines.append(f"{name}: plain {mp*1e3:.2f} ms, wrapped {mw*1e3:.2f} ms (median of {starts}); "
                     f"added {1e3*(mw-mp):.2f} ms median, {1e3*(lw-lp):.2f} ms best" + (" (target < 10 ms)" if name == "start-up" else ""))
    else:
        lines.append(f"{name}: plain {mp*1e3:.0f} ms, wrapped {mw*1e3:.0f} ms (median of {runs}); "
                     f"+{100*(mw/mp-1):.1f}% median, +{100*(lw/lp-1):.1f}% best (target <= 10% for zeros)")
open(os.path.join(outdir, "summary.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
