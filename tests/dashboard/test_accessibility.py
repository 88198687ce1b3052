"""Every student can use it: axe-core's WCAG 2.0/2.1/2.2 A and AA rules (`tests/dashboard/axe.py`) find nothing
serious or critical on a tour's steps, the poll's page and reveal, the embedded view and the exported files
(every view at three sizes is audited in the layout pass, `test_layout_browser.py`, on the pages it measures);
every chart is a figure named by its title, described from its numbers, with its data as a table one Enter
away.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.drawn import HOLDS_DATA, SHOWN_PLOTS
from headdiv.dashboard.teaching.tours import TOURS
from headdiv.dashboard.views import VIEWS
from tests.dashboard.axe import serious_findings
from tests.dashboard.test_layout_browser import LIGHT, wait_view_drawn

pytestmark = [pytest.mark.timeout(600), pytest.mark.browser]

TOUR = "why-many-heads"


def charts_drawn(page: Any) -> None:
    """Until every chart shown holds data and has been described (assets/chart_text.js): each dcc.Graph on the
    page, those not mounted yet too (an exported page has plots alone)."""
    page.wait_for_function(
        f"() => {{ const cells = {SHOWN_PLOTS}(document);"
        " const g = cells.length ? cells : [...document.querySelectorAll('.js-plotly-plot')].filter((e) => e.offsetParent);"
        f" return g.length > 0 && g.every((e) => {HOLDS_DATA}(e) && e.getAttribute('aria-describedby')); }}",
        timeout=180_000,
    )


def wait_step(page: Any, title: str) -> None:
    # null-safe: a predicate that throws (the panel not rendered yet, under load) fails the wait at once
    page.wait_for_function(
        "(title) => { const e = document.getElementById('tour-step-title'); return !!e && e.innerText === title; }",
        arg=title,
    )


@pytest.mark.parametrize("tour_id", list(TOURS))
def test_no_tour_step_has_a_serious_axe_finding(browser: Any, server_url: str, tour_id: str) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        findings: list[str] = []
        for k, step in enumerate(TOURS[tour_id].steps, start=1):
            page.goto(f"{server_url}/?tour={tour_id}&step={k}&{LIGHT}")
            wait_step(page, step.title)
            if step.question is None:  # a question hides the charts until it is answered
                charts_drawn(page)
            findings += [f"step {k}: {f}" for f in serious_findings(page)]
        assert findings == [], "\n".join(findings)
    finally:
        context.close()


def test_a_poll_the_vote_page_the_reveal_and_the_embedded_view_have_no_serious_axe_finding(
    browser: Any, server_url: str
) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        findings: list[str] = []
        tour = TOURS[TOUR]
        asks = next(k for k, step in enumerate(tour.steps, start=1) if step.question is not None)
        page.goto(f"{server_url}/?tour={TOUR}&step={asks}&{LIGHT}")
        wait_step(page, tour.steps[asks - 1].title)
        page.click("#tour-poll-open")
        page.wait_for_selector("#tour-poll-link")
        link = page.get_attribute("#tour-poll-link", "href")
        findings += [f"poll open: {f}" for f in serious_findings(page)]
        phone = browser.new_context(viewport={"width": 390, "height": 844})
        vote = phone.new_page()
        vote.goto(link)
        findings += [f"vote page: {f}" for f in serious_findings(vote)]
        vote.locator("form button").first.click()
        vote.wait_for_selector("#voted")
        findings += [f"vote counted: {f}" for f in serious_findings(vote)]
        phone.close()
        question = tour.steps[asks - 1].question
        assert question is not None
        page.click(f"#tour-question button:has-text('{question.choices[0].label}')")
        page.wait_for_selector("#tour-reveal:not(:empty)")
        charts_drawn(page)
        findings += [f"reveal: {f}" for f in serious_findings(page)]
        page.goto(f"{server_url}/?tab=ensemble&embed=1&{LIGHT}")
        charts_drawn(page)
        findings += [f"embed: {f}" for f in serious_findings(page)]
        assert findings == [], "\n".join(findings)
    finally:
        context.close()


def test_the_exported_files_have_no_serious_axe_finding(browser: Any, server_url: str, tmp_path: Path) -> None:
    files = {
        "view": httpx.get(f"{server_url}/_export/view.html?tab=ensemble&{LIGHT}", timeout=300),
        "tour": httpx.get(f"{server_url}/_export/tour/{TOUR}.html", timeout=600),
    }
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        findings: list[str] = []
        for name, answer in files.items():
            assert answer.status_code == 200, (name, answer.text[:200])
            path = tmp_path / f"{name}.html"
            path.write_bytes(answer.content)
            page.goto(path.as_uri() + ("#step=1" if name == "tour" else ""))
            charts_drawn(page)
            findings += [f"{name}: {f}" for f in serious_findings(page)]
        assert findings == [], "\n".join(findings)
    finally:
        context.close()


def test_every_chart_is_named_described_and_its_numbers_a_table_one_enter_away(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&{LIGHT}")
    wait_view_drawn(page, "ensemble")
    charts_drawn(page)
    charts = page.evaluate(
        """() => [...document.querySelectorAll('#view-ensemble .js-plotly-plot')].map((g) => ({
             role: g.getAttribute('role'), name: g.getAttribute('aria-label'),
             title: ((g.layout.title || {}).text || '').replace(/<[^>]+>/g, ''),
             said: (document.getElementById(g.getAttribute('aria-describedby')) || {}).textContent || '' }))"""
    )
    assert len(charts) == len(next(v for v in VIEWS if v.id == "ensemble").charts)
    for chart in charts:
        assert chart["role"] == "figure" and chart["name"] and chart["name"] == chart["title"].strip(), chart
        assert len(chart["said"]) > 20, chart
    # the bars' numbers, as the reader hears them and as the table holds them, are the figure's own
    bars = page.locator("#view-ensemble .js-plotly-plot").first
    summary = page.locator("#view-ensemble .chart-data summary").first
    summary.focus()
    page.keyboard.press("Enter")
    table = page.locator("#view-ensemble .chart-data table").first
    table.wait_for()
    drawn = bars.evaluate("(g) => g._fullData.map((t) => [t.name, Array.from(t.y)])")
    header = table.locator("thead th").all_inner_texts()
    rows = [r.locator("td").all_inner_texts() for r in table.locator("tbody tr").all()]
    for name, ys in drawn:
        column = header.index(name) - 1  # the first column is the x value
        assert [float(r[column]) for r in rows] == pytest.approx(ys, rel=1e-3), name


DESCRIBE = """(fig) => window.headdivChartText.describe({data: fig.data, layout: fig.layout}).sentence"""


def _line(ys: list[float], se: list[float]) -> dict[str, Any]:
    return {
        "data": [{"type": "scatter", "name": "MSE", "x": [0, 45, 90], "y": ys, "error_y": {"array": se}}],
        "layout": {"title": {"text": "MSE against θ"}, "xaxis": {"title": {"text": "θ (°)"}}},
    }


def test_a_charts_description_says_what_its_numbers_do_and_no_more(page: Any, server_url: str) -> None:
    """The description's words follow the numbers: a rise is a rise, a fall a fall, and a change within twice
    the Monte Carlo error of the difference is not called either."""
    page.goto(f"{server_url}/?tab=ensemble&{LIGHT}")
    page.wait_for_function("() => window.headdivChartText")
    rises = page.evaluate(DESCRIBE, _line([0.2, 0.1, 0.5], [0.01, 0.01, 0.01]))
    assert rises.startswith("Along θ (°) from 0 to 90:") and "MSE rises from 0.2 ± 0.01 to 0.5 ± 0.01" in rises
    assert "lowest 0.1 ± 0.01 at 45, highest 0.5 ± 0.01 at 90" in rises
    falls = page.evaluate(DESCRIBE, _line([0.5, 0.1, 0.2], [0.01, 0.01, 0.01]))
    assert "MSE falls from 0.5 ± 0.01 to 0.2 ± 0.01" in falls and "rises" not in falls
    noisy = page.evaluate(DESCRIBE, _line([0.2, 0.1, 0.25], [0.03, 0.01, 0.03]))  # 0.05 < 2·√(2·0.03²)
    assert "no more than its Monte Carlo error" in noisy and "rises" not in noisy and "falls" not in noisy


FOCUSED = """() => { const e = document.activeElement; const r = e.getBoundingClientRect();
  const head = document.querySelector('.header').getBoundingClientRect();
  return {id: e.id, cls: String(e.className), text: (e.innerText || '').trim().slice(0, 60),
          inHeader: !!e.closest('.header'), top: r.top, bottom: r.bottom, headBottom: head.bottom,
          question: !!e.closest('#tour-question'), next: e.id === 'tour-next'}; }"""


def test_the_lab_by_keyboard_skip_link_sliders_and_a_tour_step_with_its_question(page: Any, server_url: str) -> None:
    tour = TOURS[TOUR]
    asks = next(k for k, step in enumerate(tour.steps, start=1) if step.question is not None)
    page.goto(f"{server_url}/?tour={TOUR}&step={asks}&{LIGHT}")
    wait_step(page, tour.steps[asks - 1].title)
    # a screen reader reads the step in order: the tour, where in it, the step's title, its story, its question
    step = tour.steps[asks - 1]
    assert step.question is not None
    panel = page.locator("#tour-panel").aria_snapshot()
    order = [
        panel.find(tour.name),
        panel.find(step.title),
        panel.find(step.narrative[:30]),
        panel.find(step.question.prompt[:30]),
    ]
    assert -1 not in order and order == sorted(order), panel
    page.keyboard.press("Tab")
    first = page.evaluate(FOCUSED)
    assert first["text"] == "Skip to the charts"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
    # from the charts on, Tab reaches the question's answers; no focused element hides behind the sticky header
    hidden: list[dict[str, Any]] = []
    for _ in range(120):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUSED)
        if not now["inHeader"] and now["top"] < now["headBottom"] - 1 and now["bottom"] > 0:
            hidden.append(now)
        if now["question"]:
            break
    assert now["question"], "Tab never reached the tour's question"
    assert hidden == []
    page.keyboard.press("Enter")
    page.wait_for_selector("#tour-reveal .tour-answer")
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED)["next"]:
            break
    page.keyboard.press("Enter")
    wait_step(page, tour.steps[asks].title)


TAB_STATE = """() => [...document.querySelectorAll('#tabs [role=tab]')].map((t) => ({
  text: t.innerText.trim(), selected: t.getAttribute('aria-selected'), stop: t.tabIndex,
  focused: t === document.activeElement }))"""


def test_the_views_are_a_tablist_that_tab_reaches_and_arrows_move_through(page: Any, server_url: str) -> None:
    """Tab reaches the selected view's tab (one tab stop for the list); arrows, Home and End move the focus
    among the tabs (wrapping round), Enter opens the focused one and the tab stop goes with it."""
    labels = [v.label for v in VIEWS]
    page.goto(f"{server_url}/?{LIGHT}")
    page.wait_for_function(
        "(n) => document.querySelectorAll('#tabs[role=tablist] > [role=tab]').length === n", arg=len(labels)
    )
    tabs = page.evaluate(TAB_STATE)
    assert [t["text"] for t in tabs] == labels
    assert [t["selected"] for t in tabs] == ["true"] + ["false"] * (len(labels) - 1)
    assert [t["stop"] for t in tabs] == [0] + [-1] * (len(labels) - 1)
    panel = page.evaluate(
        "() => { const p = document.querySelector('[role=tabpanel]'); const t = document.querySelector('[role=tab][aria-selected=true]');"
        " return {by: p.getAttribute('aria-labelledby'), tab: t.id, controls: t.getAttribute('aria-controls'), id: p.id}; }"
    )
    assert panel["by"] == panel["tab"] and panel["controls"] == panel["id"]
    for _ in range(200):  # from the top of the page, by Tab alone
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.getAttribute('role')") == "tab":
            break
    focused = [t for t in page.evaluate(TAB_STATE) if t["focused"]]
    assert [t["text"] for t in focused] == [labels[0]], "Tab never reached the selected view's tab"

    def focused_label() -> str:
        return str(next(t["text"] for t in page.evaluate(TAB_STATE) if t["focused"]))

    page.keyboard.press("ArrowRight")
    assert focused_label() == labels[1]
    page.keyboard.press("End")
    assert focused_label() == labels[-1]
    page.keyboard.press("ArrowRight")
    assert focused_label() == labels[0]
    page.keyboard.press("ArrowLeft")
    assert focused_label() == labels[-1]
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(TAB_STATE)[0]["selected"] == "true"  # moving is not opening
    page.keyboard.press("Enter")
    page.wait_for_function(
        "(label) => { const t = document.querySelector('#tabs [role=tab][aria-selected=true]');"
        " return !!t && t.innerText.trim() === label && t.tabIndex === 0; }",
        arg=labels[1],
    )
    page.wait_for_function("(id) => location.search.includes('tab=' + id)", arg=VIEWS[1].id)
    assert [t["stop"] for t in page.evaluate(TAB_STATE)].count(0) == 1


def test_a_prediction_s_answer_is_nowhere_on_the_page_until_it_is_chosen(page: Any, server_url: str) -> None:
    """On a question step the charts are concealed, and so is everything that reads their numbers out: the
    data tables, the descriptions, the notes, the downloads (by sight, by keyboard, by screen reader)."""
    tour = TOURS[TOUR]
    asks = next(k for k, step in enumerate(tour.steps, start=1) if step.question is not None)
    step = tour.steps[asks - 1]
    assert step.question is not None
    page.goto(f"{server_url}/?tour={TOUR}&step={asks}&{LIGHT}")
    wait_step(page, step.title)
    # the charts are drawn (hidden) before the answer: their numbers exist on the page, and must stay unreadable
    page.wait_for_function(
        f"() => {{ const g = {SHOWN_PLOTS}(document); return g.length > 0 && g.every((e) => {HOLDS_DATA}(e)"
        " && e.getAttribute('aria-describedby')); }"
    )
    leaks = page.evaluate(
        """() => [...document.querySelectorAll('.main .chart-text, .main .chart-data summary, .main .notes li,'
             + ' .main .part-export a, .main .part-export button')]
             .filter((e) => e.getClientRects().length > 0).map((e) => e.className + ': ' + e.textContent.slice(0, 80))"""
    )
    assert leaks == []
    spoken = page.locator("main").aria_snapshot()
    assert "Data table" not in spoken, spoken
    described = page.evaluate(
        "() => [...document.querySelectorAll('.main .chart-summary')].map((p) => p.textContent).filter((t) => t.length > 20)"
    )
    assert described, "the descriptions exist (and so the check above means something)"
    assert not any(text[:40] in spoken for text in described)
    for _ in range(120):
        page.keyboard.press("Tab")
        now = page.evaluate(FOCUSED)
        assert "chart-data" not in now["cls"] and not now["text"].startswith("Data table"), now
        if now["question"]:
            break
    page.keyboard.press("Enter")
    page.wait_for_selector("#tour-reveal .tour-answer")
    page.locator(".main .chart-data summary").first.wait_for(state="visible")
    assert "Data table" in page.locator("main").aria_snapshot()


def test_a_screen_reader_hears_each_slider_by_its_name_with_its_value_and_unit(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&theta=45&n=256&{LIGHT}")
    wait_view_drawn(page, "ensemble")
    tree = page.locator(".scenario-controls").aria_snapshot()
    for name in ("heads H", "head dimension d_k", "sample size n", "angle θ between heads"):
        assert f'slider "{name}"' in tree, tree
    theta = page.locator(".ctl-theta [role=slider]")
    assert theta.get_attribute("aria-valuetext") == "45 degrees"
    assert page.locator(".ctl-n [role=slider]").get_attribute("aria-valuetext") == "256"  # the value, not log2
    # moved by the keys a slider takes (no dragging needed), the address follows
    theta.focus()
    for key, want in (("ArrowRight", "46"), ("End", "90"), ("Home", "0"), ("PageUp", "10")):
        page.keyboard.press(key)
        page.wait_for_function("(v) => new URLSearchParams(location.search).get('theta') === v", arg=want)
        assert theta.get_attribute("aria-valuetext") == f"{want} degrees"


def test_a_chart_still_to_be_drawn_is_busy_for_a_screen_reader_with_no_serious_axe_finding(
    page: Any, server_url: str
) -> None:
    """While θ is held, Ensemble's charts below the fold keep their older state (assets/live.js draws them at the
    release): each carries `aria-busy` with its updating mark, the page has no serious axe finding meanwhile, and
    the marks are gone once the release has drawn them."""
    page.set_viewport_size({"width": 1440, "height": 700})
    page.goto(f"{server_url}/?tab=ensemble&theta=60&{LIGHT}")
    wait_view_drawn(page, "ensemble")
    marked = "[id^='view-ensemble'] .dash-graph[data-stale][aria-busy=true]"
    box = page.locator(".ctl-theta [role=slider]").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 6):
        page.mouse.move(x - 8 * i, y)
    page.wait_for_function("(s) => !!document.querySelector(s)", arg=marked, timeout=30_000)
    findings = serious_findings(page)
    page.mouse.up()
    page.wait_for_function(
        "() => !document.querySelector(\"[id^='view-ensemble'] [data-stale], [id^='view-ensemble'] [aria-busy=true]\")",
        timeout=30_000,
    )
    assert findings == [], "\n".join(findings)


AT_REST = """
(frames) => new Promise((done) => {
  let changed = 0, quiet = 0, seen = 0;
  const watch = new MutationObserver((records) => { changed += records.length; });
  watch.observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  const frame = () => {
    seen += 1;
    quiet = changed ? 0 : quiet + 1;
    changed = 0;
    if (quiet >= frames || seen >= 20 * frames) { watch.disconnect(); done(quiet >= frames); } else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})
"""
"""Whether the page comes to rest: `frames` animation frames in a row in which nothing in the document changed,
within twenty times that many."""


def test_a_page_at_rest_changes_nothing_frame_after_frame(page: Any, server_url: str) -> None:
    """Once its charts are drawn and nobody moves, the page's own scripts leave the document alone. A script that
    writes a value its own observer hears (a dropdown's focus target given the tabindex it has) queues itself
    again, every frame, for as long as the tab is open: a phone's battery, a lecture hall's laptops."""
    page.goto(f"{server_url}/?tab=ensemble&{LIGHT}")
    wait_view_drawn(page, "ensemble")
    assert page.locator(".dash-dropdown-focus-target").count() > 0, "the page has the dropdowns this is about"
    assert page.evaluate(AT_REST, 30), "the document kept changing, frame after frame, with nobody using the page"


QUIET_MS = 1200
"""How long the page rests before it speaks (assets/a11y.js)."""


def test_a_verdict_is_announced_once_the_hand_rests_not_at_every_redraw(page: Any, server_url: str) -> None:
    """Timed by the page's own clock: every announcement comes at least QUIET_MS after the last change of a
    spoken region before it (a verdict or a job's status, as assets/a11y.js watches them), so no redraw of a
    drag is spoken; the drag redrew the verdict, and the last announcement says it where the hand stopped."""
    page.add_init_script(
        """window.__said = []; window.__drawn = [];
        new MutationObserver((records) => {
          for (const r of records) {
            const n = r.target.nodeType === 1 ? r.target : r.target.parentElement;
            const region = n && n.closest && n.closest('.view .verdict, .view .job-status');
            if (region) window.__drawn.push({at: performance.now(), verdict: region.id === 'cv-verdict'});
          }
          const a = document.getElementById('announcer');
          const last = window.__said[window.__said.length - 1];
          if (a && a.textContent && (!last || last.text !== a.textContent))
            window.__said.push({text: a.textContent, at: performance.now()});
        }).observe(document, {subtree: true, childList: true, characterData: true});"""
    )
    page.goto(f"{server_url}/?tab=covariance&{LIGHT}")
    wait_view_drawn(page, "covariance")
    page.wait_for_function("() => window.__said.length >= 1")  # the first verdict, once drawn
    before = len(page.evaluate("() => window.__said"))
    assert page.get_attribute("#cv-verdict", "aria-live") == "off"  # its own region stays quiet
    thumb = page.locator(".ctl-H [role=slider]")
    thumb.focus()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => new URLSearchParams(location.search).get('H') === '9'")
    page.wait_for_function(
        "(n) => window.__said.length > n && window.__said[window.__said.length - 1].text"
        ".includes(document.getElementById('cv-verdict').innerText.trim())",
        arg=before,
    )
    said = page.evaluate("() => window.__said")
    drawn = page.evaluate("() => window.__drawn")
    dragged_at = said[before - 1]["at"]
    assert sum(1 for d in drawn if d["verdict"] and d["at"] > dragged_at) >= 1  # the drag redrew the verdict
    for spoken in said:
        changes_before = [d["at"] for d in drawn if d["at"] <= spoken["at"]]
        assert changes_before, ("spoken with no change of a spoken region before it", spoken, drawn)
        assert spoken["at"] - max(changes_before) >= QUIET_MS - 50, (spoken, drawn)


def test_a_chart_from_the_python_api_is_described_with_its_table_as_on_the_page(page: Any, tmp_path: Path) -> None:
    import headdiv

    r = headdiv.simulate(H=4, d_k=2, n=64, replicates=20, queries=16, seed=7)
    path = tmp_path / "chart.html"
    path.write_text(
        f"<!doctype html><html lang='en'><title>a chart</title><body>{r.figure_html(include_plotlyjs=True)}</body></html>"
    )
    page.goto(path.as_uri())
    charts_drawn(page)
    gd = page.locator(".js-plotly-plot")
    title = r.figure().layout.title.text
    assert gd.get_attribute("role") == "figure" and gd.get_attribute("aria-label") == title
    said = page.locator(f"#{gd.get_attribute('aria-describedby')}").inner_text()
    assert f"{r.figure().data[0].name}:" in said  # the first series is said, with its numbers
    page.locator(".chart-data summary").press("Enter")
    page.locator(".chart-data table").wait_for()
    assert page.locator(".chart-data table tbody tr").count() == len(r.figure().data[0].y)
    assert serious_findings(page) == []
