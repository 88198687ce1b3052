"""A finished result in a page's store is validated once per request in a process, whichever callbacks
draw it; a partial one, which grows as cells finish, every time."""

from __future__ import annotations

from typing import Any

import pytest

import headdiv
from headdiv.dashboard.drawing import view_jobs as jobs
from headdiv.schemas.results.report_results import TheoryReport


@pytest.fixture
def report() -> dict[str, Any]:
    jobs.VALIDATED.clear()
    raw: dict[str, Any] = headdiv.theory(n=1024, budget=64).result.model_dump(mode="json")
    return raw


def test_a_finished_result_is_validated_once_and_shared(report: dict[str, Any]) -> None:
    store = {"key": '["/theory", {"n": 1024}]', "result": report}
    first = jobs.stored_result(store, TheoryReport)
    assert isinstance(first, TheoryReport)
    assert jobs.stored_result(dict(store), TheoryReport) is first  # another callback, the same object
    other = jobs.stored_result({**store, "key": '["/theory", {"n": 2048}]'}, TheoryReport)
    assert other is not first and other == first  # another request is validated on its own


def test_a_partial_result_is_validated_every_time(report: dict[str, Any]) -> None:
    store = {"key": '["/theory", {"n": 1024}]', "result": report, "partial": True}
    assert jobs.stored_result(store, TheoryReport) is not jobs.stored_result(store, TheoryReport)
    assert len(jobs.VALIDATED) == 0


def test_an_empty_store_has_no_result() -> None:
    assert jobs.stored_result(None) is None and jobs.stored_result({"key": "x", "result": None}) is None
