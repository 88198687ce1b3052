"""The page's layout in real headless Chromium at the sizes it is used at, measured rather than eyeballed.

Laptop (1440x900, 1280x720), projector (1024x768, with and without large fonts) and phone (390x844): for every tab,
no horizontal scroll (`scrollWidth` <= the viewport) and no text box over another (tab labels, header
numbers, chart titles, legends, annotations, bar labels, axis labels, control labels), and every chart's
text inside its chart. Screenshots go to test-artifacts/ (ignored by git); `make screenshots` copies the
README's ones into docs/img/ (HEADDIV_SCREENSHOTS_TO), the only way tests write into the checkout.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench.drawn import ALL_DRAWN
from headdiv.dashboard.views import VIEWS
from tests.dashboard.axe import serious_findings
from tests.dashboard.conftest import ARTIFACTS, ROOT, dashboard_against_a_dead_api

pytestmark = [pytest.mark.timeout(420), pytest.mark.browser]
SMALL = "replicates=20&queries=16"
"""Cheap scenarios (as in test_browser.py); the sweeps' own sizes are kept small through their parameters."""
LIGHT = f"{SMALL}&dn=4&budget=8&sxv=0,90&syv=2,4"

TEXT_BOXES = r"""
() => {
  const shown = (el) => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) === 0) return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const page = (r) => ({x0: r.left + scrollX, y0: r.top + scrollY, x1: r.right + scrollX, y1: r.bottom + scrollY});
  const html = [
    '.brand h1', '.stat-label', '.stat-value', '.header .job-status', '.header .tool', '.tab',
    '.view-description', '.control > label', '.verdict', '.charts .job-status', '.btn', '.preset',
    '.rc-slider-mark-text', '.lesson h3', '#notices li',
  ];
  const boxes = [];
  for (const sel of html) {
    for (const el of document.querySelectorAll(sel)) {
      if (!shown(el) || !el.checkVisibility() || !el.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(el);
      const r = range.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) boxes.push({what: sel + ' "' + el.textContent.trim().slice(0, 40) + '"', chart: null, ...page(r), el});
    }
  }
  const svgText = [
    '.gtitle', '.g-xtitle text', '.g-ytitle text', '.legendtext', '.annotation-text', '.xtick text', '.ytick text',
    '.textpoint text', '.bartext', '.cbtitle text', '.cbaxis text',
  ];
  const charts = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd, i) => {
    if (!shown(gd)) return;
    const svg = gd.querySelector('.main-svg');
    if (!svg) return;
    const frame = page(svg.getBoundingClientRect());
    charts.push({i, ...frame});
    for (const sel of svgText) {
      for (const el of gd.querySelectorAll(sel)) {
        if (!shown(el) || !el.textContent.trim()) continue;
        const turned = /rotate\((?!0[,)])/.test(el.getAttribute('transform') || '');
        boxes.push({what: sel + ' "' + el.textContent.trim().slice(0, 40) + '"', chart: i, turned, ...page(el.getBoundingClientRect()), el});
      }
    }
  });
  const overlaps = [];
  const slack = 2;
  for (let a = 0; a < boxes.length; a++) {
    for (let b = a + 1; b < boxes.length; b++) {
      const p = boxes[a], q = boxes[b];
      if (p.el.contains(q.el) || q.el.contains(p.el)) continue;
      // tick labels Plotly has turned to avoid each other: their upright boxes overlap, their glyphs do not
      if (p.turned && q.turned) continue;
      const w = Math.min(p.x1, q.x1) - Math.max(p.x0, q.x0);
      const h = Math.min(p.y1, q.y1) - Math.max(p.y0, q.y0);
      if (w > slack && h > slack) overlaps.push(p.what + ' over ' + q.what);
    }
  }
  const outside = [];
  for (const t of boxes) {
    if (t.chart === null) continue;
    const c = charts.find((c) => c.i === t.chart);
    if (t.x0 < c.x0 - slack || t.x1 > c.x1 + slack || t.y0 < c.y0 - slack || t.y1 > c.y1 + slack) {
      outside.push(t.what);
    }
  }
  return {
    overlaps, outside, texts: boxes.length, charts: charts.length,
    scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth,
  };
}
"""


def cut_marks(page: Any) -> list[str]:
    """The labels of the page's sliders (ticks such as "step 0") that reach past the screen's left or right
    edge, where a reader sees only part of them."""
    return list(
        page.evaluate(
            "() => [...document.querySelectorAll('.dash-slider-mark')].filter((e) => e.offsetParent).filter((e) =>"
            " { const r = e.getBoundingClientRect(); return r.width && (r.left < 0 || r.right > innerWidth); })"
            ".map((e) => e.textContent.trim())"
        )
    )


def missing_titles(page: Any) -> list[str]:
    """The titles the shown charts' layouts ask for that Plotly has not drawn (or drawn empty)."""
    return list(
        page.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].filter((g) => g.getBoundingClientRect().width)"
            ".map((g) => [((g.layout || {}).title || {}).text || '', g.querySelector('.gtitle')])"
            ".filter(([want, el]) => want && !(el && el.textContent.trim() && el.getBoundingClientRect().width))"
            ".map(([want]) => want)"
        )
    )


def measure(page: Any) -> dict[str, Any]:
    """The page's text boxes measured once the charts have settled: a chart redrawn with its data after the
    fit was last checked gets its titles fitted on the next pass, so wait (up to 20 s) for a measurement
    with no text outside its chart before reporting what is measured then."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            f"() => {{ const m = ({TEXT_BOXES})(); return m.outside.length === 0 && m.overlaps.length === 0; }}",
            timeout=20_000,
            polling=500,  # the measurement is heavy: every frame would starve the page's own fitting
        )
    return dict(page.evaluate(TEXT_BOXES))


def wait_view_drawn(page: Any, tab: str) -> None:
    """Until the shown view's charts hold data (or its line says why not) and nothing is computing."""
    page.wait_for_function(
        """(tab) => {
          const view = document.getElementById('view-' + tab);
          if (!view || view.style.display === 'none' || document.querySelector('.busy')) return false;
          const said = [...view.querySelectorAll('.job-status')].some((s) => s.innerText.trim());
          // Real models may refuse a model: then its sentence stands alone, its charts hidden
          const refused = tab === 'models' && said && !document.getElementById('mdl-charts').offsetParent;
          return ALL_DRAWN(view) || refused;
        }""".replace("ALL_DRAWN", ALL_DRAWN),
        arg=tab,
        timeout=180_000,
    )
    # the explanation is shown once its formulas are typeset, after the first chart and once it comes near the
    # screen (assets/typeset_later.js: scrolled to, then back); large fonts are applied to each chart by
    # assets/large_fonts.js, then the charts make room for their legends (assets/fit_charts.js): wait until all
    # are done
    explain = page.locator(f"#view-{tab} .explain")
    for i in range(explain.count()):
        if not explain.nth(i).is_visible():  # a lecturer's `hide=explain`: never typeset, never shown
            continue
        explain.nth(i).scroll_into_view_if_needed()
        page.wait_for_function(
            "([tab, i]) => !document.querySelectorAll('#view-' + tab + ' .explain')[i].classList"
            ".contains('math-pending')",
            arg=[tab, i],
        )
    page.wait_for_function(
        """(tab) => ![...document.querySelectorAll('#view-' + tab + ' .explain.math-pending')].some((e) => e.offsetParent)
           && (!document.getElementById('root').classList.contains('large') ||
           [...document.querySelectorAll('.js-plotly-plot')].every((g) => !g.layout ||
             (g.layout.font && g.layout.font.size === 17) || g.getBoundingClientRect().width === 0))
           && window.headdivChartsFit && window.headdivChartsFit()""",
        arg=tab,
    )
    page.evaluate("() => window.scrollTo(0, 0)")


SIZES = [
    pytest.param(1440, 900, False, True, id="laptop-1440x900"),
    pytest.param(1024, 768, False, False, id="projector-1024x768"),
    pytest.param(1024, 768, True, True, id="projector-1024x768-large"),
    pytest.param(1280, 720, False, False, id="laptop-1280x720"),
    pytest.param(1280, 720, True, False, id="laptop-1280x720-large"),
    pytest.param(390, 844, False, True, id="phone-390x844"),
]
"""Width, height, large fonts, and whether axe-core audits each view there too (on the page just measured:
one drawing of every view per size serves both checks)."""


@pytest.mark.parametrize(("width", "height", "large", "audited"), SIZES)
def test_every_tab_fits_without_overlapping_text(
    browser: Any, server_url: str, width: int, height: int, large: bool, audited: bool
) -> None:
    """...and, at the audited sizes, no view has a serious or critical axe-core finding (`tests/dashboard/axe.py`)."""
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        problems: list[str] = []
        for view in VIEWS:
            page.goto(f"{server_url}/?tab={view.id}&{LIGHT}" + ("&large=1" if large else ""))
            wait_view_drawn(page, view.id)
            m = measure(page)
            assert m["texts"] > 10, m  # the measurement saw the page
            if m["scrollWidth"] > m["width"]:
                problems.append(f"{view.id}: the page scrolls sideways ({m['scrollWidth']} > {m['width']} px)")
            problems += [f"{view.id}: {o}" for o in m["overlaps"]]
            problems += [f"{view.id}: {o} is outside its chart" for o in m["outside"]]
            problems += [f"{view.id}: slider label {t!r} is cut off by the screen's edge" for t in cut_marks(page)]
            problems += [f"{view.id}: the title {t!r} is not drawn" for t in missing_titles(page)]
            page.screenshot(path=str(ARTIFACTS / f"layout-{width}x{height}{'-large' if large else ''}-{view.id}.png"))
            if audited:
                problems += [f"{view.id}: axe: {f}" for f in serious_findings(page)]
        assert not problems, "\n".join(problems)

        # the header is one line: no taller than its tallest item plus padding
        header = page.evaluate(
            "() => { const h = document.querySelector('.header'); const items = [...h.querySelectorAll("
            "'.brand, #headline-body, .header-tools')]; return [h.getBoundingClientRect().height,"
            " Math.max(...items.map((e) => e.getBoundingClientRect().height))]; }"
        )
        assert header[0] <= header[1] + 24, header
    finally:
        context.close()


COUNT_RELAYOUTS = """
document.addEventListener('DOMContentLoaded', () => {
  window.__relayouts = 0;
  const P = window.Plotly, relayout = P.relayout;
  P.relayout = function () { window.__relayouts += 1; return relayout.apply(this, arguments); };
});
"""


def test_large_fonts_and_room_for_legends_adjust_charts_without_a_relayout(browser: Any, server_url: str) -> None:
    """assets/large_fonts.js and assets/fit_charts.js change a chart's layout through the page's plotly.js
    facade (`Plotly.adjust`: its layout, drawn with react), never with Plotly.relayout: dcc.Graph copies a
    relayout's keys from the chart into its figure when the event comes, and an event that came after the next
    state's figure was handed over wrote the old figure's title (an empty frame's) into the new one."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_init_script(COUNT_RELAYOUTS)
    try:
        page = context.new_page()
        page.goto(f"{server_url}/?tab=architecture&{LIGHT}&large=1")
        wait_view_drawn(page, "architecture")  # fonts enlarged and legends given room
        titles = page.evaluate(
            "() => [...document.querySelectorAll('#view-architecture .js-plotly-plot')]"
            ".map((g) => [g.layout.title.text, g.layout.title.font.size, g.layout.font.size])"
        )
        assert len(titles) == 2 and all(text and size == 20 and font == 17 for text, size, font in titles), titles
        assert page.evaluate("() => window.__relayouts") == 0
    finally:
        context.close()


def test_on_a_phone_the_scenario_sits_between_the_tabs_and_its_charts(browser: Any, server_url: str) -> None:
    """To "drag θ and watch" on a phone: H, d_k, n and θ right under the tabs and the first chart below them, both
    on the first screen; the presets and tours after the view; no toolbar over the charts."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(f"{server_url}/?tab=ensemble&{SMALL}")
        wait_view_drawn(page, "ensemble")
        tops = page.evaluate(
            "() => { const top = (sel) => document.querySelector(sel).getBoundingClientRect().top;"
            " return {tabs: top('#tabs'), theta: top('.ctl-theta'), chart: top('#view-ensemble .js-plotly-plot'),"
            " explain: top('#view-ensemble .explain'), presets: top('.sidebar .presets')}; }"
        )
        assert tops["tabs"] < tops["theta"] < tops["chart"] < tops["explain"] < tops["presets"], tops
        assert tops["chart"] < 844, tops  # the slider and the chart it moves share the first screen
        assert page.locator(".modebar-container").first.is_hidden()
        # a view that uses none of them shows each as its label and reason, not four idle sliders
        page.goto(f"{server_url}/?tab=foundations&{SMALL}")
        page.wait_for_selector("#view-foundations .js-plotly-plot")
        theta = page.locator(".scenario-part .ctl-theta")
        assert "each lesson has its own controls" in theta.inner_text()
        assert theta.locator(".dash-slider-mark").first.is_hidden()
    finally:
        context.close()


def test_hidden_parts_give_their_width_to_the_charts(browser: Any, server_url: str) -> None:
    context = browser.new_context(viewport={"width": 1600, "height": 900})  # wide enough for the explanation
    try:
        page = context.new_page()
        widths = []
        for hide in ("", "&hide=explain", "&hide=explain,H,d_k,n,theta,advanced,presets"):
            page.goto(f"{server_url}/?tab=ensemble&large=1&{SMALL}{hide}")
            wait_view_drawn(page, "ensemble")
            widths.append(
                page.evaluate("() => document.querySelector('#view-ensemble .chart').getBoundingClientRect().width")
            )
        assert widths[0] < widths[1] < widths[2], widths
        assert widths[2] > 1450, widths  # nothing left beside the charts
    finally:
        context.close()


def test_export_format_switch_applies_at_once_and_log_sliders_speak_values(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&{SMALL}&d_k=8&n=1024")
    wait_view_drawn(page, "ensemble")
    formats = (
        "() => [...document.querySelectorAll('.js-plotly-plot')].map((g) => g._context.toImageButtonOptions.format)"
    )
    assert set(page.evaluate(formats)) == {"png"}
    page.click("#img-format input[value=svg]")
    page.wait_for_function("() => location.search.includes('img=svg')")
    assert set(page.evaluate(formats)) == {"svg"}  # no reload, no redraw needed
    marker = page.evaluate("() => (window.__marker = 1)")
    assert page.evaluate("() => window.__marker") == marker
    # screen readers hear d_k = 8 and n = 1024, not the slider's exponents 3 and 10
    assert page.get_attribute("#sc-d_k [role=slider]", "aria-valuenow") == "3"
    page.wait_for_function(
        "() => document.querySelector('#sc-d_k [role=slider]').getAttribute('aria-valuetext') === '8'"
    )
    assert page.get_attribute("#sc-n [role=slider]", "aria-valuetext") == "1024"
    page.focus("#sc-d_k [role=slider]")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('#sc-d_k [role=slider]').getAttribute('aria-valuetext') === '16'"
    )


def test_foundations_and_real_models_export_json_and_csv(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=foundations&{SMALL}&bu_d=64&bu_H=4")
    page.wait_for_function(
        "() => { const g = document.querySelector('[id*=\"fd-budget\"] .js-plotly-plot'); return g && g.data && g.data.length; }"
    )
    with page.expect_download() as info:
        page.click("#fd-budget-dl-csv")
    assert info.value.suggested_filename == "headdiv-lesson-budget.csv"
    assert Path(info.value.path()).read_text(encoding="utf-8").startswith("key,value\n")
    with page.expect_download() as info:
        page.click("#fd-softmax-dl-json")
    assert info.value.suggested_filename == "headdiv-lesson-softmax.json"


def test_a_model_that_cannot_be_measured_reads_as_one_sentence_not_blank_charts(page: Any) -> None:
    """The dashboard alone against an API that does not answer: the Real models tab says so once."""
    with dashboard_against_a_dead_api() as url:
        page.goto(f"{url}/?tab=models")
        page.wait_for_function(
            "() => ((document.getElementById('mdl-status') || {}).innerText || '').trim().length > 0"
        )
        status = page.inner_text("#mdl-status").strip()
        assert status[0].isupper() and status.endswith(".") and status.count(". ") == 0, status
        assert page.locator("#mdl-charts").is_hidden()


SHOTS = [
    ("dashboard.png", 1440, 900, "tab=ensemble&H=8&theta=60"),
    ("dashboard-projector.png", 1024, 768, "tab=diversity&lecture=1&large=1&hide=explain"),
    ("dashboard-phone.png", 390, 844, "tab=ensemble&H=8&theta=60"),
    ("lab-dependence.png", 1440, 900, "tab=surfaces&dependence=ar1&sx=phi&sxv=0,0.3,0.6,0.8,0.9&sy=H&syv=2,4,8"),
    ("lab-clusters.png", 1440, 900, "tab=models&layer=3&mheads=query"),
    ("lab-covariance.png", 1440, 900, "tab=covariance"),
    ("training.png", 1440, 900, "tab=training"),
    ("tour.png", 1280, 720, "tab=ensemble&tour=why-many-heads&step=3&large=1"),
]
FOCUS = {"lab-clusters.png": "#mdl-prune"}
"""Shots of a part below the fold: the page is scrolled to this element first."""
CLICK = {"tour.png": ("#tour-poll-open", "#tour-poll-link")}
"""Shots of a state reached by a click: the button, then the element that shows it has been answered."""


def test_screenshots(browser: Any, server_url: str) -> None:
    """The README's images, taken at 1440x900, a 1024x768 projector with large fonts, and a phone. They go to
    test-artifacts/; `make screenshots` (HEADDIV_SCREENSHOTS_TO=docs/img) also copies them into the docs."""
    ARTIFACTS.mkdir(exist_ok=True)
    target = os.environ.get("HEADDIV_SCREENSHOTS_TO")
    for name, width, height, state in SHOTS:
        phone = width < 600
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
        try:
            page = context.new_page()
            page.goto(f"{server_url}/?{state}&{SMALL}&dn=7")
            tab = state.split("tab=", 1)[1].split("&", 1)[0]
            wait_view_drawn(page, tab)
            if name in CLICK:
                button, shown = CLICK[name]
                page.click(button)
                page.wait_for_selector(shown)
            if name in FOCUS:
                page.wait_for_function(f"() => (document.querySelector('{FOCUS[name]}') || {{}}).innerText")
                page.locator(FOCUS[name]).scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / name))
        finally:
            context.close()
        assert (ARTIFACTS / name).stat().st_size > 10_000
        if target:
            shutil.copyfile(ARTIFACTS / name, ROOT / target / name)


def test_controls_the_view_ignores_are_disabled_with_their_reason(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=diversity&{LIGHT}")
    why = "(k) => ((document.getElementById('why-' + k) || {}).innerText || '')"
    page.wait_for_function(f"() => /turns θ itself/.test(({why})('theta'))")
    disabled = "() => !!document.querySelector('#sc-theta [aria-disabled=true]')"
    assert page.evaluate(disabled)
    assert page.inner_text("#why-H").strip() == ""  # the sweep uses H
    page.click("#tabs >> text=Ensemble")
    page.wait_for_function(f"() => ({why})('theta').trim() === ''")
    assert not page.evaluate(disabled)
    page.click("#tabs >> text=Architecture")
    page.wait_for_function(f"() => /every split/.test(({why})('d_k'))")
    # what Surfaces and Training lab ignore depends on their own settings: the swept axes, the initial heads
    page.click("#tabs >> text=Surfaces")
    page.wait_for_function(f"() => /x axis/.test(({why})('theta')) && /y axis/.test(({why})('H'))")
    assert page.evaluate(disabled)
    page.click("#tabs >> text=Training lab")
    page.wait_for_function(f"() => /random initial heads/.test(({why})('theta')) && ({why})('H').trim() === ''")
    page.goto(f"{server_url}/?tab=training&trinit=equiangular&{LIGHT}")
    badge = "() => /45/.test((document.getElementById('lbl-theta') || {}).innerText)"
    page.wait_for_function(badge)  # the sync has answered: its frame fills the badge and the disabled states
    assert not page.evaluate(disabled) and page.evaluate(f"({why})('theta')").strip() == ""


CLIPPED = """
(sel) => [...document.querySelectorAll(sel)].filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
  .map((e) => (e.textContent || '').trim().slice(0, 60))
"""
"""The texts of the elements matched by `sel` that are wider than their box (so part of them is hidden)."""


@pytest.mark.parametrize(
    ("width", "height", "large"), [(1024, 768, True), (390, 844, False)], ids=["projector", "phone"]
)
def test_the_formulas_and_the_budget_table_fit_their_cards(
    browser: Any, server_url: str, width: int, height: int, large: bool
) -> None:
    """Covariance's split keeps its shared-noise term, Lemma 4.1 its right-hand side and Training its λP on screen,
    and the Foundations budget table its last column, without scrolling sideways."""
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=phone, is_mobile=phone)
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        for tab in ("covariance", "training"):
            page.goto(f"{server_url}/?tab={tab}&{LIGHT}" + ("&large=1" if large else ""))
            page.locator(f"#view-{tab} .explain").scroll_into_view_if_needed()  # typeset once in view
            page.wait_for_selector(f"#view-{tab} .explain mjx-container[display='true']")
            assert page.evaluate(CLIPPED, f"#view-{tab} .explain mjx-container[display='true']") == [], tab
        page.goto(f"{server_url}/?tab=foundations&{LIGHT}" + ("&large=1" if large else ""))
        page.wait_for_selector("#fd-budget-table table")
        assert page.evaluate(CLIPPED, "#fd-budget-table") == []
        caption = page.inner_text("#fd-budget-table caption")
        assert "4 d_model² + 4 d_model" in caption and "^" not in caption
    finally:
        context.close()


def test_the_tours_are_in_the_sidebar_without_scrolling_it(browser: Any, server_url: str) -> None:
    """At 1440x900 a lecturer sees every tour's link in the sidebar as the page opens."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server_url}/?tab=ensemble&{SMALL}")
        wait_view_drawn(page, "ensemble")
        bottoms = page.evaluate(
            "() => { const side = document.querySelector('.sidebar').getBoundingClientRect();"
            " return {side: Math.min(side.bottom, innerHeight), links: [...document.querySelectorAll('.tour-link')]"
            ".map((e) => e.getBoundingClientRect().bottom)}; }"
        )
        assert bottoms["links"] and all(b <= bottoms["side"] for b in bottoms["links"]), bottoms
    finally:
        context.close()


def test_a_revealed_answer_shares_the_projectors_screen_with_its_chart(browser: Any, server_url: str) -> None:
    """At 1024x768 with large fonts the tour panel alone fills the first screen: once a prediction is answered,
    the answer is in view and so is the upper half of the chart it is about."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    try:
        page = context.new_page()
        page.goto(f"{server_url}/?tour=why-many-heads&step=2&{SMALL}&large=1")
        wait_view_drawn(page, "ensemble")
        chart = "document.querySelector('#view-ensemble .js-plotly-plot').getBoundingClientRect()"
        assert page.evaluate(f"() => {chart}.top") > 0.5 * 768  # the case the page must handle
        page.locator(".tour-choices button").first.click()
        page.wait_for_function(
            "() => { const a = document.querySelector('#tour-reveal .tour-answer'); if (!a) return false;"
            f" const c = {chart}; const h = document.querySelector('.header').getBoundingClientRect().bottom;"
            " const r = a.getBoundingClientRect(); return r.top >= h && r.bottom <= innerHeight"
            " && c.top + c.height / 2 <= innerHeight; }",
            timeout=10_000,
        )
    finally:
        context.close()
