#!/usr/bin/env bash
# What `cudadoctor run` costs as one stage of a pipeline: SIZE (default 300 MB)
# of a file through `run -- cat` into sha256sum, against the same pipeline with
# a plain `cat` in its place (one extra pipe stage):
#   baseline: cat FILE | cat                     | sha256sum
#   wrapped:  cat FILE | cudadoctor run -- cat   | sha256sum
# Target: wrapped within 1.1x of baseline (median wall time). CPU time
# (user+sys of the whole pipeline) is printed too: on a busy machine it moves
# less than wall time; the CPU of the middle stage alone (cat, or the wrapper
# with its child cat, through /usr/bin/time) is printed last: it is what the
# wrapper adds, and the figure a loaded machine disturbs least. Two inputs:
# random bytes, and text shaped like training
# output. The wrapper's stdout is a pipe here, which is the case `run` passes
# on with tee(2) on Linux.
# Usage, in the repository root:  bench/passthrough/bench.sh [path/to/cudadoctor]
# Needs python3, sha256sum and /usr/bin/time. Writes $OUTDIR/summary.txt (bench/out/passthrough).
set -euo pipefail
BIN=${1:-./cudadoctor}
SIZE=${SIZE:-300000000}
RUNS=${RUNS:-9}
OUTDIR=${OUTDIR:-bench/out/passthrough}
mkdir -p "$OUTDIR"
[ -x "$BIN" ] || { echo "no binary at $BIN (go build -o cudadoctor ./cmd/cudadoctor)" >&2; exit 3; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

python3 - "$BIN" "$SIZE" "$RUNS" "$OUTDIR" <<'PY'
import os, resource, statistics, subprocess, sys, time
bin_, size, runs, outdir = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def make(name, gen):
    path = os.path.join(outdir, name)
    if not os.path.exists(path) or os.path.getsize(path) != size:
        with open(path + ".part", "wb") as f:
            left = size
            while left > 0:
                b = gen(min(left, 1 << 20))
                f.write(b)
                left -= len(b)
        os.rename(path + ".part", path)
    return path

line = b"step 1200 | loss 2.3451 | lr 3.0e-04 | tokens/s 125034 | grad-norm 0.82\n"
def text(n):
    return (line * (n // len(line) + 1))[:n]
inputs = [("random", make("random.bin", os.urandom)), ("text", make("text.log", text))]

stage_file = os.path.join(outdir, "stage.time")
def timed(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, shell=True, executable="/bin/bash", stdout=subprocess.PIPE, check=True).stdout
    dt = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    u, s = map(float, open(stage_file).read().split()[-2:])
    return dt, cpu, out.split()[0], u + s

load = open("/proc/loadavg").read().split()[:3]
lines = [f"machine: {os.cpu_count()} CPUs, load {' '.join(load)}; {size} bytes, median of {runs}"]
for name, path in inputs:
    stage = f"/usr/bin/time -f '%U %S' -o {stage_file}"
    plain = f"set -o pipefail; cat {path} | {stage} cat | sha256sum"
    wrapped = f"set -o pipefail; cat {path} | {stage} {bin_} run -- cat | sha256sum"
    timed(plain); timed(wrapped)  # warm the page cache and the binary
    p, w = [], []
    for _ in range(runs):  # alternate, so load changes hit both alike
        a, b = timed(plain), timed(wrapped)
        if a[2] != b[2]:
            sys.exit(f"{name}: the wrapped pipeline's checksum differs: {a[2]} vs {b[2]}")
        p.append(a); w.append(b)
    pw, ww = statistics.median(x[0] for x in p), statistics.median(x[0] for x in w)
    pc, wc = statistics.median(x[1] for x in p), statistics.median(x[1] for x in w)
    lines.append(f"{name}: extra cat {pw*1e3:.0f} ms, run -- cat {ww*1e3:.0f} ms: {ww/pw:.2f}x wall "
                 f"(best {min(x[0] for x in w)/min(x[0] for x in p):.2f}x; target <= 1.10x); "
                 f"CPU {pc:.2f} s vs {wc:.2f} s: {wc/pc:.2f}x; "
                 f"stage CPU {statistics.median(x[3] for x in p):.2f} s vs {statistics.median(x[3] for x in w):.2f} s")
open(os.path.join(outdir, "summary.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
