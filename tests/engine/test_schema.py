"""The one scenario schema: defaults, bounds, cross-field rules and the work budget."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from headdiv.schemas import ArchitectureRequest, DiversitySweepRequest, HDIRequest, Scenario, SurfaceRequest
from headdiv.schemas.fields import canonical

DEFAULTS = {
    "H": 4,
    "d_k": 4,
    "n": 256,
    "theta": 45.0,
    "geometry": "equiangular",
    "tilts": None,
    "shared_dims": 1,
    "p": 64,
    "target": "sine",
    "signal": "shared",
    "noise": 0.5,
    "kernel": "gaussian",
    "bandwidth_rule": "scott",
    "bandwidth": 1.0,
    "temperature": 1.0,
    "weights": "uniform",
    "rho": 0.7,
    "beta": 0.5,
    "replicates": 200,
    "queries": 64,
    "seed": 0,
}


def error_fields(exc: ValidationError) -> list[str]:
    return [".".join(str(p) for p in e["loc"]) for e in exc.errors()]


def test_defaults_are_the_documented_ones() -> None:
    assert Scenario().model_dump() == DEFAULTS
    assert list(canonical(Scenario())) == sorted(DEFAULTS)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("H", 0),
        ("H", 65),
        ("d_k", 257),
        ("n", 1),
        ("n", 65537),
        ("theta", -1),
        ("theta", 90.5),
        ("replicates", 1),
        ("replicates", 5001),
        ("queries", 0),
        ("queries", 1025),
        ("noise", 101),
        ("noise", math.nan),
        ("noise", math.inf),
        ("rho", 0),
        ("H", True),
        ("H", "four"),
        ("H", 10**30),
        ("kernel", "laplace"),
        ("theta", "NaN"),
        ("bandwidth", 0.0),
        ("temperature", -1.0),
    ],
)
def test_bad_values_name_their_field(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate({field: value})
    assert field in error_fields(info.value)


def test_unknown_keys_are_rejected() -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate({"heads": 4})
    assert "heads" in error_fields(info.value)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"geometry": "tilted"}, "tilts"),
        ({"geometry": "tilted", "tilts": [1, 2]}, "tilts: has 2 entries"),
        ({"geometry": "tilted", "H": 2, "tilts": [1, 95]}, "less than or equal to 90"),
        ({"geometry": "shared_dims", "shared_dims": 5}, "shared_dims: 5 exceeds d_k = 4"),
        ({"geometry": "random", "p": 3}, "p: a 3-dimensional space"),
        ({"replicates": 5000, "H": 64, "queries": 1024}, "most of it is the attention weights"),
        ({"H": 64, "d_k": 256, "n": 65536, "replicates": 2, "queries": 1}, "one training set"),
    ],
)
def test_cross_field_rules(data: dict, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate(data)
    assert fragment in str(info.value)


def test_budget_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from headdiv.schemas.engine_settings import get_engine_settings

    monkeypatch.setattr(get_engine_settings(), "max_work", 1000.0)
    with pytest.raises(ValidationError, match="work budget"):
        Scenario()
    assert Scenario.model_validate({}, context={"max_work": 1e12}).H == 4


def test_surface_cells_are_checked_before_running() -> None:
    with pytest.raises(ValidationError, match=r"cell H=100"):
        SurfaceRequest(x={"param": "H", "values": [2, 100]}, y={"param": "theta", "values": [0, 90]})
    with pytest.raises(ValidationError, match="whole numbers"):
        SurfaceRequest(x={"param": "H", "values": [2.5]}, y={"param": "theta", "values": [0]})
    with pytest.raises(ValidationError, match="must differ"):
        SurfaceRequest(x={"param": "H", "values": [2]}, y={"param": "H", "values": [3]})
    with pytest.raises(ValidationError, match="work budget"):
        SurfaceRequest(
            base={"replicates": 5000, "n": 4096, "queries": 256},
            x={"param": "H", "values": [2, 4]},
            y={"param": "theta", "values": [0, 90]},
        )
    ok = SurfaceRequest(x={"param": "H", "values": [1, 2]}, y={"param": "noise", "values": [0.1, 1, 2]})
    assert [(s.H, s.noise) for s in ok.scenarios()][:3] == [(1, 0.1), (2, 0.1), (1, 1.0)]


def test_other_requests() -> None:
    assert ArchitectureRequest(budget=12).splits() == [(12, 1), (6, 2), (4, 3), (3, 4), (2, 6), (1, 12)]
    with pytest.raises(ValidationError, match="tilted"):
        ArchitectureRequest(budget=8, base={"geometry": "tilted", "tilts": [0, 0, 0, 0]})
    assert DiversitySweepRequest(thetas=[90, 0, 0]).thetas == [0, 90]
    with pytest.raises(ValidationError, match="two heads"):
        DiversitySweepRequest(base={"H": 1})
    with pytest.raises(ValidationError, match="columns"):
        HDIRequest(matrices=[[[1, 0]], [[1], [0]]])
    with pytest.raises(ValidationError, match="all must share p"):
        HDIRequest(matrices=[[[1], [0]], [[1], [0], [0]]])


def test_building_dense_heads_counts_in_the_work() -> None:
    """A few replicates of tiny n cost little NW work, but heads of dimension 64 x 64 in a 4096-dimensional
    space cost an SVD of a 4096 x 4096 stack first, one call nothing can interrupt: refused, naming it,
    instead of taking the fast lane for minutes. The largest SVD allowed counts for most of its run's work;
    block geometries (built in closed form) cost nothing of the kind."""
    tiny = {"n": 2, "replicates": 2, "queries": 1, "geometry": "random"}
    with pytest.raises(ValidationError, match=r"p: the big head's basis is an SVD of .* cannot be interrupted"):
        Scenario.model_validate({**tiny, "H": 64, "d_k": 64, "p": 4096})
    mid = Scenario.model_validate({**tiny, "H": 16, "d_k": 64, "p": 1024})  # the largest SVD allowed
    with pytest.raises(ValidationError, match=r"most of it is building the heads .*: lower H, d_k or p"):
        Scenario.model_validate(mid.model_dump(), context={"max_work": mid.work / 2})
    block = Scenario.model_validate({**tiny, "H": 16, "d_k": 64, "geometry": "equiangular"})
    assert block.cost_counts()["layout"] == 0 and 100 * block.work < mid.work


@pytest.mark.parametrize(
    ("fields", "part"),
    [
        ({"replicates": 5000, "H": 1, "queries": 1, "n": 2, "d_k": 1}, "handling each training set"),
        ({"replicates": 2000, "H": 64, "queries": 64, "n": 2, "d_k": 1}, "the heads' moments"),
        ({"replicates": 2, "H": 1, "queries": 1, "n": 30000, "d_k": 1, "geometry": "random", "p": 2048}, "drawing"),
        ({"replicates": 20, "H": 64, "queries": 1, "n": 1000, "d_k": 32}, "gathering the block heads' keys"),
        ({"replicates": 20, "H": 8, "queries": 1024, "n": 512, "d_k": 8}, "the attention weights"),
        ({"replicates": 2, "H": 1, "queries": 1, "n": 2, "d_k": 1}, "the run's fixed cost"),
    ],
)
def test_the_budget_names_the_part_that_costs_most(fields: dict, part: str) -> None:
    """Every part of a run counts (bench/bench_cost.py checks the weights against measured time): a run that
    spends its time on 5,000 training sets of two points, 64 heads' moments, huge training points, gathered
    keys or a fixed cost is refused for that part, with the fields that lower it, when the budget is low."""
    s = Scenario.model_validate(fields)
    with pytest.raises(ValidationError, match=f"most of it is {part}") as info:
        Scenario.model_validate(fields, context={"max_work": s.work / 2})
    assert "lower" in str(info.value)
    Scenario.model_validate(fields, context={"max_work": s.work})  # exactly at the budget: accepted


@pytest.mark.parametrize(
    ("fields", "part"),
    [
        ({"steps": 20000, "batch": 1, "record_every": 20000}, "each training step's fixed cost"),
        ({"steps": 2000, "batch": 1, "record_every": 1}, "each record's fixed cost"),
    ],
)
def test_a_training_counts_its_steps_and_records(monkeypatch: pytest.MonkeyPatch, fields: dict, part: str) -> None:
    """Thousands of steps or records of a tiny base cost their fixed costs (optimizer, autograd, the HDI
    report), milliseconds each, which the NW count alone would call nothing."""
    from headdiv.schemas.engine_settings import get_engine_settings
    from headdiv.schemas.training_request import TrainingRequest

    body = {**fields, "base": {"replicates": 2, "H": 2, "queries": 1, "n": 2, "d_k": 1}}
    t = TrainingRequest.model_validate(body)
    monkeypatch.setattr(get_engine_settings(), "max_job_work", t.work / 2)
    with pytest.raises(ValidationError, match=f"most of it is {part}"):
        TrainingRequest.model_validate(body)
