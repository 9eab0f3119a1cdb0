#!/usr/bin/env bash
# Times `cudadoctor explain DIR` on a directory of many small logs: the
# repository's small fixture logs (under 16 KiB) copied round-robin into
# COUNT files, every tenth with one line of its own so that not every file
# is a byte-identical copy. The time should be bounded by reading the
# files, not by a per-file cost. Prints wall time, peak memory and the
# number of findings. The machine's load shows in the wall time; the CPU
# time (user + system) of the best run is printed next to it. Usage: bench/explain/dir.sh [COUNT] [DIR]
# DIR (default: a temporary directory, removed at the end) is kept when
# given, so a profile can be taken on it afterwards. CUDADOCTOR=path times
# that binary instead of building one (on a machine without Go).
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-10000}
if [ ! -x /usr/bin/time ]; then
	echo "bench: /usr/bin/time is missing (apt-get install time)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=${2:-$tmp/logs}
rm -rf "$dir"
mkdir -p "$dir"
if [ -n "${CUDADOCTOR:-}" ]; then
	cp "$CUDADOCTOR" "$tmp/cudadoctor"
else
	go build -o "$tmp/cudadoctor" ./cmd/cudadoctor
fi
mapfile -t srcs < <(find testdata/healthy testdata/explain testdata/gpu -type f \
	\( -name '*.log' -o -name '*.txt' \) -size -16k | sort)
[ ${#srcs[@]} -gt 0 ] || { echo "bench: no small logs found" >&2; exit 2; }
# One tee per source file and builtin appends keep this to a few hundred
# processes, not one per file.
n=${#srcs[@]}
for ((s = 0; s < n && s < count; s++)); do
	dsts=()
	base=${srcs[s]##*/}
	for ((i = s; i < count; i += n)); do
		printf -v dst '%s/%05d_%s' "$dir" "$i" "$base"
		dsts+=("$dst")
	done
	tee "${dsts[@]}" <"${srcs[s]}" >/dev/null
	for ((i = s, k = 0; i < count; i += n, k++)); do
		if ((i % 10 == 0)); then printf 'step %d done\n' "$i" >>"${dsts[k]}"; fi
	done
done
du -sk "$dir" | awk -v n="$count" '{printf "dir: %d files, %.1f MiB\n", n, $1/1024}'
cat "$dir"/* >/dev/null # warm the page cache

best="" rss=0
for _ in 1 2 3; do
	/usr/bin/time -f "%e %M %U %S" -o "$tmp/t" "$tmp/cudadoctor" explain --format json "$dir" >"$tmp/out" 2>"$tmp/err" || true
	read -r wall kb user sys < <(tail -n 1 "$tmp/t") # time notes a non-zero exit on a line before
	if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then best=$wall cpu=$(awk "BEGIN{print $user + $sys}"); fi
	if [ "$kb" -gt "$rss" ]; then rss=$kb; fi
done
/usr/bin/time -f "%e" -o "$tmp/t" cat "$dir"/* >/dev/null
printf "explain DIR  %6.2f s wall (%.2f s CPU)   max RSS %6.1f MiB   (cat of all files: %s s)\n" "$best" "$cpu" "$(awk "BEGIN{print $rss/1024}")" "$(tail -n 1 "$tmp/t")"
printf "findings: %s\n" "$(grep -c '"rule":' "$tmp/out" || true)"
