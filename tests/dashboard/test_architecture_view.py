"""The Architecture view's figures: a partial result, a degenerate fit (docs/model.md section 7) and a fitted
one, drawn without a server; and the splitting-a-budget tour's claims checked against the closed form."""

from __future__ import annotations

import re
from typing import Any

import plotly.graph_objects as go
import pytest

from headdiv.client import ApiError
from headdiv.dashboard.teaching.tours import TOURS
from headdiv.dashboard.views.architecture_view import figures, layout
from headdiv.figures import sweep_charts as figs
from headdiv.schemas import Scenario, TheoryQuery
from headdiv.schemas.results.sweep_results import ArchitectureResult
from headdiv.workers.engine.theory import architecture_theory, best_split

DEGENERATE = "the bias term (c1) shapes the fit at 0 split(s) only: no trade-off to optimise"


class FakeClient:
    """Answers /theory/architecture as the API does (the engine's own function), recording the query."""

    def __init__(self, fail: bool = False) -> None:
        self.params: list[dict[str, Any]] = []
        self.fail = fail

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        assert path == "/theory/architecture" and params is not None
        self.params.append(params)
        if self.fail:
            raise ApiError("the API is down", 503)
        return architecture_theory(TheoryQuery(**params)).model_dump(mode="json")


def result(degenerate: str | None, *, done: bool = True) -> ArchitectureResult:
    """An architecture result for D = 32, n = 256 shaped as `headdiv.workers.engine.multicell.architecture` gives it."""
    mses = [0.313, 0.273, 0.401, 0.418, 0.622, 0.900]
    cands = [
        {"H": 32 // d, "d_k": d, "mse": m if done else None, "bias2": m, "variance": 0.0, "covariance": 0.0}
        for d, m in zip((1, 2, 4, 8, 16, 32), mses, strict=True)
    ]
    c1, c2 = (0.0, 1.05e-22) if degenerate else (0.05, 0.002)
    return ArchitectureResult.model_validate(
        {
            "budget": 32,
            "candidates": cands,
            "best": {"H": 16, "d_k": 2} if done else None,
            "theory": {
                "c0": 0.4,
                "c1": c1,
                "c2": c2,
                "degenerate": degenerate,
                # the fitted curve at each split, as the engine draws it from its constants
                "candidates": [
                    {
                        "H": c["H"],
                        "d_k": c["d_k"],
                        "mse": 0.4 + c1 * c["d_k"] ** -2 + c2 * c["d_k"] ** (c["d_k"] / 2 + 1) / (256 * 32),
                    }
                    for c in cands
                ]
                if done
                else [],
                "best": None if degenerate or not done else {"H": 8, "d_k": 4},
            },
            "base": Scenario(n=256).model_dump(),
        }
    )


def texts(fig: go.Figure) -> list[str]:
    """Every text a figure shows: title, subplot titles and notes, axis titles, legend names."""
    layout = fig.layout
    out = [layout.title.text or ""] + [a.text or "" for a in layout.annotations]
    out += [getattr(layout, k).title.text or "" for k in ("xaxis", "yaxis", "xaxis2", "yaxis2") if k in layout]
    return out + [t.name or "" for t in fig.data]


def trace(fig: go.Figure, prefix: str) -> Any:
    return next(t for t in fig.data if (t.name or "").startswith(prefix))


def test_a_result_with_no_split_yet_fills_all_four_outputs() -> None:
    client = FakeClient()
    out = figures(result(None, done=False), client)  # type: ignore[arg-type]
    assert len(out) == 4
    mse, curves, error, formula = out
    assert isinstance(mse, go.Figure) and isinstance(curves, go.Figure)
    assert error == "" and formula == ""
    assert client.params == []  # no theory is asked for before the first split


def test_a_degenerate_fit_draws_the_unit_constants_labelled_and_the_monte_carlo_best() -> None:
    client = FakeClient()
    mse, curves, error, formula = figures(result(DEGENERATE), client)  # type: ignore[arg-type]
    assert error == ""
    assert client.params == [{"budget": 32, "c1": 1.0, "c2": 1.0, "n": 256}]  # never the degenerate constants
    assert "degenerate" in curves.layout.title.text and "c₁ = c₂ = 1" in curves.layout.title.text
    dk = trace(curves, "d<sub>k</sub>*")
    assert "c₁ = c₂ = 1" in dk.name
    assert dict(zip(dk.x, dk.y, strict=True))[256] == 4  # the tour's step 2 answer, drawn
    h = trace(curves, "H*")
    assert dict(zip(h.x, h.y, strict=True))[32] == 8
    stars = [t for t in curves.data if (t.name or "").startswith("best split")]
    assert [(t.x[0], t.y[0]) for t in stars] == [(256, 2), (32, 16)]
    assert sum(bool(t.showlegend) for t in stars) == 1
    assert "c_1 = c_2 = 1" in formula and "degenerate" in formula
    names = [t.name for t in mse.data]
    assert "best: 16×2" in names and not any(n.startswith("theory's best") for n in names)
    assert any("degenerate" in n for n in names)


def test_a_fitted_optimum_uses_the_fitted_constants_and_rings_both_minimisers() -> None:
    client = FakeClient()
    mse, curves, _, formula = figures(result(None), client)  # type: ignore[arg-type]
    assert client.params == [{"budget": 32, "c1": 0.05, "c2": 0.002, "n": 256}]
    assert "degenerate" not in curves.layout.title.text and "degenerate" not in formula
    assert "(fitted)" in trace(curves, "d<sub>k</sub>*").name
    names = [t.name for t in mse.data]
    assert "best: 16×2" in names and "theory's best: 8×4" in names


def test_the_charts_write_powers_and_subscripts_as_html_and_carry_no_arrow_labels() -> None:
    _, curves, _, _ = figures(result(DEGENERATE), FakeClient())  # type: ignore[arg-type]
    mse = figs.architecture_mse(result(None))
    for fig in (curves, mse):
        for text in texts(fig):
            assert "^" not in text and "d_k" not in text, text
    assert "<sup>2/(4+d)</sup>" in trace(curves, "stated rate").name
    # a label with an arrow lands on the bars or the dashed line wherever the best split is: marks are
    # legend entries instead, so no text is drawn inside the plotting area
    assert not [a for a in mse.layout.annotations if a.showarrow]


def test_a_failing_theory_endpoint_reads_as_an_error_line() -> None:
    out = figures(result(DEGENERATE), FakeClient(fail=True))  # type: ignore[arg-type]
    assert len(out) == 4 and out[2].startswith("theory curves:") and "unavailable" in texts(out[1])[1]


def test_the_blank_charts_say_that_they_are_computing() -> None:
    from headdiv.dashboard.page.app import build_registry
    from headdiv.dashboard.page.url_state import PageState
    from headdiv.dashboard.views import VIEWS

    page = str(layout(PageState(build_registry(VIEWS).parse("?tab=architecture").values)).to_plotly_json())
    assert "open this tab" not in page and "computing" in page


TOUR = TOURS["splitting-a-budget"]


@pytest.mark.parametrize("k", range(1, len(TOUR.steps) + 1))
def test_the_budget_tour_writes_no_raw_powers_or_underscores(k: int) -> None:
    step = TOUR.step(k)
    parts = [step.narrative] + ([step.question.prompt, step.question.why] if step.question else [])
    for text in parts:
        assert "^" not in text and "d_k" not in text, text


def test_the_budget_tours_answers_are_the_closed_form_the_chart_draws() -> None:
    """Steps 2 and 3 quote the objective at c1 = c2 = 1: the curves drawn for a degenerate fit."""
    why2 = TOUR.step(2).question.why  # type: ignore[union-attr]
    why3 = TOUR.step(3).question.why  # type: ignore[union-attr]
    h, d_k, _ = best_split(256, 32, 1.0, 1.0)
    assert f"dₖ = {d_k}, H = {h}" in why2 and (h, d_k) == (8, 4)
    assert f"to dₖ = {best_split(65536, 32, 1.0, 1.0)[1]}" in why3
    assert re.search(r"c₁ = c₂ = 1", why2) and re.search(r"c₁ = c₂ = 1", why3)


def test_a_partial_result_stars_no_best_split_yet() -> None:
    done = result(DEGENERATE)
    last = done.candidates[-1].model_copy(update={"mse": None})
    partial = done.model_copy(update={"candidates": [*done.candidates[:-1], last]})
    mse, curves, _, _ = figures(partial, FakeClient())  # type: ignore[arg-type]
    assert not any((t.name or "").startswith("best split") for t in curves.data)
    assert "best so far: 16×2" in [t.name for t in mse.data]
