#!/usr/bin/env bash
# Recall of the lint rules on the hazard/clean pairs of testdata/lint/recall,
# per rule and overall, on the tune and the frozen test split, and the
# number of clean twins that get a warning or error finding.
#
#   bench/lint/recall.sh
#
# Misses are listed for the tune split only; the test split is reported by
# its numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(go test -count=1 -run '^TestRecallCorpus$' -v ./internal/pycheck/rules 2>&1 || true)
grep -E "(recall (tune|test) |tune miss|tune clean twin|below the landed floor|clean twins got)" <<< "$out" | sed 's/^ *//; s/^recall_test.go:[0-9]*: //'
grep -qE '^(ok|FAIL)' <<< "$out" && grep -E '^(ok|FAIL|--- FAIL)' <<< "$out"
