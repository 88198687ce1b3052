// Large fonts for projectors: while the page root has the class "large" (URL large=1, or the header
// checkbox), every Plotly chart's fonts are enlarged through Plotly itself (`Plotly.adjust` of the page's
// facade, assets/plotly_bundles.js), so labels are re-laid out rather than scaled by CSS over each other.
// Charts redrawn by Dash are caught on the next tick.
(function () {
  var LARGE = 17;
  function apply() {
    var root = document.getElementById("root");
    if (!root || !window.Plotly) return;
    var large = root.classList.contains("large");
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (!gd.layout || !gd.data) return;
      var size = (gd.layout.font && gd.layout.font.size) || 12;
      if (large && size !== LARGE) {
        gd.__headdivFont = size;
        window.Plotly.adjust(gd, {"font.size": LARGE, "title.font.size": LARGE + 3, "legend.font.size": LARGE - 2});
      } else if (!large && gd.__headdivFont && size === LARGE) {
        var base = gd.__headdivFont;
        gd.__headdivFont = null;
        window.Plotly.adjust(gd, {"font.size": base, "title.font.size": base + 3, "legend.font.size": base - 1});
      }
    });
  }
  setInterval(apply, 500);
})();
