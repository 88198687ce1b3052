// Every chart readable without sight: the chart is a figure named by its title, described in a sentence or
// two computed from the numbers it draws (what rises, what falls, where the lowest and highest are, with
// the Monte Carlo error where the chart has error bars), and its numbers are a real table in a disclosure
// under it ("Data table", one Enter away). Computed in the browser from the drawn figure itself, so the
// Dash callbacks, the live path and the offline exports (which inline this file) all describe exactly what
// is drawn, at no cost to the server. The description is not a live region: a drag does not make a screen
// reader talk on every redraw; the view's verdict is the announced part (WCAG 2.2: 1.1.1, 1.3.1).
(function () {
  "use strict";
  var MAX_SAID = 6; // traces described in the sentence; the table holds all of them
  var MAX_LISTED = 8; // categories listed one by one (bars), beyond which only the extremes are said
  // the page's words in its language (assets/words.js; an exported file and a notebook's chart inline them)
  function say(key, fields) { return window.headdivWords.say(key, fields); }

  function plain(s) {
    return String(s === undefined || s === null ? "" : s)
      .replace(/<br\s*\/?>/gi, " ").replace(/<[^>]+>/g, "").replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();
  }
  function titled(t) {
    return plain(typeof t === "string" ? t : t && t.text);
  }
  function axisTitle(layout, axis) {
    return titled(((layout || {})[axis] || {}).title);
  }
  function arr(a) {
    if (!a) return [];
    if (Array.isArray(a)) return a;
    if (ArrayBuffer.isView(a)) return Array.prototype.slice.call(a);
    return [];
  }
  function num(v) {
    return typeof v === "number" && isFinite(v) ? v : null;
  }
  function fmt(v) {
    if (typeof v === "string") return v;
    if (num(v) === null) return say("chart.no_value");
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
    return String(Number(v.toPrecision(4)));
  }
  function withSe(v, se) {
    return se === null || se === undefined || !isFinite(se) || se <= 0 ? fmt(v) : fmt(v) + " ± " + fmt(se);
  }

  // The traces a reader sees, as plain arrays (Plotly's full data holds decoded typed arrays).
  function traces(gd) {
    var full = gd._fullData || gd.data || [];
    return full.filter(function (t) { return t && (t.visible === true || t.visible === undefined); }).map(function (t, i) {
      var e = t.error_y && t.error_y.visible !== false ? arr(t.error_y.array) : [];
      return {
        type: t.type || "scatter",
        name: plain(t.name) || say("chart.series", {n: i + 1}),
        x: arr(t.x), y: arr(t.y), z: Array.isArray(t.z) || ArrayBuffer.isView(t.z) ? arr(t.z).map(arr) : [],
        se: e,
        hidden: t.showlegend === false && t.hoverinfo === "skip",
      };
    });
  }

  function points(t) {
    var pts = [];
    for (var i = 0; i < t.y.length; i++) {
      var y = num(t.y[i]);
      if (y !== null) pts.push({x: t.x.length ? t.x[i] : i, y: y, se: num(t.se[i])});
    }
    return pts;
  }
  function categorical(t, pts) {
    return t.type === "bar" || pts.some(function (p) { return typeof p.x === "string"; });
  }
  // One xy trace in words. The rule the verdicts follow: a change counts only when it exceeds twice the
  // Monte Carlo error of the difference (the two ends' errors added in quadrature).
  function xySentence(t) {
    var pts = points(t);
    if (pts.length === 1) return say("chart.one_point", {name: t.name, value: withSe(pts[0].y, pts[0].se), x: fmt(pts[0].x)});
    var lo = pts[0], hi = pts[0];
    pts.forEach(function (p) { if (p.y < lo.y) lo = p; if (p.y > hi.y) hi = p; });
    if (categorical(t, pts) && pts.length <= MAX_LISTED) {
      return say("chart.listed", {name: t.name, values: pts.map(function (p) { return fmt(p.x) + " " + withSe(p.y, p.se); }).join("; ")});
    }
    var extremes = say("chart.extremes", {lo: withSe(lo.y, lo.se), lo_x: fmt(lo.x), hi: withSe(hi.y, hi.se), hi_x: fmt(hi.x)});
    if (categorical(t, pts)) return say("chart.categorical", {name: t.name, extremes: extremes});
    var first = pts[0], last = pts[pts.length - 1];
    var diff = last.y - first.y;
    var err = first.se !== null && last.se !== null ? Math.sqrt(first.se * first.se + last.se * last.se) : 0;
    var ends = {name: t.name, first: withSe(first.y, first.se), last: withSe(last.y, last.se), extremes: extremes};
    if (diff === 0) return say("chart.stays", {name: t.name, value: fmt(first.y), extremes: extremes});
    if (Math.abs(diff) <= 2 * err) return say("chart.within_error", ends);
    return say(diff > 0 ? "chart.rises" : "chart.falls", ends);
  }
  // Where a chart's x runs along numbers, it is said once ("Along θ from 0 to 90:"), not at every value.
  function along(shown, xLabel) {
    var xs = [];
    shown.forEach(function (t) {
      if (t.z.length || t.type === "histogram") return;
      var pts = points(t);
      if (pts.length > 1 && !categorical(t, pts)) pts.forEach(function (p) { xs.push(p.x); });
    });
    if (!xs.length) return "";
    return say("chart.along", {axis: xLabel || "x", lo: fmt(Math.min.apply(null, xs)), hi: fmt(Math.max.apply(null, xs))});
  }

  function gridSentence(t, layout) {
    var lo = null, hi = null;
    t.z.forEach(function (row, r) {
      row.forEach(function (v, c) {
        v = num(v);
        if (v === null) return;
        if (!lo || v < lo.v) lo = {v: v, r: r, c: c};
        if (!hi || v > hi.v) hi = {v: v, r: r, c: c};
      });
    });
    if (!lo) return say("chart.no_values");
    var xl = axisTitle(layout, "xaxis") || say("chart.column"), yl = axisTitle(layout, "yaxis") || say("chart.row");
    function where(p) {
      var x = t.x.length ? t.x[p.c] : p.c, y = t.y.length ? t.y[p.r] : p.r;
      return say("chart.grid_at", {x_axis: xl, x: fmt(x), y_axis: yl, y: fmt(y)});
    }
    return say("chart.grid", {rows: t.z.length, columns: (t.z[0] || []).length, lo: fmt(lo.v), lo_at: where(lo),
                              hi: fmt(hi.v), hi_at: where(hi)});
  }

  function describe(gd) {
    var layout = gd.layout || {}; // as given: Plotly's full layout fills empty titles with editing prompts
    var title = titled(layout.title);
    var notes = arr(layout.annotations).map(function (a) { return plain(a.text); }).filter(Boolean);
    var shown = traces(gd).filter(function (t) {
      return !t.hidden && (t.z.length || (t.type === "histogram" ? t.x : t.y).some(function (v) { return num(v) !== null; }));
    });
    var xLabel = axisTitle(layout, "xaxis");
    var said = [along(shown, xLabel)].filter(Boolean);
    shown.slice(0, MAX_SAID).forEach(function (t) {
      if (t.z.length) said.push(gridSentence(t, layout));
      else if (t.type === "histogram") {
        var v = t.x.map(num).filter(function (x) { return x !== null; });
        said.push(say("chart.histogram", {name: t.name, count: v.length, lo: fmt(Math.min.apply(null, v)), hi: fmt(Math.max.apply(null, v))}));
      } else said.push(xySentence(t));
    });
    if (shown.length > MAX_SAID) said.push(say("chart.more", {n: shown.length - MAX_SAID}));
    var name = title || notes[0] || say("chart.chart");
    var sentence = shown.length ? said.join(" ") : notes.join(" ") || say("chart.nothing");
    return {name: name, sentence: sentence, traces: shown, xLabel: xLabel || "x", layout: layout};
  }

  function cell(tag, text) {
    var c = document.createElement(tag);
    c.textContent = text;
    return c;
  }
  // The numbers as tables: xy traces sharing their x values in one table (a column per trace, its error
  // beside it), a grid as rows by columns.
  function tables(d) {
    var out = [];
    var groups = [];
    d.traces.forEach(function (t) {
      if (t.z.length) {
        var table = document.createElement("table");
        table.appendChild(cell("caption", t.name));
        var head = table.createTHead().insertRow();
        head.appendChild(cell("th", (axisTitle(d.layout, "yaxis") || "y") + " \\ " + (axisTitle(d.layout, "xaxis") || "x")));
        (t.z[0] || []).forEach(function (_, c) { head.appendChild(cell("th", fmt(t.x.length ? t.x[c] : c))); });
        var body = table.createTBody();
        t.z.forEach(function (row, r) {
          var tr = body.insertRow();
          var th = cell("th", fmt(t.y.length ? t.y[r] : r));
          th.scope = "row";
          tr.appendChild(th);
          row.forEach(function (v) { tr.appendChild(cell("td", fmt(num(v)))); });
        });
        out.push(table);
        return;
      }
      var xs = (t.x.length ? t.x : t.y.map(function (_, i) { return i; })).map(fmt).join("|");
      var g = groups.filter(function (g) { return g.xs === xs; })[0];
      if (!g) groups.push(g = {xs: xs, x: t.x.length ? t.x : t.y.map(function (_, i) { return i; }), traces: []});
      g.traces.push(t);
    });
    groups.forEach(function (g) {
      var table = document.createElement("table");
      var head = table.createTHead().insertRow();
      head.appendChild(cell("th", d.xLabel));
      g.traces.forEach(function (t) {
        head.appendChild(cell("th", t.name));
        if (t.se.length) head.appendChild(cell("th", say("chart.error_column", {name: t.name})));
      });
      var body = table.createTBody();
      g.x.forEach(function (x, i) {
        var tr = body.insertRow();
        var th = cell("th", fmt(x));
        th.scope = "row";
        tr.appendChild(th);
        g.traces.forEach(function (t) {
          tr.appendChild(cell("td", fmt(t.type === "histogram" ? t.x[i] : num(t.y[i]))));
          if (t.se.length) tr.appendChild(cell("td", fmt(num(t.se[i]))));
        });
      });
      out.push(table);
    });
    return out;
  }

  var counter = 0;
  // Under the chart's card, in the cell the page gives each chart (.chart-cell in the dashboard, the
  // figure of an exported file): never inside the card, whose height the chart fills.
  function place(gd) {
    var cell = gd.closest(".chart-cell, .chart-box");
    if (!cell) return null;
    var box = cell.querySelector(":scope > .chart-text");
    if (box) return box;
    box = document.createElement("div");
    box.className = "chart-text";
    var id = "chart-text-" + (++counter);
    var p = document.createElement("p");
    p.className = "chart-summary sr-only";
    p.id = id;
    var details = document.createElement("details");
    details.className = "chart-data";
    var summary = document.createElement("summary");
    details.appendChild(summary);
    details.addEventListener("toggle", function () { if (details.open) fill(gd, box); });
    box.appendChild(p);
    box.appendChild(details);
    cell.appendChild(box);
    return box;
  }
  function fill(gd, box) {
    var details = box.querySelector("details");
    var d = describe(gd);
    details.querySelectorAll("table").forEach(function (t) { t.remove(); });
    tables(d).forEach(function (t) { details.appendChild(t); });
  }
  function update(gd) {
    if (!gd.parentNode) return;
    var box = place(gd);
    if (!box) return;
    var d = describe(gd);
    var p = box.querySelector(".chart-summary");
    if (p.textContent !== d.sentence) p.textContent = d.sentence;
    var details = box.querySelector("details");
    details.hidden = !d.traces.length;
    details.querySelector("summary").textContent = say("chart.data_table", {name: d.name});
    gd.setAttribute("role", "figure"); // not "img": Plotly's own controls inside stay reachable
    gd.setAttribute("aria-label", d.name);
    gd.setAttribute("aria-describedby", p.id);
    if (details.open) fill(gd, box);
  }

  function watch(gd) {
    if (gd.__headdivText || typeof gd.on !== "function") return;
    gd.__headdivText = true;
    gd.on("plotly_afterplot", function () { update(gd); });
    if (gd._fullLayout) update(gd);
  }
  function scan() {
    document.querySelectorAll(".js-plotly-plot").forEach(watch);
  }
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; scan(); });
  }).observe(document.documentElement, {subtree: true, childList: true});
  document.addEventListener("DOMContentLoaded", scan);
  scan(); // loaded after its charts (a notebook's output): describe those already there
  window.headdivChartText = {describe: describe, update: update};
})();
