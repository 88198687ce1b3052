// "PNG for slides": each chart of the view shown as a 1920×1080 PNG with a projector's type sizes, drawn by
// Plotly's own static export in the browser (Plotly.toImage: no server, no network, no extra package), one
// file per chart, named after it. The dashboard's header button and an exported page's (standalone.js) both
// call window.headdivSlides with the charts on screen.
(function () {
  var W = 1920, H = 1080;
  function big(layout) {
    var out = JSON.parse(JSON.stringify(layout || {}));
    var title = typeof out.title === "string" ? {text: out.title} : (out.title || {});
    out.title = Object.assign({}, title, {font: Object.assign({}, title.font, {size: 40})});
    out.font = Object.assign({}, out.font, {size: 28});
    out.legend = Object.assign({}, out.legend, {font: Object.assign({}, (out.legend || {}).font, {size: 26})});
    out.margin = {l: 120, r: 60, t: 120, b: 110};
    out.width = W;
    out.height = H;
    out.autosize = false;
    return out;
  }
  function save(url, name) {
    var a = document.createElement("a");
    a.href = url;
    a.download = "headdiv-" + name + "-1920x1080.png";
    document.body.appendChild(a);
    a.click();
    a.remove();
  }
  // charts: [{gd: a drawn chart, name}]; resolves with the PNGs' data URLs, in order
  window.headdivSlides = function (charts) {
    var urls = [];
    return charts.reduce(function (done, c) {
      return done.then(function () {
        return window.Plotly.toImage({data: c.gd.data, layout: big(c.gd.layout)}, {format: "png", width: W, height: H});
      }).then(function (url) {
        urls.push(url);
        save(url, c.name);
      });
    }, Promise.resolve()).then(function () { return urls; });
  };
  // the dashboard: the charts of the view whose button was pressed (those on screen)
  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest && e.target.closest("button.slides-png");
    if (!button) return;
    var charts = [];
    (button.closest(".view-grid") || document).querySelectorAll("[id*='\"type\":\"chart\"']").forEach(function (box) {
      var gd = box.querySelector(".js-plotly-plot");
      if (!gd || !gd.data || !gd.data.length || !box.offsetParent) return;
      charts.push({gd: gd, name: JSON.parse(box.id).name});
    });
    button.disabled = true;
    window.headdivSlides(charts).then(function (urls) {
      window.headdivSlides.last = urls.length;
    }).finally(function () { button.disabled = false; });
  });
})();
