#!/usr/bin/env bash
# Runs the hostile-input fuzz targets side by side, each for FUZZTIME
# (default 10m), and prints each one's result and peak memory. These run
# outside CI: CI only replays their seed corpora as ordinary tests.
#
#   bench/fuzz/run.sh            # all four, 10 minutes each
#   FUZZTIME=30s bench/fuzz/run.sh
#
# Targets: the pickle decoder (memory snapshots), the snapshot analysis on
# hostile shapes (shared and self-referencing structures), the log parser,
# and explain end to end. A crash leaves its input under the package's
# testdata/fuzz/ and makes this script exit 1. Needs Go and /usr/bin/time.
set -uo pipefail
cd "$(dirname "$0")/../.."
t=${FUZZTIME:-10m}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The corpus each target grows is kept where `go test -fuzz` keeps it.
cache=$(go env GOCACHE)/fuzz/$(go list -m)/internal
targets=(pickle:FuzzDecode memsnap:FuzzHostileShapes logparse:FuzzParse diagnose:FuzzExplain)
for spec in "${targets[@]}"; do
	p=${spec%:*} fn=${spec#*:}
	go test -c -fuzz="^$fn\$" -o "$out/$p.test" "./internal/$p" || exit 3
done
for spec in "${targets[@]}"; do
	p=${spec%:*} fn=${spec#*:}
	(cd "internal/$p" && /usr/bin/time -f "%M" -o "$out/$p.rss" "$out/$p.test" -test.run '^$' \
		-test.fuzz "^$fn\$" -test.fuzztime "$t" -test.fuzzcachedir "$cache/$p" >"$out/$p.log" 2>&1
	echo $? >"$out/$p.exit") &
done
wait
rc=0
for spec in "${targets[@]}"; do
	p=${spec%:*} fn=${spec#*:}
	code=$(cat "$out/$p.exit")
	execs=$(grep -o 'execs: [0-9]*' "$out/$p.log" | tail -n 1)
	printf '%-9s %-18s exit %s  %s  peak RSS %d MiB\n' "$p" "$fn" "$code" "$execs" $(($(tail -n 1 "$out/$p.rss") / 1024))
	if [ "$code" != 0 ]; then rc=1; tail -n 20 "$out/$p.log"; fi
done
exit $rc
