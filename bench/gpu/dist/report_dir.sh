#!/usr/bin/env bash
# The cluster flow of `cudadoctor run --report-dir`, on one host with two GPUs:
# two torchrun "nodes" (--nnodes=2, one process each, static rendezvous on
# loopback), each wrapped in `cudadoctor run --report-dir DIR`, run the
# n2 scenario (rank 1 hits a device-side assert, rank 0 times out in
# all_reduce). Then `cudadoctor explain DIR` must merge the two per-node
# reports into one verdict: device-assert-index on rank 1, rank 0's timeout a
# consequence.
#
#   OUT=/some/dir bash bench/gpu/dist/report_dir.sh     (repo root, ./cudadoctor built)
#
# Takes about a minute and a half. Everything lands in $OUT/report_dir.tgz and
# $OUT/report_dir.txt.
set -uo pipefail
OUT=${OUT:?set OUT to the output directory}
W="$OUT/report_dir"
mkdir -p "$W/reports"
if [ -x /opt/torch/.venv/bin/torchrun ]; then TORCHRUN=(/opt/torch/.venv/bin/torchrun); else TORCHRUN=(python3 -m torch.distributed.run); fi
[ -x ./cudadoctor ] || { echo "no ./cudadoctor in $(pwd)" >&2; exit 3; }
for node in 0 1; do
	timeout -k 10 180 ./cudadoctor run --report-dir "$W/reports" -- "${TORCHRUN[@]}" \
		--nnodes=2 --nproc_per_node=1 --node_rank=$node --master_addr=127.0.0.1 --master_port=29571 \
		testdata/gpu/nccl/n2_rank_crash.py >"$W/node$node.log" 2>&1 &
done
wait
{
	echo "reports:"; ls "$W/reports"
	for node in 0 1; do echo "node $node exit: $(grep -c . "$W/node$node.log") lines"; done
	./cudadoctor explain --format json "$W/reports" >"$W/explain.json"; echo "explain --format json exit $?"
	./cudadoctor explain "$W/reports" | tee "$W/explain.txt"
} >"$OUT/report_dir.txt" 2>&1
tar -C "$OUT" -czf "$OUT/report_dir.tgz" report_dir && rm -rf "$W"
cat "$OUT/report_dir.txt"
