// Explanations are typeset after the page's first charts are drawn: fetching MathJax (2 MB) and typesetting
// (0.1-0.4 s on two cores) would otherwise take the CPU those charts wait for. Each explanation comes with
// MathJax off and its text hidden (components.explanation); once charts with data are drawn (the event
// from plotly_bundles.js), or 3 s after the page loaded if none are, MathJax is turned on through Dash for
// every explanation shown then or later (another tab), and its text shown once typeset. Only once it comes
// near the screen, though: on a phone the explanation is below the charts, and a first view that never
// scrolls to it never downloads MathJax (half a megabyte compressed).
(function () {
  var started = false;
  var GIVE_UP_MS = 5000; // show the text even if MathJax never comes

  function reveal(aside, markdown, since) {
    if (markdown.querySelector("mjx-container") || Date.now() - since > GIVE_UP_MS || !aside.isConnected) {
      aside.classList.remove("math-pending");
      return;
    }
    requestAnimationFrame(function () { reveal(aside, markdown, since); });
  }
  var near = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (!entry.isIntersecting) return;
      near.unobserve(entry.target);
      typeset(entry.target);
    });
  }, {rootMargin: "300px 0px"}) : null;
  function typesetShown() {
    document.querySelectorAll(".explain.math-pending").forEach(function (aside) {
      if (aside.getAttribute("data-watched")) return;
      aside.setAttribute("data-watched", "1");
      if (near) near.observe(aside); else typeset(aside);
    });
  }
  function typeset(aside) {
    var markdown = aside.querySelector("[id]");
    if (!markdown || aside.getAttribute("data-typesetting")) return;
    aside.setAttribute("data-typesetting", "1");
    var text = markdown.textContent;
    if (text.indexOf("$") >= 0) { // MathJax still off (on, it shows \( \) until typeset)
      window.dash_clientside.set_props(JSON.parse(markdown.id), {mathjax: true});
    } else if (text.indexOf("\\(") < 0 && text.indexOf("\\[") < 0) {
      aside.classList.remove("math-pending"); // no formula to wait for
      return;
    }
    reveal(aside, markdown, Date.now());
  }
  function start() {
    if (started || !(window.dash_clientside && window.dash_clientside.set_props)) return;
    started = true;
    typesetShown();
    new MutationObserver(function () {
      if (document.querySelector(".explain.math-pending:not([data-watched])")) typesetShown();
    }).observe(document.body, {childList: true, subtree: true});
  }
  // after the frame that shows the charts, so that they are on screen first
  document.addEventListener("headdiv:charts-drawn", function () {
    requestAnimationFrame(function () { setTimeout(start, 0); });
  });
  window.addEventListener("load", function () { setTimeout(start, 3000); });
})();
