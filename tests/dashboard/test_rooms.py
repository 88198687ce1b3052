"""Present to the room, in Chromium: a lecturer's page and two phones following it; one phone explores on its
own and comes back (`assets/room.js`, `headdiv/server/rooms.py`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]
SMALL = "replicates=20&queries=16"


@contextmanager
def phone(browser: Any, url: str, width: int = 390, height: int = 844) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(url)
        yield page
    finally:
        context.close()


def query_of(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def follows(page: Any, key: str, value: str) -> None:
    """Until the phone's own URL (what its page shows) has `key=value`."""
    page.wait_for_function(
        "([k, v]) => new URLSearchParams(location.search).get(k) === v", arg=[key, value], timeout=15_000
    )


def test_phones_follow_the_lecturer_and_one_steps_away_and_back(browser: Any, server_url: str) -> None:
    with phone(browser, f"{server_url}/?present=1&{SMALL}", 1440, 900) as lecturer:
        lecturer.wait_for_selector("#room-bar .room-code")
        code = lecturer.inner_text("#room-bar .room-code").split()[-1]
        link = lecturer.get_attribute("#room-bar .room-link", "href")
        assert link == f"{server_url}/r/{code}" and lecturer.locator("#room-bar img.room-qr").is_visible()
        token = lecturer.evaluate("() => JSON.parse(sessionStorage.getItem('headdiv-room')).token")
        assert len(token) > 30 and token not in link  # the lecturer's token never leaves its page
        with phone(browser, link) as a, phone(browser, link) as b:
            for p in (a, b):
                follows(p, "replicates", "20")  # the lecturer's state at once
                assert "present" not in query_of(p) and token not in p.url  # presenting is the lecturer's alone
                p.wait_for_selector("#room-bar:has-text('Following the lecturer')")
            lecturer.wait_for_function("() => /2 phones follow/.test(document.getElementById('room-count').innerText)")
            # the room's bar and the follower's line, for every student (the views are checked elsewhere)
            from tests.dashboard.axe import serious_findings

            assert serious_findings(lecturer) == [] and serious_findings(a) == []
            # the lecturer changes the view: both phones show it
            lecturer.click("#tabs >> text=Weighting")
            for p in (a, b):
                follows(p, "tab", "weighting")
                p.wait_for_selector("#view-weighting .js-plotly-plot", state="visible")
            # phone b explores: one tap shows it the controls a follower has not, then its own tab, and the
            # lecturer's next change does not pull it back
            assert not b.is_visible("#tabs")
            b.click("#room-explore")
            b.wait_for_selector("#room-bar:has-text('Exploring on your own')")
            b.click("#tabs >> text=Diversity")
            assert serious_findings(b) == []
            follows(b, "tab", "diversity")
            lecturer.focus("#sc-theta [role=slider]")
            lecturer.keyboard.press("ArrowLeft")
            follows(a, "theta", "44")
            assert query_of(b)["tab"] == ["diversity"] and "theta" not in query_of(b)
            # back to the lecturer: b shows the lecturer's current state
            b.click("#room-back")
            follows(b, "theta", "44")
            follows(b, "tab", "weighting")
            b.wait_for_selector("#room-bar:has-text('Following the lecturer')")
            b.wait_for_selector("#tabs", state="hidden")  # following again: no control to leave by
            # the lecturer ends: the phones say so and keep what they show
            lecturer.click("#room-bar button:has-text('End presenting')")
            for p in (a, b):
                p.wait_for_selector("#room-bar:has-text('has ended room')")
                assert query_of(p)["theta"] == ["44"]


def test_a_prediction_step_asks_every_phone_in_its_page_and_the_reveal_closes_it(browser: Any, server_url: str) -> None:
    """A prediction step on a presenting page opens its class poll by itself: each phone shows the question
    with its answers in the page, one tap counts (once per phone), and the lecturer's reveal closes it and
    shows every phone the figure, with its own vote as its answer (the lecturer's pick where it did not
    vote); the next prediction step asks its own."""
    import httpx

    from tests.dashboard.axe import serious_findings

    with phone(browser, f"{server_url}/?tour=why-many-heads&step=3&present=1&{SMALL}", 1440, 900) as lecturer:
        lecturer.wait_for_selector("#room-bar .room-code")
        link = lecturer.get_attribute("#room-bar .room-link", "href")
        with phone(browser, link) as a, phone(browser, link) as b:
            for p in (a, b):
                follows(p, "step", "3")
            # the step's class poll opens by itself on the presenting page (no "Ask the class" pressed)
            lecturer.wait_for_selector("#tour-poll-link")
            poll_id = lecturer.get_attribute("#tour-poll-link", "href").rsplit("/", 1)[1]
            for p in (a, b):
                p.wait_for_selector("#room-vote button[data-choice=falls]")
                assert "θ goes from 0° to 90°" in p.inner_text("#room-vote-said")
            assert serious_findings(a) == []
            a.click("#room-vote button[data-choice=falls]")
            a.wait_for_selector("#room-vote-said:has-text('Counted')")
            assert a.locator("#room-vote button").count() == 0  # answered: no second tap
            assert query_of(a)["step"] == ["3"] and a.locator("#room-back").count() == 0  # still following
            b.wait_for_selector("#room-vote button[data-choice=rises]")  # b does not answer
            counts = httpx.get(f"{server_url}/api/v1/polls/{poll_id}").json()["counts"]
            assert counts == {"falls": 1, "stays": 0, "rises": 0}
            lecturer.wait_for_function(
                "() => /^1 answer so far$/.test(document.getElementById('tour-poll-total').innerText)"
            )
            lecturer.click("button:has-text('It rises')")  # the reveal, with the lecturer's own pick
            for p in (a, b):
                p.wait_for_selector("#room-vote", state="detached")
            # every phone shows the revealed figure with its own vote as its answer (a), or the lecturer's
            # pick where it did not vote (b); none stepped away
            a.wait_for_selector("#tour-reveal:has-text('Right: you chose “It falls”')")
            b.wait_for_selector("#tour-reveal:has-text('Not quite: you chose “It rises”')")
            for p in (a, b):
                p.wait_for_function("() => !document.querySelector('#tour-gate').classList.contains('conceal')")
                assert p.locator("#room-back").count() == 0
            lecturer.click("text=next →")  # step 4 asks its own question: its own poll, on every phone
            follows(a, "step", "4")
            a.wait_for_function(
                "(old) => { const v = document.getElementById('room-vote');"
                " return v && v.dataset.poll !== old && v.querySelector('button[data-choice]'); }",
                arg=poll_id,
            )


def test_a_phone_whose_stream_drops_reconnects_and_shows_the_state_it_missed(browser: Any, server_url: str) -> None:
    """The follower's first stream is cut after its first state (the network drops it); meanwhile the lecturer
    moves on; the browser's EventSource reconnects by itself and the server sends the current state."""
    with phone(browser, f"{server_url}/?present=1&{SMALL}", 1440, 900) as lecturer:
        lecturer.wait_for_selector("#room-bar .room-code")
        link = lecturer.get_attribute("#room-bar .room-link", "href")
        context = browser.new_context(viewport={"width": 390, "height": 844})
        streams: list[str] = []

        def cut_the_first(route: Any) -> None:
            streams.append(route.request.url)
            if len(streams) == 1:  # one state, then the connection ends as a dropped one does
                first = f"retry: 300\nid: 0\nevent: state\ndata: {json.dumps({'query': '?' + SMALL})}\n\n"
                route.fulfill(status=200, headers={"content-type": "text/event-stream"}, body=first)
            else:
                route.continue_()

        try:
            context.route("**/api/v1/rooms/*/events", cut_the_first)
            p = context.new_page()
            p.set_default_timeout(30_000)
            lecturer.focus("#sc-theta [role=slider]")
            lecturer.keyboard.press("ArrowLeft")  # a state the phone's first stream never carries
            lecturer.wait_for_function("() => new URLSearchParams(location.search).get('theta') === '44'")
            p.goto(link)
            follows(p, "theta", "44")  # from the second stream: reconnected, sent the current state
            assert len(streams) >= 2
            p.wait_for_selector("#room-bar:has-text('Following the lecturer')")
            assert p.locator(".room-problem").count() == 0  # a drop is not an ended room
        finally:
            context.close()
