"""The dashboard draws partial results, and a key press reaches the server only where there is work.

Partial results are those a running multi-cell job shows (`headdiv.workers.engine.multicell` with None for cells
not done): every figure draws them with gaps, never NaN. The request budget of a key press is a property
of the callback graph: the page state and the simulation's result are handled in the browser (clientside
gates and relays), so no server callback listens to them directly; the browser test
`test_browser_live.py` counts the requests themselves.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from headdiv.dashboard.drawing.view_jobs import _finished, progress_text
from headdiv.dashboard.page.app import create_dash_app
from headdiv.dashboard.page.component_ids import SIM_RESULT_STORE, SIM_STATE, STATE_STORE, view_sim, view_state
from headdiv.dashboard.views import VIEWS
from headdiv.figures import sweep_charts as figs
from headdiv.figures.theme import MSE_NAME
from headdiv.figures.verdict_sentences import diversity_verdict
from headdiv.jobs.state import CellCount, JobState
from headdiv.schemas import ArchitectureRequest, DiversitySweepRequest, SurfaceRequest
from headdiv.workers.engine import multicell
from tests.dashboard.conftest import drawn_numbers

SUMMARY = {
    "mse": 0.02,
    "mse_se": 0.001,
    "bias2": 0.01,
    "variance": 0.008,
    "covariance": 0.002,
    "hdi": 0.5,
    "effective_heads": 2.0,
    "mean_correlation": 0.3,
}


def _cells(count: int, done: set[int]) -> list[dict[str, Any] | None]:
    """Cell summaries, None for a cell not done (HDI and MSE vary so fits have something to fit)."""
    return [
        {**SUMMARY, "hdi": 0.1 + 0.8 * k / max(count, 1), "mse": 0.03 - 0.01 * k / max(count, 1)} if k in done else None
        for k in range(count)
    ]


def _no_nan_text(fig: Any) -> None:
    assert "NaN" not in fig.to_json()
    assert all(math.isfinite(v) for v in drawn_numbers(fig))


@pytest.mark.parametrize("done", [set(), {0}, {0, 3, 7}, set(range(35))])
def test_surface_figures_draw_partial_results_with_gaps(done: set[int]) -> None:
    request = SurfaceRequest.model_validate(
        {
            "base": {},
            "x": {"param": "theta", "values": [0, 15, 30, 45, 60, 75, 90]},
            "y": {"param": "H", "values": [1, 2, 4, 8, 16]},
        }
    )
    result = multicell.surface(request, _cells(35, done))
    heat = figs.surface_heatmap(result, "mse")
    z = [v for row in heat.data[0].z for v in row]
    assert len(z) == 35 and sum(v is not None for v in z) == len(done)
    _no_nan_text(heat)
    _no_nan_text(figs.surface_3d(result, "hdi"))


@pytest.mark.parametrize("done", [set(), {2}, {0, 1, 5}, set(range(6))])
def test_sweep_figures_and_verdict_draw_partial_results(done: set[int]) -> None:
    request = DiversitySweepRequest.model_validate({"base": {}, "thetas": [0, 18, 36, 54, 72, 90]})
    result = multicell.diversity_sweep(request, _cells(6, done))
    for fig in (figs.mse_vs_hdi(result), figs.correlation_vs_overlap(result)):
        _no_nan_text(fig)
    mse = next(t for t in figs.mse_vs_hdi(result).data if t.name == MSE_NAME)
    assert sum(v is not None for v in mse.y) == len(done)
    text = diversity_verdict(result)
    assert ("Sweeping" in text) == (len(done) < 6)
    if len(done) < 6:
        assert f"{len(done)} of 6 angles" in text


@pytest.mark.parametrize("done", [set(), {1}, {0, 2, 4}])
def test_architecture_bars_appear_as_splits_finish(done: set[int]) -> None:
    request = ArchitectureRequest.model_validate({"base": {}, "budget": 16})
    count = len(request.scenarios())
    result = multicell.architecture(request, _cells(count, {k for k in done if k < count}))
    fig = figs.architecture_mse(result)
    _no_nan_text(fig)
    mse = next(t for t in fig.data if t.name == MSE_NAME)
    assert sum(v is not None for v in mse.y) == len({k for k in done if k < count})


def test_progress_counts_cells_and_the_note_says_what_came_from_the_cache() -> None:
    running = JobState(job_id="j", status="running", progress=0.4, cells=CellCount(total=35, done=14, from_cache=0))
    assert progress_text(running) == "running 14 / 35 cells"
    single = JobState(job_id="j", status="running", progress=0.25)
    assert progress_text(single) == "running 25%"
    finished = JobState(
        job_id="j",
        status="finished",
        progress=1.0,
        result={"seconds": 1.5},
        cells=CellCount(total=35, done=35, from_cache=5),
    )
    assert _finished(finished, "k")[1] == "computed in 1.50 s (5 of 35 cells from cache)"


def test_no_server_callback_runs_on_every_key_press_for_a_hidden_tab() -> None:
    """The raw page state and the simulation's result reach the server only through the browser's gates;
    the simulation's own state comes from the one sync round trip that a key press makes anyway."""
    app = create_dash_app("http://127.0.0.1:9")
    gated = {STATE_STORE, SIM_RESULT_STORE}
    for cb in app._callback_list:
        inputs = {i["id"] for i in cb["inputs"] if isinstance(i["id"], str)}
        if cb.get("clientside_function") is None and inputs & gated:
            pytest.fail(f"server callback {cb['output'][:80]} listens to {inputs & gated}")
    outputs = " ".join(cb["output"] for cb in app._callback_list if cb.get("clientside_function"))
    for v in VIEWS:
        assert f"{view_state(v.id)}.data" in outputs
        if v.shows_simulation:
            assert f"{view_sim(v.id)}.data" in outputs
    assert "hl-mse.children" in outputs and "share-url.value" in outputs
    writers = [cb for cb in app._callback_list if f"{SIM_STATE}.data" in cb["output"]]
    assert len(writers) == 1 and f"{STATE_STORE}.data" in writers[0]["output"]
