"""Everything that lists choices or job kinds derives from the registries: the scenario's schema, the
engine's result, the URL, the dashboard's controls and charts, the API's routes, the CLI and the docs.
Each test iterates the registries, so a newly added entry is checked by the same tests."""

from __future__ import annotations

import math
from typing import Any

import pytest
from dash.development.base_component import Component
from fastapi.testclient import TestClient
from pydantic import ValidationError

from headdiv.cli import build_parser
from headdiv.dashboard.drawing.export import CLI_COMMANDS
from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.page.controls import VIEW_OWNED, field_control
from headdiv.dashboard.page.url_state import scenario_control_id
from headdiv.dashboard.views import VIEWS, weighting_view
from headdiv.figures.weighting_charts import scheme_bars
from headdiv.jobs.kinds import JOB_KINDS, job_kind
from headdiv.schemas import SWEEP_PARAMS, Scenario
from headdiv.schemas.fields import Slider, Sweep, hint
from headdiv.schemas.geometries import GEOMETRIES
from headdiv.schemas.scenario import CHOICES, FIELD_ORDER
from headdiv.schemas.weightings import WEIGHTINGS
from headdiv.server.main import create_app
from headdiv.server.server_settings import ServerSettings
from headdiv.workers import docs
from headdiv.workers.engine.head_layouts import BUILDERS
from headdiv.workers.engine.simulation import simulate

REGISTRY = build_registry(VIEWS)
SMALL: dict[str, Any] = {"replicates": 4, "queries": 3, "n": 24, "H": 3}


def ids_in(component: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(component, Component):
        if isinstance(getattr(component, "id", None), str):
            found.add(component.id)
        found |= ids_in(getattr(component, "children", None))
    elif isinstance(component, (list, tuple)):
        for child in component:
            found |= ids_in(child)
    return found


@pytest.mark.parametrize("field", list(CHOICES))
def test_the_schema_offers_exactly_the_registered_choices(field: str) -> None:
    registry = CHOICES[field]
    schema = Scenario.model_json_schema()["properties"][field]
    assert tuple(schema["enum"]) == registry.names
    assert REGISTRY[field].choices == registry.names  # the URL's choices too
    with pytest.raises(ValidationError, match=registry.names[-1]):
        Scenario(**{field: "no-such-choice"})
    with pytest.raises(KeyError, match=f"unknown .*'no-such-choice'.*{registry.names[0]}"):
        registry["no-such-choice"]


def test_every_entry_parameter_is_a_scenario_field_a_url_parameter_and_documented() -> None:
    for field, registry in CHOICES.items():
        for entry in registry:
            for name, info in entry.model_fields.items():
                assert Scenario.model_fields[name].default == info.default, (field, entry.name, name)
                assert FIELD_ORDER.index(name) > FIELD_ORDER.index(field)  # shown after the choice it belongs to
                assert REGISTRY[name].label == info.title
                if hint(info, Sweep) is not None:
                    assert name in SWEEP_PARAMS


@pytest.mark.parametrize("field", list(CHOICES))
def test_the_sidebar_menus_show_every_choice_by_its_label(field: str) -> None:
    menu = field_control(REGISTRY[field], REGISTRY.parse(""))
    assert menu.options == [{"label": e.label, "value": e.name} for e in CHOICES[field]]


def test_each_weighting_scheme_reaches_the_result_and_the_weighting_view() -> None:
    layout_ids = ids_in(weighting_view.layout(REGISTRY.parse("")))
    assert set(VIEW_OWNED) == {n for w in WEIGHTINGS for n in w.model_fields}
    for name in VIEW_OWNED:
        assert hint(Scenario.model_fields[name], Slider) is not None
        assert scenario_control_id(name) in layout_ids
    for w in WEIGHTINGS:
        result = simulate({**SMALL, "weights": w.name}, device="cpu")
        terms = result.weightings[w.name]
        assert math.isclose(terms.mse, terms.bias2 + terms.variance + terms.covariance, rel_tol=1e-9)
        assert math.isclose(result.mse, terms.mse, rel_tol=1e-9)
        bars = scheme_bars(result)
        assert w.label in list(bars.data[0].x)


def test_each_geometry_simulates_and_keeps_its_own_rules() -> None:
    assert list(BUILDERS) == list(GEOMETRIES.names)  # the engine builds every registered geometry's heads
    for g in GEOMETRIES:
        extra = {"tilts": [0.0, 30.0, 60.0]} if g.name == "tilted" else {}
        result = simulate({**SMALL, "geometry": g.name, **extra}, device="cpu").model_dump(mode="json")
        assert 0.0 <= result["hdi"] <= 1.0 and result["p"] == Scenario(**SMALL, geometry=g.name, **extra).ambient_dim


def test_the_docs_tables_are_generated_from_the_registries() -> None:
    assert docs.stale() == [], "run `make docs`"


def test_each_job_kind_has_a_route_a_subcommand_and_a_reproduce_command() -> None:
    schema = TestClient(create_app(ServerSettings(redis_url=None, warm_up=False), mount_dashboard=False)).get(
        "/openapi.json"
    )
    paths = schema.json()["paths"]
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for kind in JOB_KINDS.values():
        operation = paths[f"/api/v1{kind.path}"]["post"]
        assert operation["operationId"].startswith(f"post_{kind.name}")
        body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert body.endswith(f"/{kind.request.__name__}")
        ok = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        assert ok.endswith(f"{kind.result.__name__}_"), ok  # Job[<its result>], by name
        assert kind.command in commands
        assert CLI_COMMANDS[kind.path] == kind.command
    posted = [p for p, ops in paths.items() if "post" in ops and ops["post"]["tags"] == ["jobs"]]
    assert sorted(posted) == sorted(f"/api/v1{kind.path}" for kind in JOB_KINDS.values())  # one route per kind
    with pytest.raises(ValueError, match="unknown job kind 'nope'; expected one of simulation"):
        job_kind("nope")
