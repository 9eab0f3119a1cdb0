#!/usr/bin/env bash
# Wall time of `cudadoctor env --no-python` on this machine: 20 runs after one
# warm-up; prints min/median/max next to the same numbers for
# `cudadoctor --version` (process start-up alone, to show how loaded the
# machine is). Fails when the fastest run exceeds 100 ms; when start-up alone
# takes over 50 ms the machine is too loaded to judge (exit 2).
#   bash bench/env/nopython.sh [path/to/cudadoctor]
set -eu
BIN=${1:-}
if [ -z "$BIN" ]; then
	BIN=$(mktemp -d)/cudadoctor
	go build -o "$BIN" ./cmd/cudadoctor
fi
measure() {
	local times=() s e
	"$BIN" "$@" >/dev/null 2>&1 || true
	for _ in $(seq 20); do
		s=$(date +%s%N)
		"$BIN" "$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		times+=($(((e - s) / 1000000)))
	done
	sorted=($(printf '%s\n' "${times[@]}" | sort -n))
	echo "$*: min ${sorted[0]} ms, median ${sorted[10]} ms, max ${sorted[19]} ms (20 runs)"
}
measure --version
baseline=${sorted[0]}
measure env --no-python
if [ "${sorted[0]}" -gt 100 ]; then
	if [ "$baseline" -gt 50 ]; then
		echo "INCONCLUSIVE: the machine is too loaded to judge (start-up alone takes ${baseline} ms)" >&2
		exit 2
	fi
	echo "FAIL: env --no-python never finished within 100 ms" >&2
	exit 1
fi
echo "OK: under 100 ms"
