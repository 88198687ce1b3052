// dcc's charts, sliders, menus and Markdown are lazy React components (React.lazy under Suspense): their
// code is loaded only once the layout first renders them, and React shows each one a render later, after
// a fallback (a chart's empty box). On two cores that put the charts' first drawing 250-300 ms after the
// layout was on screen. Rendering each of them once, off the page, as soon as Dash's scripts have run starts
// that loading while the layout is still being fetched; by the time React renders the layout the code is
// in, and the charts mount, and draw, in that first render. The throwaway root is unmounted at once: it
// never draws a chart (the component suspends, and only its fallback is ever committed there).
// The components are named by the page (`headdiv-lazy`: headdiv/dashboard/page/app.py DCC_FIRST, whose chunks
// the page preloads).
(function () {
  var meta = document.querySelector('meta[name="headdiv-lazy"]');
  if (!meta) return;
  var names = JSON.parse(meta.getAttribute("content"));
  document.addEventListener("DOMContentLoaded", function () {
    var dcc = window.dash_core_components, R = window.React, D = window.ReactDOM;
    if (!dcc || !R || !D || !D.createRoot || !D.flushSync) return;
    var root = D.createRoot(document.createElement("div"));
    try {
      D.flushSync(function () {
        root.render(R.createElement(R.Fragment, null, names.filter(function (n) { return dcc[n]; }).map(function (n) {
          return R.createElement(dcc[n], {key: n, id: "lazy-early-" + n});
        })));
      });
    } catch (e) {
      // a component that cannot render without its props still started its loading
    }
    root.unmount();
  });
})();
