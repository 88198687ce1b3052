"""A lecture room as its two screens see it, in Chromium: a student's phone that follows (one place to answer,
no control that would take it off the lecturer's page) and the lecturer's page on a 1024x768 projector with
large fonts (the revealed figure on the first screen; the room's line warns when phones cannot reach its link).
`assets/room.js`, `headdiv/dashboard/teaching/tour_panel.py`, the room's rules in `assets/style.css`."""

from __future__ import annotations

from typing import Any

import pytest

from headdiv.dashboard.teaching.poll_links import unreachable_note
from headdiv.i18n import translator
from tests.dashboard.test_rooms import SMALL, follows, query_of
from tests.dashboard.test_rooms import phone as screen  # any size, despite its name

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]
STEP = "tour=why-many-heads&step=3"  # a prediction step: "θ goes from 0° to 90°: does the MSE rise, fall or stay?"
PROMPT = "θ goes from 0° to 90°"

# what a follower's touch would leave the lecturer by (the list `assets/room.js` watches), where it can be seen
# or reached; a chart's own toolbar and the room's own line and question are not leaving
DETACHING = """() => [...document.querySelectorAll('#tabs, .sidebar, .view-controls, #tour-nav, .tour-end, .presets,'
    + ' input, select, textarea, button, [role=slider], [role=tab]')]
  .filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'
    && !e.closest('#room-bar, #room-vote, .modebar, .page-foot'))
  .map((e) => e.id || String(e.className) || e.tagName)"""
PROMPTS_SHOWN = """(prompt) => [...document.querySelectorAll('p, h1, h2, h3, label, legend')]
  .filter((e) => e.getClientRects().length > 0 && e.innerText.includes(prompt)).length"""


def test_a_following_phone_answers_in_one_place_and_has_no_control_that_takes_it_away(
    browser: Any, server_url: str
) -> None:
    with screen(browser, f"{server_url}/?{STEP}&present=1&{SMALL}", 1440, 900) as lecturer:
        lecturer.wait_for_selector("#room-bar .room-code")
        link = lecturer.get_attribute("#room-bar .room-link", "href")
        with screen(browser, link, 390, 844) as phone:
            follows(phone, "step", "3")
            lecturer.wait_for_selector("#tour-poll-link")  # the step's poll opens by itself while presenting
            phone.wait_for_selector("#room-vote button[data-choice=falls]")
            phone.wait_for_selector("#view-ensemble .js-plotly-plot", state="attached")
            phone.wait_for_selector("#tour-step-title:has-text('Turn them apart')")
            # the controls are on the page (the lecturer's page shows them) but not for a follower
            for hidden in ("#present-btn", ".presets .preset", "#tour-prev", "#tour-next", ".tour-choices button"):
                assert phone.locator(hidden).count() >= 1, hidden
                assert not phone.locator(hidden).first.is_visible(), hidden
            assert phone.evaluate(DETACHING) == []
            assert lecturer.evaluate(DETACHING) != []  # (the check sees the controls where they are shown)
            # the question is asked once, in the room's panel, and one tap there counts
            assert phone.evaluate(PROMPTS_SHOWN, PROMPT) == 1
            assert PROMPT in phone.inner_text("#room-vote-said")
            phone.click("#room-vote button[data-choice=falls]")
            phone.wait_for_selector("#room-vote-said:has-text('Counted')")
            lecturer.wait_for_function(
                "() => document.getElementById('tour-poll-total').innerText === '1 answer so far'"
            )
            # answering is not exploring, nor a reveal: still following, the figure still waits for the lecturer
            assert phone.locator("#room-back").count() == 0 and phone.is_visible("#room-explore")
            assert phone.evaluate("() => document.getElementById('tour-gate').classList.contains('conceal')")
            # a clicker's next key moves the lecturer's page, never a follower's on its own (tour_keys.js moves
            # a page within the key's own event: what the URL says right after the press is its answer)
            phone.keyboard.press("PageDown")
            assert query_of(phone)["step"] == ["3"]
            lecturer.keyboard.press("PageDown")
            assert query_of(lecturer)["step"] == ["4"]
            follows(phone, "step", "4")
            phone.wait_for_selector("#tour-count:has-text('step 4 of')")
            phone.wait_for_selector("#room-bar:has-text('Following the lecturer')")
            assert phone.locator("#room-back").count() == 0
            assert phone.evaluate(DETACHING) == []
            # the one way off: explore on my own shows the controls; back to the lecturer hides them again
            phone.click("#room-explore")
            phone.wait_for_selector("#room-bar:has-text('Exploring on your own')")
            phone.wait_for_selector("#tour-next", state="visible")
            assert phone.evaluate(DETACHING) != []
            phone.click("#room-back")
            phone.wait_for_selector("#tour-next", state="hidden")
            assert phone.evaluate(DETACHING) == []
            # the language at the page's foot is no way off: the page comes back in it, still following
            phone.select_option("#lang-picker-foot", "es")
            phone.wait_for_function("() => document.documentElement.lang === 'es'")
            following = translator("es").gettext("Following the lecturer · room {code}").split("{code}")[0]
            phone.wait_for_function("(t) => document.getElementById('room-bar').innerText.includes(t)", arg=following)
            assert query_of(phone)["lang"] == ["es"] and query_of(phone)["step"] == ["4"]
            assert phone.evaluate(DETACHING) == []


def test_on_a_projector_the_revealed_figure_is_on_the_first_screen_and_the_room_warns_of_its_link(
    browser: Any, server_url: str
) -> None:
    """1024x768 with large fonts, presenting a prediction step: the room's line (QR code, link, its warning)
    and the poll's box (QR code, link, count, warning) above it; once revealed, the box gives way and the
    answer and the view's first chart share the screen."""
    with screen(browser, f"{server_url}/?{STEP}&present=1&{SMALL}&large=1", 1024, 768) as lecturer:
        lecturer.wait_for_selector("#room-bar .room-code")
        follow = lecturer.get_attribute("#room-bar .room-link", "href")
        assert follow.startswith("http://127.0.0.1:")  # the test server's own address: phones cannot reach it
        note = unreachable_note(follow)
        assert note is not None
        assert lecturer.inner_text("#room-bar .room-unreachable") == note  # the poll box's very sentence
        lecturer.wait_for_selector("#tour-poll-link")
        vote = lecturer.get_attribute("#tour-poll-link", "href")
        # said once on the projector: the room's line, not again in the poll's box
        assert lecturer.evaluate(PROMPTS_SHOWN, "Phones cannot reach") == 1
        with screen(browser, vote, 390, 844) as student:
            student.click("button[value=falls]")
            student.wait_for_selector("#voted:has-text('Counted')")
        lecturer.wait_for_function("() => document.getElementById('tour-poll-total').innerText === '1 answer so far'")
        lecturer.click(".tour-choices button:has-text('It falls')")
        lecturer.wait_for_selector("#tour-reveal:has-text('The class (1 answer)')")
        assert lecturer.locator("#tour-poll-link, #tour-poll-total, .tour-qr").count() == 0
        lecturer.wait_for_function(
            "() => { const a = document.querySelector('#tour-reveal .tour-answer');"
            " const c = [...document.querySelectorAll(\"[id^='view-'] .js-plotly-plot\")]"
            "   .find((e) => e.getBoundingClientRect().width > 0);"
            " if (!a || !c) return false;"
            " const h = document.querySelector('.header').getBoundingClientRect().bottom;"
            " const r = a.getBoundingClientRect();"
            " return r.top >= h && r.bottom <= innerHeight && c.getBoundingClientRect().top < 768; }",
            timeout=15_000,
        )
