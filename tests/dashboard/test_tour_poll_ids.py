"""A poll id the browser holds (the `tour-poll` store) or a link carries is checked against the API's pattern
before it becomes part of a path: a crafted value is never fetched and never gives a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest

from headdiv.dashboard.page.app import create_dash_app
from headdiv.dashboard.teaching.tour_layout import TOUR_STATE
from headdiv.dashboard.teaching.tour_story import step_key
from headdiv.dashboard.teaching.tours import TOURS
from headdiv.schemas.polls import poll_id_or_none

VALID = "AbCdEfGh_-123456"


@pytest.mark.parametrize(
    "value",
    ["../jobs/abc?wait=60", "x" * 3000, VALID + "\n", VALID[:15], VALID + "A", ["x"], {"a": 1}, 7, None],
)
def test_only_a_poll_id_passes(value: Any) -> None:
    assert poll_id_or_none(value) is None


def test_a_poll_id_passes() -> None:
    assert poll_id_or_none(VALID) == VALID


def _question_step() -> tuple[str, int]:
    for tour in TOURS.values():
        for k, step in enumerate(tour.steps, start=1):
            if step.question is not None:
                return tour.id, k
    raise AssertionError("no tour step asks a question")


def _reveal(client: Any, poll: Any, choice: Any = None) -> tuple[int, str]:
    tour, k = _question_step()
    outputs = ["tour-gate.className", "tour-reveal.children", "tour-poll-box.children", "tour-poll-tick.disabled"]
    outputs.append("tour-poll-open.style")
    body = {
        "output": ".." + "...".join(outputs) + "..",
        "outputs": [{"id": o.split(".")[0], "property": o.split(".")[1]} for o in outputs],
        "inputs": [
            {"id": TOUR_STATE, "property": "data", "value": {"tour": tour, "step": k}},
            {"id": "tour-choice", "property": "data", "value": choice},
            {"id": "tour-poll", "property": "data", "value": poll},
            {"id": "tour-poll-tick", "property": "n_intervals", "value": 1},
        ],
        "state": [{"id": "url", "property": "href", "value": "http://127.0.0.1:8050/"}],
        "changedPropIds": ["tour-poll.data"],
    }
    r = client.post("/_dash-update-component", data=json.dumps(body), content_type="application/json")
    return r.status_code, r.get_data(as_text=True)


def test_the_reveal_never_fetches_a_crafted_poll_id() -> None:
    """The API behind this app is unreachable: a poll id that is fetched says "cannot be read"."""
    app = create_dash_app("http://127.0.0.1:9")
    client = app.server.test_client()
    tour, k = _question_step()
    key = f"{tour}/{k}"
    assert key == step_key(TOURS[tour], k)
    status, text = _reveal(client, {key: VALID})
    assert status == 200 and "The poll cannot be read" in text  # a well-formed id is asked for
    for crafted in ("../jobs/abc?wait=60", "x" * 3000, VALID + "\n"):
        status, text = _reveal(client, {key: crafted})
        assert status == 200, text
        assert "cannot be read" not in text and "tour-poll-link" not in text
    for store in (["not", "a", "dict"], "text", 12):
        status, text = _reveal(client, store, choice=store)
        assert status == 200, text
