"""Guided tours, class polls, preset stories and play in real headless Chromium (the app `headdiv serve` runs).

The poll is answered from a second browser context (a student's phone: its own cookies, a phone-sized
window), and the lecturer's page then reveals the answer beside the class's counts.
"""

from __future__ import annotations

import math
import re
from typing import Any

import httpx
import pytest

from tests.dashboard.test_browser import SMALL, slider_value, wait_idle, wait_text

pytestmark = [pytest.mark.timeout(240), pytest.mark.browser]


def concealed(page: Any) -> bool:
    return bool(
        page.evaluate(
            "() => [...document.querySelectorAll('#view-ensemble .chart')]"
            ".every(c => getComputedStyle(c).visibility === 'hidden')"
        )
    )


def test_tour_step_with_a_class_poll_answered_from_a_phone_then_revealed(
    page: Any, browser: Any, server_url: str
) -> None:
    page.goto(f"{server_url}/?tour=why-many-heads&step=3&{SMALL}")
    wait_text(page, "#tour-count", r"^step 3 of \d+$")
    assert "θ = 90°" in page.inner_text("#tour-narrative")
    assert page.is_visible("text=θ goes from 0° to 90°")
    assert slider_value(page, "theta") == 90 and slider_value(page, "H") == 4
    page.wait_for_function("() => document.querySelector('#tour-gate').classList.contains('conceal')")
    assert concealed(page), "the figure shows before the reader has answered"

    page.click("#tour-poll-open")
    page.wait_for_selector("#tour-poll-link")
    link = page.get_attribute("#tour-poll-link", "href")
    assert re.fullmatch(re.escape(server_url) + r"/vote/[A-Za-z0-9_-]{16}", link), link
    assert page.get_attribute(".tour-qr", "src").startswith("data:image/svg+xml")

    phone = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        student = phone.new_page()
        student.goto(link)
        assert "θ goes from 0° to 90°" in student.inner_text("h1")
        student.click("button[value=falls]")
        assert "Counted" in student.inner_text("#voted")
        student.goto(link)  # the same phone cannot answer twice: reopened, it shows its answer, not the buttons
        assert "You answered “It falls”" in student.inner_text("#voted")
        assert student.locator("button").count() == 0
        again = student.request.post(link, form={"choice": "rises"})  # a second answer sent anyway is refused
        assert again.status == 409 and "already" in again.text()
    finally:
        phone.close()
    poll_id = link.rsplit("/", 1)[1]
    assert httpx.get(f"{server_url}/api/v1/polls/{poll_id}").json()["counts"] == {"falls": 1, "stays": 0, "rises": 0}

    wait_text(page, "#tour-poll-total", r"^1 answer so far$")
    assert concealed(page)
    page.click("button:has-text('It falls')")
    wait_text(page, "#tour-reveal", r"Right: you chose “It falls”")
    assert "(1 answer)" in page.inner_text("#tour-reveal")
    assert page.locator("#tour-poll-link").count() == 0  # revealed: the class's bars say the count, the box goes
    page.wait_for_function("() => !document.querySelector('#tour-gate').classList.contains('conceal')")
    assert not concealed(page)

    # a presenter's clicker: PageDown / PageUp, and the arrow keys, move through the steps
    page.keyboard.press("PageDown")
    page.wait_for_function("() => location.search.includes('step=4')")
    wait_text(page, "#tour-count", r"^step 4 of")
    page.wait_for_function("() => document.querySelector('#sc-H [role=slider]').getAttribute('aria-valuenow') === '16'")
    wait_idle(page, "sim")  # (steps compute at full size: let each finish rather than pile up on a small machine)
    page.keyboard.press("PageUp")
    page.wait_for_function("() => location.search.includes('step=3')")
    wait_text(page, "#tour-count", r"^step 3 of")  # the panel's links now lead on from step 3
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => location.search.includes('step=2')")
    wait_text(page, "#tour-step-title", r"^Four identical heads$")
    page.wait_for_function(
        "() => document.querySelector('#sc-theta [role=slider]').getAttribute('aria-valuenow') === '0'"
    )
    assert page.is_visible("text=averaging these four identical heads")  # a new question, not yet answered
    page.wait_for_function("() => document.querySelector('#tour-gate').classList.contains('conceal')")
    page.go_back()
    page.wait_for_function("() => location.search.includes('step=3')")
    wait_text(page, "#tour-reveal", r"Right: you chose “It falls”")  # back on an answered step: still revealed
    wait_text(page, "#tour-reveal", r"The class \(1 answer\)")  # and its poll still counted beside it
    wait_idle(page, "sim")


def test_a_preset_tells_its_story_on_the_page(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?{SMALL}&theta=30")
    assert not page.is_visible("#tour-panel")
    page.click("text=Identical heads")
    wait_text(page, "#tour-step-title", r"^Identical heads$")
    assert "effective heads = 1" in page.inner_text("#tour-narrative")
    assert not page.is_visible("#tour-nav")
    page.focus("#sc-theta [role=slider]")
    page.keyboard.press("ArrowRight")  # the scenario is no longer the preset's: its story goes
    page.wait_for_function("() => getComputedStyle(document.getElementById('tour-panel')).display === 'none'")
    wait_idle(page, "sim")  # (the preset computes at full size: let it finish before the next test)


PANEL_SHOWN = "(shown) => (getComputedStyle(document.getElementById('tour-panel')).display !== 'none') === shown"


def test_a_preset_tells_its_story_on_its_own_view_only(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?theta=0")  # every other value a default: "Identical heads", on the Ensemble view
    wait_text(page, "#tour-step-title", r"^Identical heads$")
    page.wait_for_function(PANEL_SHOWN, arg=True)
    page.click("#tabs >> text=Weighting")
    page.wait_for_function(PANEL_SHOWN, arg=False)
    page.click("#tabs >> text=Ensemble")
    wait_text(page, "#tour-step-title", r"^Identical heads$")
    page.wait_for_function(PANEL_SHOWN, arg=True)
    wait_idle(page, "sim")


def test_hidden_presets_tell_no_story_but_a_tour_still_does(page: Any, server_url: str) -> None:
    """The docs' lecture link matches "Identical heads" by chance; with the presets hidden it tells no story."""
    page.goto(f"{server_url}/?tab=ensemble&theta=0&hide=H,d_k,n,advanced,presets,explain&large=1")
    wait_text(page, "#hl-hdi", r"^0$")
    wait_idle(page, "sim")
    page.wait_for_timeout(500)  # both the server's and the browser's answer have had their turn
    assert page.evaluate(PANEL_SHOWN, False)
    assert page.inner_text("#tour-step-title").strip() == ""
    page.goto(f"{server_url}/?tour=why-many-heads&step=1&hide=presets&{SMALL}")
    wait_text(page, "#tour-count", r"^step 1 of \d+$")
    assert page.evaluate(PANEL_SHOWN, True) and page.inner_text("#tour-narrative").strip()
    wait_idle(page, "sim")


def test_play_steps_theta_through_its_range_and_pause_stops_it(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&theta=0&{SMALL}")
    wait_text(page, "#hl-hdi", r"^0$")
    button = """[id*='"slider":"sc-theta"'][id*='"type":"play"']"""
    page.click(button)
    wait_text(page, button, "^⏸$")
    page.wait_for_function("() => /theta=[2-9]0(&|$)/.test(location.search)")  # two steps of 10° or more
    wait_text(page, "#hl-hdi", r"^0\.\d+$")  # redrawn as it goes: heads no longer identical
    if page.inner_text(button) == "⏸":  # (on a slow machine it may have reached 90° and stopped itself)
        page.click(button)
    wait_text(page, button, "^▶$")
    # stopped: the slider, the link and the header agree on one angle of the 10° grid
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('theta') ==="
        " document.querySelector('#sc-theta [role=slider]').getAttribute('aria-valuenow')"
    )
    theta = slider_value(page, "theta")
    assert theta >= 20 and theta % 10 == 0
    expected = 1 - math.cos(math.radians(theta)) ** 2
    wait_text(page, "#hl-hdi", rf"^{expected:.3g}$".replace(".", r"\."))


def test_the_sidebar_opens_a_tour_keeping_the_lecture_flags(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?large=1&{SMALL}")
    page.wait_for_function(
        "() => document.querySelector('.tour-link') && document.querySelector('.tour-link').href.includes('large=1')"
    )
    page.click(".tour-link:has-text('Why many heads?')")
    page.wait_for_function("() => location.search === '?tour=why-many-heads&step=1&large=1'")
    wait_text(page, "#tour-count", r"^step 1 of \d+$")
    assert slider_value(page, "H") == 1 and page.evaluate(
        "() => document.getElementById('root').classList.contains('large')"
    )
    wait_idle(page, "sim")


def test_play_starts_at_the_range_start_and_a_preset_stops_it(page: Any, server_url: str) -> None:
    page.goto(f"{server_url}/?tab=ensemble&theta=60&{SMALL}")
    wait_text(page, "#hl-hdi", r"^0\.75$")
    button = """[id*='"slider":"sc-theta"'][id*='"type":"play"']"""
    page.click(button)
    wait_text(page, button, "^⏸$")
    # from the start of the range, not from 60°
    page.wait_for_function("() => ['0', '10'].includes(new URLSearchParams(location.search).get('theta') || '0')")
    page.click(".preset:has-text('Identical heads')")
    wait_text(page, button, "^▶$")  # stopped: the tick is disabled in the same answer
    wait_text(page, "#hl-hdi", r"^0$")  # the preset's identical heads
