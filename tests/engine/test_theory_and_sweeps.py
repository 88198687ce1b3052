"""Theory curves, NNLS fits, and the long computations' progress, cancel and shapes."""

from __future__ import annotations

import math

import pytest

from workers.engine import (
    JobCancelled,
    architecture_theory,
    run_architecture,
    run_diversity_sweep,
    run_job,
    run_surface,
)
from workers.engine.theory import best_split, fit_architecture, fit_diversity_bound, objective
from workers.schemas import ArchitectureRequest, DiversitySweepRequest, Scenario, SurfaceRequest, TheoryQuery

BASE = Scenario(replicates=10, queries=6, n=48)


def test_objective_and_minimiser() -> None:
    assert objective(4, 100, 16, 1.0, 1.0) == pytest.approx(1 / 16 + 4**3 / 1600)
    assert objective(256, 100, 256, 1.0, 1.0) == math.inf  # overflows float64: never the minimiser
    values = {d: objective(d, 1000, 64, 1.0, 1.0) for d in (1, 2, 4, 8, 16, 32, 64)}
    h, d, _ = best_split(1000, 64, 1.0, 1.0)
    assert d == min(values, key=values.__getitem__) and h * d == 64


def test_theory_curves() -> None:
    out = architecture_theory(TheoryQuery(n=1000, budget=64))
    assert [c["H"] * c["d_k"] for c in out["candidates"]] == [64] * 7
    dks = out["dk_star_vs_n"]["d_k"]
    assert dks == sorted(dks) and dks[-1] > dks[0]  # d_k* grows with n
    assert all(64 % d == 0 for d in dks)
    hs = out["h_star_vs_budget"]["H"]
    assert all(b % h == 0 for b, h in zip(out["h_star_vs_budget"]["budget"], hs, strict=True))
    assert 1000 in out["dk_star_vs_n"]["n"]


def test_nnls_recovers_known_constants() -> None:
    d_ks, n, budget = [1, 2, 4, 8, 16], 500, 16
    mse = [objective(d, n, budget, 0.3, 2.0) for d in d_ks]
    c1, c2 = fit_architecture(d_ks, n, budget, mse)
    assert c1 == pytest.approx(0.3, rel=1e-6) and c2 == pytest.approx(2.0, rel=1e-6)
    c0, k, values = fit_diversity_bound([0.0, 0.5, 1.0], [0.5, 0.3, 0.1], heads=2)
    assert c0 == pytest.approx(0.1) and k == pytest.approx(0.8) and values == pytest.approx([0.5, 0.3, 0.1])


def test_surface_shape_progress_and_values() -> None:
    req = SurfaceRequest(base=BASE, x={"param": "theta", "values": [0, 45, 90]}, y={"param": "H", "values": [1, 3]})
    seen: list[float] = []
    out = run_surface(req, progress=seen.append)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen) and len(seen) == 7
    for name in ("mse", "bias2", "variance", "covariance", "mse_se", "hdi", "effective_heads"):
        assert len(out["metrics"][name]) == 2 and all(len(row) == 3 for row in out["metrics"][name])
    assert out["metrics"]["hdi"][0] == [None, None, None]  # H = 1
    assert out["metrics"]["hdi"][1] == pytest.approx([0.0, 0.5, 1.0])
    from workers.engine import simulate

    cell = simulate(BASE.model_copy(update={"theta": 45.0, "H": 3}))
    assert out["metrics"]["mse"][1][1] == pytest.approx(cell["mse"], rel=1e-9)


def test_cancel_between_steps() -> None:
    req = SurfaceRequest(base=BASE, x={"param": "theta", "values": [0, 30, 60, 90]}, y={"param": "H", "values": [2]})
    calls = {"n": 0}

    def should_cancel() -> bool:
        calls["n"] += 1
        return calls["n"] > 2

    with pytest.raises(JobCancelled, match="after 2 of 4"):
        run_surface(req, should_cancel=should_cancel)


def test_architecture_and_sweeps() -> None:
    out = run_architecture(ArchitectureRequest(base=BASE, budget=8))
    assert [(c["H"], c["d_k"]) for c in out["candidates"]] == [(8, 1), (4, 2), (2, 4), (1, 8)]
    best = min(out["candidates"], key=lambda c: c["mse"])
    assert out["best"] == {"H": best["H"], "d_k": best["d_k"]}
    assert out["theory"]["c1"] >= 0 and out["theory"]["c2"] >= 0
    assert len(out["theory"]["candidates"]) == 4

    noise_only = Scenario(replicates=60, queries=16, n=64, target="constant")
    held = run_diversity_sweep(DiversitySweepRequest(base=noise_only, thetas=[0, 30, 60, 90]))
    assert held["holds"] is True
    assert held["points"][0]["mse"] > held["points"][-1]["mse"]
    assert [p["hdi"] for p in held["points"]] == sorted(p["hdi"] for p in held["points"])
    shared = Scenario(replicates=60, queries=16, n=64, target="sine", noise=0.1)
    broken = run_diversity_sweep(DiversitySweepRequest(base=shared, thetas=[0, 30, 60, 90]))
    assert broken["holds"] is False  # a shared signal: turning heads away adds bias


def test_run_job_dispatch() -> None:
    out = run_job("simulation", {"replicates": 3, "queries": 2, "n": 16})
    assert out["scenario"]["replicates"] == 3
    with pytest.raises(ValueError, match="unknown job kind"):
        run_job("nope", {})
