// Charts make room for their legends. A horizontal legend wraps onto more rows when a chart is narrow or
// its fonts are large (projectors), and would then run over the title above it (or the axis title below
// it). After each draw, this widens the margin on the legend's side by the overlap (`Plotly.adjust`,
// assets/plotly_bundles.js), once per change, so no text is drawn over other text at any width.
// `window.headdivChartsFit()` says whether every chart currently fits (the browser tests wait for it
// before measuring).
(function () {
  var GAP = 4;
  function box(el) {
    var r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, w: r.width, h: r.height};
  }
  function overlap(a, b) {
    var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    return w > 1 && h > 1 ? h : 0;
  }
  // The extra margin chart `gd` needs, on the legend's side: {side: "t"|"b", px} or null when it fits.
  function need(gd) {
    if (!gd._fullLayout || !gd.getBoundingClientRect().width) return null;
    var legend = gd.querySelector(".legend");
    if (!legend || !gd._fullLayout.showlegend) return null;
    var lb = box(legend.querySelector(".bg") || legend);
    if (!lb.w || !lb.h) return null;
    var plot = gd.querySelector(".cartesianlayer .bg, .nsewdrag");
    var above = plot ? lb.top < box(plot).top : true;
    var worst = 0;
    gd.querySelectorAll(".gtitle, .annotation-text, .g-xtitle text, .xtick text").forEach(function (t) {
      if (legend.contains(t) || !t.getBoundingClientRect().width) return;
      worst = Math.max(worst, overlap(lb, box(t)));
    });
    return worst > 0 ? {side: above ? "t" : "b", px: Math.ceil(worst) + GAP} : null;
  }
  // A title wider than its chart (a phone, large fonts) is broken at the space nearest the middle of its
  // longest line, again on the next pass if still too wide; Plotly never wraps a title itself.
  function longTitle(gd) {
    var title = gd.querySelector(".gtitle");
    var svg = gd.querySelector(".main-svg");
    var text = gd.layout && gd.layout.title && gd.layout.title.text;
    if (!title || !svg || typeof text !== "string") return null;
    var t = box(title), s = box(svg);
    if (!t.w || (t.right <= s.right - GAP && t.left >= s.left)) return null;
    var lines = text.split("<br>");
    var at = 0;
    lines.forEach(function (line, i) { if (line.length > lines[at].length) at = i; });
    var line = lines[at], mid = line.length / 2, cut = -1;
    for (var i = 0; i < line.length; i++) {
      if (line[i] === " " && (cut < 0 || Math.abs(i - mid) < Math.abs(cut - mid))) cut = i;
    }
    if (cut <= 0) return null;
    lines.splice(at, 1, line.slice(0, cut), line.slice(cut + 1));
    return lines.join("<br>");
  }
  var MIN_TITLE = 12;
  // First remedy for a wide title: a smaller font (down to MIN_TITLE px), so it stays on one line.
  function smallerTitle(gd) {
    var title = gd.querySelector(".gtitle");
    var svg = gd.querySelector(".main-svg");
    var font = gd._fullLayout && gd._fullLayout.title && gd._fullLayout.title.font;
    if (!title || !svg || !font || font.size <= MIN_TITLE) return null;
    var t = box(title), s = box(svg);
    var room = s.w - 2 * GAP - (t.left - s.left);
    if (!t.w || t.right <= s.right - GAP) return null;
    return Math.max(MIN_TITLE, Math.floor((font.size * room) / t.w));
  }
  // A wrapped title whose first line rises above the chart is moved down by the overshoot.
  function titleAbove(gd) {
    var title = gd.querySelector(".gtitle");
    var svg = gd.querySelector(".main-svg");
    var lay = gd._fullLayout;
    if (!title || !svg || !lay || !lay.title || lay.title.yref !== "container") return null;
    var over = box(svg).top + 1 - box(title).top;
    return over > 1 ? lay.title.y - (over + GAP) / (lay.height || 400) : null;
  }
  function fit() {
    if (!window.Plotly) return;
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      var size = smallerTitle(gd);
      if (size) {
        window.Plotly.adjust(gd, {"title.font.size": size});
        return;
      }
      var wrapped = longTitle(gd);
      if (wrapped) {
        window.Plotly.adjust(gd, {"title.text": wrapped});
        return;
      }
      var y = titleAbove(gd);
      if (y !== null) {
        window.Plotly.adjust(gd, {"title.y": y});
        return;
      }
      var n = need(gd);
      if (!n) return;
      var margin = gd._fullLayout.margin;
      var height = gd._fullLayout.height || 400;
      var now = margin[n.side];
      if (now + n.px > 0.6 * height) return; // never squeeze the plot away
      var update = {};
      update["margin." + n.side] = now + n.px;
      window.Plotly.adjust(gd, update);
    });
  }
  window.headdivChartsFit = function () {
    var ok = true;
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (smallerTitle(gd) || longTitle(gd) || titleAbove(gd) !== null) ok = false;
      var n = need(gd);
      if (n && gd._fullLayout.margin[n.side] + n.px <= 0.6 * (gd._fullLayout.height || 400)) ok = false;
    });
    return ok;
  };
  setInterval(fit, 300);
})();
