"""Sliders that follow the hand, in headless Chromium against the embedded server: while θ is dragged the
Ensemble view's charts change (each a value the thumb passed, in order), the release ends on the released
value with one new history entry, and an answer for an older position is never drawn after a newer one."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from bench.drawn import IN_VIEWPORT, VIEW_DRAWN
from tests.conftest import need
from tests.dashboard.conftest import value_point
from tests.dashboard.test_layout_browser import wait_view_drawn

pytestmark = [pytest.mark.timeout(300), pytest.mark.browser]

SMALL = "replicates=20&queries=16"
SLICE = '[id*=\'"name":"ens-slice"\'] .js-plotly-plot'
CHARTS = "[id^='view-ensemble'] .js-plotly-plot"


def _theta(query: str) -> int:
    return int(parse_qs(query.lstrip("?"))["theta"][0])


def _opened(page: Any, server_url: str, query: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&{query}&{SMALL}")
    page.wait_for_function(VIEW_DRAWN, arg="ensemble")


def _until(page: Any, condition: Any, timeout_s: float = 30.0) -> None:
    """Let the page run until `condition()` (a Python-side fact, such as how many requests were held)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        page.wait_for_timeout(50)


def _hold_and_drag(page: Any, control: str, share: float, moves: int, pause_ms: int) -> None:
    """Presses the control's thumb and moves it by `share` of its track's width (negative: to the left) in
    `moves` steps `pause_ms` apart, a hand's pace; the button stays down for the caller to release."""
    slider = page.locator(f"{control} [role=slider]")
    slider.scroll_into_view_if_needed()
    thumb = slider.bounding_box()
    track = page.locator(f"{control} .dash-slider-track").bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, moves + 1):
        page.mouse.move(x + track["width"] * share * i / moves, y)
        page.wait_for_timeout(pause_ms)


def test_dragging_theta_redraws_the_charts_while_the_button_is_down(page: Any, server_url: str) -> None:
    _opened(page, server_url, "theta=60")
    page.evaluate(
        "(s) => { window.__draws = 0; document.querySelectorAll(s).forEach((g) =>"
        " g.on('plotly_afterplot', () => { window.__draws += 1; })); }",
        CHARTS,
    )
    before = page.evaluate("() => history.length")
    _hold_and_drag(page, ".ctl-theta", -0.3, 20, 60)
    # the charts followed before the button is released (live answers only: the URL is still the old one)
    page.wait_for_function("() => window.headdivLive.trail.length >= 2", timeout=20_000)
    assert "theta=60" in page.evaluate("() => location.search")
    during = page.evaluate("() => window.headdivLive.trail.slice()")
    page.mouse.up()
    page.wait_for_function("() => !location.search.includes('theta=60')")
    released = _theta(page.evaluate("() => location.search"))
    # the charts end on the released value: the last live answer drawn is the released state
    page.wait_for_function(
        "(t) => { const trail = window.headdivLive.trail; return trail.length"
        " && new URLSearchParams(trail[trail.length - 1]).get('theta') === String(t); }",
        arg=released,
    )
    trail = [_theta(q) for q in page.evaluate("() => window.headdivLive.trail")]
    assert trail == sorted(trail, reverse=True) and len(set(trail)) == len(trail), trail  # in order, each once
    assert all(released <= t < 60 for t in trail), (trail, released)
    assert len(during) >= 2 and page.evaluate("() => window.__draws") >= 2 * len(during)
    # one history entry for the whole drag; the slider shows what the charts show
    assert page.evaluate("() => history.length") == before + 1
    assert page.locator(".ctl-theta [role=slider]").get_attribute("aria-valuenow") == str(released)


def test_an_answer_for_an_older_position_is_never_drawn_after_a_newer_one(page: Any, server_url: str) -> None:
    _opened(page, server_url, "theta=70")
    held: list[Any] = []

    def hold_first(route: Any) -> None:
        if route.request.headers.get("x-headdiv-ahead"):  # nothing asked ahead: each press is a request
            route.abort()
            return
        if "theta=69" in route.request.url and not held:  # the first key press's answer: held back
            held.append(route)
            return
        route.continue_()

    page.route("**/_live?*", hold_first)
    page.focus(".ctl-theta [role=slider]")
    page.keyboard.press("ArrowLeft")  # 69: its answer is held back
    page.wait_for_function("() => window.headdivLive.requests >= 1")
    page.keyboard.press("ArrowLeft")  # 68: the newer position, asked once 69's request is done
    page.wait_for_timeout(300)
    assert held
    held[0].continue_()  # 69's answer arrives now, after 68 was asked for
    page.wait_for_function(
        "() => { const t = window.headdivLive.trail; return t.length && t[t.length - 1].includes('theta=68'); }",
        timeout=30_000,
    )
    page.wait_for_timeout(500)
    trail = page.evaluate("() => window.headdivLive.trail")
    assert held and not any("theta=69" in q for q in trail), trail  # 69 arrived after 68 was asked: not drawn
    page.wait_for_function("() => location.search.includes('theta=68')")


def test_a_key_press_does_not_wait_behind_a_value_asked_for_ahead(page: Any, server_url: str) -> None:
    """The neighbours asked for ahead are computed at the lowest priority: a press while one is on the way
    is asked for and drawn at once, not after it."""
    _opened(page, server_url, "theta=30")
    held: list[Any] = []

    def hold_ahead(route: Any) -> None:
        if route.request.headers.get("x-headdiv-ahead"):  # never answered while the test runs
            held.append(route)
            return
        route.continue_()

    page.route("**/_live?*", hold_ahead)
    page.focus(".ctl-theta [role=slider]")  # a focused slider asks for its neighbours ahead
    _until(page, lambda: bool(held))
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.headdivLive.trail.some((q) => q.includes('theta=31'))", timeout=30_000)
    assert page.evaluate("() => window.headdivLive.requests") == 1
    page.unroute("**/_live?*")
    for route in held:  # dropped by the page already: nothing left to answer
        with contextlib.suppress(Exception):
            route.continue_()


def test_a_refused_value_keeps_the_charts_and_says_why_beside_the_slider(page: Any, server_url: str) -> None:
    _opened(page, server_url, "theta=50")

    def refuse(route: Any) -> None:
        if "theta=49" in route.request.url:
            route.fulfill(status=422, content_type="application/json", body='{"message": "over the work budget"}')
        else:
            route.continue_()

    page.route("**/_live?*", refuse)
    page.focus(".ctl-theta [role=slider]")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(".ctl-theta .live-refusal:has-text('over the work budget')")
    assert page.evaluate("() => window.headdivLive.trail.every((q) => !q.includes('theta=49'))")
    # the next value that is drawn clears the line
    page.wait_for_function("() => location.search.includes('theta=49')")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.headdivLive.trail.some((q) => q.includes('theta=48'))")
    assert page.locator(".ctl-theta .live-refusal").inner_text() == ""


def test_the_temperature_lessons_charts_follow_its_slider_and_the_other_lessons_stay(
    page: Any, server_url: str
) -> None:
    """Foundations: dragging T redraws the softmax lesson's charts while the button is down; the d_k lesson's
    charts, whose computation did not change, are not redrawn at every movement."""
    page.goto(f"{server_url}/?tab=foundations")
    softmax = '[id*=\'"name":"fd-softmax"\'] .js-plotly-plot'
    scaling = '[id*=\'"name":"fd-scaling"\'] .js-plotly-plot'
    wait_view_drawn(page, "foundations")  # every lesson drawn and settled: no draw of the page's own is counted
    page.evaluate(  # count the redraws each chart is given (Plotly.react), not its relayouts
        "([a, b]) => { window.__drawn = {a: 0, b: 0}; const react = window.Plotly.react;"
        " const ga = document.querySelector(a), gb = document.querySelector(b);"
        " window.Plotly.react = function (gd) { if (gd === ga) window.__drawn.a += 1;"
        " if (gd === gb) window.__drawn.b += 1; return react.apply(this, arguments); }; }",
        [softmax, scaling],
    )
    before = page.evaluate("(s) => JSON.stringify(document.querySelector(s).data.map((t) => t.y))", softmax)
    slider = page.locator("#fd-sm-t [role=slider]")
    slider.scroll_into_view_if_needed()
    thumb = slider.bounding_box()
    x, y = thumb["x"] + thumb["width"] / 2, thumb["y"] + thumb["height"] / 2
    page.mouse.move(x, y)
    page.evaluate("() => { window.__drawn = {a: 0, b: 0}; }")
    page.mouse.down()
    for i in range(1, 16):
        page.mouse.move(x + 6 * i, y)
        page.wait_for_timeout(60)
    page.wait_for_function("() => window.headdivLive.trail.length >= 2", timeout=20_000)
    during = page.evaluate("() => window.__drawn")
    # the URL waits for the release (read while the button is down: once it is up, the write may come at once)
    assert "sm_T" not in page.evaluate("() => location.search")
    after = page.evaluate("(s) => JSON.stringify(document.querySelector(s).data.map((t) => t.y))", softmax)
    page.mouse.up()
    # the d_k lesson is redrawn at most once: its first live answer, whose key the page did not know yet
    assert after != before and during["a"] >= 2 and during["b"] <= 1, during
    page.wait_for_function("() => location.search.includes('sm_T=')")


def test_a_thumb_dragged_away_and_back_ends_on_the_charts_of_the_value_it_shows(page: Any, server_url: str) -> None:
    """The release changes nothing in the URL (the same value), so no callback redraws: the live path itself
    must end on that value's charts, not on the last one it passed."""
    _opened(page, server_url, "theta=40")
    start = page.evaluate("(s) => JSON.stringify(document.querySelector(s).data.map((t) => t.y))", SLICE)
    x, y = value_point(page, "theta", 40, 0, 90)
    page.mouse.move(x, y)
    page.mouse.down()
    for dx in (8, 16, 24, 32, 24, 16, 8, 0):
        page.mouse.move(x + dx, y)
        page.wait_for_timeout(150)
    page.mouse.up()
    assert page.locator(".ctl-theta [role=slider]").get_attribute("aria-valuenow") == "40"
    page.wait_for_function(
        "() => { const t = window.headdivLive.trail; return t.length > 1"
        " && new URLSearchParams(t[t.length - 1]).get('theta') === '40'; }"
    )
    assert page.evaluate("(s) => JSON.stringify(document.querySelector(s).data.map((t) => t.y))", SLICE) == start
    assert "theta=40" in page.evaluate("() => location.search")


@pytest.mark.parametrize("presses", [1, 3])
def test_a_key_press_alone_writes_the_thumbs_value_to_the_url(page: Any, server_url: str, presses: int) -> None:
    """A keyboard-only person (no pointer moves at all): after each press the URL is the value the thumb
    shows, not the previous one; presses apart (the last burst over) make one history entry each."""
    _opened(page, server_url, "theta=50")
    page.focus(".ctl-theta [role=slider]")
    before = page.evaluate("() => history.length")
    for i in range(1, presses + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(t) => location.search.includes('theta=' + t)", arg=50 + i, timeout=10_000)
        page.wait_for_function("() => !window.headdivLive.inKeyBurst()", timeout=10_000)
    assert page.locator(".ctl-theta [role=slider]").get_attribute("aria-valuenow") == str(50 + presses)
    assert page.evaluate("() => history.length") == before + presses


def test_a_key_press_changes_every_chart_of_the_view_in_the_same_frame(page: Any, server_url: str) -> None:
    """A position's charts on screen (at 1500x1000, all five) are drawn in one task: no frame is painted with
    some of them on the new value and others still on the old one (and each paint between two charts would cost
    as much as one).

    Each frame's charts are recorded from before the press; the press's frame is the first where every chart
    differs from its pre-press drawing, and none of that frame's figures may show in an earlier frame. The
    page's own drawing of the opening state, should it still redraw a chart after the recording starts,
    differs from the pre-press drawing too but never equals the press's figure, so it cannot fail this."""
    _opened(page, server_url, "theta=60")
    wait_view_drawn(page, "ensemble")
    page.wait_for_function("() => window.headdivLive.settled()", timeout=30_000)
    page.focus(".ctl-theta [role=slider]")
    page.evaluate(
        """(s) => { const charts = () => [...document.querySelectorAll(s)];
          const before = charts().map((g) => g.data);
          window.__frames = []; window.__whole = -1;
          const tick = () => {
            const now = charts().map((g) => g.data);
            window.__frames.push(now);
            if (now.every((d, i) => d !== before[i])) { window.__whole = window.__frames.length - 1; return; }
            requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick); }""",
        CHARTS,
    )
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.__whole >= 0", timeout=30_000)
    early = page.evaluate(
        """() => { const f = window.__frames, whole = f[window.__whole];
          return f.slice(0, window.__whole).map((now) => now.filter((d, i) => d === whole[i]).length)
            .filter((n) => n > 0); }"""
    )
    assert early == [], f"frames before the whole change showed {early} of the new charts"
    assert page.evaluate("(s) => document.querySelectorAll(s).length", CHARTS) >= 4


COUNT_DRAWS = """
(s) => {
  window.__drawn = {}; window.__byGraph = {};
  const name = (gd) => JSON.parse(gd.closest("[id*='\\"name\\"']").id).name;
  document.querySelectorAll(s).forEach((gd) => gd.on('plotly_afterplot', () => {
    window.__drawn[name(gd)] = (window.__drawn[name(gd)] || 0) + 1;
  }));
  const react = window.Plotly.react;
  window.Plotly.react = function (gd, a) {
    const out = react.apply(this, arguments);
    // dcc.Graph draws with (gd, {data, layout, config}); its call is counted once plotly.js is done with it
    if (gd instanceof Element && a && !Array.isArray(a)) {
      Promise.resolve(out).then(() => { window.__byGraph[name(gd)] = (window.__byGraph[name(gd)] || 0) + 1; });
    }
    return out;
  };
}
"""
"""Per chart of the view: how often it was drawn (`__drawn`), and how often the view's own drawing (dcc.Graph)
handed it a figure (`__byGraph`), from now on."""


@pytest.mark.parametrize("key", ["ArrowLeft", "End"])
def test_a_key_press_draws_each_chart_once(page: Any, server_url: str, key: str) -> None:
    """The live path draws the new state's charts; the view's own drawing, which follows the URL, then hands
    each chart the same figure (from the tab's memory, or the live request it waited for rather than asking
    again): nothing is drawn a second time. A value one step away was asked for ahead (ArrowLeft); one at
    the end of the track (End) was not, and is fetched while the view's own drawing waits."""
    _opened(page, server_url, "theta=60")
    wait_view_drawn(page, "ensemble")
    page.wait_for_function("() => window.headdivLive.settled()", timeout=30_000)
    page.focus(".ctl-theta [role=slider]")
    page.wait_for_function("() => window.headdivLive.settled()", timeout=30_000)
    page.evaluate(COUNT_DRAWS, CHARTS)
    page.keyboard.press(key)
    want = "59" if key == "ArrowLeft" else "90"
    page.wait_for_function("(v) => new URLSearchParams(location.search).get('theta') === v", arg=want)
    names = page.evaluate("(s) => [...document.querySelectorAll(s)].length", CHARTS)
    assert names == 5
    # every chart handed its figure by the view's own drawing, the live path's answer drawn (the trail)
    page.wait_for_function("() => Object.keys(window.__byGraph).length === 5", timeout=30_000)
    trail = page.evaluate("() => window.headdivLive.trail")
    assert _theta(trail[-1]) == int(want), trail
    drawn = page.evaluate("() => window.__drawn")
    assert drawn == dict.fromkeys(drawn, 1) and len(drawn) == 5, drawn
    assert page.locator("[id^='view-ensemble'] [data-stale], [id^='view-ensemble'] [aria-busy=true]").count() == 0


CHART_STATE = f"""
(s) => [...document.querySelectorAll(s)].map((gd) => {{
  const box = gd.closest('.dash-graph');
  return {{name: JSON.parse(box.id).name, data: JSON.stringify(gd.data.map((t) => [t.y, t.z])), view: {IN_VIEWPORT}(gd),
    marked: box.hasAttribute('data-stale'), busy: box.getAttribute('aria-busy') === 'true'}}; }})
"""
"""Per chart of the view: its name, the numbers it shows, whether it is inside the viewport, and its updating
mark (`data-stale`, and `aria-busy` for screen readers)."""

STATE_CHARTS = """
async (values) => { const answer = await window.headdivLive.answer(values), out = {};
  answer.parts.forEach((part) => Object.keys(part.charts).forEach((name) => {
    out[name] = JSON.stringify(part.charts[name].data.map((t) => [t.y, t.z])); }));
  return out; }
"""
"""The numbers each chart shows for the URL's state with `values` set (from the tab's memory, or asked for)."""

RECORD_FRAMES = f"""
([s, want, scroll]) => {{
  window.__frames = []; window.__settled = false;
  // after assets/live.js's own listener: this frame's callback runs after its drawing, as the frame is painted
  document.addEventListener('keydown', () => {{
    const tick = () => {{
      const frame = ({CHART_STATE})(s).map((c) => Object.assign(c, {{fresh: c.data === want[c.name]}}));
      window.__frames.push(frame);
      if (scroll && window.__frames.length === 1) {{
        const below = frame.find((c) => !c.view);
        if (below) document.querySelector(`[id*='"name":"${{below.name}}"']`).scrollIntoView({{block: 'center'}});
      }}
      if (frame.every((c) => c.fresh && !c.marked && !c.busy)) window.__settled = true;
      else if (window.__frames.length < 600) requestAnimationFrame(tick);
    }};
    requestAnimationFrame(tick);
  }}, {{capture: true, once: true}});
}}
"""
"""From the next key press on, each frame's charts (CHART_STATE, and whether each shows the state `want`), until
every chart shows it unmarked; with `scroll`, the first frame scrolls a chart below the fold into view."""


@pytest.mark.parametrize("scroll", [False, True], ids=["still", "scrolled"])
def test_a_key_press_draws_the_charts_on_screen_in_its_frame_and_marks_the_rest_until_drawn(
    page: Any, server_url: str, scroll: bool
) -> None:
    """At 1440x900 two of Ensemble's charts have their plots below the fold. A key press whose value is in the
    tab's memory draws the charts inside the viewport in the keydown's frame; the others follow after it, each
    carrying the updating mark until drawn: in no frame does a chart show another state than the new one
    unmarked, one scrolled into view included, and every chart ends on the new state with its mark gone."""
    page.set_viewport_size({"width": 1440, "height": 900})
    _opened(page, server_url, "theta=60")
    wait_view_drawn(page, "ensemble")
    page.focus(".ctl-theta [role=slider]")
    page.wait_for_function("() => window.headdivLive.remembers({theta: 59}) && window.headdivLive.settled()")
    want = page.evaluate(STATE_CHARTS, {"theta": 59})
    before = page.evaluate(CHART_STATE, CHARTS)
    assert len(before) == 5 and all(c["data"] != want[c["name"]] for c in before)
    assert any(not c["view"] for c in before) and any(c["view"] for c in before), before
    page.evaluate(RECORD_FRAMES, [CHARTS, want, scroll])
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => window.__settled", timeout=30_000)
    frames = page.evaluate("() => window.__frames")
    first = frames[0]
    assert all(c["fresh"] for c in first if c["view"]), first  # the viewport: in the keydown's frame
    late = [c["name"] for c in first if not c["fresh"]]
    assert late, first  # what is below the fold waits for a later frame
    shown_stale = [
        (i, c["name"])
        for i, frame in enumerate(frames)
        for c in frame
        if not c["fresh"] and not (c["marked"] and c["busy"])
    ]
    assert shown_stale == [], f"frames showing an older state without the updating mark: {shown_stale}"
    if scroll:  # the chart scrolled to came into view while its state was still to be drawn
        assert any(c["view"] and c["name"] in late for frame in frames[1:] for c in frame), frames[1]


def test_a_held_key_draws_each_chart_fewer_times_than_it_is_pressed_and_ends_on_the_last_value(
    page: Any, server_url: str
) -> None:
    """A held key (keydowns in quick succession) whose values are all in the tab's memory: the page draws the
    newest state once per frame, never one that a later keydown replaced before the screen could show it, so each
    chart is drawn fewer times than the key went down, and every chart ends on the last value, unmarked."""
    presses = 6
    page.set_viewport_size({"width": 1440, "height": 900})
    _opened(page, server_url, "theta=60")
    wait_view_drawn(page, "ensemble")
    page.focus(".ctl-theta [role=slider]")
    page.wait_for_function("() => window.headdivLive.settled()", timeout=30_000)
    # every value the key passes, in the tab's memory: each press could be drawn at once
    page.evaluate(
        "async (n) => { for (let t = 60 - n; t < 60; t++) await window.headdivLive.answer({theta: t}); }", presses
    )
    page.wait_for_function("() => window.headdivLive.settled()", timeout=30_000)
    page.evaluate(COUNT_DRAWS, CHARTS)
    # a held key repeats faster than the page draws: its keydowns, 10 ms apart, to the focused thumb
    page.evaluate(
        """(n) => { const thumb = document.activeElement;
          for (let i = 0; i < n; i++) setTimeout(() => thumb.dispatchEvent(new KeyboardEvent('keydown',
            {key: 'ArrowLeft', code: 'ArrowLeft', repeat: i > 0, bubbles: true, cancelable: true})), 10 * i); }""",
        presses,
    )
    last = str(60 - presses)
    page.wait_for_function("(v) => new URLSearchParams(location.search).get('theta') === v", arg=last)
    want = page.evaluate(STATE_CHARTS, {})
    page.wait_for_function(
        f"([s, want]) => ({CHART_STATE})(s).every((c) => c.data === want[c.name] && !c.marked && !c.busy)",
        arg=[CHARTS, want],
    )
    drawn = page.evaluate("() => window.__drawn")
    assert len(drawn) == 5 and all(1 <= n < presses for n in drawn.values()), drawn
    assert page.locator(".ctl-theta [role=slider]").get_attribute("aria-valuenow") == last


def test_a_views_charts_are_marked_as_updating_while_its_job_computes(page: Any, server_url: str) -> None:
    """While a view's job computes, its body carries the class `busy` (drawing/view_jobs.py: dimmed, a progress
    bar) and it shows the charts it had or the job's partial result as it grows: every chart of the view is
    marked as updating (data-stale, aria-busy) for as long, one drawn meanwhile included, and the marks go
    when the job ends."""
    _opened(page, server_url, "theta=60")
    wait_view_drawn(page, "ensemble")
    marks = f"() => ({CHART_STATE})({json.dumps(CHARTS)}).map((c) => c.marked && c.busy)"
    assert page.evaluate(marks) == [False] * 5
    page.evaluate("() => document.getElementById('ensemble-body').classList.add('busy')")
    page.wait_for_function(f"() => ({marks})().every(Boolean)")
    # a drawing meanwhile (the job's partial result) is still marked
    page.evaluate(
        "(s) => { const gd = document.querySelector(s); return window.Plotly.react(gd, "
        "gd.data.map((t) => Object.assign({}, t, {y: Array.from(t.y || [], (v) => v * 2)})), gd.layout); }",
        SLICE,
    )
    assert page.evaluate(marks) == [True] * 5
    page.evaluate("() => document.getElementById('ensemble-body').classList.remove('busy')")
    page.wait_for_function(f"() => ({marks})().every((m) => !m)")


def test_a_burst_of_key_presses_is_one_history_entry(page: Any, server_url: str) -> None:
    """A held arrow key (presses in quick succession) moves the thumb as far as it was held and writes one
    history entry: Back returns to the value before the burst, as after a drag."""
    _opened(page, server_url, "theta=50")
    page.focus(".ctl-theta [role=slider]")
    before = page.evaluate("() => history.length")
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => location.search.includes('theta=55')", timeout=10_000)
    page.wait_for_function("() => !window.headdivLive.inKeyBurst()", timeout=10_000)
    assert page.evaluate("() => history.length") == before + 1
    page.evaluate("() => history.back()")
    page.wait_for_function("() => location.search.includes('theta=50')", timeout=10_000)
    page.wait_for_function(
        "(s) => document.querySelector(s).getAttribute('aria-valuenow') === '50'",
        arg=".ctl-theta [role=slider]",
        timeout=10_000,
    )


def test_the_covariance_labs_angles_slider_redraws_its_charts_live(page: Any, server_url: str) -> None:
    """A view slider of a sweep: a key press on Covariance's angles draws that sweep's charts through the live
    path (its computation submitted like the release's), and the chart shows the new number of angles."""
    page.goto(f"{server_url}/?tab=covariance&cv_n=3&H=3&{SMALL}")
    split = '[id*=\'"name":"cv-split"\'] .js-plotly-plot'
    page.wait_for_function(
        "(s) => { const g = document.querySelector(s); return g && g.data && g.data.length; }", arg=split
    )
    page.focus("#cv-n [role=slider]")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => window.headdivLive.trail.some((q) => new URLSearchParams(q).get('cv_n') === '4')", timeout=60_000
    )
    # and the charts end on the new number of angles (the release's own drawing agrees with the live one)
    page.wait_for_function("(s) => document.querySelector(s).data[0].x.length === 4", arg=split, timeout=60_000)


def test_the_real_models_layer_charts_follow_the_thumb_with_one_history_entry(page: Any, server_url: str) -> None:
    """Real models: a layer is drawn from the report on the page (no computation), so its slider reports while
    it moves; the charts show each layer the thumb passes while the button is down, and the drag is one
    history entry ending on the released layer."""
    warm = httpx.get(f"{server_url}/api/v1/models/builtin/all-MiniLM-L6-v2/hdi", timeout=120)
    if warm.status_code == 404:
        need(f"the built-in model is not available: {warm.json().get('detail')}")
    heat = '[id*=\'"name":"mdl-overlap"\'] .gtitle'
    page.goto(f"{server_url}/?tab=models&layer=0&{SMALL}")
    page.wait_for_function("(s) => /layer 0 /.test((document.querySelector(s) || {}).textContent || '')", arg=heat)
    page.evaluate(
        "(s) => { window.__layers = []; new MutationObserver(() => { const e = document.querySelector(s);"
        " const m = e && /layer (\\d+) /.exec(e.textContent);"
        " if (m && window.__layers[window.__layers.length - 1] !== +m[1]) window.__layers.push(+m[1]); })"
        ".observe(document.body, {subtree: true, childList: true, characterData: true}); }",
        heat,
    )
    before = page.evaluate("() => history.length")
    _hold_and_drag(page, "#mdl-layer", 0.8, 10, 250)
    page.wait_for_function("() => window.__layers.length >= 2", timeout=20_000)
    during = page.evaluate("() => window.__layers.slice()")
    page.mouse.up()
    released = int(page.locator("#mdl-layer [role=slider]").get_attribute("aria-valuenow") or 0)
    assert released >= 3
    page.wait_for_function("(l) => location.search.includes('layer=' + l)", arg=released)
    page.wait_for_function(
        "(a) => { const l = window.__layers; return l[l.length - 1] === a[1] && history.length === a[0] + 1; }",
        arg=[before, released],
        timeout=20_000,
    )
    assert during == sorted(set(during)) and during[-1] > 0, during  # each a layer the thumb passed, in order
    page.wait_for_timeout(1500)  # the drag's writes are over: still one entry
    assert page.evaluate("() => history.length") == before + 1


def test_while_held_only_the_charts_on_screen_are_redrawn_and_the_release_draws_the_rest(
    page: Any, server_url: str
) -> None:
    """Each redraw costs the page's one thread: while the thumb is held the charts scrolled out of sight wait,
    marked as updating, unless one is scrolled into view; the release brings every chart of the view to the
    released value's figures."""
    page.set_viewport_size({"width": 1440, "height": 700})
    _opened(page, server_url, "theta=60")
    names = page.evaluate(
        "(s) => [...document.querySelectorAll(s)].map((g) => {"
        " const r = g.getBoundingClientRect();"
        " return [JSON.parse(g.closest('[id^=\"{\"]').id).name, r.top < innerHeight && r.bottom > 0]; })",
        CHARTS,
    )
    hidden = [n for n, visible in names if not visible]
    seen = [n for n, visible in names if visible]
    assert hidden and seen, names  # some of the view's charts are below the fold at this height
    shown = "(names) => names.map((n) => window.headdivLive.shown(n))"
    _hold_and_drag(page, ".ctl-theta", -0.2, 10, 60)
    page.wait_for_function("() => window.headdivLive.trail.length >= 2", timeout=20_000)
    # drawn by the live path while held: the charts on screen only (the others still show the page's own, marked)
    assert all(page.evaluate(shown, seen)) and not any(page.evaluate(shown, hidden)), names
    marks = {c["name"]: c["marked"] and c["busy"] for c in page.evaluate(CHART_STATE, CHARTS)}
    assert [n for n, _ in names if marks[n]] == hidden, marks
    # one scrolled into view while the button is still down is drawn then (by the live path), its mark gone
    page.evaluate('(n) => document.querySelector(`[id*=\'"name":"${n}"\']`).scrollIntoView()', hidden[-1])
    page.wait_for_function(
        "(n) => window.headdivLive.shown(n) !== null"
        " && !document.querySelector(`[id*='\"name\":\"${n}\"']`).hasAttribute('data-stale')",
        arg=hidden[-1],
    )
    page.mouse.up()
    page.wait_for_function("() => !location.search.includes('theta=60')")
    # every chart ends on the released state's part (the key the live answer for the URL's state has)
    page.wait_for_function(
        "(names) => fetch(JSON.parse(document.querySelector('meta[name=headdiv-live]').content).url"
        " + location.search).then((r) => r.status === 200 ? r.json() : null)"
        ".then((a) => !!a && names.every((n) => window.headdivLive.shown(n) === a.parts[0].key))",
        arg=[n for n, _ in names],
    )
