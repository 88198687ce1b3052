"""What a tour says and where it leads, without a browser: no path into the repository's docs (a student
cannot open one), every link to an explanation lands on an explanation the step's own page shows, and the last
step of a tour ends it or goes on to the next tour. And the preset a tab's defaults match by chance."""

from __future__ import annotations

from typing import Any

import pytest
from dash import dcc, html

from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.page.client_config import client_config, sets_only_defaults
from headdiv.dashboard.page.components import EXPLANATIONS
from headdiv.dashboard.teaching.presets import PRESETS
from headdiv.dashboard.teaching.tour_markup import plain_text, text_parts
from headdiv.dashboard.teaching.tour_story import active_preset
from headdiv.dashboard.teaching.tour_text import closing, narrative, rich
from headdiv.dashboard.teaching.tours import (
    TOUR_IDS,
    TOURS,
    end_link,
    expand,
    next_tour,
    step_link,
)
from headdiv.dashboard.views import VIEWS

REG = build_registry(VIEWS)
STEPS = [(t.id, k) for t in TOURS.values() for k in range(1, len(t.steps) + 1)]


def texts(tour_id: str, k: int) -> list[str]:
    """Every text of a step a reader sees: the tour's name and summary, the step's title and narrative, and its
    question (prompt, answers, the reason revealed)."""
    tour = TOURS[tour_id]
    step = tour.step(k)
    out = [tour.name, tour.summary, step.title, step.narrative]
    if step.question is not None:
        out += [step.question.prompt, step.question.why, *(c.label for c in step.question.choices)]
    return out


def ids_in(component: Any) -> set[str]:
    """Every string id in a layout (pattern-matching ids left out)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, (list, tuple)):
            for child in node:
                walk(child)
            return
        if not hasattr(node, "to_plotly_json"):
            return
        cid = getattr(node, "id", None)
        if isinstance(cid, str):
            found.add(cid)
        walk(getattr(node, "children", None))

    walk(component)
    return found


@pytest.mark.parametrize(("tour", "k"), STEPS, ids=[f"{t}-{k}" for t, k in STEPS])
def test_no_tour_text_points_into_the_repository(tour: str, k: int) -> None:
    for text in texts(tour, k):
        assert "docs/" not in text and ".md" not in text, text


@pytest.mark.parametrize(("tour", "k"), STEPS, ids=[f"{t}-{k}" for t, k in STEPS])
def test_every_link_of_a_step_lands_on_an_explanation_its_page_shows(tour: str, k: int) -> None:
    state = REG.parse(expand(step_link(tour, k)))
    view = next(v for v in VIEWS if v.id == state["tab"])
    shown = ids_in(view.layout(state))
    for text in texts(tour, k):
        for part in text_parts(text):
            if isinstance(part, str):
                assert "](" not in part and "#explain" not in part, f"a link the panel would print raw: {part!r}"
                continue
            words, name = part
            assert words.strip()
            assert (EXPLANATIONS / f"{name}.md").is_file()
            assert f"explain-{name}" in shown, f"{tour} step {k} links to {name}'s explanation, not on its page"


def test_the_tours_link_to_the_explanations_they_used_to_cite_as_docs() -> None:
    linked = {part[1] for t in TOURS for k in range(1, len(TOURS[t].steps) + 1) for text in texts(t, k)
              for part in text_parts(text) if not isinstance(part, str)}  # fmt: skip
    assert linked == {"ensemble", "diversity", "architecture"}


def test_a_reference_is_a_link_on_the_page_and_words_in_a_file() -> None:
    text = "The MSE decomposes ([its formula](#explain-ensemble)); the rest is noise."
    parts = text_parts(text)
    assert parts == ["The MSE decomposes", ("its formula", "ensemble"), "; the rest is noise."]
    assert plain_text(text) == "The MSE decomposes (its formula); the rest is noise."
    shown = rich(text)
    span = shown[1]
    assert isinstance(span, html.Span) and "part-explain" in span.className  # hidden with hide=explain
    link = span.children[1]
    assert isinstance(link, html.A) and link.href == "#explain-ensemble" and link.children == "its formula"
    assert rich("no reference here") == ["no reference here"]
    assert text_parts("a [bare](#explain-ensemble) link is not a reference") == [
        "a [bare](#explain-ensemble) link is not a reference"
    ]


def test_only_the_last_step_offers_the_way_out() -> None:
    first = TOURS[TOUR_IDS[0]]
    assert closing(first, 1, {}) is None
    assert not any(isinstance(c, html.Span) and c.className == "tour-end" for c in narrative(first, 1, {}))


@pytest.mark.parametrize("tour_id", TOUR_IDS)
def test_the_last_step_ends_the_tour_and_leads_to_the_next_one(tour_id: str) -> None:
    tour = TOURS[tour_id]
    last = len(tour.steps)
    keep = {"large": "1", "hide": "explain"}
    end = closing(tour, last, keep)
    assert end is not None
    links = {c.id: c for c in end.children if isinstance(c, dcc.Link)}
    ended = REG.parse(links["tour-end"].href)
    assert ended.notices == [] and ended["tour"] == ""  # no tour left: the reader explores from here
    step = REG.parse(expand(step_link(tour_id, last)))
    assert ended["tab"] == step["tab"] and ended.scenario() == step.scenario()  # where the step was
    assert ended["large"] is True and "explain" in ended.hidden()  # the lecture flags travel on
    at = TOUR_IDS.index(tour_id)
    if at + 1 < len(TOUR_IDS):
        following = TOURS[TOUR_IDS[at + 1]]
        assert next_tour(tour) is following
        assert links["tour-next-tour"].href == step_link(following.id, 1, keep)
        assert following.name in links["tour-next-tour"].children
        assert REG.parse(expand(links["tour-next-tour"].href))["tour"] == following.id
    else:
        assert next_tour(tour) is None and "tour-next-tour" not in links
    told = narrative(tour, last, keep)[-1]  # the panel shows it under the step's narrative
    assert isinstance(told, html.Span) and [c.href for c in told.children if isinstance(c, dcc.Link)] == [
        c.href for c in links.values()
    ]
    assert end_link(tour, last, keep) == links["tour-end"].href


def test_only_the_training_preset_sets_nothing_but_its_views_defaults() -> None:
    """Opening Training lab shows exactly the training preset's state: that preset is told only once its button
    is clicked (the browser's `presetStory`); the server, which cannot see a click, never tells it."""
    plain = {p.id for p in PRESETS if sets_only_defaults(REG, p)}
    assert plain == {"training"}
    assert client_config(REG, VIEWS)["presets"]["plain"] == {p.id: p.id in plain for p in PRESETS}
    opened = REG.parse("?tab=training")  # a reader who only clicked the tab
    assert active_preset(REG, opened) is None
    for preset in PRESETS:
        if preset.id not in plain:
            assert active_preset(REG, REG.parse(preset.query)) is preset  # a state of its own still tells it
