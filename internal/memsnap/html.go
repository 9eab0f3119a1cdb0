package memsnap

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// htmlDevice is the data the page's script draws for one device.
type htmlDevice struct {
	Device    int          `json:"device"`
	X         []int64      `json:"x"`
	XIsTime   bool         `json:"x_is_time"`
	Allocated []int64      `json:"allocated"`
	Reserved  []int64      `json:"reserved"`
	Series    []htmlSeries `json:"series"`
	PeakX     int64        `json:"peak_x"`
	PeakBytes int64        `json:"peak_bytes"`
	OOMX      *int64       `json:"oom_x,omitempty"`
	OOMBytes  int64        `json:"oom_requested,omitempty"`
}

type htmlSeries struct {
	Label  string  `json:"label"`
	Values []int64 `json:"values"`
}

type htmlFinding struct {
	Severity, Rule, Message, Origin string
	Evidence, Remedies, Facts       []string
}

type htmlPage struct {
	Source   string
	Summary  string
	Devices  []int
	Findings []htmlFinding
	Settings []Setting
	Data     template.JS
}

// WriteHTML writes a self-contained HTML report: the findings and, per
// device, an interactive timeline of allocated memory stacked by the top
// sites with reserved memory drawn over it. It reads nothing but its
// arguments and references nothing outside the file. snap and analyses may be
// nil (a log input): the page then holds the findings alone.
func WriteHTML(w io.Writer, rep *report.Report, snap *Snapshot, analyses []*DeviceAnalysis, source string) error {
	page := htmlPage{Source: source}
	var devs []htmlDevice
	for _, a := range analyses {
		tl := a.Timeline
		d := htmlDevice{Device: a.Device, X: nonNil(tl.X), XIsTime: tl.XIsTime, Allocated: nonNil(tl.Allocated), Reserved: nonNil(tl.Reserved)}
		for k, label := range tl.SiteLabels {
			if slices.ContainsFunc(tl.SiteBytes[k], func(v int64) bool { return v != 0 }) {
				d.Series = append(d.Series, htmlSeries{Label: label, Values: tl.SiteBytes[k]})
			}
		}
		best := int64(-1)
		for i, v := range d.Allocated {
			if v > best {
				best, d.PeakX = v, d.X[i]
			}
		}
		d.PeakBytes = a.PeakAllocated
		if a.OOM != nil {
			x := int64(a.OOM.Event + 1)
			if tl.XIsTime {
				x = a.OOM.TimeUS - tl.T0
			}
			d.OOMX, d.OOMBytes = &x, a.OOM.Requested
		}
		devs = append(devs, d)
		page.Devices = append(page.Devices, a.Device)
	}
	if devs == nil {
		devs = []htmlDevice{}
	}
	data, err := json.Marshal(devs)
	if err != nil {
		return err
	}
	// json.Marshal escapes <, > and &, so the data cannot close the script.
	page.Data = template.JS(data)
	if snap != nil {
		page.Settings = snap.Settings
	}
	for _, f := range rep.Findings {
		hf := htmlFinding{Severity: f.Severity.String(), Rule: f.Rule, Message: f.Message}
		if f.Origin != nil {
			hf.Origin = f.Origin.String()
			if f.Origin.Function != "" {
				hf.Origin += " in " + f.Origin.Function
			}
		}
		for _, e := range f.Evidence {
			hf.Evidence = append(hf.Evidence, e.Text)
		}
		hf.Remedies = f.Remedies
		keys := make([]string, 0, len(f.Facts))
		for k := range f.Facts {
			if !strings.HasPrefix(k, "allocator.") {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			hf.Facts = append(hf.Facts, fmt.Sprintf("%s = %s", k, factText(k, f.Facts[k])))
		}
		page.Findings = append(page.Findings, hf)
	}
	if len(rep.Findings) > 0 {
		page.Summary = rep.Findings[0].Message
	} else {
		page.Summary = "nothing to report"
	}
	return htmlTemplate.Execute(w, page)
}

func nonNil(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

func factText(k string, v any) string {
	if n, ok := v.(int64); ok && strings.HasSuffix(k, "_bytes") {
		return fmt.Sprintf("%d (%s)", n, FormatBytes(n))
	}
	if n, ok := v.(int64); ok && k == "bytes" {
		return fmt.Sprintf("%d (%s)", n, FormatBytes(n))
	}
	if m, ok := v.([]map[string]any); ok {
		b, _ := json.Marshal(m)
		return string(b)
	}
	return fmt.Sprint(v)
}

var htmlTemplate = template.Must(template.New("memory").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cudadoctor memory: {{.Source}}</title>
<style>
:root { --fg:#1d2330; --muted:#5b6474; --bg:#fff; --line:#d9dde5; --err:#b3261e; --warn:#9a6700; --info:#0b62a4; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); margin: 0; padding: 20px 28px 40px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 26px 0 8px; }
.sub { color: var(--muted); margin-bottom: 14px; word-break: break-all; }
.summary { font-size: 15px; padding: 10px 14px; border-left: 4px solid var(--err); background: #fbeeed; margin-bottom: 10px; }
.chart { position: relative; border: 1px solid var(--line); border-radius: 6px; padding: 8px 8px 4px; }
.chart svg { width: 100%; height: 420px; display: block; user-select: none; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 8px 4px 2px; font-size: 13px; }
.legend span { cursor: pointer; display: inline-flex; align-items: center; gap: 6px; }
.legend span.off { opacity: .35; }
.legend i { width: 14px; height: 10px; display: inline-block; border-radius: 2px; }
.tip { position: absolute; pointer-events: none; background: rgba(29,35,48,.94); color: #fff; padding: 7px 9px; border-radius: 5px; font-size: 12px; white-space: nowrap; display: none; z-index: 2; }
.hint { color: var(--muted); font-size: 12px; margin: 2px 4px 0; }
.finding { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
.finding .head { font-weight: 600; }
.sev { display: inline-block; font-size: 11px; font-weight: 700; text-transform: uppercase; padding: 1px 7px; border-radius: 9px; color: #fff; margin-right: 6px; }
.sev.error { background: var(--err); } .sev.warning { background: var(--warn); } .sev.info { background: var(--info); }
.rule { color: var(--muted); font-family: ui-monospace, Menlo, monospace; font-size: 12px; margin-right: 6px; }
.finding ul, .finding ol { margin: 6px 0 0 0; padding-left: 22px; }
.mono { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; }
.label { color: var(--muted); }
table.settings { border-collapse: collapse; font-size: 13px; }
table.settings td { border-bottom: 1px solid var(--line); padding: 3px 14px 3px 0; }
</style>
</head>
<body>
<h1>GPU memory report</h1>
<div class="sub">{{.Source}}</div>
<div class="summary">{{.Summary}}</div>
{{range .Devices}}<h2>Device {{.}}: allocated memory by site, reserved memory</h2>
<div class="chart" id="chart-{{.}}"><svg></svg><div class="legend"></div><div class="tip"></div>
<div class="hint">Hover for values; drag across the plot to zoom, double-click to reset; click a legend entry to hide it.</div></div>
{{end}}
<h2>Findings</h2>
{{range .Findings}}<div class="finding">
<div class="head"><span class="sev {{.Severity}}">{{.Severity}}</span><span class="rule">{{.Rule}}</span>{{.Message}}</div>
{{if .Origin}}<div><span class="label">origin:</span> <span class="mono">{{.Origin}}</span></div>{{end}}
{{if .Evidence}}<ul>{{range .Evidence}}<li class="mono">{{.}}</li>{{end}}</ul>{{end}}
{{if .Facts}}<details><summary class="label">facts</summary><ul>{{range .Facts}}<li class="mono">{{.}}</li>{{end}}</ul></details>{{end}}
{{if .Remedies}}<div class="label" style="margin-top:6px">fix:</div><ol>{{range .Remedies}}<li>{{.}}</li>{{end}}</ol>{{end}}
</div>
{{else}}<p>No findings.</p>
{{end}}
{{if .Settings}}<h2>Allocator settings</h2>
<table class="settings">{{range .Settings}}<tr><td class="mono">{{.Name}}</td><td class="mono">{{.Value}}</td></tr>{{end}}</table>{{end}}
<script type="application/json" id="memory-data">{{.Data}}</script>
<script>
"use strict";
(function () {
  var COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#9c9c9c"];
  var NS = "http://www.w3.org/2000/svg";
  function fmtBytes(n) {
    var a = Math.abs(n), s = n < 0 ? "-" : "";
    if (a < 1024) return s + a + " B";
    if (a < 1048576) return s + (a / 1024).toFixed(2) + " KiB";
    if (a < 1073741824) return s + (a / 1048576).toFixed(2) + " MiB";
    return s + (a / 1073741824).toFixed(2) + " GiB";
  }
  function fmtX(x, isTime) {
    if (!isTime) return "event " + x;
    var s = x / 1e6;
    return s < 10 ? s.toFixed(3) + " s" : s.toFixed(1) + " s";
  }
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function niceStep(range, n) {
    var raw = range / n, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
  }
  function draw(root, d) {
    var svg = root.querySelector("svg"), legend = root.querySelector(".legend"), tip = root.querySelector(".tip");
    var hidden = {}, view = null, drag = null;
    var n = d.x.length;
    function render() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var W = svg.clientWidth || 1000, H = svg.clientHeight || 420;
      svg.setAttribute("viewBox", "0 0 " + W + " " + H);
      var L = 78, R = 16, T = 14, B = 34, pw = W - L - R, ph = H - T - B;
      if (n === 0) { var t = el("text", {x: L, y: T + 20}, svg); t.textContent = "no history recorded"; return; }
      var xend = d.oom_x !== undefined ? Math.max(d.x[n - 1], d.oom_x) : d.x[n - 1];
      var x0 = view ? view[0] : d.x[0], x1 = view ? view[1] : xend;
      if (x1 <= x0) x1 = x0 + 1;
      var idx = [];
      for (var i = 0; i < n; i++) if (d.x[i] >= x0 && d.x[i] <= x1) idx.push(i);
      var stacks = [], ymax = 1;
      for (var j = 0; j < idx.length; j++) {
        var i2 = idx[j], acc = 0, row = [];
        for (var s = 0; s < d.series.length; s++) { if (!hidden[s]) acc += d.series[s].values[i2]; row.push(acc); }
        stacks.push(row);
        ymax = Math.max(ymax, acc, hidden.reserved ? 0 : d.reserved[i2]);
      }
      var unit = ymax >= 1073741824 ? 1073741824 : ymax >= 1048576 ? 1048576 : 1024;
      var step = niceStep(ymax / unit, 5) * unit, ytop = Math.ceil(ymax / step) * step;
      function X(v) { return L + (v - x0) / (x1 - x0) * pw; }
      function Y(v) { return T + ph - v / ytop * ph; }
      var g = el("g", {}, svg);
      for (var yv = 0; yv <= ytop + 1; yv += step) {
        el("line", {x1: L, x2: L + pw, y1: Y(yv), y2: Y(yv), stroke: "#e6e9ef"}, g);
        var ty = el("text", {x: L - 6, y: Y(yv) + 4, "text-anchor": "end", "font-size": 11, fill: "#5b6474"}, g);
        ty.textContent = fmtBytes(yv);
      }
      var xs = niceStep(x1 - x0, 8);
      for (var xv = Math.ceil(x0 / xs) * xs; xv <= x1; xv += xs) {
        el("line", {x1: X(xv), x2: X(xv), y1: T + ph, y2: T + ph + 4, stroke: "#5b6474"}, g);
        var tx = el("text", {x: X(xv), y: T + ph + 17, "text-anchor": "middle", "font-size": 11, fill: "#5b6474"}, g);
        tx.textContent = fmtX(xv, d.x_is_time);
      }
      for (var s2 = d.series.length - 1; s2 >= 0; s2--) {
        if (hidden[s2]) continue;
        var top = [], bot = [];
        for (var k = 0; k < idx.length; k++) {
          var xi = X(d.x[idx[k]]);
          var below = 0;
          for (var b = s2 - 1; b >= 0; b--) if (!hidden[b]) { below = stacks[k][b]; break; }
          top.push(xi.toFixed(1) + "," + Y(stacks[k][s2]).toFixed(1));
          bot.push(xi.toFixed(1) + "," + Y(below).toFixed(1));
        }
        el("polygon", {points: top.concat(bot.reverse()).join(" "), fill: COLORS[s2 % COLORS.length], "fill-opacity": 0.82, class: "series"}, svg);
      }
      if (!hidden.reserved) {
        var pts = [];
        for (var m = 0; m < idx.length; m++) pts.push(X(d.x[idx[m]]).toFixed(1) + "," + Y(d.reserved[idx[m]]).toFixed(1));
        el("polyline", {points: pts.join(" "), fill: "none", stroke: "#1d2330", "stroke-width": 1.6, "stroke-dasharray": "5,3", class: "reserved"}, svg);
      }
      if (d.oom_x !== undefined && d.oom_x >= x0 && d.oom_x <= x1) {
        el("line", {x1: X(d.oom_x), x2: X(d.oom_x), y1: T, y2: T + ph, stroke: "#b3261e", "stroke-width": 2}, svg);
        var to = el("text", {x: X(d.oom_x) - 4, y: T + 12, "text-anchor": "end", "font-size": 12, fill: "#b3261e", "font-weight": 600}, svg);
        to.textContent = "OOM: " + fmtBytes(d.oom_requested) + " requested";
      }
      if (d.peak_x >= x0 && d.peak_x <= x1) {
        el("circle", {cx: X(d.peak_x), cy: Y(d.peak_bytes), r: 4, fill: "#1d2330"}, svg);
      }
      el("rect", {x: L, y: T, width: pw, height: ph, fill: "none", stroke: "#c4cad4"}, svg);
      var cursor = el("line", {y1: T, y2: T + ph, stroke: "#1d2330", "stroke-opacity": 0.4, visibility: "hidden"}, svg);
      var sel = el("rect", {y: T, height: ph, fill: "#4e79a7", "fill-opacity": 0.15, visibility: "hidden"}, svg);
      var hit = el("rect", {x: L, y: T, width: pw, height: ph, fill: "transparent"}, svg);
      function nearest(px) {
        var xv = x0 + (px - L) / pw * (x1 - x0), best = idx[0];
        for (var q = 0; q < idx.length; q++) if (Math.abs(d.x[idx[q]] - xv) < Math.abs(d.x[best] - xv)) best = idx[q];
        return best;
      }
      function localX(ev) { var r = svg.getBoundingClientRect(); return (ev.clientX - r.left) * (W / r.width); }
      hit.addEventListener("mousemove", function (ev) {
        var px = localX(ev), i3 = nearest(px);
        cursor.setAttribute("x1", X(d.x[i3])); cursor.setAttribute("x2", X(d.x[i3])); cursor.setAttribute("visibility", "visible");
        var html = "<b>" + fmtX(d.x[i3], d.x_is_time) + "</b><br>allocated " + fmtBytes(d.allocated[i3]) + "<br>reserved " + fmtBytes(d.reserved[i3]);
        for (var s3 = 0; s3 < d.series.length; s3++) {
          if (d.series[s3].values[i3] > 0) html += "<br><span style=\"color:" + COLORS[s3 % COLORS.length] + "\">&#9632;</span> " + escapeHTML(d.series[s3].label) + ": " + fmtBytes(d.series[s3].values[i3]);
        }
        tip.innerHTML = html; tip.style.display = "block";
        var rr = root.getBoundingClientRect();
        var left = ev.clientX - rr.left + 14;
        if (left > rr.width - 260) left = ev.clientX - rr.left - 260;
        tip.style.left = left + "px"; tip.style.top = (ev.clientY - rr.top + 10) + "px";
        if (drag) { sel.setAttribute("x", Math.min(drag, px)); sel.setAttribute("width", Math.abs(px - drag)); sel.setAttribute("visibility", "visible"); }
      });
      hit.addEventListener("mouseleave", function () { tip.style.display = "none"; cursor.setAttribute("visibility", "hidden"); });
      hit.addEventListener("mousedown", function (ev) { drag = localX(ev); });
      hit.addEventListener("mouseup", function (ev) {
        var px = localX(ev);
        if (drag !== null && Math.abs(px - drag) > 5) {
          var a = x0 + (Math.min(drag, px) - L) / pw * (x1 - x0), b2 = x0 + (Math.max(drag, px) - L) / pw * (x1 - x0);
          view = [a, b2]; drag = null; render(); return;
        }
        drag = null; sel.setAttribute("visibility", "hidden");
      });
      hit.addEventListener("dblclick", function () { view = null; render(); });
    }
    function addLegend(key, label, color, dashed) {
      var sp = document.createElement("span");
      var sw = document.createElement("i");
      sw.style.background = dashed ? "repeating-linear-gradient(90deg," + color + " 0 5px,transparent 5px 8px)" : color;
      if (dashed) sw.style.height = "3px";
      sp.appendChild(sw); sp.appendChild(document.createTextNode(label));
      sp.addEventListener("click", function () { hidden[key] = !hidden[key]; sp.className = hidden[key] ? "off" : ""; render(); });
      legend.appendChild(sp);
    }
    for (var s = 0; s < d.series.length; s++) addLegend(s, d.series[s].label, COLORS[s % COLORS.length], false);
    addLegend("reserved", "reserved", "#1d2330", true);
    render();
    window.addEventListener("resize", render);
  }
  function escapeHTML(s) { return s.replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c]; }); }
  var data = JSON.parse(document.getElementById("memory-data").textContent);
  for (var i = 0; i < data.length; i++) {
    var root = document.getElementById("chart-" + data[i].device);
    if (root) draw(root, data[i]);
  }
})();
</script>
</body>
</html>
`))
