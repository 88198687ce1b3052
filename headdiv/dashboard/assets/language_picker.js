// The language pickers, the header's and the page foot's (headdiv/dashboard/page/frame.py): choosing a language reloads the page in it
// (`?lang=`, the rest of the page's state kept: docs/languages.md), since the page's words are built once per
// language on the server. The picker shows the page's own language (<html lang>).
(function () {
  document.addEventListener("change", function (ev) {
    var picker = ev.target;
    if (!picker || !picker.classList || !picker.classList.contains("lang-picker") || picker.value === document.documentElement.lang) return;
    var q = new URLSearchParams(window.location.search);
    q.set("lang", picker.value);
    window.location.assign(window.location.pathname + "?" + q.toString() + window.location.hash);
  });
})();
