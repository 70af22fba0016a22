// The Metrics page: decisions over time and each hook's latency, drawn as SVG from the
// sidecar's statistics, sampled every two seconds while the page is shown.
"use strict";

const samples = [];
let sampling = null;
const SVG_NS = "http://www.w3.org/2000/svg";
const COLOURS = { continue: "#1a7f37", block: "#b3261e", ask: "#9a6700" };

loaders.metrics = () => {
  sample();
  if (sampling) return;
  sampling = setInterval(() => {
    if (document.getElementById("metrics").hidden) {
      clearInterval(sampling);
      sampling = null;
      return;
    }
    sample();
  }, 2000);
};

function svg(tag, attrs, content) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  if (content != null) el.textContent = String(content);
  return el;
}

async function sample() {
  const state = document.getElementById("metrics-state");
  const json = await (await fetch("/api/metrics")).json();
  if (!json.ok) { state.textContent = json.error; return; }
  const counts = {};
  for (const d of json.decisions) counts[d.decision] = (counts[d.decision] || 0) + d.count;
  samples.push({ t: Date.now(), counts });
  // Ten minutes at one sample every two seconds.
  if (samples.length > 300) samples.shift();
  state.textContent = `${json.dispatches} dispatches since the sidecar started`;
  drawDecisions();
  drawLatency(json.hooks);
}

// Each decision's running total since the sidecar started, one line a decision.
function drawDecisions() {
  const chart = document.getElementById("decisions-chart");
  chart.replaceChildren();
  const width = 900, height = 240, left = 50, right = 140, top = 10, bottom = 30;
  const kinds = [...new Set(samples.flatMap(s => Object.keys(s.counts)))].sort();
  const most = Math.max(1, ...samples.flatMap(s => Object.values(s.counts)));
  const t0 = samples[0].t, t1 = Math.max(samples[samples.length - 1].t, t0 + 1);
  const x = t => left + (t - t0) / (t1 - t0) * (width - left - right);
  const y = n => height - bottom - n / most * (height - top - bottom);
  chart.appendChild(svg("line", { x1: left, y1: top, x2: left, y2: height - bottom, stroke: "#888" }));
  chart.appendChild(svg("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, stroke: "#888" }));
  chart.appendChild(svg("text", { x: left - 6, y: top + 10, "text-anchor": "end" }, most));
  chart.appendChild(svg("text", { x: left - 6, y: height - bottom, "text-anchor": "end" }, 0));
  chart.appendChild(svg("text", { x: left, y: height - 8 }, new Date(t0).toLocaleTimeString()));
  chart.appendChild(svg("text", { x: width - right, y: height - 8, "text-anchor": "end" }, new Date(t1).toLocaleTimeString()));
  if (!kinds.length) {
    chart.appendChild(svg("text", { x: left + 10, y: height / 2 }, "no decision yet"));
    return;
  }
  kinds.forEach((kind, i) => {
    const colour = COLOURS[kind] || "#5a6475";
    const points = samples.map(s => [s.t, s.counts[kind] || 0]);
    chart.appendChild(svg("polyline", {
      points: points.map(([t, n]) => `${x(t)},${y(n)}`).join(" "),
      fill: "none", stroke: colour, "stroke-width": 2,
    }));
    for (const [t, n] of points) {
      chart.appendChild(svg("circle", {
        class: "point", cx: x(t), cy: y(n), r: 3, fill: colour,
        "data-decision": kind, "data-count": n, "data-time": t,
      }));
    }
    const last = points[points.length - 1][1];
    chart.appendChild(svg("text", { x: width - right + 10, y: top + 14 + i * 18, fill: colour }, `${kind} ${last}`));
  });
}

// One row a hook: its p99 as a pale bar, its p50 as a dark one over it.
function drawLatency(all) {
  // A hook that was only ever skipped has no run time to draw.
  const hooks = all.filter(h => h.calls > 0);
  const chart = document.getElementById("latency-chart");
  chart.replaceChildren();
  const label = 240, bars = 420, row = 26;
  chart.setAttribute("height", Math.max(1, hooks.length) * row + 10);
  if (!hooks.length) {
    chart.appendChild(svg("text", { x: 10, y: 20 }, "no hook has run yet"));
    return;
  }
  const most = Math.max(0.001, ...hooks.map(h => h.p99_ms));
  hooks.forEach((h, i) => {
    const top = 5 + i * row;
    chart.appendChild(svg("text", { x: label - 8, y: top + 15, "text-anchor": "end" }, h.hook));
    chart.appendChild(svg("rect", {
      class: "bar", x: label, y: top, height: row - 6, width: Math.max(1, h.p99_ms / most * bars),
      fill: "#9db7e0", "data-hook": h.hook, "data-p50": h.p50_ms, "data-p99": h.p99_ms, "data-calls": h.calls,
    }));
    chart.appendChild(svg("rect", {
      x: label, y: top, height: row - 6, width: Math.max(1, h.p50_ms / most * bars), fill: "#2f5fa8",
    }));
    const failed = Object.values(h.failures).reduce((a, b) => a + b, 0);
    chart.appendChild(svg("text", { x: label + bars + 10, y: top + 15 },
      `p50 ${h.p50_ms.toFixed(1)} ms · p99 ${h.p99_ms.toFixed(1)} ms · ${h.calls} runs${failed ? ` · ${failed} failed` : ""}`));
  });
}
