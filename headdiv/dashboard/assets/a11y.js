// Log-scale sliders (n and d_k move in powers of two, the softmax temperature in powers of ten) hold the
// exponent; screen readers should hear the value itself. A wrapper says the base (data-scale="2" or "10");
// this keeps each handle's aria-valuetext equal to base ** aria-valuenow as the handle moves.
(function () {
  function text(x) {
    if (x >= 1e5 || (x !== 0 && Math.abs(x) < 1e-3)) return x.toExponential(2);
    return String(Number(x.toPrecision(6)));
  }
  function update(handle) {
    var wrap = handle.closest("[data-scale]");
    if (!wrap) return;
    var base = Number(wrap.getAttribute("data-scale"));
    var now = Number(handle.getAttribute("aria-valuenow"));
    if (!isFinite(base) || !isFinite(now)) return;
    var value = text(Math.pow(base, now));
    if (handle.getAttribute("aria-valuetext") !== value) handle.setAttribute("aria-valuetext", value);
  }
  function all() {
    document.querySelectorAll("[data-scale] [role=slider]").forEach(update);
  }
  new MutationObserver(function (records) {
    var handles = false;
    records.forEach(function (r) {
      if (r.type === "attributes" && r.target.getAttribute && r.target.getAttribute("role") === "slider") {
        update(r.target);
      } else if (r.type === "childList") {
        handles = true;
      }
    });
    if (handles) all();
  }).observe(document.documentElement, {subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"]});
  document.addEventListener("DOMContentLoaded", all);
})();
