#!/usr/bin/env bash
# Compare the full lint rule set with tree-sitter's bare parse of the same
# files on the same cores, and time flake8 on those files for reference.
#
#   bench/lint/bench.sh DIR [DIR...]
#
# DIRs are Python trees (e.g. checkouts of diffusers and pytorch-lightning).
# Prints lines/s for bare parse, lint and flake8, and the lint/parse ratio
# (the target is at most 1.3), over COUNT rounds (default 5).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DIR [DIR...]" >&2; exit 2; }
cd "$(dirname "$0")/../.."
count=${COUNT:-5}
corpus=$(IFS=:; echo "$*")
files=$(mktemp); trap 'rm -f "$files"' EXIT
for d in "$@"; do find "$d" -name '*.py' -type f; done > "$files"
lines=$(xargs -a "$files" -d '\n' cat | wc -l)
echo "corpus: $(wc -l < "$files") files, $lines lines; GOMAXPROCS=$(nproc)"

# Each round runs the two benchmarks back to back, so both see the same
# machine load; the ratio is the median over rounds.
results=""
for i in $(seq "$count"); do
	out=$(CUDADOCTOR_LINT_CORPUS="$corpus" go test -run '^$' -bench '^Benchmark(BareParse|Lint|LintParseAll)$' \
		-benchtime 1x ./internal/pycheck/rules | grep '^Benchmark')
	echo "$out"
	results+="$out"$'\n'
done
echo "$results" | awk -v lines="$lines" '
	/^BenchmarkBareParse/ { p[++np] = $3; if (!pmin || $3 < pmin) pmin = $3 }
	/^BenchmarkLint-/     { l[++nl] = $3; if (!lmin || $3 < lmin) lmin = $3 }
	/^BenchmarkLintParseAll-/ { a[++na] = $3; if (!amin || $3 < amin) amin = $3 }
	END {
		for (i = 1; i <= np; i++) { r[i] = l[i] / p[i]; q[i] = a[i] / p[i] }
		for (i = 1; i <= np; i++) for (j = i + 1; j <= np; j++) if (q[j] < q[i]) { t = q[i]; q[i] = q[j]; q[j] = t }
		qmed = (np % 2) ? q[(np + 1) / 2] : (q[np / 2] + q[np / 2 + 1]) / 2
		for (i = 1; i <= np; i++) for (j = i + 1; j <= np; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
		med = (np % 2) ? r[(np + 1) / 2] : (r[np / 2] + r[np / 2 + 1]) / 2
		printf "bare parse: best %.2fs  %.0f lines/s\n", pmin/1e9, lines/(pmin/1e9)
		printf "full lint:  best %.2fs  %.0f lines/s\n", lmin/1e9, lines/(lmin/1e9)
		printf "lint/parse: median of %d rounds %.3f, of best times %.3f (target <= 1.3)\n", np, med, lmin/pmin
		printf "lint with every file parsed and every rule run: best %.2fs, /parse median %.3f, of best times %.3f\n", amin/1e9, qmed, amin/pmin
	}'

if [ "${FLAKE8:-1}" = 0 ]; then
	echo "flake8: skipped (FLAKE8=0)"
elif command -v flake8 >/dev/null; then
	start=$(date +%s.%N)
	xargs -a "$files" -d '\n' flake8 -j "$(nproc)" --exit-zero > /dev/null 2>&1 || true
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" -v lines="$lines" 'BEGIN { printf "flake8:     %.2fs  %.0f lines/s\n", e-s, lines/(e-s) }'
else
	echo "flake8: not installed (apt-get install flake8)"
fi
