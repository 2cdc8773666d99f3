// faasbench live dashboard: reads the run's server-sent events (/events)
// and draws them; every asset is the server's own (no other request).
"use strict";

const colours = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];
const keep = 300; // seconds of history drawn
const series = { rate: [], p50: [], p99: [], cold: [], replicas: {} };
const $ = (id) => document.getElementById(id);
const fmt = (x, d) => (x === undefined || x === null ? "-" : Number(x).toFixed(d));

function trim(a) { while (a.length > keep) a.shift(); }

// chart draws series (each {name, points: [[x, y], ...]}) as lines with a
// y axis from 0 to the largest value.
function chart(svg, lines) {
  const W = 600, H = 200, L = 50, B = 20, T = 10;
  const ns = "http://www.w3.org/2000/svg";
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  let xmin = Infinity, xmax = -Infinity, ymax = 0;
  for (const s of lines) for (const [x, y] of s.points) {
    xmin = Math.min(xmin, x); xmax = Math.max(xmax, x); ymax = Math.max(ymax, y);
  }
  const el = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  el("line", { x1: L, y1: H - B, x2: W, y2: H - B, class: "axis" });
  el("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" });
  if (xmin === Infinity) return;
  if (ymax === 0) ymax = 1;
  if (xmax === xmin) xmax = xmin + 1;
  const sx = (x) => L + (x - xmin) / (xmax - xmin) * (W - L - 5);
  const sy = (y) => H - B - y / ymax * (H - B - T);
  el("text", { x: 4, y: T + 8 }, fmt(ymax, ymax < 10 ? 2 : 0));
  el("text", { x: 4, y: H - B }, "0");
  el("text", { x: L, y: H - 5 }, fmt(xmin, 0) + " s");
  el("text", { x: W - 40, y: H - 5 }, fmt(xmax, 0) + " s");
  lines.forEach((s, i) => {
    const c = colours[i % colours.length];
    el("polyline", { class: "series", stroke: c, points: s.points.map(([x, y]) => sx(x).toFixed(1) + "," + sy(y).toFixed(1)).join(" ") });
    el("text", { x: L + 8 + 90 * i, y: T + 10, fill: c }, s.name);
  });
}

function onFrame(f) {
  $("name").textContent = f.name;
  $("platform").textContent = f.platform + " · " + f.run;
  $("progress").max = Math.max(f.cells_total, 1);
  $("progress").value = f.cells_done;
  $("cells").textContent = f.cells_done + " / " + f.cells_total + " cells";
  $("clock").textContent = fmt(f.t_ms / 1000, 0) + " s";
  if ($("status").classList.contains("running")) $("status").textContent = "running";
  const t = f.t_ms / 1000;
  const c = f.cell;
  if (c) {
    $("cell").textContent = c.id + (c.measurement > 1 ? " (measured again: " + c.measurement + ", the hypervisor stole CPU time in the one before)" : "");
    $("rps").textContent = fmt(c.rps, 0);
    $("p50").textContent = c.p50_ms ? fmt(c.p50_ms, 2) : "-";
    $("p99").textContent = c.p99_ms ? fmt(c.p99_ms, 2) : "-";
    $("cellp99").textContent = c.cell_p99_ms ? fmt(c.cell_p99_ms, 2) : "-";
    $("ok").textContent = c.ok;
    $("failed").textContent = c.failed;
    $("cold").textContent = c.cold_starts;
    $("elapsed").textContent = fmt(c.elapsed_s, 1);
    $("inflight").textContent = c.in_flight;
    $("behind").textContent = c.behind ? c.behind + " (" + fmt(c.lag_ms, 0) + ")" : "0";
    const parts = [];
    if (c.errors) parts.push("errors: " + Object.entries(c.errors).map(([k, n]) => k + " " + n).join(", "));
    if (c.cold_by_kind) parts.push("cold starts: " + Object.entries(c.cold_by_kind).map(([k, x]) =>
      k + " " + x.n + " (mean " + fmt(x.mean_ms, 1) + " ms" + (x.gateway_wait_ms ? ", gateway wait " + fmt(x.gateway_wait_ms, 1) + " ms" : "") +
      (x.setup_ms ? ", setup " + fmt(x.setup_ms, 1) + " ms" : "") + ")").join(", "));
    $("errors").textContent = parts.join("; ");
    series.rate.push([t, c.rps]);
    if (c.p50_ms) { series.p50.push([t, c.p50_ms]); series.p99.push([t, c.p99_ms]); }
    series.cold.push([t, c.cold_starts]);
  }
  for (const fn of f.functions || []) {
    const s = series.replicas[fn.name] || (series.replicas[fn.name] = []);
    s.push([t, fn.ready]);
    trim(s);
  }
  for (const k of ["rate", "p50", "p99", "cold"]) trim(series[k]);
  chart($("chart-rate"), [{ name: "req/s", points: series.rate }]);
  chart($("chart-latency"), [{ name: "p50", points: series.p50 }, { name: "p99", points: series.p99 }]);
  chart($("chart-replicas"), Object.entries(series.replicas).map(([name, points]) => ({ name, points })));
  chart($("chart-cold"), [{ name: "cold starts", points: series.cold }]);
}

function row(c) {
  const tr = document.createElement("tr");
  tr.dataset.cell = c.id;
  if (!c.valid) tr.className = "invalid";
  for (const v of [c.id, fmt(c.rps, 1), fmt(c.p50_ms, 2), fmt(c.p99_ms, 2), c.requests, c.failed, c.cold_starts, c.valid ? "yes" : "no"]) {
    const td = document.createElement("td");
    td.textContent = v;
    tr.appendChild(td);
  }
  if (c.behind) tr.title = c.behind;
  return tr;
}

function onCell(c) {
  const body = $("cells-table").tBodies[0];
  const old = body.querySelector("tr[data-cell='" + CSS.escape(c.id) + "']");
  if (old) old.replaceWith(row(c)); else body.appendChild(row(c));
}

function onDone(fin, es) {
  es.close();
  const st = $("status");
  st.className = "status " + fin.status;
  st.textContent = "run " + fin.status + ": " + fin.cells.length + (fin.cells.length === 1 ? " cell" : " cells");
  $("cells-title").textContent = "Final summary";
  const body = $("cells-table").tBodies[0];
  while (body.firstChild) body.removeChild(body.firstChild);
  for (const c of fin.cells) body.appendChild(row(c));
  $("error").textContent = fin.error || "";
  $("cell").textContent = "none (the run ended)";
  document.body.dataset.done = fin.status;
}

function connect() {
  const es = new EventSource("events");
  es.addEventListener("frame", (e) => onFrame(JSON.parse(e.data)));
  es.addEventListener("cell", (e) => onCell(JSON.parse(e.data)));
  es.addEventListener("done", (e) => onDone(JSON.parse(e.data), es));
}

connect();
