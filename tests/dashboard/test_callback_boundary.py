"""The callback boundary (`headdiv.dashboard.callback_boundary`, put in front of Dash by `harden`): a body
is answered only when every part of it is what the callback declares, and every value what its property
holds; anything else is a 400 naming the component and property at fault, before any callback runs."""

from __future__ import annotations

import json
from typing import Any

import plotly.graph_objects as go
import pytest
from dash import MATCH, Dash, Input, Output, State, dcc, html

from headdiv.dashboard import callback_boundary
from headdiv.dashboard.page.app import create_dash_app
from headdiv.dashboard.page.callback_types import FIGURE, value_problem
from headdiv.dashboard.teaching.tours import TOURS
from headdiv.jobs.kinds import JOB_KINDS
from headdiv.server.dashboard_mount import harden

ROUTE = "/_dash-update-component"
LOOSE = {None, "any", "object", "array", "custom", "element", "func", "signature"}


def _post(client: Any, body: Any) -> tuple[int, str]:
    answer = client.post(ROUTE, data=json.dumps(body), content_type="application/json")
    return answer.status_code, answer.get_data(as_text=True)


def _refused(client: Any, body: Any, *words: str) -> str:
    status, text = _post(client, body)
    assert status == 400, (status, text[:300])
    message = json.loads(text)["message"]
    assert all(w in message for w in words), message
    return str(message)


# -- a chart's figure, read by a callback of a small app (the page's own callbacks read none)


@pytest.fixture(scope="module")
def figure_client() -> Any:
    app = Dash(__name__)
    app.layout = html.Div(
        [
            dcc.Graph(id="g"),
            html.Button(id="b"),
            html.Div(id="out"),
            html.Button(id={"type": "btn", "i": 1}),
            html.Div(id={"type": "o", "i": 1}),
        ]
    )

    @app.callback(Output("out", "children"), Input("b", "n_clicks"), State("g", "figure"))
    def _traces(_clicks: Any, figure: dict[str, Any]) -> str:
        return f"{len(figure['data'])} traces, the first a {figure['data'][0]['type']}"  # trusts its state

    @app.callback(Output({"type": "o", "i": MATCH}, "children"), Input({"type": "btn", "i": MATCH}, "n_clicks"))
    def _echo(clicks: Any) -> str:
        return f"clicked {clicks}"

    harden(app)
    return app.server.test_client()


def _figure_body(figure: Any) -> dict[str, Any]:
    return {
        "output": "out.children",
        "outputs": {"id": "out", "property": "children"},
        "inputs": [{"id": "b", "property": "n_clicks", "value": 1}],
        "state": [{"id": "g", "property": "figure", "value": figure}],
        "changedPropIds": ["b.n_clicks"],
    }


@pytest.mark.parametrize(
    ("figure", "why"),
    [
        ({"a": [[[[1]]]]}, "'a' is not one of its fields"),
        ({"data": 5}, "its field 'data' cannot be an int (5)"),
        ({"data": [1]}, "its field 'data[0]' cannot be an int (1)"),
        ({"layout": []}, "its field 'layout' cannot be a list ([])"),
        ({"frames": {}}, "its field 'frames' cannot be a dict"),
        ({"data": [{"type": "bar"}], "config": "x"}, "its field 'config' cannot be a str"),
        ([{"data": []}], "a list is not a value this property holds"),
        ("figure", "a str is not a value this property holds"),
    ],
)
def test_a_figure_of_another_shape_is_refused_naming_the_field(figure_client: Any, figure: Any, why: str) -> None:
    message = _refused(figure_client, _figure_body(figure), "state: g.figure: ", why, "reload the page")
    assert "\n" not in message


def test_a_well_formed_figure_reaches_the_callback(figure_client: Any) -> None:
    figure = json.loads(go.Figure(go.Bar(x=["a", "b"], y=[1, 2]), layout={"title": "t"}).to_json())
    status, text = _post(figure_client, _figure_body({**figure, "frames": [], "config": {"responsive": True}}))
    assert status == 200 and "1 traces, the first a bar" in text, text[:300]


def test_a_match_wildcard_is_one_value_across_the_call(figure_client: Any) -> None:
    def body(i_in: Any, i_out: Any) -> dict[str, Any]:
        return {
            "output": '{"i":["MATCH"],"type":"o"}.children',
            "outputs": {"id": {"type": "o", "i": i_out}, "property": "children"},
            "inputs": [{"id": {"type": "btn", "i": i_in}, "property": "n_clicks", "value": 3}],
            "changedPropIds": [json.dumps({"i": i_in, "type": "btn"}, separators=(",", ":")) + ".n_clicks"],
        }

    status, text = _post(figure_client, body(1, 1))
    assert status == 200 and "clicked 3" in text, text[:300]
    _refused(figure_client, body(1, 2), "outputs: ", '{"i":2,"type":"o"}.children is not')
    _refused(figure_client, body({"x": 1}, {"x": 1}), "inputs: ")


# -- the page's own callbacks


@pytest.fixture(scope="module")
def page() -> Any:
    app = create_dash_app("http://127.0.0.1:9")  # no API behind it: nothing here may need one
    harden(app)
    return app


@pytest.fixture(scope="module")
def client(page: Any) -> Any:
    return page.server.test_client()


def _well_formed(client: Any, output_start: str) -> dict[str, Any]:
    """A body for the callback whose output starts so, as a page with nothing in it sends it."""
    dep = next(d for d in client.get("/_dash-dependencies").get_json() if d["output"].startswith(output_start))

    def entry(spec: dict[str, Any], **value: Any) -> dict[str, Any]:
        ident = json.loads(spec["id"]) if spec["id"].startswith("{") else spec["id"]
        return {"id": ident, "property": spec["property"], **value}

    def output(text: str) -> dict[str, Any]:
        ident, _, prop = text.rpartition(".")
        return entry({"id": ident, "property": prop})

    outputs = [output(o) for o in dep["output"][2:-2].split("...")] if dep["output"].startswith("..") else None
    return {
        "output": dep["output"],
        "outputs": outputs if outputs is not None else output(dep["output"]),
        "inputs": [entry(i, value=None) for i in dep["inputs"]],
        "state": [entry(s, value=None) for s in dep["state"]],
        "changedPropIds": [f"{dep['inputs'][0]['id']}.{dep['inputs'][0]['property']}"],
    }


def _with(body: dict[str, Any], component: str, **changes: Any) -> dict[str, Any]:
    """`body` with the entry of `component` changed."""
    out = json.loads(json.dumps(body))
    for key in ("inputs", "state"):
        for e in out[key]:
            if isinstance(e, dict) and e["id"] == component:
                e.update(changes)
    return out


def test_a_page_chart_figure_has_the_shape_of_a_plotly_figure(page: Any) -> None:
    types = callback_boundary(page).types
    assert types[("{type:chart}", "figure")] is FIGURE
    chart = {"name": "ens-bars", "type": "chart"}
    problem = value_problem(types, chart, "figure", {"a": [[[[1]]]]})
    assert problem == '{"name":"ens-bars","type":"chart"}.figure: \'a\' is not one of its fields'


def test_every_value_a_server_callback_reads_has_a_closed_type(page: Any) -> None:
    """No input or state of a server callback is typed "any object" (or not at all): a store holds what the
    page writes in it, a chart a figure."""

    def loose(spec: dict[str, Any] | None) -> bool:
        if spec is None or spec.get("name") in LOOSE:
            return True
        return spec.get("name") == "union" and any(loose(s) for s in spec.get("value", []))

    boundary = callback_boundary(page)
    open_ = sorted(
        dep.text
        for declared in boundary.callbacks.values()
        for dep in [*declared.inputs, *declared.state]
        if loose(boundary.spec_of(dep))
    )
    assert open_ == []


def test_a_well_formed_body_is_answered(client: Any) -> None:
    body = _well_formed(client, "mdl-clusters-download.data")
    assert _post(client, body)[0] in (200, 204)  # nothing measured yet: nothing to download
    report = {"model": "m", "layers": []}
    status, _ = _post(client, _with(body, "mdl-result", value={"source": "builtin", "result": report}))
    assert status in (200, 204, 400)  # the report itself is validated by the callback (its model)


@pytest.mark.parametrize(
    ("forge", "words"),
    [
        (lambda b: _with(b, "mdl-result", id="nothing"), ["state: nothing.data is not mdl-result.data"]),
        (lambda b: _with(b, "mdl-result", property="children"), ["state: mdl-result.children is not"]),
        (lambda b: _with(b, "mdl-result", value={"result": {"layers": [5]}}), ["'result.layers[0]' cannot be an int"]),
        (lambda b: _with(b, "mdl-result", value={"source": "disk"}), ["mdl-result.data: its field 'source'"]),
        (lambda b: {**b, "changedPropIds": ["{bad.n_clicks"]}, ["changedPropIds: '{bad.n_clicks'"]),
        (lambda b: {**b, "changedPropIds": ["mdl-result.data"]}, ["changedPropIds: 'mdl-result.data' is none"]),
        (lambda b: {**b, "changedPropIds": "mdl-dl-clusters.n_clicks"}, ["changedPropIds: must be a list"]),
        (lambda b: {**b, "outputs": {"id": "mdl-status", "property": "children"}}, ["outputs: mdl-status.children"]),
        (lambda b: {**b, "outputs": [b["outputs"]]}, ["outputs: each entry needs an id"]),
        (lambda b: {k: v for k, v in b.items() if k != "outputs"}, ["outputs: each entry needs an id"]),
        (lambda b: {**b, "inputs": [b["inputs"]]}, ["inputs: each entry needs an id"]),
        (lambda b: {**b, "state": []}, ["state: this callback takes 1"]),
    ],
)
def test_a_forged_part_is_refused_before_any_callback_runs(client: Any, forge: Any, words: list[str]) -> None:
    _refused(client, forge(_well_formed(client, "mdl-clusters-download.data")), *words, "reload the page")


def test_a_view_jobs_stores_hold_only_what_the_page_writes(client: Any) -> None:
    body = _well_formed(client, "..sim-result.data")
    poll = {**body, "changedPropIds": ["sim-poll.n_intervals"]}
    for job, why in [
        ({"id": "../polls/x", "key": "k"}, "sim-job.data: its field 'id' cannot be a str"),
        ({"id": "a" * 64}, "sim-job.data: its field 'key' is missing"),
        ({"id": "a" * 64, "key": "k", "extra": 1}, "sim-job.data: 'extra' is not one of its fields"),
    ]:
        _refused(client, _with(poll, "sim-job", value=job), why)
    for result, why in [
        ({"key": "[", "result": {"x": 1}}, "sim-result.data: its field 'key' cannot be a str"),
        ({"key": '["/nowhere", {}]', "result": {"x": 1}}, "its field 'key'"),
        ({"key": json.dumps([JOB_KINDS["simulation"].path, {}])}, "its field 'result' is missing"),
    ]:
        _refused(client, _with(body, "sim-result", value=result), why)


def test_a_callback_drawn_in_the_browser_is_no_server_callback(client: Any) -> None:
    dep = next(d for d in client.get("/_dash-dependencies").get_json() if d.get("clientside_function"))
    _refused(client, {"output": dep["output"], "inputs": [], "state": []}, "no callback of the server has the output")


def test_a_pattern_input_is_a_list_of_the_components_it_matches(client: Any) -> None:
    tour = next(iter(TOURS.values()))
    body = _well_formed(client, "tour-choice.data")
    button = {"id": {"type": "tour-choice", "choice": "a"}, "property": "n_clicks", "value": 1}
    body["inputs"] = [[button]]
    body = _with(body, "state", value={"tour": tour.id, "step": 1})
    changed = ['{"choice":"a","type":"tour-choice"}.n_clicks']
    status, text = _post(client, {**body, "changedPropIds": changed})
    assert status in (200, 204), text[:300]  # a step without a question keeps no answer
    # the id's keys in another order, as another browser may write them: the same component
    assert _post(client, {**body, "changedPropIds": ['{"type":"tour-choice","choice":"a"}.n_clicks']})[0] == status
    _refused(client, {**body, "inputs": [button]}, "a pattern matching many components: a list of them")
    _refused(client, {**body, "inputs": [[{**button, "id": {"type": "tour-choice", "choice": {"x": 1}}}]]}, "inputs:")
    _refused(client, {**body, "inputs": [[{**button, "id": {"type": "preset", "name": "a"}}]]}, "inputs:")
    _refused(client, {**body, "inputs": [[{**button, "value": "many"}]]}, "n_clicks: a str is not a value")
    _refused(client, {**body, "changedPropIds": ['{"choice":"a","type":"preset"}.n_clicks']}, "changedPropIds:")
