"""Guided tours without a browser: every step is a valid link, links expand to their step's state,
questions are well formed, poll topics lead back to their question, presets tell their story."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.page.client_config import sets_only_defaults
from headdiv.dashboard.teaching.presets import PRESETS
from headdiv.dashboard.teaching.tour_layout import distribution
from headdiv.dashboard.teaching.tour_story import active_preset, preset_story, question_at, step_key
from headdiv.dashboard.teaching.tours import MAX_STEPS, TOUR_IDS, TOURS, expand, get_tour, pin, step_link
from headdiv.dashboard.views import VIEWS
from headdiv.dashboard.views.architecture_view import architecture_request
from headdiv.dashboard.views.diversity_view import sweep_request
from headdiv.schemas import ArchitectureRequest, DiversitySweepRequest, Scenario
from headdiv.schemas.polls import PollCreate

REG = build_registry(VIEWS)
STEPS = [(t.id, k, s) for t in TOURS.values() for k, s in enumerate(t.steps, 1)]


def test_the_three_tours_of_the_lecture_exist() -> None:
    assert {"why-many-heads", "when-diversity-hurts", "splitting-a-budget"} <= set(TOUR_IDS)
    assert all(len(t.steps) >= 3 for t in TOURS.values())
    assert REG["tour"].choices == TOUR_IDS and REG["step"].hi == MAX_STEPS
    with pytest.raises(KeyError, match="no tour 'nope'"):
        get_tour("nope")


@pytest.mark.parametrize(("tour", "k", "step"), STEPS, ids=[f"{t}-{k}" for t, k, _ in STEPS])
def test_every_step_is_a_valid_state_that_the_link_applies(tour: str, k: int, step: object) -> None:
    own = REG.parse(step.query)  # type: ignore[attr-defined]
    assert own.notices == [], own.notices
    keys = [key for key, _ in parse_qsl(step.query)]  # type: ignore[attr-defined]
    assert "tab" in keys and len(keys) == len(set(keys))
    state = REG.parse(expand(step_link(tour, k)))
    assert state.notices == [] and state["tour"] == tour and state["step"] == k
    assert {key: state[key] for key in keys} == {key: own[key] for key in keys}
    assert step.title and step.narrative  # type: ignore[attr-defined]
    q = step.question  # type: ignore[attr-defined]
    if q is not None:
        ids = [c.id for c in q.choices]
        assert q.answer in ids and q.why and q.prompt
        PollCreate(topic=step_key(TOURS[tour], k), choices=ids)  # a poll can be opened for it
        assert question_at(step_key(TOURS[tour], k)) is q


def test_a_links_own_keys_override_its_step_and_other_steps_reset() -> None:
    state = REG.parse(expand("?tour=why-many-heads&step=3&theta=30&large=1"))
    assert state["theta"] == 30 and state["target"] == "constant" and state["large"] is True
    step2 = REG.parse(expand("tour=why-many-heads&step=2"))
    assert step2["theta"] == 0 and step2["H"] == 4
    assert REG.parse(expand("tour=why-many-heads&step=1"))["H"] == 1  # nothing carries over between steps


def test_bad_tour_links_read_as_notices() -> None:
    bad = REG.parse(expand("?tour=nope&step=2"))
    assert bad["tour"] == "" and any("tour: 'nope'" in n for n in bad.notices)
    far = REG.parse(expand(f"?tour=why-many-heads&step={MAX_STEPS + 5}"))
    assert far["step"] == MAX_STEPS and any("above the maximum" in n for n in far.notices)
    assert REG.parse(expand("?tour=why-many-heads&step=x")).notices  # a bad step is reported, step 1 shown


def test_step_links_keep_the_page_flags_only() -> None:
    assert step_link("why-many-heads", 2, {"large": "1", "hide": "explain"}) == (
        "?tour=why-many-heads&step=2&large=1&hide=explain"
    )


@pytest.mark.parametrize("topic", ["why-many-heads/1", "nope/2", "why-many-heads/99", "why-many-heads/x", ""])
def test_topics_without_a_question_lead_nowhere(topic: str) -> None:
    assert question_at(topic) is None


TOLD = [p for p in PRESETS if not sets_only_defaults(REG, p)]
"""The presets a state tells (the training preset's state is its tab's default: only its click tells it)."""


@pytest.mark.parametrize("preset", TOLD, ids=[p.id for p in TOLD])
def test_a_preset_shows_its_story_until_something_moves(preset: object) -> None:
    state = REG.parse(preset.query)  # type: ignore[attr-defined]
    assert active_preset(REG, state) is preset
    state.values["seed"] = state["seed"] + 1
    assert active_preset(REG, state) is None


def test_the_default_page_tells_no_story_and_a_preset_tells_its_own_on_its_view_only() -> None:
    defaults = REG.parse("")
    assert active_preset(REG, defaults) is None
    training = next(p for p in PRESETS if p.id == "training")
    assert training.tab == "training"
    state = REG.parse(training.query)  # every value of this preset but its view is a default
    assert active_preset(REG, state) is None  # what opening the tab shows: no choice of a preset
    identical = next(p for p in PRESETS if p.id == "identical")
    state = REG.parse(identical.query)
    assert active_preset(REG, state) is identical
    state.values["tab"] = "weighting"
    assert active_preset(REG, state) is None


@pytest.mark.parametrize("hide", ["presets", "H,d_k,n,advanced,presets,explain", "sidebar"])
def test_hidden_presets_tell_no_story(hide: str) -> None:
    """The docs' lecture link matches the identical-heads preset by chance: with the presets hidden the
    class would read the story of a button it cannot see."""
    lecture = REG.parse(f"?tab=ensemble&theta=0&hide={hide}&large=1")
    assert active_preset(REG, lecture) is not None  # it does match one
    assert preset_story(REG, lecture) is None
    shown = REG.parse("?tab=ensemble&theta=0&hide=explain&large=1")
    assert preset_story(REG, shown) is active_preset(REG, shown) is not None


def test_the_class_distribution_shows_counts_not_user_text() -> None:
    q = TOURS["why-many-heads"].steps[2].question
    assert q is not None
    poll = {"counts": {"falls": 3, "stays": 1, "rises": 0, "<b>x</b>": 9}, "total": 4}
    text = str(distribution(q, poll))
    assert "<b>x</b>" not in text and "'3'" in text and "(4 answers)" in text


REQUESTS = {
    "architecture": (architecture_request, ArchitectureRequest),
    "diversity": (sweep_request, DiversitySweepRequest),
}


@pytest.mark.parametrize(("tour", "k", "step"), STEPS, ids=[f"{t}-{k}" for t, k, _ in STEPS])
def test_what_every_step_computes_is_a_request_the_api_accepts(tour: str, k: int, step: object) -> None:
    state = REG.parse(expand(step_link(tour, k)))
    Scenario.model_validate(state.scenario())  # the header's simulation
    if state["tab"] in REQUESTS:
        build, model = REQUESTS[state["tab"]]
        _path, body = build(state)
        model.model_validate(body)


def test_a_moved_control_stays_moved_in_a_tour_link_even_at_its_default() -> None:
    state = REG.parse(expand("?tour=why-many-heads&step=3"))
    assert state["theta"] == 90
    state.values["theta"] = 0  # the default, so a plain link would leave it out
    link = pin(REG, REG.serialize(state.values), state.values)
    assert "theta=0" in link
    assert REG.parse(expand(link))["theta"] == 0
    assert pin(REG, "?H=2", REG.parse("?H=2").values) == "?H=2"  # no tour: nothing added


def test_a_poll_link_uses_the_public_address_and_says_when_phones_cannot_reach_it() -> None:
    from headdiv.dashboard.teaching.poll_links import poll_link, unreachable_note

    page = "http://127.0.0.1:8050/?tour=why-many-heads&step=2"
    assert poll_link(page, "abc") == "http://127.0.0.1:8050/vote/abc"
    assert poll_link(page, "abc", "http://192.168.1.20:8050") == "http://192.168.1.20:8050/vote/abc"
    for local in ("http://127.0.0.1:8050/vote/abc", "http://localhost:8050/vote/abc", "http://[::1]:8050/vote/x"):
        note = unreachable_note(local)
        assert note is not None and "Phones cannot reach" in note and "HEADDIV_PUBLIC_URL" in note
    assert unreachable_note("http://192.168.1.20:8050/vote/abc") is None
    assert unreachable_note("https://lab.example.org/vote/abc") is None


def test_a_step_past_the_tours_end_is_said_and_opens_its_first_step() -> None:
    tour = min(TOURS.values(), key=lambda t: len(t.steps))
    past = len(tour.steps) + 1
    assert past <= MAX_STEPS  # within the parameter's own bounds: only the tour can say it is too far
    state = REG.parse(expand(f"tour={tour.id}&step={past}"))
    assert state.notices == [
        f"step {past} is past the end of the tour '{tour.id}' ({len(tour.steps)} steps); using the default 1"
    ]
    assert state["step"] == 1
    first = REG.parse(expand(f"tour={tour.id}&step=1"))
    assert state.values == first.values  # the first step's state, not the last one's
    assert REG.parse(expand(f"tour={tour.id}&step={len(tour.steps)}")).notices == []


def test_every_step_link_opens_without_a_notice_even_with_the_page_keys_it_shares() -> None:
    """A step's link names the step; its state is the step's query with the link's own keys winning, each key
    once (a key given twice is a notice, so the expansion must not make one)."""
    for tour in TOURS.values():
        for k in range(1, len(tour.steps) + 1):
            for extra in ("", "&large=1", "&tab=ensemble&large=1&replicates=20&queries=16"):
                state = REG.parse(expand(step_link(tour.id, k) + extra))
                assert state.notices == [], (tour.id, k, extra, state.notices)
    state = REG.parse(expand(f"{step_link('why-many-heads', 1)}&theta=10&theta=20"))
    assert any("more than once" in n for n in state.notices)  # the link's own repetition is still said
