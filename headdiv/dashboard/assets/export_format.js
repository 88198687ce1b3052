// The header's PNG/SVG switch applies at once to every chart's download button. Plotly reads the format
// from the chart's own context when its button is pressed, and a config changed after the first draw
// does not reach that context; so the format is written there when the switch changes, and again in the
// capture phase of any click on a chart's toolbar (before Plotly's own handler), so charts drawn later
// follow too.
(function () {
  function chosen() {
    var input = document.querySelector("#img-format input:checked");
    return input && (input.value === "svg" || input.value === "png") ? input.value : "png";
  }
  function apply(root) {
    var format = chosen();
    (root || document).querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      var ctx = gd._context;
      if (ctx && ctx.toImageButtonOptions) ctx.toImageButtonOptions.format = format;
    });
  }
  document.addEventListener("change", function (e) {
    if (e.target && e.target.closest && e.target.closest("#img-format")) apply();
  });
  document.addEventListener(
    "click",
    function (e) {
      var gd = e.target && e.target.closest && e.target.closest(".modebar") && e.target.closest(".js-plotly-plot");
      if (gd) apply(gd.parentNode);
    },
    true
  );
  // "this view as HTML": the file of the state the page shows, so its link takes the page's query when clicked
  document.addEventListener(
    "click",
    function (e) {
      var a = e.target && e.target.closest && e.target.closest("a.export-html");
      if (a) a.setAttribute("href", a.getAttribute("href").split("?")[0] + location.search);
    },
    true
  );
  window.headdivExportFormat = {chosen: chosen, apply: apply};
})();
