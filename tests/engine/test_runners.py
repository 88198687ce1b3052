"""Every job kind and every lesson is computed by exactly one engine function, found by its request
model (never by a name built from a string)."""

from __future__ import annotations

import pytest

from headdiv.jobs.kinds import JOB_KINDS
from headdiv.schemas import Scenario
from headdiv.schemas.lesson_queries import LESSONS
from headdiv.workers.engine.dispatch import RUNNERS, runner_for
from headdiv.workers.engine.foundations import LESSON_RUNNERS
from headdiv.workers.engine.multicell import ASSEMBLERS, assembler_for


def test_every_job_kind_has_exactly_one_runner_or_assembler() -> None:
    for kind in JOB_KINDS.values():
        runners = [e for e in RUNNERS if e.request is kind.request]
        assemblers = [e for e in ASSEMBLERS if e.request is kind.request]
        if kind.single_cell:  # a simulation is its own one cell
            assert (len(runners), len(assemblers)) == (0, 0), kind.name
        elif kind.made_of_cells:
            assert (len(runners), len(assemblers)) == (0, 1), kind.name
        else:
            assert (len(runners), len(assemblers)) == (1, 0), kind.name


def test_every_entry_has_its_kinds_result_model() -> None:
    results = {kind.request: kind.result for kind in JOB_KINDS.values()}
    for entry in (*RUNNERS, *ASSEMBLERS):
        assert entry.result is results[entry.request], entry
    answers = {lesson.query: lesson.answer for lesson in LESSONS.values()}
    assert all(entry.result is answers[entry.request] for entry in LESSON_RUNNERS)


def test_every_entry_belongs_to_a_job_kind() -> None:
    requests = {kind.request for kind in JOB_KINDS.values()}
    assert {e.request for e in RUNNERS} <= requests and {e.request for e in ASSEMBLERS} <= requests
    assert len({e.request for e in RUNNERS}) == len(RUNNERS) and len({e.request for e in ASSEMBLERS}) == len(ASSEMBLERS)


def test_every_lesson_has_exactly_one_runner() -> None:
    assert sorted(e.request.__name__ for e in LESSON_RUNNERS) == sorted(
        lesson.query.__name__ for lesson in LESSONS.values()
    )


def test_a_request_of_no_kind_is_a_bug_named_as_such() -> None:
    with pytest.raises(KeyError, match="Scenario"):
        runner_for(Scenario())
    with pytest.raises(KeyError, match="Scenario"):
        assembler_for(Scenario())  # type: ignore[type-var]
