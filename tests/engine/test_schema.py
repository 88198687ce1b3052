"""The one scenario schema: defaults, bounds, cross-field rules and the work budget."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from headdiv.workers.schemas import ArchitectureRequest, DiversitySweepRequest, HDIRequest, Scenario, SurfaceRequest

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
    assert list(Scenario().canonical()) == sorted(DEFAULTS)


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
        ({"replicates": 5000, "H": 64, "queries": 1024}, "lower replicates, H, queries, n or d_k"),
        ({"H": 64, "d_k": 256, "n": 65536, "replicates": 2, "queries": 1}, "one training set"),
    ],
)
def test_cross_field_rules(data: dict, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate(data)
    assert fragment in str(info.value)


def test_budget_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from headdiv.workers.settings import get_engine_settings

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
    space cost an SVD of a 4096 x 4096 stack first: refused by the budget, naming it, not let into the fast
    lane; block geometries (built in closed form) cost only their NW steps."""
    from headdiv.workers.jobs.settings import JobSettings

    tiny = {"n": 2, "replicates": 2, "queries": 1, "geometry": "random"}
    with pytest.raises(ValidationError, match=r"\+ building the heads = .* \(or p\)"):
        Scenario.model_validate({**tiny, "H": 64, "d_k": 64, "p": 4096})
    mid = Scenario.model_validate({**tiny, "H": 16, "d_k": 64, "p": 1024})
    nw = 2 * 16 * 1 * 2 * (64 + 3)
    assert mid.work > JobSettings().fast_lane_work > 1000 * nw  # the slow lane, as its seconds deserve
    block = Scenario.model_validate({**tiny, "H": 16, "d_k": 64, "geometry": "equiangular"})
    assert block.work == nw
