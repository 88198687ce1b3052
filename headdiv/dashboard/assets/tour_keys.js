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
