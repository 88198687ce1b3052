"""When a view's charts count as drawn, in the browser: one definition for the bench's and the tests' waits.

Every chart shown is counted, those dcc.Graph has not mounted yet too (a chart's first drawing may hold data
already, assets/live.js `opening`, so "every plot holds data" would pass before the last ones mount). Each
snippet is a JavaScript function expression, to be called inside a `wait_for_function` predicate. It lives
here, not in the package, since the package keeps its JavaScript in the dashboard's assets.
"""

from __future__ import annotations

SHOWN_PLOTS = (
    "((root) => [...root.querySelectorAll('.dash-graph')].filter((c) => c.offsetParent)"
    ".map((c) => c.querySelector('.js-plotly-plot')))"
)
"""(root) -> the plot of each dcc.Graph shown under `root`, null for one not mounted yet."""

HOLDS_DATA = "((g) => !!(g && g.data && g.data.length))"
"""(plot) -> whether it is drawn with data."""

ALL_DRAWN = f"((root) => {{ const p = {SHOWN_PLOTS}(root); return p.length > 0 && p.every({HOLDS_DATA}); }})"
"""(root) -> whether at least one chart is shown under `root` and every chart shown there holds data."""


VIEW_DRAWN = (
    f"(tab) => {{ const v = document.getElementById('view-' + tab);"
    f" return !!v && {ALL_DRAWN}(v) && !document.querySelector('.busy'); }}"
)
"""(tab) -> whether the view `tab`'s charts all hold data and nothing is computing."""


IN_VIEWPORT = (
    "((g) => { const r = g.getBoundingClientRect(), s = g._fullLayout && g._fullLayout._size;"
    " const top = s ? r.top + s.t : r.top, bottom = s ? top + s.h : r.bottom;"
    " return bottom > 0 && r.right > 0 && top < innerHeight && r.left < innerWidth; })"
)
"""(plot) -> whether some of its plot area (where a new state's numbers show; not a margin holding only the title)
is inside the viewport: the charts assets/live.js draws in a key press's frame."""
