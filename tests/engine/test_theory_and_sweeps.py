"""Theory curves, NNLS fits, and the long computations' progress, cancel and shapes."""

from __future__ import annotations

import math

import pytest

from headdiv.jobs.cache.memory_cache import MemoryCache
from headdiv.jobs.cells import cached_summaries, cell_id, summarize
from headdiv.jobs.ids import job_id
from headdiv.jobs.kinds import job_kind
from headdiv.jobs.state import JobState
from headdiv.schemas import ArchitectureRequest, DiversitySweepRequest, Scenario, SurfaceRequest, TheoryQuery
from headdiv.schemas.errors import JobCancelled
from headdiv.schemas.fields import canonical
from headdiv.workers.engine import multicell
from headdiv.workers.engine.simulation import simulate, simulate_many
from headdiv.workers.engine.theory import (
    architecture_theory,
    best_split,
    fit_architecture,
    fit_diversity_bound,
    objective,
)
from headdiv.workers.runner import JobRun, run_and_publish, run_job

BASE = Scenario(replicates=10, queries=6, n=48)


def test_objective_and_minimiser() -> None:
    assert objective(4, 100, 16, 1.0, 1.0) == pytest.approx(1 / 16 + 4**3 / 1600)
    assert objective(256, 100, 256, 1.0, 1.0) == math.inf  # overflows float64: never the minimiser
    values = {d: objective(d, 1000, 64, 1.0, 1.0) for d in (1, 2, 4, 8, 16, 32, 64)}
    h, d, _ = best_split(1000, 64, 1.0, 1.0)
    assert d == min(values, key=values.__getitem__) and h * d == 64


def test_theory_curves() -> None:
    out = architecture_theory(TheoryQuery(n=1000, budget=64)).model_dump(mode="json")
    assert [c["H"] * c["d_k"] for c in out["candidates"]] == [64] * 7
    dks = out["dk_star_vs_n"]["d_k"]
    assert dks == sorted(dks) and dks[-1] > dks[0]  # d_k* grows with n
    assert all(64 % d == 0 for d in dks)
    hs = out["h_star_vs_budget"]["H"]
    assert all(b % h == 0 for b, h in zip(out["h_star_vs_budget"]["budget"], hs, strict=True))
    assert 1000 in out["dk_star_vs_n"]["n"]


def test_nnls_recovers_known_constants() -> None:
    d_ks, n, budget = [1, 2, 4, 8, 16], 500, 16
    mse = [0.25 + objective(d, n, budget, 0.3, 2.0) for d in d_ks]
    fit = fit_architecture(d_ks, n, budget, mse)
    assert fit.c0 == pytest.approx(0.25, rel=1e-6)
    assert fit.c1 == pytest.approx(0.3, rel=1e-6) and fit.c2 == pytest.approx(2.0, rel=1e-6)
    assert fit.degenerate is None
    c0, k, values = fit_diversity_bound([0.0, 0.5, 1.0], [0.5, 0.3, 0.1], heads=2)
    assert c0 == pytest.approx(0.1) and k == pytest.approx(0.8) and values == pytest.approx([0.5, 0.3, 0.1])


def test_a_fit_that_cannot_place_an_optimum_says_why() -> None:
    d_ks, n, budget = [1, 2, 4, 8, 16], 500, 16
    flat_variance = [0.4 + 0.3 / d**2 for d in d_ks]  # bias only: monotone, its minimum an end of the range
    fit = fit_architecture(d_ks, n, budget, flat_variance)
    assert fit.degenerate is not None and "variance term" in fit.degenerate
    assert fit.c0 == pytest.approx(0.4, rel=1e-6)
    few = fit_architecture([1, 2], n, budget, [0.5, 0.4])
    assert few.degenerate is not None and "fewer" in few.degenerate
    req = ArchitectureRequest(base=BASE, budget=8)
    out = multicell.architecture(req, [None] * 4).model_dump(mode="json")
    assert out["theory"]["best"] is None and out["theory"]["degenerate"]


def test_surface_shape_progress_and_values() -> None:
    req = SurfaceRequest(base=BASE, x={"param": "theta", "values": [0, 45, 90]}, y={"param": "H", "values": [1, 3]})
    seen: list[float] = []
    out = run_job("surface", req, progress=seen.append).model_dump(mode="json")
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen) and len(seen) >= 3
    for name in ("mse", "bias2", "variance", "covariance", "mse_se", "hdi", "effective_heads"):
        assert len(out["metrics"][name]) == 2 and all(len(row) == 3 for row in out["metrics"][name])
    assert out["metrics"]["hdi"][0] == [None, None, None]  # H = 1
    assert out["metrics"]["hdi"][1] == pytest.approx([0.0, 0.5, 1.0])
    cell = simulate(BASE.model_copy(update={"theta": 45.0, "H": 3})).model_dump(mode="json")
    assert out["metrics"]["mse"][1][1] == pytest.approx(cell["mse"], rel=1e-6)  # batched or alone, the same draws


def test_a_cell_is_the_simulation_of_its_scenario_whichever_job_computed_it() -> None:
    """Batched with other angles, each cell agrees with its standalone run to float32 round-off."""
    cells = [
        BASE.model_copy(update={"theta": t, "weights": w})
        for t, w in ((0.0, "uniform"), (60.0, "maw"), (90.0, "optimal"))
    ]
    batched = {k: r.model_dump(mode="json") for k, r in simulate_many(cells)}
    for k, scenario in enumerate(cells):
        alone = simulate(scenario).model_dump(mode="json")
        for key in ("mse", "bias2", "variance", "covariance", "mse_se", "hdi"):
            assert batched[k][key] == pytest.approx(alone[key], rel=1e-6, abs=1e-12), (k, key)
        # slice values are O(1) and some cross zero: float32's round-off is absolute there (a GPU sums a
        # batch in another order than a cell alone)
        assert batched[k]["slice"]["ensemble"] == pytest.approx(alone["slice"]["ensemble"], rel=1e-5, abs=1e-6)


def test_cancel_keeps_the_cells_it_finished() -> None:
    req = SurfaceRequest(base=BASE, x={"param": "theta", "values": [30]}, y={"param": "H", "values": [1, 2, 3, 4]})
    cache = MemoryCache(1 << 26)
    ids = [cell_id(c) for c in req.scenarios()]

    def should_cancel() -> bool:  # cells of different H run in batches of their own: stop once two are stored
        return sum(s is not None for s in cached_summaries(cache, ids)) >= 2

    with pytest.raises(JobCancelled):
        run_job("surface", req, cache, should_cancel=should_cancel)
    done = cached_summaries(cache, ids)
    assert [s is not None for s in done] == [True, True, False, False]
    published: list[JobState] = []
    job = JobRun(job_id("surface", canonical(req)), job_kind("surface"), req)
    final = run_and_publish(job, cache, published.append)
    assert final.status == "finished" and final.cells is not None
    assert (final.cells.from_cache, final.cells.done, final.cells.total) == (2, 4, 4)
    # the record as it went: running with the two cached cells, then one more cell at a time, then finished
    done = [s.cells.done for s in published if s.cells is not None and s.status == "running"]
    assert [d for i, d in enumerate(done) if i == 0 or d != done[i - 1]] == [2, 3, 4]  # progress repeats a count
    assert published[-1].status == "finished" and published[-2].partial is not None


def test_a_partial_result_is_shaped_like_the_finished_one() -> None:
    req = ArchitectureRequest(base=BASE, budget=8)
    cells = [simulate(s) for s in req.scenarios()]
    summaries: list[dict | None] = [summarize(c) for c in cells]
    finished = multicell.architecture(req, summaries).model_dump(mode="json")
    summaries[1] = summaries[3] = None
    partial = multicell.architecture(req, summaries).model_dump(mode="json")
    assert [(c["H"], c["d_k"]) for c in partial["candidates"]] == [(c["H"], c["d_k"]) for c in finished["candidates"]]
    assert (
        partial["candidates"][1]["mse"] is None and partial["candidates"][0]["mse"] == finished["candidates"][0]["mse"]
    )
    assert set(partial) == set(finished) and partial["best"] in ({"H": 8, "d_k": 1}, {"H": 2, "d_k": 4})
    sweep = DiversitySweepRequest(base=BASE, thetas=[0, 45, 90])
    none_yet = multicell.diversity_sweep(sweep, [None, None, None]).model_dump(mode="json")
    assert none_yet["bound"]["values"] == [None, None, None] and [p["theta"] for p in none_yet["points"]] == [0, 45, 90]


def test_architecture_and_sweeps() -> None:
    out = run_job("architecture", ArchitectureRequest(base=BASE, budget=8)).model_dump(mode="json")
    assert [(c["H"], c["d_k"]) for c in out["candidates"]] == [(8, 1), (4, 2), (2, 4), (1, 8)]
    best = min(out["candidates"], key=lambda c: c["mse"])
    assert out["best"] == {"H": best["H"], "d_k": best["d_k"]}
    theory = out["theory"]
    assert theory["c0"] >= 0 and theory["c1"] >= 0 and theory["c2"] >= 0
    assert len(theory["candidates"]) == 4
    # a degenerate fit marks no optimum; otherwise the optimum is the theory's minimiser
    assert (theory["best"] is None) == (theory["degenerate"] is not None)

    noise_only = Scenario(replicates=60, queries=16, n=64, target="constant")
    held = run_job("diversity_sweep", DiversitySweepRequest(base=noise_only, thetas=[0, 30, 60, 90])).model_dump(
        mode="json"
    )
    assert held["holds"] is True
    assert held["points"][0]["mse"] > held["points"][-1]["mse"]
    assert [p["hdi"] for p in held["points"]] == sorted(p["hdi"] for p in held["points"])
    shared = Scenario(replicates=60, queries=16, n=64, target="sine", noise=0.1)
    broken = run_job("diversity_sweep", DiversitySweepRequest(base=shared, thetas=[0, 30, 60, 90])).model_dump(
        mode="json"
    )
    assert broken["holds"] is False  # a shared signal: turning heads away adds bias


def test_run_job_dispatch() -> None:
    out = run_job("simulation", {"replicates": 3, "queries": 2, "n": 16}).model_dump(mode="json")
    assert out["scenario"]["replicates"] == 3
    with pytest.raises(ValueError, match="unknown job kind"):
        run_job("nope", {})
