"""A drawn chart belongs to the controls' state, whatever order answers arrive in: answers held back (a slow
network, a busy server) and let through after a newer state was asked for are never drawn, by the live path
or by the views' own drawing; once the hand stops the charts and the header show what the controls show."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.dashboard.conftest import value_point
from tests.dashboard.test_browser import wait_text
from tests.dashboard.test_browser_drag import SLICE, _opened, _until

pytestmark = [pytest.mark.timeout(300), pytest.mark.browser]

SHOWS_THE_URLS_STATE = """async (sel) => {
  const gd = document.querySelector(sel), name = JSON.parse(gd.closest('[id]').id).name;
  const answer = await window.headdivLive.answer({});
  const fig = answer.parts.map((p) => p.charts[name]).find((f) => f);
  const ys = (data) => JSON.stringify(data.map((t) => Array.from(t.y || [])));
  return !!fig && ys(gd.data) === ys(fig.data);
}"""
"""Whether a chart draws exactly the figure of the state the URL (and so the controls) holds."""


class Held:
    """Every live answer whose query matches `needle` (a regular expression) is held back until
    `let_through()`."""

    def __init__(self, page: Any, needle: str) -> None:
        self.routes: list[Any] = []
        self.holding = True
        self.needle = needle
        page.route("**/_live?*", self._route)

    def _route(self, r: Any) -> None:
        if r.request.headers.get("x-headdiv-ahead"):  # nothing asked ahead: each position is its own request
            r.abort()
        elif self.holding and re.search(self.needle, r.request.url):
            self.routes.append(r)
        else:
            r.continue_()

    def let_through(self) -> None:
        self.holding = False
        for r in self.routes:
            r.continue_()


def test_answers_held_back_past_a_preset_are_never_drawn(page: Any, server_url: str) -> None:
    """A key press asks for θ = 41 (the live path; the view's own drawing, once the URL holds it, waits for
    that request's answer rather than asking again); the answer is held back while the person pauses and
    picks a preset, and let through once the preset is on screen: it is drawn over it by neither (each drops
    it as stale), so the charts and the header stay those of the preset."""
    _opened(page, server_url, "theta=40")
    held = Held(page, r"theta=41\b")
    page.focus(".ctl-theta [role=slider]")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => location.search.includes('theta=41')")
    _until(page, lambda: len(held.routes) >= 1)  # the live path's request
    page.wait_for_function("() => window.headdivLive.shared >= 1")  # and the view's drawing waits for it
    page.wait_for_timeout(1600)  # the person pauses (the slider is no longer being steered)
    page.click(".preset:has-text('Identical heads')")
    wait_text(page, "#hl-hdi", r"^0$")  # the preset's identical heads
    page.wait_for_function(SHOWS_THE_URLS_STATE, arg=SLICE)
    stale = page.evaluate("() => window.headdivLive.stale || 0")
    held.let_through()
    # the late answer reaches both: each either drops it as stale or draws it (the bug)
    page.wait_for_function(
        "(n) => window.headdivLive.stale >= n + 2 || window.headdivLive.trail.some((q) => q.includes('theta=41'))",
        arg=stale,
    )
    page.wait_for_function("() => window.headdivLive.settled()")
    trail = page.evaluate("() => window.headdivLive.trail")
    assert not any("theta=41" in q for q in trail), trail
    assert page.evaluate(SHOWS_THE_URLS_STATE, SLICE)
    assert page.locator("#hl-hdi").inner_text() == "0"
    assert page.locator(".ctl-theta [role=slider]").get_attribute("aria-valuenow") == "0"


def test_a_position_passed_on_the_way_back_is_not_drawn_after_the_thumb_returned(page: Any, server_url: str) -> None:
    """The thumb goes right and back to where it started while the answers it asked for on the way are held;
    its start is drawn from the tab's memory at once. Let through then, no position it passed is drawn after:
    the charts end on the value the slider shows, with the button still down and after it is up."""
    _opened(page, server_url, "theta=40")
    held = Held(page, r"theta=4[1-9]\b")  # every position on the way, not 40 (in the tab's memory)
    x, y = value_point(page, "theta", 40, 0, 90)
    page.mouse.move(x, y)
    page.mouse.down()
    for dx in (8, 16, 24):
        page.mouse.move(x + dx, y)
        page.wait_for_function(
            "(v) => document.querySelector('.ctl-theta [role=slider]').getAttribute('aria-valuenow') !== v", arg="40"
        )
    _until(page, lambda: len(held.routes) >= 1)  # one asked for and held; a later position waits behind it
    page.mouse.move(x, y)
    page.wait_for_function(
        "() => document.querySelector('.ctl-theta [role=slider]').getAttribute('aria-valuenow') === '40'"
    )
    page.wait_for_function(
        "() => { const t = window.headdivLive.trail; return t.length && new URLSearchParams(t[t.length - 1]).get('theta') === '40'; }"
    )
    held.let_through()
    page.wait_for_function("() => window.headdivLive.settled()")
    assert page.evaluate(SHOWS_THE_URLS_STATE, SLICE)  # still down: the start's charts
    page.mouse.up()
    page.wait_for_function("() => window.headdivLive.settled()")
    trail = page.evaluate("() => window.headdivLive.trail")
    assert new_theta(trail[-1]) == "40", trail
    assert page.evaluate(SHOWS_THE_URLS_STATE, SLICE) and "theta=40" in page.evaluate("() => location.search")


def new_theta(query: str) -> str | None:
    from urllib.parse import parse_qs

    return parse_qs(query).get("theta", [None])[0]
