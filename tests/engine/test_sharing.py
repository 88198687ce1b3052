"""Work a batch shares between heads and cells gives the numbers of computing every head on its own."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from headdiv.schemas import Scenario
from headdiv.schemas.errors import JobCancelled
from headdiv.workers.engine import batch_plan, keymaps, montecarlo
from headdiv.workers.engine.device import resolve_device
from headdiv.workers.engine.draws import Draws
from headdiv.workers.engine.geometry import build_geometry
from headdiv.workers.engine.keymaps import KeyMap, head_maps
from headdiv.workers.engine.simulation import simulate, simulate_many

FAST = {"replicates": 12, "queries": 8, "n": 48}
F32 = torch.float32


def draws(scenarios: list[Scenario]) -> list[Draws]:
    return montecarlo.run_draws([(s, build_geometry(s)) for s in scenarios], resolve_device(None), F32).on_host()


def units(scenarios: list[Scenario]) -> list[batch_plan.Unit]:
    return batch_plan.plan_batch([(s, build_geometry(s)) for s in scenarios], resolve_device(None), F32).units


def unshared(geometry: object) -> list[KeyMap]:
    """The heads' maps, each made distinct: a head with no private weight gets its own block index,
    which changes nothing it computes (its private weights are 0) but keeps it from sharing a unit."""
    maps = head_maps(geometry)  # type: ignore[arg-type]
    out = []
    for h, m in enumerate(maps):
        params = np.frombuffer(m.params, dtype=np.float64).copy()
        params[0] = h + 1
        out.append(dataclasses.replace(m, params=params.tobytes()))
    return out


def test_identical_heads_are_one_unit_and_give_what_computing_each_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Scenario(**FAST, theta=0.0, weights="maw")
    assert len(units([s])) == 1  # four identical heads and their big head (dimension d_k: head 0)
    shared = draws([s])[0]
    monkeypatch.setattr(batch_plan, "head_maps", unshared)
    assert len(units([s])) == 4
    alone = draws([s])[0]
    # float32: an estimate near 0 is a sum of O(1) responses, so its round-off is absolute (~1e-8; a GPU
    # sums one head and four heads in different orders)
    np.testing.assert_allclose(shared.estimates, alone.estimates, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(shared.gates["maw"], alone.gates["maw"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(shared.slice_heads, alone.slice_heads, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(shared.big, alone.estimates[:, 0], rtol=1e-6, atol=1e-7)
    for h in range(1, s.H):
        assert np.array_equal(shared.estimates[:, h], shared.estimates[:, 0])


def test_cells_share_the_heads_they_have_in_common() -> None:
    """Two tilted cells with two equal tilts compute those heads once, and each is its standalone run."""
    cells = [Scenario(**FAST, H=3, geometry="tilted", tilts=[0.0, 30.0, t], weights="maw") for t in (60.0, 75.0)]
    assert len([u for u in units(cells) if u.keymap.family == "block"]) == 4
    both = draws(cells)
    assert np.array_equal(both[0].estimates[:, :2], both[1].estimates[:, :2])
    assert not np.allclose(both[0].estimates[:, 2], both[1].estimates[:, 2])
    for k, s in enumerate(cells):
        alone = draws([s])[0]
        np.testing.assert_allclose(both[k].estimates, alone.estimates, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(both[k].gates["maw"], alone.gates["maw"], rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(both[k].big, alone.big, rtol=1e-6, atol=1e-9)


def test_a_batch_of_every_key_family_kernel_and_source_agrees_with_each_cell_alone() -> None:
    """Block heads (with and without column maps), dense heads, both kernels, two seeds and an AR(1)
    source in one batch (all share the NW shapes: H = 3, d_k = 2, p = 8)."""
    small = {**FAST, "H": 3, "d_k": 2}
    cells = [
        Scenario(**small, theta=40.0),
        Scenario(**small, theta=40.0, kernel="softmax", temperature=0.7),
        Scenario(**small, geometry="shared_dims", shared_dims=1, signal="spread"),
        Scenario(**small, geometry="random", p=8, seed=5, weights="maw", beta=2.0),
        Scenario(**small, theta=90.0, dependence="ar1", phi=0.6, target="quadratic"),
        Scenario(**small, theta=0.0, seed=5),
    ]
    assert len({s.nw_shape() for s in cells}) == 1
    batched = {k: r.model_dump(mode="json") for k, r in simulate_many(cells)}
    for k, s in enumerate(cells):
        alone = simulate(s).model_dump(mode="json")
        for key in ("mse", "bias2", "variance", "covariance", "mse_se"):
            assert batched[k][key] == pytest.approx(alone[key], rel=1e-6, abs=1e-12), (k, key)
        assert batched[k]["weightings"]["maw"]["mse"] == pytest.approx(alone["weightings"]["maw"]["mse"], rel=1e-6)
        assert batched[k]["baselines"]["big_head"] == pytest.approx(alone["baselines"]["big_head"], rel=1e-6)
        assert batched[k]["slice"]["ensemble"] == pytest.approx(alone["slice"]["ensemble"], rel=1e-5, abs=1e-9)


def test_every_way_of_evaluating_key_maps_gives_the_same_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small p uses one dense product per family; large p the block heads' elementwise form and the big
    head's per-column mix (with column maps for shared_dims): forced here on small scenarios."""
    small = {**FAST, "H": 3, "d_k": 3}
    cells = [
        Scenario(**small, theta=35.0, weights="maw"),
        Scenario(**small, theta=35.0, kernel="softmax"),
        Scenario(**small, geometry="tilted", tilts=[0.0, 20.0, 90.0]),
        Scenario(**small, geometry="shared_dims", shared_dims=1, signal="spread"),
        Scenario(**small, geometry="shared_dims", shared_dims=2, kernel="softmax"),
    ]
    dense = draws(cells)
    monkeypatch.setattr(keymaps, "DENSE_P", 0)
    assert {u.keymap.family for u in units(cells)} == {"block", "mix"}
    for a, b in zip(dense, draws(cells), strict=True):
        np.testing.assert_allclose(a.estimates, b.estimates, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.big, b.big, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.slice_heads, b.slice_heads, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a.gates["maw"], b.gates["maw"], rtol=1e-5, atol=1e-6)


def test_wide_keys_of_two_families_in_one_call_agree_with_each_cell_alone() -> None:
    """Keys wider than `NARROW` (norms by one reduction) from block and dense heads sharing one NW call."""
    wide = {**FAST, "H": 2, "d_k": montecarlo.NARROW + 4}
    cells = [
        Scenario(**wide, theta=30.0),
        Scenario(**wide, geometry="random", p=(2 + 1) * wide["d_k"]),
        Scenario(**wide, theta=30.0, kernel="softmax"),
    ]
    batched = {k: r.model_dump(mode="json") for k, r in simulate_many(cells)}
    for k, s in enumerate(cells):
        assert batched[k]["mse"] == pytest.approx(simulate(s).model_dump(mode="json")["mse"], rel=1e-6)


def test_a_batch_asks_whether_to_stop_between_its_cells() -> None:
    """Building a batch's heads and decomposing its cells run between NW blocks; a background run must yield
    (and a canceled one stop) there too, not only inside the NW step: once the first cell is out, the next
    question stops the run before another cell is decomposed."""
    cells = [Scenario(replicates=4, queries=4, n=16, theta=t) for t in (10.0, 20.0, 30.0)]
    out: list[int] = []
    runs = simulate_many(cells, should_cancel=lambda: bool(out))
    with pytest.raises(JobCancelled):
        for k, _ in runs:
            out.append(k)
    assert out == [0]


def test_a_run_asks_whether_to_stop_before_each_keys_map(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawing a chunk of training sets and mapping them to one call's keys take up to a second when p is in
    the thousands (bench/bench_cost.py's cancel wait), so the run asks before every call's keys, not only
    between chunks and NW blocks: a cancel that arrives while the training sets are drawn stops the run
    before any key is mapped."""
    import headdiv.workers.engine.montecarlo as montecarlo

    mapped: list[int] = []
    real = montecarlo._inputs
    monkeypatch.setattr(montecarlo, "_inputs", lambda *a, **k: mapped.append(1) or real(*a, **k))
    drawn: list[int] = []
    draw = montecarlo._Chunk.draw
    monkeypatch.setattr(montecarlo._Chunk, "draw", lambda *a: drawn.append(1) or draw(*a))
    s = Scenario(replicates=3, queries=4, n=16)
    with pytest.raises(JobCancelled):
        list(simulate_many([s], should_cancel=lambda: bool(drawn)))
    assert drawn == [1] and mapped == []
