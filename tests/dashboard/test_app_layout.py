"""The app's frame without a browser: every URL parameter has its control, ids are unique, presets parse."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

import pytest
from dash.development.base_component import Component

from headdiv.dashboard.page.app import build_registry, create_dash_app
from headdiv.dashboard.page.url_state import PageState
from headdiv.dashboard.teaching.presets import PRESETS, Preset
from headdiv.dashboard.views import VIEWS
from headdiv.figures.verdict_sentences import diversity_verdict
from headdiv.schemas.results.result_parts import Split
from headdiv.schemas.results.sweep_results import (
    ArchitectureFit,
    ArchitectureResult,
    Candidate,
    DiversityBound,
    DiversityPoint,
    DiversitySweepResult,
)


def _ids(node: Any, out: list[Any]) -> list[Any]:
    if isinstance(node, Component):
        cid = getattr(node, "id", None)
        if cid is not None:
            out.append(cid)
        _ids(getattr(node, "children", None), out)
    elif isinstance(node, (list, tuple)):
        for child in node:
            _ids(child, out)
    return out


def test_every_controlled_parameter_has_exactly_one_control() -> None:
    app = create_dash_app("http://127.0.0.1:9")
    ids = _ids(app.layout(), [])
    strings = [i for i in ids if isinstance(i, str)]
    assert len(strings) == len(set(strings)), sorted({i for i in strings if strings.count(i) > 1})
    registry = build_registry(VIEWS)
    missing = [p.name for p in registry.controlled if p.component not in strings]
    assert not missing
    assert {"url", "state", "notices", "sim-result", "tabs"} <= set(strings)
    charts = [i["name"] for i in ids if isinstance(i, dict) and i.get("type") == "chart"]
    assert {"ens-bars", "surf-heat", "div-mse", "arch-mse", "wt-schemes"} <= set(charts)


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v.id)
def test_a_views_charts_are_named_in_one_place(view: Any) -> None:
    """`View.charts` is what its layout shows, once each; its callbacks' outputs are built from the same
    tuple (`chart_outputs`), so a chart added to the layout but not to the view (or the reverse) fails."""
    ids = _ids(view.layout(build_registry(VIEWS).parse("")), [])
    shown = [i["name"] for i in ids if isinstance(i, dict) and i.get("type") == "chart"]
    assert shown and sorted(shown) == sorted(view.charts)


def test_every_chart_a_callback_draws_is_a_views_chart() -> None:
    app = create_dash_app("http://127.0.0.1:9")
    drawn = {
        json.loads(part.removesuffix(".figure"))["name"]
        for key in app.callback_map
        for part in key.strip(".").split("...")
        if part.startswith("{") and part.endswith(".figure")
    }
    assert "ens-bars" in drawn and drawn <= {name for view in VIEWS for name in view.charts}


def test_tabs_are_the_views_in_order() -> None:
    registry = build_registry(VIEWS)
    assert registry["tab"].choices[:5] == ("ensemble", "surfaces", "diversity", "architecture", "weighting")


def test_presets_are_valid_links_that_change_something() -> None:
    registry = build_registry(VIEWS)
    assert len(PRESETS) >= 5
    for preset in PRESETS:
        state = registry.parse(preset.query)
        assert state.notices == [], (preset.id, state.notices)
        assert registry.serialize(state.values) != ""
    names = {p.name for p in PRESETS}
    assert {"Identical heads", "Orthogonal heads, pure noise", "Diversity hurts a shared signal"} <= names
    shared = next(p for p in PRESETS if "shared_dims" in p.query)
    assert registry.parse(shared.query)["geometry"] == "shared_dims"


def test_controls_a_view_ignores_are_declared_with_a_one_line_reason() -> None:
    """The sidebar disables what the shown view ignores; the declaration is per view, checked here."""
    app = create_dash_app("http://127.0.0.1:9")
    strings = {i for i in _ids(app.layout(), []) if isinstance(i, str)}
    registry = build_registry(VIEWS)
    by_id = {v.id: v for v in VIEWS}
    assert {"theta"} <= set(by_id["diversity"].ignorable)
    assert {"theta"} <= set(by_id["covariance"].ignorable)
    assert {"H", "d_k"} == set(by_id["architecture"].ignorable)
    for view in ("foundations", "models"):
        assert {"H", "d_k", "n", "theta"} <= set(by_id[view].ignorable)
    assert not by_id["ensemble"].ignorable  # the ensemble uses every key
    for view in VIEWS:
        for key in view.ignorable:
            assert registry[key].scenario and registry[key].component in strings, (view.id, key)
            assert f"why-{key}" in strings
        for state in _states(registry):
            reasons = view.ignored(state)
            assert set(reasons) <= set(view.ignorable), (view.id, state.values)  # the app wires only those
            for key, reason in reasons.items():
                assert reason and "\n" not in reason and len(reason) <= 80, (view.id, key, reason)


def _states(registry: Any) -> list[PageState]:
    """Pages that exercise the state-dependent declarations: every init, every pair of surface axes, every preset."""
    queries = [f"trinit={init}" for init in registry["trinit"].choices]
    keys = registry["sx"].choices
    queries += [f"sx={x}&sy={y}" for x in keys for y in keys if x != y]
    queries += [p.query for p in PRESETS]
    return [registry.parse(q) for q in ["", *queries]]


@pytest.mark.parametrize(
    ("query", "ignored"),
    [
        ("tab=surfaces", {"theta", "H"}),  # the default axes
        ("tab=surfaces&sx=phi&sy=H", {"phi", "H"}),  # the dependent-tokens preset's axes
        ("tab=surfaces&sx=n&sy=replicates", {"n", "replicates"}),
        ("tab=training", {"theta"}),  # random initial heads: no angle
        ("tab=training&trinit=identical", {"theta"}),
        ("tab=training&trinit=orthogonal", {"theta"}),
        ("tab=training&trinit=equiangular", set()),  # the heads start at the sidebar's θ
        ("tab=covariance", {"theta", "geometry"}),
        ("tab=diversity", {"theta", "target", "signal", "geometry"}),
        ("tab=ensemble", set()),
    ],
)
def test_what_a_view_ignores_follows_its_own_settings(query: str, ignored: set[str]) -> None:
    registry = build_registry(VIEWS)
    state = registry.parse(query)
    view = next(v for v in VIEWS if v.id == state["tab"])
    assert set(view.ignored(state)) == ignored


@pytest.mark.parametrize("preset", PRESETS, ids=[p.id for p in PRESETS])
def test_a_preset_opens_a_view_that_uses_what_it_sets(preset: Preset) -> None:
    """A preset's settings would be disabled as "ignored" on a view that does not use them."""
    registry = build_registry(VIEWS)
    state = registry.parse(preset.query)
    view = next(v for v in VIEWS if v.id == state["tab"])
    assert not set(parse_qs(preset.query)) & set(view.ignored(state)), (preset.id, dict(view.ignored(state)))


def test_diversity_sweeps_both_regimes_from_the_sidebar_scenario() -> None:
    from headdiv.dashboard.page.url_state import PageState
    from headdiv.dashboard.views import diversity_view as diversity

    registry = build_registry(VIEWS)
    state = PageState(registry.parse("?H=8&n=512&target=step&theta=10").values)
    bodies = [job.build(state) for job in diversity.VIEW.jobs]
    targets = [body[1]["base"]["target"] for body in bodies if body]
    assert targets == ["constant", "sine"]  # pure noise, then a shared signal, whatever the sidebar says
    for body in bodies:
        assert body is not None and body[1]["base"]["H"] == 8 and body[1]["base"]["n"] == 512
        assert "theta" not in body[1]["base"]
    falling = [DiversityPoint(theta=t, hdi=t / 90, mse=0.5 - 0.2 * t / 90, mse_se=0.01) for t in (0, 45, 90)]
    holds = DiversitySweepResult.model_construct(points=falling, bound=DiversityBound(c0=0.3, K=0.2, values=[]))
    assert diversity_verdict(holds).startswith("Holds")
    rising = [p.model_copy(update={"mse": 0.3 + 0.2 * p.theta / 90}) for p in falling]
    fails = DiversitySweepResult.model_construct(points=rising, bound=DiversityBound(c0=0.5, K=0.0, values=[]))
    assert diversity_verdict(fails).startswith("Fails")


def test_architecture_formula_is_mathjax_and_says_when_the_fit_is_degenerate() -> None:
    from headdiv.figures.sweep_charts import architecture_formula, architecture_mse

    fit = ArchitectureFit(c0=0.41, c1=0.2, c2=1.9e-22, degenerate=None, candidates=[], best=None)
    text = architecture_formula(ArchitectureResult.model_construct(theory=fit))
    assert "$" in text and r"\dfrac" in text and "10^{-22}" in text and "^" not in text.split("$")[0]
    assert "degenerate" not in text
    bad = fit.model_copy(update={"degenerate": "the variance term (c2) shapes the fit at 1 split(s) only"})
    assert "degenerate" in architecture_formula(ArchitectureResult.model_construct(theory=bad))
    result = ArchitectureResult.model_construct(
        budget=4,
        candidates=[Candidate(H=4, d_k=1, mse=0.5), Candidate(H=2, d_k=2, mse=0.4), Candidate(H=1, d_k=4, mse=0.6)],
        best=Split(H=2, d_k=2),
        theory=bad,
    )
    fig = architecture_mse(result)
    assert fig.layout.yaxis.rangemode == "nonnegative"
    names = [t.name for t in fig.data]
    assert "best: 2×2" in names and not any(n.startswith("theory's best") for n in names)
