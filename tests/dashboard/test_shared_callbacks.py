"""Pure callbacks answer a repeated request body from memory (`headdiv/dashboard/drawing/shared_callbacks.py`): the
same answer as running them, without running them; other callbacks always run."""

from __future__ import annotations

import json
from typing import Any

from dash import Dash, Input, Output, html

from headdiv.dashboard.drawing.shared_callbacks import SharedCallbacks, pure_callback, shared_callbacks
from headdiv.dashboard.page.app import create_dash_app


def _body(output: str, inputs: list[dict[str, Any]], changed: list[str]) -> dict[str, Any]:
    return {
        "output": output,
        "outputs": {"id": output.split(".")[0], "property": "children"},
        "inputs": inputs,
        "changedPropIds": changed,
        "state": [],
    }


def test_a_pure_callback_runs_once_per_body_and_an_ordinary_one_every_time() -> None:
    app = Dash(__name__)
    app.layout = html.Div([html.Div(id="a"), html.Div(id="b"), html.Div(id="x")])
    runs = {"pure": 0, "plain": 0}

    @pure_callback(app, Output("a", "children"), Input("x", "children"))
    def _pure(x: Any) -> str:
        runs["pure"] += 1
        return f"pure {x}"

    @app.callback(Output("b", "children"), Input("x", "children"))
    def _plain(x: Any) -> str:
        runs["plain"] += 1
        return f"plain {x}"

    client = app.server.test_client()
    route = "/_dash-update-component"
    answers = []
    for value in (1, 1, 2, 1):
        for out, fn in (("a.children", "pure"), ("b.children", "plain")):
            body = _body(out, [{"id": "x", "property": "children", "value": value}], ["x.children"])
            r = client.post(route, data=json.dumps(body), content_type="application/json")
            assert r.status_code == 200, r.data
            answers.append((fn, value, r.get_json()))
    assert runs == {"pure": 2, "plain": 4}  # 1 and 2 once each; the plain one every time
    pure = [a for fn, v, a in answers if fn == "pure" and v == 1]
    assert all(a == pure[0] for a in pure) and "pure 1" in json.dumps(pure[0])
    assert shared_callbacks(app).answered == 2


def test_the_memory_is_bounded_by_bytes() -> None:
    shared = SharedCallbacks(limit=100)
    for i in range(10):
        shared.put(str(i), 200, b"x" * 30, "application/json")
    assert shared.get("0") is None and shared.get("9") is not None
    shared.put("big", 200, b"x" * 101, "application/json")
    assert shared.get("big") is None


def test_the_page_state_and_tour_callbacks_are_pure_and_the_polls_are_not() -> None:
    app = create_dash_app("http://127.0.0.1:9")
    outputs = shared_callbacks(app).outputs
    assert any("url.search" in o for o in outputs)
    assert any("tour-narrative.children" in o for o in outputs)
    assert not any("tour-reveal" in o or "tour-poll" in o or "sim-result" in o for o in outputs), outputs


def test_a_results_figures_are_drawn_once_for_everyone_unless_they_ask_the_api() -> None:
    """A view's drawing of a finished result is a pure function of the request body (a room of phones, a
    class on one link: built once); the architecture view's asks the API for the theory curves, so it runs."""
    outputs = shared_callbacks(create_dash_app("http://127.0.0.1:9")).outputs
    for chart in ('"cv-split","type":"chart"}.figure', '"surf-heat","type":"chart"}.figure', "tr-verdict.children"):
        assert any(chart in o for o in outputs), (chart, outputs)
    assert not any("arch-theory-error" in o for o in outputs)


def test_the_same_body_from_pages_in_two_languages_is_answered_in_each() -> None:
    """A pure callback's words are in its page's language (the `lang` of the page it came from, its Referer):
    the same body is kept once per language, never answered in another's."""
    from headdiv.dashboard.page.language import _

    app = Dash(__name__)
    app.layout = html.Div([html.Div(id="a"), html.Div(id="x")])
    runs: list[str] = []

    @pure_callback(app, Output("a", "children"), Input("x", "children"))
    def _words(x: Any) -> str:
        runs.append(str(x))
        return _("Scenario")

    client = app.server.test_client()
    body = json.dumps(_body("a.children", [{"id": "x", "property": "children", "value": 1}], ["x.children"]))
    said = {}
    for lang in ("es", "zh", "es", "zh", "en-XA"):
        r = client.post(
            "/_dash-update-component",
            data=body,
            content_type="application/json",
            headers={"Referer": f"http://localhost/?tab=ensemble&lang={lang}"},
        )
        said.setdefault(lang, set()).add(json.dumps(r.get_json(), ensure_ascii=False))
    assert len(runs) == 3  # once per language
    assert all(len(v) == 1 for v in said.values())
    assert "Escenario" in next(iter(said["es"])) and "场景" in next(iter(said["zh"]))
    assert "⟦" in next(iter(said["en-XA"]))
