// Guided tours: a presenter's clicker sends PageDown/PageUp (some send the arrow keys); both go to the
// next/previous step by clicking the tour's own links, so the URL and the back button follow. Keys typed
// into a field, or arrows on a focused slider or tab, keep their usual meaning.
(function () {
  var NEXT = {PageDown: "tour-next", ArrowRight: "tour-next", PageUp: "tour-prev", ArrowLeft: "tour-prev"};
  function busy(el) {
    if (!el || el === document.body) return false;
    var tag = el.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable) return true;
    var role = el.getAttribute && el.getAttribute("role");
    return role === "slider" || role === "tab" || role === "combobox" || role === "spinbutton";
  }
  document.addEventListener("keydown", function (ev) {
    var target = NEXT[ev.key];
    if (!target || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    var panel = document.getElementById("tour-panel");
    if (!panel || panel.style.display === "none" || panel.classList.contains("preset-story")) return;
    var active = document.activeElement;
    if (busy(active)) return;
    var link = document.getElementById(target);
    if (!link || !link.getAttribute("href") || link.classList.contains("disabled")) return;
    ev.preventDefault();
    link.click();
  });
})();
// The reveal: once a prediction is answered, the answer, its reason and the chart it is about share the
// screen. On a projector with large fonts the panel alone fills the first screen, so the page scrolls
// until the answer is at the top or the view's first chart is in the upper half, whichever comes first.
(function () {
  function firstChart() {
    var charts = document.querySelectorAll("[id^='view-'] .js-plotly-plot");
    for (var i = 0; i < charts.length; i++) if (charts[i].getBoundingClientRect().width > 0) return charts[i];
    return null;
  }
  function bring() {
    var answer = document.querySelector("#tour-reveal .tour-answer");
    var chart = firstChart();
    if (!answer || !chart) return;
    // where the sticky header's foot will be once scrolled (a presenting room's line above the page scrolls
    // away first: the header's foot now would stop the answer that much lower)
    var header = document.querySelector(".header");
    var top = (header ? header.offsetHeight : 0) + 8;
    var by = Math.min(answer.getBoundingClientRect().top - top, chart.getBoundingClientRect().top - 0.5 * innerHeight);
    if (by <= 0) return;
    var still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    window.scrollBy({top: by, behavior: still ? "auto" : "smooth"});
  }
  var seen = false;
  var wait = setInterval(function () {
    var reveal = document.getElementById("tour-reveal");
    if (!reveal) return;
    clearInterval(wait);
    new MutationObserver(function () {
      var shown = !!reveal.querySelector(".tour-answer");
      if (shown && !seen) bring();
      seen = shown;
    }).observe(reveal, {childList: true, subtree: true});
  }, 200);
})();
