#!/usr/bin/env bash
# Times `cudadoctor explain` against grep on a 1 GiB training log made of
# real fixture noise with a real failure at its end, and reports wall time
# and peak memory of both. Usage: bench/explain/bench.sh [SIZE_MiB]
# The log is written to a temporary directory, never into the repository.
# CUDADOCTOR=path and GENLOG=path use prebuilt binaries instead of go.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mib=${1:-1024}
if [ ! -x /usr/bin/time ]; then
	echo "bench: /usr/bin/time is missing (apt-get install time)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CUDADOCTOR and GENLOG name prebuilt binaries (a machine without Go).
if [ -n "${CUDADOCTOR:-}" ]; then cp "$CUDADOCTOR" "$tmp/cudadoctor"; else go build -o "$tmp/cudadoctor" ./cmd/cudadoctor; fi
if [ -n "${GENLOG:-}" ]; then "$GENLOG" -root . -size $((size_mib * 1024 * 1024)) -o "$tmp/train.log"
else go run ./bench/explain/genlog -root . -size $((size_mib * 1024 * 1024)) -o "$tmp/train.log"; fi
ls -l "$tmp/train.log" | awk '{printf "log: %.0f MiB\n", $5/1048576}'

measure() { # name, command...: best wall time of 3 runs, peak RSS
	local name=$1; shift
	local best="" rss=0
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" >"$tmp/out" 2>/dev/null || true
		read -r wall kb < <(tail -n 1 "$tmp/t") # time notes a non-zero exit on a line before
		if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall; fi
		if [ "$kb" -gt "$rss" ]; then rss=$kb; fi
	done
	printf "%-10s %6.2f s   max RSS %6.1f MiB\n" "$name" "$best" "$(awk "BEGIN{print $rss/1024}")"
	echo "$best" >"$tmp/$name.wall"
	echo "$rss" >"$tmp/$name.rss"
}

cat "$tmp/train.log" >/dev/null # warm the page cache for both
measure grep grep -E "CUDA error|out of memory|NCCL error|Assertion|Traceback|Watchdog caught" "$tmp/train.log"
measure explain "$tmp/cudadoctor" explain --format json "$tmp/train.log"
# The diagnosis must be the failure at the end of the log (fixture n2: rank 1's index error).
class=$(grep -o '"class": "[^"]*"' "$tmp/out" | head -n 1 | cut -d'"' -f4)
echo "diagnosis: ${class:-none} (want device-assert-index)"
[ "$class" = device-assert-index ] || { echo "bench: wrong diagnosis" >&2; exit 1; }
g=$(cat "$tmp/grep.wall"); e=$(cat "$tmp/explain.wall"); r=$(cat "$tmp/explain.rss")
awk -v g="$g" -v e="$e" -v r="$r" 'BEGIN{
	ratio = (g > 0) ? e / g : 0
	printf "explain/grep = %.2f (target <= 1.5), explain max RSS %.1f MiB (target <= 64)\n", ratio, r/1024
	exit !(ratio <= 1.5 && r <= 65536)
}'
