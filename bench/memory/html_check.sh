#!/usr/bin/env bash
# Checks the HTML memory report in a real headless browser: the page loads
# without console errors, the script draws the timeline (SVG polygons for the
# stacked sites, the reserved line), and a screenshot is taken to look at.
#
#   bench/memory/html_check.sh [CUDADOCTOR] [SNAPSHOT] [OUTDIR]
#
# Needs chromium (Debian: apt-get install -y chromium). Exit 0 when all checks pass.
set -euo pipefail
bin=${1:-./cudadoctor}
snap=${2:-testdata/gpu/artifacts/s33_memory_snapshot.pickle}
out=${3:-$(mktemp -d)}
mkdir -p "$out"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "FAIL: no chromium found (apt-get install -y chromium)" >&2
  exit 2
fi
html="$out/report.html"
"$bin" memory --fail-on never --html "$html" "$snap" > "$out/report.txt"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --user-data-dir="$(mktemp -d)")
fail=0

# 1. No request may leave the file: the page must be self-contained.
if grep -Eo '(src|href)="(https?:)?//[^"]*"' "$html"; then
  echo "FAIL: the report loads external resources" >&2; fail=1
fi

# 2. Console errors (uncaught exceptions are logged as CONSOLE messages).
timeout 60 "$browser" "${flags[@]}" --enable-logging=stderr --v=0 --virtual-time-budget=3000 \
  --dump-dom "file://$(realpath "$html")" > "$out/dom.html" 2> "$out/console.log" || true
if grep -E 'CONSOLE|Uncaught|SyntaxError|TypeError|ReferenceError' "$out/console.log" | grep -v 'DevTools' > "$out/console_errors.log"; then
  echo "FAIL: console errors:" >&2; cat "$out/console_errors.log" >&2; fail=1
fi

# 3. The script drew the plot: polygons (sites) and the reserved polyline.
polys=$(grep -o '<polygon' "$out/dom.html" | wc -l)
lines=$(grep -o 'class="reserved"' "$out/dom.html" | wc -l)
echo "series polygons: $polys, reserved lines: $lines"
if [ "$polys" -lt 1 ] || [ "$lines" -lt 1 ]; then
  echo "FAIL: the timeline was not drawn" >&2; fail=1
fi

# 4. Interaction: a copy of the page moves the mouse over the plot and drags
# a zoom; the tooltip and the zoomed axis must follow.
probe="$out/probe.html"
sed 's#</body>#<script>(function(){var svg=document.querySelector(".chart svg");var hit=svg.querySelectorAll("rect");hit=hit[hit.length-1];var r=hit.getBoundingClientRect();function ev(t,fx){hit.dispatchEvent(new MouseEvent(t,{bubbles:true,clientX:r.left+r.width*fx,clientY:r.top+r.height/2}));}ev("mousemove",0.9);var tip=document.querySelector(".tip");document.body.setAttribute("data-tip",tip.style.display+"|"+tip.textContent);var before=svg.querySelectorAll("text").length;ev("mousedown",0.6);ev("mousemove",0.8);ev("mouseup",0.8);var ticks=[];svg.querySelectorAll("text").forEach(function(t){ticks.push(t.textContent);});document.body.setAttribute("data-zoom",ticks.join(";"));})();</script></body>#' "$html" > "$probe"
timeout 60 "$browser" "${flags[@]}" --virtual-time-budget=3000 --dump-dom "file://$(realpath "$probe")" > "$out/probe_dom.html" 2>/dev/null || true
tipText=$(grep -o 'data-tip="[^"]*"' "$out/probe_dom.html" || true)
zoom=$(grep -o 'data-zoom="[^"]*"' "$out/probe_dom.html" || true)
echo "tooltip: $tipText"
echo "axis after zoom: ${zoom:0:200}"
if ! echo "$tipText" | grep -q 'block|.*allocated'; then
  echo "FAIL: hovering the plot shows no tooltip" >&2; fail=1
fi
if ! echo "$zoom" | grep -q ' s;' || echo "$zoom" | grep -q '0.000 s'; then
  echo "FAIL: dragging across the plot did not zoom the time axis" >&2; fail=1
fi

# 5. A screenshot to look at.
timeout 60 "$browser" "${flags[@]}" --virtual-time-budget=3000 --window-size=1400,900 \
  --screenshot="$out/screenshot.png" "file://$(realpath "$html")" > /dev/null 2>&1 || true
if [ ! -s "$out/screenshot.png" ]; then
  echo "FAIL: no screenshot" >&2; fail=1
fi
echo "report: $html"
echo "screenshot: $out/screenshot.png"
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
