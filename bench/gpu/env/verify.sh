#!/usr/bin/env bash
# Verifies `cudadoctor env` on a real GPU machine and records its output as
# testdata. Run from the repository root with a prebuilt ./cudadoctor:
#
#   OUT=/some/dir bash bench/gpu/env/verify.sh
#
# Needs: python3 with torch (2.11+cu130 expected; /opt/torch/.venv is used
# when present), the NVIDIA driver. No Go, no network. Takes about 2 minutes.
#
# Expected verdicts (exit code, first finding):
#   plain.*                 exit 0, no error finding; every check passes (the
#                           system cuDNN 9.14 is listed as installed but unused)
#   nopython.*              exit 0, driver-side checks only
#   cvd-empty.*             CUDA_VISIBLE_DEVICES=""  -> exit 1, env/cuda-available, class cuda-unavailable
#   cvd-5.*                 CUDA_VISIBLE_DEVICES=5   -> exit 1, env/visible-devices, class invalid-device-ordinal
#   ld-preload-cudnn.*      LD_PRELOAD=<system libcudnn.so.9 (9.14)> -> exit 1, env/library-mismatch,
#                           class library-mismatch (torch maps the system cuDNN instead of its wheel's 9.19)
#   timing.txt              wall time of `cudadoctor env` (with the probe), `--no-python`, and
#                           `python -m torch.utils.collect_env`, 3 runs each
set -u
OUT="${OUT:?set OUT to the output directory}"
D="$OUT/env"
mkdir -p "$D"
BIN=./cudadoctor
[ -x "$BIN" ] || { echo "no ./cudadoctor in $(pwd)" >&2; exit 2; }

if [ -x /opt/torch/.venv/bin/python3 ]; then
	PY=/opt/torch/.venv/bin/python3
else
	PY=$(command -v python3 || command -v python)
fi
echo "python: $PY" | tee "$D/python.txt"
"$PY" -c 'import torch; print(torch.__version__, torch.version.cuda)' >>"$D/python.txt" 2>&1

CUDNN=/lib/x86_64-linux-gnu/libcudnn.so.9
if [ ! -e "$CUDNN" ]; then
	CUDNN=$(ldconfig -p 2>/dev/null | awk '$1 == "libcudnn.so.9" {print $NF; exit}')
fi
echo "system cudnn: ${CUDNN:-none} -> $(readlink -f "${CUDNN:-/nonexistent}" 2>/dev/null)" | tee -a "$D/python.txt"

# Raw facts next to the verdicts, so the outputs can become testdata.
nvidia-smi -q -x >"$D/nvidia-smi-q.xml" 2>&1
ldconfig -p >"$D/ldconfig.txt" 2>&1
env | grep -E '^(CUDA|LD_|NCCL|TORCH|PYTORCH|NVIDIA|PATH=)' | sort >"$D/env-vars.txt"

# run NAME [VAR=VALUE...] -- ARGS...: text and JSON of one configuration.
run() {
	local name=$1
	shift
	local vars=()
	while [ "$1" != "--" ]; do
		vars+=("$1")
		shift
	done
	shift
	env "${vars[@]}" "$BIN" env --color never "$@" >"$D/$name.txt" 2>"$D/$name.stderr"
	echo $? >"$D/$name.exit"
	env "${vars[@]}" "$BIN" env --format json "$@" >"$D/$name.json" 2>>"$D/$name.stderr"
	echo $? >>"$D/$name.exit"
}

run plain -- --python "$PY"
run nopython -- --no-python
run cvd-empty CUDA_VISIBLE_DEVICES= -- --python "$PY"
run cvd-5 CUDA_VISIBLE_DEVICES=5 -- --python "$PY"
if [ -n "${CUDNN:-}" ]; then
	run ld-preload-cudnn "LD_PRELOAD=$CUDNN" -- --python "$PY"
fi

# Verdicts: exit code and first finding of each JSON report.
check() {
	local name=$1 want_exit=$2 want_rule=$3 want_class=$4
	[ -f "$D/$name.json" ] || { echo "MISSING $name" | tee -a "$D/verdicts.txt"; return; }
	local got
	got=$("$PY" - "$D/$name.json" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
errs = [f for f in doc["findings"] if f["severity"] == "error"]
print(errs[0]["rule"] + " " + errs[0].get("class", "") if errs else "- -")
PYEOF
)
	local exit_code
	exit_code=$(head -1 "$D/$name.exit")
	if [ "$exit_code" = "$want_exit" ] && [ "$got" = "$want_rule $want_class" ]; then
		echo "OK       $name: exit $exit_code, $got" | tee -a "$D/verdicts.txt"
	else
		echo "UNEXPECTED $name: exit $exit_code (want $want_exit), got '$got' (want '$want_rule $want_class')" | tee -a "$D/verdicts.txt"
	fi
}
: >"$D/verdicts.txt"
check plain 0 - -
check nopython 0 - -
check cvd-empty 1 env/cuda-available cuda-unavailable
check cvd-5 1 env/visible-devices invalid-device-ordinal
[ -n "${CUDNN:-}" ] && check ld-preload-cudnn 1 env/library-mismatch library-mismatch

# The probe's answer of each run, in the form testdata/env/<case>/probe.json takes.
for j in "$D"/*.json; do
	"$PY" - "$j" "$D/probe-$(basename "$j")" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
py = doc.get("environment", {}).get("python")
if py:
    json.dump(py, open(sys.argv[2], "w"), indent=1)
PYEOF
done

# Timings: cudadoctor env (with the probe), --no-python, and collect_env.
t() {
	local label=$1
	shift
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	"$PY" -c "print('%-40s %.3f s' % ('$label', $e - $s))" | tee -a "$D/timing.txt"
}
: >"$D/timing.txt"
for i in 1 2 3; do
	t "cudadoctor env #$i" "$BIN" env --python "$PY"
	t "cudadoctor env --no-python #$i" "$BIN" env --no-python
	t "python -m torch.utils.collect_env #$i" "$PY" -m torch.utils.collect_env
done
echo "done: $D"
