"""One reading of the API's 422 (`schemas.fields.refusal_lines`): the dashboard's line on screen and the
Python API's `InvalidRequest` say the same words as a local validation of the same request."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from headdiv.client import describe_422
from headdiv.schemas import Scenario
from headdiv.schemas.fields import error_lines, refusal_lines


def test_a_refusal_reads_as_the_local_validation_of_the_same_request() -> None:
    with pytest.raises(ValidationError) as local:
        Scenario.model_validate({"H": 1000, "theta": -5})
    errors = local.value.errors(include_url=False)
    over_http = [{**e, "loc": ("body", *e["loc"])} for e in errors]  # how FastAPI places a body's errors
    assert refusal_lines({"detail": over_http}) == error_lines(errors)
    assert [line.split(":")[0] for line in refusal_lines({"detail": over_http})] == ["H", "theta"]


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        ({"detail": "budget: no split of 7 fits"}, ["budget: no split of 7 fits"]),
        ({"detail": []}, ["the request was refused as invalid"]),
        ({"nothing": 1}, ["the request was refused as invalid"]),
        (None, ["the request was refused as invalid"]),
        ({"detail": [{"loc": ["query", "n"], "msg": "Value error, n: too large"}]}, ["n: too large"]),
        ({"detail": ["a plain reason"]}, ["a plain reason"]),
    ],
)
def test_every_shape_of_422_body_gives_readable_lines(body: object, lines: list[str]) -> None:
    assert refusal_lines(body) == lines


def test_the_dashboard_shows_the_first_five_joined() -> None:
    detail = [{"loc": ["body", f"f{i}"], "msg": "bad"} for i in range(7)]
    assert describe_422({"detail": detail}) == "; ".join(f"f{i}: bad" for i in range(5))
