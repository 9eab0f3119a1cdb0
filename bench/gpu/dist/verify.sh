#!/usr/bin/env bash
# Runs the two-GPU failure scenarios testdata/gpu/nccl/n5..n8 under torchrun with the NCCL Flight
# Recorder on for every rank, keeps each one's combined log and dumps under $OUT/<scenario>/, runs
# `./cudadoctor explain --format json` over each directory and prints
#   scenario | class | rank | origin | expected
# Everything ends up in $OUT/dist.tgz; the table and run facts in $OUT/summary.txt.
#
# Needs: a machine with 2 GPUs, ./cudadoctor built for it in the current directory (the repository
# root), torch with NCCL. Takes about 5-6 minutes; stops starting scenarios after 7.
set -uo pipefail

OUT=${OUT:?set OUT to the output directory}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
START=$(date +%s)
BUDGET=420 # seconds after which no new scenario starts

say() { echo "$*" | tee -a "$SUMMARY"; }

if [ -x /opt/torch/.venv/bin/python ]; then PY=/opt/torch/.venv/bin/python; else PY=python3; fi
if [ -x /opt/torch/.venv/bin/torchrun ]; then
	TORCHRUN=(/opt/torch/.venv/bin/torchrun)
else
	TORCHRUN=("$PY" -m torch.distributed.run)
fi
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
say "cudadoctor dist verification: $(date -u +%FT%TZ), ${NGPU} GPU(s), $("$PY" -c 'import torch; print("torch", torch.__version__, "nccl", ".".join(map(str, torch.cuda.nccl.version())))' 2>&1 | tail -1)"
if [ "${NGPU:-0}" -lt 2 ]; then
	say "needs 2 GPUs, found ${NGPU:-0}: nothing run"
	exit 1
fi
if [ ! -x ./cudadoctor ]; then
	say "no ./cudadoctor binary in $(pwd)"
	exit 1
fi

# run SCENARIO SCRIPT MODE [torchrun flags...]: one torchrun, Flight Recorder on all ranks (both
# the TORCH_FR_* names of torch >= 2.7 and the older TORCH_NCCL_* ones), a short dump wait so a
# timeout ends the job in well under a minute.
run() {
	local scen=$1 script=$2 mode=$3
	shift 3
	local elapsed=$(($(date +%s) - START))
	if [ "$elapsed" -gt "$BUDGET" ]; then
		say "skip $scen: ${elapsed}s spent"
		return
	fi
	local dir="$OUT/$scen"
	mkdir -p "$dir"
	local -a env=(
		TORCH_FR_BUFFER_SIZE=2000 TORCH_NCCL_TRACE_BUFFER_SIZE=2000
		TORCH_FR_DUMP_ON_TIMEOUT=1 TORCH_NCCL_DUMP_ON_TIMEOUT=1
		TORCH_FR_DUMP_TEMP_FILE="$dir/fr_rank_" TORCH_NCCL_DEBUG_INFO_TEMP_FILE="$dir/fr_rank_"
		TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC=5000
	)
	local log="$dir/torchrun.log"
	if [ "$mode" = detail ]; then
		env+=(TORCH_DISTRIBUTED_DEBUG=DETAIL)
		log="$dir/detail.log"
	fi
	local t0 rc
	t0=$(date +%s%N)
	env "${env[@]}" timeout -k 10 100 "${TORCHRUN[@]}" --standalone --nproc_per_node=2 "$@" "$script" >"$log" 2>&1
	rc=$?
	local ms=$((($(date +%s%N) - t0) / 1000000))
	printf '%s\t%s\texit %s\t%sms\tdumps: %s\n' "$scen" "$mode" "$rc" "$ms" \
		"$(cd "$dir" && ls fr_rank_* 2>/dev/null | tr '\n' ' ')" | tee -a "$SUMMARY"
}

N=testdata/gpu/nccl
# Crash scenarios: by default torchrun terminates the surviving rank at once, before its NCCL
# watchdog can dump (the plain runs); with a long monitor interval the survivor times out first
# and writes its Flight Recorder dump (the _fr runs).
run n5_rank_sigkill $N/n5_rank_sigkill.py plain
run n6_rank_oom $N/n6_rank_oom.py plain
run n7_barrier_skip $N/n7_barrier_skip.py plain
run n8_group_desync $N/n8_group_desync.py plain
run n5_rank_sigkill_fr $N/n5_rank_sigkill.py plain --monitor-interval=45
run n6_rank_oom_fr $N/n6_rank_oom.py plain --monitor-interval=45
run n8_group_desync_detail $N/n8_group_desync.py detail
run n7_barrier_skip_detail $N/n7_barrier_skip.py detail

# expected SCENARIO: class@rank[:script:line] of the true root cause.
fault() { grep -n '# FAULT' "$N/$1.py" | head -1 | cut -d: -f1; }
expected() {
	case $1 in
	n5_rank_sigkill*) echo "host-killed@1" ;;
	n6_rank_oom*) echo "oom@1:n6_rank_oom.py:$(fault n6_rank_oom)" ;;
	n7_barrier_skip*) echo "nccl-error@0:n7_barrier_skip.py:$(fault n7_barrier_skip)" ;;
	n8_group_desync*) echo "nccl-error@0:n8_group_desync.py:$(fault n8_group_desync)" ;;
	esac
}

mkdir -p "$OUT/explain"
say ""
say "scenario | class | rank | origin | expected | verdict"
for dir in "$OUT"/n*_*/; do
	[ -d "$dir" ] || continue
	scen=$(basename "$dir")
	./cudadoctor explain --format json "$dir" >"$OUT/explain/$scen.json" 2>"$OUT/explain/$scen.stderr"
	echo "exit $?" >>"$OUT/explain/$scen.stderr"
	got=$("$PY" - "$OUT/explain/$scen.json" <<'PYEOF'
import json, os, sys
try:
    fs = json.load(open(sys.argv[1])).get("findings") or []
except Exception as e:
    print("error | - | - | %s" % e); sys.exit()
if not fs:
    print("none | - | -"); sys.exit()
f = fs[0]
o = f.get("origin") or {}
origin = "%s:%s" % (os.path.basename(o["path"]), o.get("line", "")) if o.get("path") else "-"
print("%s | %s | %s" % (f.get("class") or f.get("rule"), f.get("rank", "-"), origin))
PYEOF
)
	exp=$(expected "$scen")
	cls=$(echo "$got" | cut -d'|' -f1 | tr -d ' ')
	rank=$(echo "$got" | cut -d'|' -f2 | tr -d ' ')
	origin=$(echo "$got" | cut -d'|' -f3 | tr -d ' ')
	want_origin=${exp#*:}
	[ "$want_origin" = "$exp" ] && want_origin=""
	verdict=ok
	[ "$cls@$rank" = "${exp%%:*}" ] || verdict=MISMATCH
	[ -z "$want_origin" ] || [ "$origin" = "$want_origin" ] || verdict=MISMATCH
	say "$scen | $got | $exp | $verdict"
done

say ""
say "total $(($(date +%s) - START))s"
tar -C "$OUT" -czf "$OUT/dist.tgz" $(cd "$OUT" && ls -d n*_* explain) summary.txt
# Only two files come back: drop what the archive holds.
rm -rf "$OUT"/n*_* "$OUT/explain"
ls -la "$OUT"
