#!/usr/bin/env bash
# Precision of the warning and error rules on real repositories.
#
#   bench/lint/precision.sh ROOT
#
# ROOT holds one checkout per repository of testdata/lint/precision/labels.json,
# named OWNER+NAME and at the commit the labels pin. Every warning or error
# finding is matched to its label (true or false, with the reason it was
# judged so); a finding without a label is listed, to be read and labelled.
# Prints precision per rule; the target for warning/error rules is >= 0.90.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 ROOT" >&2; exit 2; }
root=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)/cudadoctor; trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./cmd/cudadoctor
labels=testdata/lint/precision/labels.json
repos=$(python3 -c 'import json,sys; [print(r["repo"], r["commit"]) for r in json.load(open(sys.argv[1]))["repositories"]]' "$labels")
out=$(mktemp)
while read -r repo commit; do
	dir="$root/${repo/\//+}"
	[ -d "$dir" ] || { echo "missing checkout $dir ($repo at $commit)" >&2; exit 2; }
	(cd "$root" && "$bin" lint --format json --fail-on never "${repo/\//+}") >> "$out" || true
done <<< "$repos"
python3 - "$labels" "$out" <<'PY'
import json, sys, collections
labels = json.load(open(sys.argv[1]))
known = {(f["repo"], f["path"], f["line"], f["rule"]): f for f in labels["findings"]}
dec = json.JSONDecoder()
text = open(sys.argv[2]).read()
pos, reports = 0, []
while pos < len(text):
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos >= len(text):
        break
    obj, pos = dec.raw_decode(text, pos)
    reports.append(obj)
tally = collections.defaultdict(lambda: [0, 0])
unlabelled = []
for rep in reports:
    for f in rep["findings"]:
        if f["severity"] not in ("warning", "error"):
            continue
        loc = f["location"]
        repo, path = loc["path"].split("/", 1)
        key = (repo.replace("+", "/"), path, loc["line"], f["rule"])
        lab = known.get(key)
        if lab is None:
            unlabelled.append(key)
            continue
        tally[f["rule"]][0 if lab["label"] else 1] += 1
for rule in sorted(tally):
    t, fl = tally[rule]
    print(f"{rule}: {t} true, {fl} false, precision {t / (t + fl):.2f}")
for k in unlabelled:
    print("unlabelled:", *k)
print(f"{sum(v[0] for v in tally.values())} true, {sum(v[1] for v in tally.values())} false, {len(unlabelled)} unlabelled")
PY
