"""The header's numbers are formatted in the browser: its JavaScript must follow the same one rule as
`figures.theme.fmt` / `fmt_se` that every other number on the page follows."""

from __future__ import annotations

import random
from typing import Any

from headdiv.dashboard.app import _FMT_JS
from headdiv.dashboard.figures.theme import fmt, fmt_se

VALUES = [0.41, 0.404, 0.75, 1, 0, 123456.0, 1.2345e-5, 0.000987, 4.31e9, 0.0195, 2.0, 99.95, -0.0123, 0.1]
ERRORS = [None, 0.013, 0.0003, 2.5, 1e-6, 0.0]


def test_the_browser_formats_numbers_as_python_does(page: Any) -> None:
    rng = random.Random(7)
    cases: list[list[Any]] = [[v, s] for v in VALUES for s in ERRORS]
    cases += [
        [rng.uniform(-1, 1) * 10 ** rng.randint(-6, 6), abs(rng.gauss(0, 1)) * 10 ** rng.randint(-6, 3)]
        for _ in range(200)
    ]
    shown = page.evaluate(
        "(cases) => { " + _FMT_JS + " return cases.map(c => [fmt(c[0]), fmt(c[0], c[1]), fmtSe(c[0], c[1])]); }",
        cases,
    )
    expected = [[fmt(v), fmt(v, s), fmt_se(v, s)] for v, s in cases]
    assert [(c, s) for c, s, e in zip(cases, shown, expected, strict=True) if s != e] == []
