"""When a view's charts count as drawn, in the browser: one definition for the bench's and the tests' waits.

Every chart shown is counted, those dcc.Graph has not mounted yet too (a chart's first drawing may hold data
already, assets/live.js `opening`, so "every plot holds data" would pass before the last ones mount). Each
snippet is a JavaScript function expression, to be called inside a `wait_for_function` predicate. It lives
here, not in the package, since the package keeps its JavaScript in the dashboard's assets.
"""

from __future__ import annotations

SHOWN_PLOTS = (
    "((root) => [...root.querySelectorAll('.dash-graph')].filter((c) => c.offsetParent)"
    ".map((c) => c.querySelector('.js-plotly-plot')))"
)
"""(root) -> the plot of each dcc.Graph shown under `root`, null for one not mounted yet."""

HOLDS_DATA = "((g) => !!(g && g.data && g.data.length))"
"""(plot) -> whether it is drawn with data."""

ALL_DRAWN = f"((root) => {{ const p = {SHOWN_PLOTS}(root); return p.length > 0 && p.every({HOLDS_DATA}); }})"
"""(root) -> whether at least one chart is shown under `root` and every chart shown there holds data."""


VIEW_DRAWN = (
    f"(tab) => {{ const v = document.getElementById('view-' + tab);"
    f" return !!v && {ALL_DRAWN}(v) && !document.querySelector('.busy'); }}"
)
"""(tab) -> whether the view `tab`'s charts all hold data and nothing is computing."""


IN_VIEWPORT = (
    "((g) => { const r = g.getBoundingClientRect(), s = g._fullLayout && g._fullLayout._size;"
    " const top = s ? r.top + s.t : r.top, bottom = s ? top + s.h : r.bottom;"
    " return bottom > 0 && r.right > 0 && top < innerHeight && r.left < innerWidth; })"
)
"""(plot) -> whether some of its plot area (where a new state's numbers show; not a margin holding only the title)
is inside the viewport: the charts assets/live.js draws in a key press's frame."""


CHART_READER = """
  const num = (x) => (typeof x === "number" ? Number(x.toPrecision(6)) : x);
  // a figure's arrays come as plotly.py writes them ({dtype, bdata, shape}: base64) or as Plotly.js holds them
  // once drawn (typed arrays, rows of them): both are read as numbers, so that one state reads the same
  const TYPED = {f8: Float64Array, f4: Float32Array, i4: Int32Array, u4: Uint32Array, i2: Int16Array,
    u2: Uint16Array, i1: Int8Array, u1: Uint8Array};
  const decoded = (v) => {
    const bytes = Uint8Array.from(atob(v.bdata), (c) => c.charCodeAt(0));
    const flat = Array.from(new (TYPED[v.dtype] || Float64Array)(bytes.buffer));
    const shape = String(v.shape || flat.length).split(",").map(Number);
    if (shape.length < 2) return flat;
    const rows = [];
    for (let i = 0; i < shape[0]; i++) rows.push(flat.slice(i * shape[1], (i + 1) * shape[1]));
    return rows;
  };
  const vals = (v) => {
    if (v === undefined || v === null) return null;
    if (v.bdata) v = decoded(v);
    if (ArrayBuffer.isView(v)) v = Array.from(v);
    if (!Array.isArray(v)) return String(v);
    return v.slice(0, 6).map((x) => (Array.isArray(x) || ArrayBuffer.isView(x) ? vals(x) : num(x)));
  };
  window.__digest = (data) => JSON.stringify((data || []).map((t) => [t.type || "", vals(t.y), vals(t.z)]));
  window.__charts = () => {
    const out = {};
    document.querySelectorAll(".js-plotly-plot").forEach((gd) => {
      const box = gd.closest(`[id*='"name"']`);
      let name = null;
      try { name = box && JSON.parse(box.id).name; } catch (e) { return; }
      if (!name || !gd.data || !gd.data.length) return;
      const g = gd.closest(".dash-graph") || gd.parentNode;
      out[name] = [window.__digest(gd.data), g.hasAttribute("data-stale") && g.getAttribute("aria-busy") === "true"];
    });
    return out;
  };
  window.__shows = (want) => {
    const now = window.__charts(), names = Object.keys(want || {});
    return names.every((n) => !now[n] || (now[n][0] === want[n] && !now[n][1])) && names.some((n) => now[n]);
  };
"""
"""Statements for a page (inside a function): `window.__digest(data)`, a figure's numbers (each trace's type and
its first y and z values, as numbers, however the figure holds them); `window.__charts()`, each drawn chart's
name -> [its digest, whether it is marked as updating (`data-stale` and `aria-busy`)]; `window.__shows(want)`,
whether every chart of `want` (name -> digest) that the page shows has those numbers, unmarked."""

LIVE_CHARTS = """async (queries) => {
  const url = JSON.parse(document.querySelector('meta[name="headdiv-live"]').content).url, out = {};
  for (const q of queries) {
    const answer = await fetch(url + "?" + q.replace(/^\\?/, "")).then((r) => (r.status === 200 ? r.json() : null));
    const charts = {};
    ((answer && answer.parts) || []).forEach((p) => Object.keys(p.charts).forEach((n) => {
      charts[n] = window.__digest(p.charts[n].data);
    }));
    out[q] = charts;
  }
  return out;
}"""
"""(queries) -> each state's charts as its live answer draws them (the lecturer's page draws the same), by query:
name -> `window.__digest` of its data. Needs `CHART_READER` on the page."""
