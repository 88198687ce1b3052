"""A result leaves the engine only as its model: a NaN or a missing or invented field is caught where the
result is made, with a line a user can read, never cached or drawn."""

from __future__ import annotations

import math

import pytest

from headdiv.schemas.errors import EngineError
from headdiv.schemas.results.report_results import TheoryReport
from headdiv.workers.engine.result_building import result_of

THEORY = {
    "n": 256,
    "budget": 8,
    "c1": 1.0,
    "c2": 1.0,
    "candidates": [{"H": 8, "d_k": 1, "mse": 0.5}],
    "best": {"H": 8, "d_k": 1},
    "dk_star_vs_n": {"n": [256], "d_k": [1], "stated_rate": [1.0], "stated_rate_d": 1},
    "h_star_vs_budget": {"budget": [8], "H": [8]},
}


def test_a_well_formed_result_is_built_as_its_model() -> None:
    report = result_of(TheoryReport, THEORY)
    assert report.best.H == 8 and report.candidates[0].mse == 0.5


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_fails_with_where_it_is_and_what_to_try(bad: float) -> None:
    data = {**THEORY, "c1": bad}
    with pytest.raises(EngineError, match=r"non-finite c1; try a larger bandwidth"):
        result_of(TheoryReport, data)


def test_a_missing_or_invented_field_is_named_as_the_engines_bug() -> None:
    with pytest.raises(EngineError, match=r"internal error: the TheoryReport at best is wrong"):
        result_of(TheoryReport, {k: v for k, v in THEORY.items() if k != "best"})
    with pytest.raises(EngineError, match=r"internal error: the TheoryReport at extra is wrong"):
        result_of(TheoryReport, {**THEORY, "extra": 1})
