#!/usr/bin/env bash
# Checks on a real GPU the behaviour that lint rules cite but that no fixture
# in testdata/gpu shows yet, then lints the same scripts.
#
# Run in the repository root with a prebuilt ./cudadoctor, python3 with
# torch and a CUDA GPU:   OUT=/some/dir bash bench/gpu/lint/verify.sh
# Everything goes under $OUT/lint/: vNNN_*.py (the scripts), vNNN_*.log
# (their output and exit code), lint.json (cudadoctor lint on them),
# summary.txt. Takes about a minute.
#
# Expected:
#   v101 stale reads > 0 of 50 (a non_blocking device-to-host copy read before
#        synchronising returns stale data); lint flags line "first = ..." CD101
#   v104 FutureWarning "torch.cuda.amp.custom_fwd(args...) is deprecated"; CD104
#   v105 RuntimeError "... unsafe to autocast"; CD105
#   v108 the unsynchronised time is much smaller than the synchronised one; CD108
#   v111 RuntimeError "Expected all tensors to be on the same device"; CD111
#   v112 with CUDA hidden, torch.load of a CUDA checkpoint fails without
#        map_location and works with map_location="cpu" (the loads run in a
#        child whose code is a string, so lint reports nothing for v112)
#   lint: 6 findings: CD101, CD104 x2, CD105, CD108, CD111
set -u
OUT=${OUT:-out}
dir="$OUT/lint"
mkdir -p "$dir"

cat > "$dir/v101_d2h_read.py" <<'PY'
import torch
bad = 0
for trial in range(50):
    busy = torch.randn(4096, 4096, device="cuda")
    for _ in range(20):
        busy = busy @ busy / 4096
    x = torch.full((32 << 20,), float(trial + 1), device="cuda") + busy[0, 0] * 0
    host = x.to("cpu", non_blocking=True)
    first = float(host[0])
    torch.cuda.synchronize()
    if first != float(trial + 1):
        bad += 1
print("stale reads:", bad, "of 50")
PY

cat > "$dir/v104_custom_fwd.py" <<'PY'
import warnings
import torch
warnings.simplefilter("always")


class Double(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        return g * 2


print(Double.apply(torch.ones(2, device="cuda", requires_grad=True)))
PY

cat > "$dir/v105_bce_autocast.py" <<'PY'
import torch
import torch.nn.functional as F
p = torch.rand(8, device="cuda")
y = torch.rand(8, device="cuda")
with torch.autocast("cuda", dtype=torch.float16):
    loss = F.binary_cross_entropy(p, y)
print("no error", loss)
PY

cat > "$dir/v108_timing.py" <<'PY'
import time
import torch
model = torch.nn.Sequential(*[torch.nn.Linear(8192, 8192) for _ in range(8)]).cuda()
x = torch.randn(4096, 8192, device="cuda")
model(x)
torch.cuda.synchronize()
t0 = time.perf_counter()
y = model(x)
unsynced = time.perf_counter() - t0
torch.cuda.synchronize()
t1 = time.perf_counter()
y = model(x)
torch.cuda.synchronize()
synced = time.perf_counter() - t1
print(f"unsynchronised {unsynced * 1e3:.2f} ms, synchronised {synced * 1e3:.2f} ms")
PY

cat > "$dir/v111_forward_device.py" <<'PY'
import torch
from torch import nn


class PosAdd(nn.Module):
    def forward(self, x):
        pos = torch.arange(x.shape[-1])
        return x + pos


print(PosAdd().cuda()(torch.randn(2, 8, device="cuda")))
PY

cat > "$dir/v112_load.py" <<'PY'
import os
import subprocess
import sys
import torch
path = os.path.join(os.environ.get("OUT_DIR", "."), "ckpt.pt")
torch.save({"w": torch.ones(3, device="cuda")}, path)
child = """
import sys, torch
try:
    torch.load(sys.argv[1])
    print("load without map_location: ok")
except Exception as e:
    print("load without map_location:", type(e).__name__, str(e).splitlines()[0])
print("load with map_location=cpu:", torch.load(sys.argv[1], map_location="cpu")["w"].device)
"""
env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
print(subprocess.run([sys.executable, "-c", child, path], env=env, capture_output=True, text=True).stdout)
PY

: > "$dir/summary.txt"
for f in "$dir"/v*.py; do
	log="${f%.py}.log"
	OUT_DIR="$dir" timeout 120 python3 "$f" > "$log" 2>&1
	echo "exit=$?" >> "$log"
	{ echo "== $(basename "$f")"; grep -E "stale|FutureWarning|unsafe|synchronised|Expected all|load with|exit=" "$log" | head -6; } >> "$dir/summary.txt"
done
./cudadoctor lint --format json --fail-on never "$dir" > "$dir/lint.json" 2> "$dir/lint.stderr"
./cudadoctor lint --fail-on never "$dir" >> "$dir/summary.txt" 2>&1
cat "$dir/summary.txt"
