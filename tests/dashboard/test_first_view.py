"""The page's first chart waits for as little as possible: plotly.js comes as a 2-D bundle (the full one only
for a 3-D surface) and the regenerator runtime replaces Dash's polyfill (`headdiv/dashboard/page/vendored.py`), the
layout is fetched alongside Dash's scripts, and the explanations' formulas are typeset after the first
chart is drawn (`assets/typeset_later.js`)."""

from __future__ import annotations

import gzip
import random
import re
from typing import Any

import pytest
from plotly.offline import get_plotlyjs_version

from bench.drawn import SHOWN_PLOTS, VIEW_DRAWN
from headdiv.dashboard.page.app import DCC_FIRST, create_dash_app
from headdiv.dashboard.page.vendored import FULL, RUNTIME, SMALL
from tests.dashboard.test_browser import SMALL as SMALL_SCENARIO
from tests.dashboard.test_browser import wait_chart

CHART_3D = '[id*=\'"name":"surf-3d-chart"\'] .js-plotly-plot'
HEAD = re.compile(r'<link rel="preload" as="script" href="([^"]+)" id="plotly-bundles" data-full="([^"]+)">')


def test_the_2d_bundle_is_the_plotly_js_release_the_plotly_package_writes_figures_for() -> None:
    text = SMALL.read_text(encoding="utf-8")
    # after upgrading `plotly`, rebuild it: sh headdiv/dashboard/vendor/build-plotly-2d.sh
    assert text.startswith(f"/* plotly.js v{get_plotlyjs_version()}, 2-D bundle"), text[:120]
    assert "bundledTraces" in text  # the page reads which trace types it holds


def test_vendored_scripts_are_served_gzipped_and_cached_for_a_year() -> None:
    client = create_dash_app("http://127.0.0.1:9").server.test_client()
    page = client.get("/").get_data(as_text=True)
    found = HEAD.search(page)
    assert found, page[:2000]
    assert "polyfill@" not in page
    runtime = re.search(r'<script src="([^"]+/regenerator-runtime\.[0-9a-f]+\.js)"></script>', page)
    assert runtime and page.index(runtime.group(0)) < page.index("dash_renderer"), page[-3000:]
    for url, path in zip((*found.groups(), runtime.group(1)), (SMALL, FULL, RUNTIME), strict=True):
        packed = client.get(url, headers={"Accept-Encoding": "gzip, deflate"})
        assert packed.status_code == 200
        assert packed.headers["Content-Encoding"] == "gzip"
        assert packed.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert packed.headers["Content-Type"].startswith("text/javascript")
        assert gzip.decompress(packed.data) == path.read_bytes()
        plain = client.get(url)  # a client that takes no gzip
        assert "Content-Encoding" not in plain.headers and plain.data == path.read_bytes()
    assert client.get(found.group(1).replace("plotly-2d", "plotly-3d")).status_code == 404
    # the renderer's first two requests start with the page, not after its scripts; so do the parts of dcc
    # every view renders at once, which dcc's loader would ask for only once React renders them
    for name in ("_dash-layout", "_dash-dependencies"):
        assert f'<link rel="preload" as="fetch" crossorigin href="/{name}">' in page
    for chunk in DCC_FIRST:
        href = f"/_dash-component-suites/dash/dcc/{chunk}"
        assert f'<link rel="preload" as="script" href="{href}">' in page
        assert client.get(href).status_code == 200, href


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_2d_charts_never_fetch_the_full_plotly_and_a_3d_surface_does(page: Any, server_url: str) -> None:
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]) if "plotly" in r.url else None)
    page.goto(f"{server_url}/?tab=surfaces&{SMALL_SCENARIO}")
    wait_chart(page, "surf-heat", "data[0].type === 'heatmap' && data[0].z.flat().every(v => v !== null)")
    # the explanation shows once its formulas are typeset, never as raw TeX
    page.wait_for_function(
        "() => document.querySelector('#view-surfaces .explain:not(.math-pending) mjx-container svg') !== null"
    )
    full = f"plotly-{get_plotlyjs_version()}.min.js"
    assert full not in fetched and any(f.startswith("plotly-2d-") for f in fetched), fetched
    page.click("#surf-3d input")
    page.wait_for_function(
        "(s) => { const g = document.querySelector(s); return g && g._fullData && g._fullData.length"
        " && g._fullData[0].type === 'surface' && g.querySelector('canvas') !== null; }",
        arg=CHART_3D,
    )
    assert full in fetched
    # the chart moved to the full bundle with dcc.Graph's event listeners (hover, click, relayout)
    events = page.evaluate("(s) => Object.keys(document.querySelector(s)._ev._events)", CHART_3D)
    assert {"plotly_hover", "plotly_click", "plotly_relayout"} <= set(events), events
    # and the 2-D heatmap beside it still redraws (with the 2-D bundle)
    page.click("#surf-metric input[value=hdi]")
    wait_chart(page, "surf-heat", "Math.abs(data[0].z[0][0]) < 1e-9")


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_a_phone_downloads_mathjax_only_when_a_formula_comes_near_the_screen(page: Any, server_url: str) -> None:
    """A first view on a phone shows charts, not the explanation below them: MathJax (half a megabyte) is not
    fetched until the person scrolls towards a formula, then the formula is typeset."""
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "mathjax" in r.url else None)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server_url}/?tab=surfaces&{SMALL_SCENARIO}")
    wait_chart(page, "surf-heat", "data[0].type === 'heatmap'")
    page.wait_for_load_state("networkidle")
    below = page.evaluate("() => document.querySelector('#view-surfaces .explain').getBoundingClientRect().top")
    assert below > 844 + 300, "the explanation is on the first screen: this test needs it below"
    assert fetched == [], fetched
    page.locator("#view-surfaces .explain").scroll_into_view_if_needed()
    page.wait_for_function(
        "() => document.querySelector('#view-surfaces .explain:not(.math-pending) mjx-container svg') !== null"
    )
    assert any("async-mathjax" in url for url in fetched), fetched


PAINTED = """
(() => {
  // each chart's data as painted, frame by frame: a new entry whenever it differs from the last one
  window.__painted = {};
  const look = () => {
    document.querySelectorAll('.js-plotly-plot').forEach((g) => {
      const box = g.closest('[id*=\\'"name"\\']');
      let name = null;
      try { name = box && JSON.parse(box.id).name; } catch (e) { return; }
      if (!name) return;
      const seen = (window.__painted[name] = window.__painted[name] || []);
      const now = JSON.stringify((g.data || []).map((t) => [t.x, t.y, t.z]));
      if (seen[seen.length - 1] !== now) seen.push(now);
    });
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
  // the figures with data each chart was handed by the page's own drawing (Dash's dcc.Graph)
  window.__handed = {};
  document.addEventListener('DOMContentLoaded', () => {
    const P = window.Plotly, react = P.react;
    P.react = function (gd, fig) {
      const box = gd && gd.closest && gd.closest('.dash-graph');
      const name = box && JSON.parse(box.id).name;
      if (name && fig && fig.data && fig.data.length) window.__handed[name] = (window.__handed[name] || 0) + 1;
      return react.apply(this, arguments);
    };
  });
})();
"""
EMPTY = "[]"
MOUNTED = (
    f"(tab) => {{ const v = document.getElementById('view-' + tab); const p = v && {SHOWN_PLOTS}(v);"
    " return !!p && p.length > 0 && p.every((g) => g); }"
)
"""(tab) -> whether every chart shown on the view `tab` is mounted (drawn or not)."""


def _short(painted: dict[str, list[str]]) -> dict[str, list[str]]:
    return {name: [p[:24] for p in seq] for name, seq in painted.items()}


def _painted_when_drawn(page: Any, tab: str) -> dict[str, list[str]]:
    """Once every chart of the view holds data (those not mounted yet counted too) and nothing is computing
    or on its way: each chart's paintings, first to last."""
    page.wait_for_function(
        f"(tab) => window.headdivLive.settled() && ({VIEW_DRAWN})(tab)",
        arg=tab,
        timeout=120_000,
    )
    painted: dict[str, list[str]] = page.evaluate(
        """(tab) => {
          const names = [...document.getElementById('view-' + tab).querySelectorAll('.dash-graph')]
            .filter((b) => b.offsetParent).map((b) => JSON.parse(b.id).name);
          return Object.fromEntries(names.map((n) => [n, window.__painted[n] || []]));
        }""",
        tab,
    )
    return painted


class _Held:
    """Requests kept waiting until `release()`; those sent after it go on at once."""

    def __init__(self) -> None:
        self.routes: list[Any] = []
        self.released = False

    def __call__(self, route: Any) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self) -> None:
        self.released = True
        for route in self.routes:
            route.continue_()


def _open(browser: Any, url: str, *hold: str) -> tuple[Any, dict[str, _Held]]:
    """A new tab (its own memory) at `url`, its paintings recorded; requests whose URL holds one of `hold` are
    kept waiting under it until the caller releases them."""
    context = browser.new_context(viewport={"width": 1500, "height": 1000})
    context.add_init_script(PAINTED)
    page = context.new_page()
    page.set_default_timeout(60_000)
    held = {name: _Held() for name in hold}
    for name in hold:
        page.route(f"**/*{name}*", held[name])
    page.goto(url, wait_until="commit")
    return page, held


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_a_state_drawn_before_opens_on_its_charts_and_one_still_computing_on_the_empty_frame(
    browser: Any, server_url: str
) -> None:
    """A chart's first painting is the opening state's figure when the page has it by then (a link to a state
    the server has drawn before), else the "computing…" frame; never another state's figure, and never the
    empty frame after data. A sweep's view (Diversity) always opens on its empty frame (it draws its
    progress first: a final figure first would flash empty)."""
    state = f"{SMALL_SCENARIO}&seed={random.randrange(10_000, 2**31)}"
    url = f"{server_url}/?tab=ensemble&{state}"
    # never drawn, and the charts mount before its answer lands: each opens on the empty frame, and shows
    # the answer once it lands, without waiting for the page's callbacks (held here until then)
    page, held = _open(browser, url, "_live", "_dash-update-component")
    page.wait_for_function("() => !!window.headdivLive")
    page.wait_for_function(MOUNTED, arg="ensemble")
    assert held["_live"].routes, "the page did not ask for its opening state's charts"
    held["_live"].release()
    first = _painted_when_drawn(page, "ensemble")
    assert first and all(len(p) == 2 and p[0] == EMPTY and p[1] != EMPTY for p in first.values()), str(_short(first))
    # the page's own drawing, once its callbacks go on, ends on those figures: nothing painted again
    held["_dash-update-component"].release()
    page.wait_for_function("(names) => names.every((n) => window.__handed[n])", arg=list(first))
    assert _painted_when_drawn(page, "ensemble") == first
    page.context.close()
    # drawn before: the page has its answer before its charts are drawn, and each opens on its final figure
    # (the layout is held until the answer is in: on a busy machine the answer of a state drawn before can
    # still land after the charts mount, and they then rightly open on the empty frame, as above)
    page, held = _open(browser, url, "_dash-layout", "_dash-update-component")
    page.wait_for_function("() => window.headdivLive && window.headdivLive.openedOn()")
    assert page.evaluate("() => document.querySelectorAll('.dash-graph').length") == 0  # the layout is held
    held["_dash-layout"].release()
    held["_dash-update-component"].release()
    again = _painted_when_drawn(page, "ensemble")
    page.context.close()
    assert again == {name: [p[-1]] for name, p in first.items()}, str(_short(again))
    # a sweep's view: the empty frame first, then its progress, never data then empty
    for _ in range(2):
        page, _held = _open(browser, f"{server_url}/?tab=diversity&{state}")
        sweep = _painted_when_drawn(page, "diversity")
        page.context.close()
        assert sweep and all(p[0] == EMPTY and EMPTY not in p[1:] for p in sweep.values()), str(_short(sweep))


LAZY_LOADED = """
(() => {
  // dcc's lazy parts whose code has run (their chunk's script loaded)
  window.__chunks = [];
  new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach((n) => {
    if (n.nodeType === 1 && n.tagName === 'SCRIPT' && /async-[a-z]+\\.js/.test(n.src)) {
      n.addEventListener('load', () => window.__chunks.push(n.src.match(/async-[a-z]+\\.js/)[0]));
    }
  }))).observe(document, {childList: true, subtree: true});
})();
"""


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_dccs_lazy_parts_load_while_the_layout_is_fetched(browser: Any, server_url: str) -> None:
    """dcc loads a chart's, a slider's, a menu's and Markdown's code only once React renders one, and the
    charts were drawn a render later; assets/lazy_early.js starts that loading as soon as Dash's scripts
    have run: with the layout held back, all of that code runs meanwhile, and the charts then mount with
    the layout."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(LAZY_LOADED)
    page = context.new_page()
    held = _Held()
    page.route("**/_dash-layout", held)
    page.goto(f"{server_url}/?tab=ensemble&{SMALL_SCENARIO}", wait_until="commit")
    page.wait_for_function(
        "(names) => names.every((n) => window.__chunks.includes(n))", arg=list(DCC_FIRST), timeout=30_000
    )
    assert page.evaluate("() => document.querySelectorAll('.dash-graph').length") == 0  # the layout is held
    held.release()
    page.wait_for_function(MOUNTED, arg="ensemble")
    context.close()
