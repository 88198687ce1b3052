"""Present to the room, in Chromium: a lecturer's page and two phones following it; one phone explores on its
own and comes back (`assets/room.js`, `headdiv/server/rooms.py`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from bench.drawn import CHART_READER, LIVE_CHARTS
from headdiv.i18n import translator

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]
SMALL = "replicates=20&queries=16"


@contextmanager
def phone(browser: Any, url: str, width: int = 390, height: int = 844, init: str | None = None) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(30_000)
    if init:
        page.add_init_script(init)
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
    """Each page keeps its own language (`lang`): the lecturer's is not the room's state, a phone opened with
    one keeps it in every state it follows, one opened without stays its browser's."""
    with phone(browser, f"{server_url}/?present=1&lang=en&{SMALL}", 1440, 900) as lecturer:
        lecturer.wait_for_selector("#room-bar .room-code")
        code = lecturer.inner_text("#room-bar .room-code").split()[-1]
        link = lecturer.get_attribute("#room-bar .room-link", "href")
        assert link == f"{server_url}/r/{code}" and lecturer.locator("#room-bar img.room-qr").is_visible()
        token = lecturer.evaluate("() => JSON.parse(sessionStorage.getItem('headdiv-room')).token")
        assert len(token) > 30 and token not in link  # the lecturer's token never leaves its page
        with phone(browser, f"{link}?lang=ar") as a, phone(browser, link) as b:
            for p in (a, b):
                follows(p, "replicates", "20")  # the lecturer's state at once
                assert "present" not in query_of(p) and token not in p.url  # presenting is the lecturer's alone
            # each in its own language: the follower's line in Arabic on one phone, English on the other
            arabic = translator("ar").gettext("Following the lecturer · room {code}").format(code=code)
            a.wait_for_function("(t) => document.getElementById('room-bar').innerText.includes(t)", arg=arabic)
            b.wait_for_selector("#room-bar:has-text('Following the lecturer')")
            assert a.evaluate("() => [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
            assert query_of(a)["lang"] == ["ar"] and "lang" not in query_of(b)
            room = httpx.get(f"{server_url}/api/v1/rooms/{code}").json()
            assert "replicates=20" in room["query"] and "lang" not in room["query"]
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
            assert query_of(a)["lang"] == ["ar"]
            assert query_of(b)["tab"] == ["diversity"] and "theta" not in query_of(b)
            # back to the lecturer: b shows the lecturer's current state
            b.click("#room-back")
            follows(b, "theta", "44")
            follows(b, "tab", "weighting")
            b.wait_for_selector("#room-bar:has-text('Following the lecturer')")
            b.wait_for_selector("#tabs", state="hidden")  # following again: no control to leave by
            # the lecturer ends: the phones say so and keep what they show
            lecturer.click("#room-bar button:has-text('End presenting')")
            ended = translator("ar").gettext("The lecturer has ended room {code}. This page stays as it is.")
            a.wait_for_function(
                "(t) => document.getElementById('room-bar').innerText.includes(t)", arg=ended.format(code=code)
            )
            b.wait_for_selector("#room-bar:has-text('has ended room')")
            for p in (a, b):
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


# In each page: `__charts()`, each drawn chart's name -> [a digest of its data (every trace's first y and z
# values, as numbers), whether it is marked as updating]; on a follower, `__frames` records at every frame
# (when it changed) the URL's query with the charts, and whether the phone explores on its own.
CHARTS = (
    """
(() => {"""
    + CHART_READER
    + """  if (!location.pathname.startsWith("/r/")) return;
  window.__frames = [];
  let last = "";
  const look = () => {
    const away = document.body.classList.contains("room-away");  // exploring: the phone's own states
    const now = [location.search, window.__charts(), away], text = JSON.stringify(now);
    if (text !== last) { last = text; window.__frames.push(now); }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();
"""
)

# The lecturer's page's answer for the state it shows (the one its own charts draw): its query (without
# present=1) and each chart's digest
LECTURER_EXPECTS = """async () => {
  const answer = await window.headdivLive.answer({});
  const charts = {};
  ((answer && answer.parts) || []).forEach((part) => {
    Object.keys(part.charts).forEach((name) => { charts[name] = window.__digest(part.charts[name].data); });
  });
  return [location.search, charts];
}"""


def state_of(search: str) -> str:
    """A state's query, its parameters sorted, without what is the lecturer's alone (present=1)."""
    return "&".join(sorted(p for p in search.lstrip("?").split("&") if p and not p.startswith("present=")))


def test_a_follower_draws_each_state_as_the_lecturer_does_never_another_state_unmarked(
    browser: Any, server_url: str
) -> None:
    """The lecturer changes θ, changes view and comes back to one seen before (at another θ), then opens a
    tour and steps in it: for each state the phone ends on the very numbers the lecturer's page shows, and at
    no frame does it show a chart of another state than its URL's without the updating mark
    (`data-stale`, `aria-busy`): not the state before, not a tab's charts from when it was last seen; nor
    when it comes back to the lecturer after exploring on its own."""
    with phone(browser, f"{server_url}/?present=1&{SMALL}", 1440, 900, init=CHARTS) as lecturer:
        lecturer.wait_for_selector("#room-bar .room-code")
        link = lecturer.get_attribute("#room-bar .room-link", "href")
        with phone(browser, link, init=CHARTS) as p:
            expected: dict[str, dict[str, str]] = {}

            def both_show(change: str, url: str) -> dict[str, str]:
                """Once the lecturer's URL says `url` (a JS condition over its parameters `q`) and its page
                shows that state's charts: until the phone shows that state with those very numbers."""
                lecturer.wait_for_function(f"() => {{ const q = new URLSearchParams(location.search); return {url}; }}")
                lecturer.wait_for_function("() => window.headdivLive && window.headdivLive.settled()")
                search, charts = lecturer.evaluate(LECTURER_EXPECTS)
                assert charts, f"{change}: no live charts for {search}"
                try:
                    lecturer.wait_for_function("(want) => window.__shows(want)", arg=charts, timeout=30_000)
                    expected[state_of(search)] = charts
                    p.wait_for_function(
                        "([q, want]) => new URLSearchParams(location.search).toString() ==="
                        " new URLSearchParams(q).toString() && window.__shows(want)",
                        arg=[
                            "&".join(x for x in search.lstrip("?").split("&") if not x.startswith("present=")),
                            charts,
                        ],
                        timeout=30_000,
                    )
                except Exception as exc:
                    raise AssertionError(
                        f"{change} ({search}): want {charts}; the lecturer shows {lecturer.evaluate('__charts()')},"
                        f" the phone {p.url} {p.evaluate('__charts()')}"
                    ) from exc
                return charts

            both_show("the room opens", "q.get('replicates') === '20'")
            lecturer.focus("#sc-theta [role=slider]")
            lecturer.keyboard.press("ArrowLeft")
            both_show("θ on the first view", "q.get('theta') === '44'")
            lecturer.click("#tabs >> text=Weighting")
            both_show("another view", "q.get('tab') === 'weighting'")
            lecturer.focus("#sc-theta [role=slider]")
            lecturer.keyboard.press("ArrowLeft")
            both_show("θ on that view", "q.get('theta') === '43'")
            lecturer.click("#tabs >> text=Ensemble")  # seen before, at θ = 44
            both_show("back to a view seen before", "!q.get('tab') && q.get('theta') === '43'")
            lecturer.click(".tour-link >> nth=0")
            both_show("a tour's first step", "q.get('step') === '1'")
            lecturer.click("text=next →")
            last = both_show("its next step", "q.get('step') === '2'")
            # the phone explores a view of its own, and comes back to the lecturer's charts
            p.click("#room-explore")
            p.click("#tabs >> text=Weighting")
            p.wait_for_function("() => Object.keys(window.__charts()).some((name) => name.startsWith('wt-'))")
            p.click("#room-back")
            p.wait_for_function("(want) => window.__shows(want)", arg=last)

            frames = p.evaluate("() => window.__frames")
            wrong = []
            for search, charts, away in frames:
                want = expected.get(state_of(search))
                if want is None or away:
                    continue  # a state the lecturer's page was not checked at, or the phone's own
                # unmarked, a chart shows the URL's state: not another's, nor a view the state does not show
                for name, (digest, marked) in charts.items():
                    if not marked and want.get(name) != digest:
                        shown = [state for state, had in expected.items() if had.get(name) == digest]
                        wrong.append((search, name, f"shows {shown or digest[:80]}"))
            assert not wrong, f"{len(wrong)} unmarked charts of another state than the URL's: {wrong[:8]}"
            assert any(marked for _, charts, _ in frames for _, marked in charts.values())


def test_a_follower_the_lecturer_outpaces_never_shows_an_earlier_state_unmarked(browser: Any, server_url: str) -> None:
    """The lecturer walks a tour there and back (steps of two views, none computed before) as fast as the phone
    takes each state's URL, faster than it draws: the phone never shows an earlier step's charts unmarked
    under a later step's URL, and it ends on the last step's numbers."""
    import httpx

    small = "replicates=24&queries=16"  # states no other test computed
    made = httpx.post(f"{server_url}/api/v1/rooms", timeout=30).json()
    lecturer = httpx.Client(base_url=server_url, headers={"X-Headdiv-Lecturer": made["token"]}, timeout=30)
    states = [f"?tour=why-many-heads&step={k}&{small}" for k in (1, 2, 3, 4, 5, 4, 3, 2)]
    try:
        lecturer.put(f"/api/v1/rooms/{made['code']}/state", json={"query": f"?{small}"})
        with phone(browser, f"{server_url}/r/{made['code']}", init=CHARTS) as p:
            p.wait_for_function("() => window.headdivRoom && window.headdivRoom.received > 0")
            for query in states:
                lecturer.put(f"/api/v1/rooms/{made['code']}/state", json={"query": query})
                p.wait_for_function(
                    "(q) => new URLSearchParams(location.search).toString() === new URLSearchParams(q).toString()",
                    arg=query,
                )
            expected = p.evaluate(LIVE_CHARTS, sorted(set(states)))
            p.wait_for_function("(want) => window.__shows(want)", arg=expected[states[-1]], timeout=60_000)
            frames = p.evaluate("() => window.__frames")
    finally:
        lecturer.close()
    by_state = {state_of(q): charts for q, charts in expected.items()}
    wrong = [
        (search, name)
        for search, charts, _ in frames
        if state_of(search) in by_state
        for name, (digest, marked) in charts.items()
        if not marked and by_state[state_of(search)].get(name) != digest
    ]
    assert not wrong, f"{len(wrong)} unmarked charts of another state than the URL's: {wrong[:8]}"
