"""A class poll's count is read aloud on a projector: "1 answer", never "1 answers" (`tour_layout.answers`),
in the poll's box and in the class's bars after the reveal."""

from __future__ import annotations

import pytest

from headdiv.dashboard.teaching.tour_layout import answers, distribution
from headdiv.dashboard.teaching.tours import TOURS


@pytest.mark.parametrize(("n", "said"), [(0, "0 answers"), (1, "1 answer"), (2, "2 answers"), (21, "21 answers")])
def test_a_count_of_answers_agrees_with_its_number(n: int, said: str) -> None:
    assert answers(n) == said


def test_the_class_bars_say_one_answer_in_the_singular() -> None:
    q = TOURS["why-many-heads"].steps[2].question
    assert q is not None
    one = str(distribution(q, {"counts": {"falls": 1}, "total": 1}))
    assert "(1 answer)" in one and "1 answers" not in one
    assert "(2 answers)" in str(distribution(q, {"counts": {"falls": 2}, "total": 2}))
