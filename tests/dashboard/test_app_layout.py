"""The app's frame without a browser: every URL parameter has its control, ids are unique, presets parse."""

from __future__ import annotations

from typing import Any

from dash.development.base_component import Component

from dashboard.app import build_registry, create_dash_app
from dashboard.presets import PRESETS
from dashboard.views import VIEWS


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
    ids = _ids(app.layout, [])
    strings = [i for i in ids if isinstance(i, str)]
    assert len(strings) == len(set(strings)), sorted({i for i in strings if strings.count(i) > 1})
    registry = build_registry(VIEWS)
    missing = [p.name for p in registry.controlled if p.component not in strings]
    assert not missing
    assert {"url", "state", "notices", "sim-result", "tabs"} <= set(strings)
    charts = [i["name"] for i in ids if isinstance(i, dict) and i.get("type") == "chart"]
    assert {"ens-bars", "surf-heat", "div-mse", "arch-mse", "wt-schemes"} <= set(charts)


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
