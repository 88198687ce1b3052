"""Training sets kept for the next run of the same arguments (`sampling._kept`): taken without drawing, bounded,
never written into by the engine, and given back when a device runs out of memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

from headdiv.plumbing.lru import ByteLRU
from headdiv.schemas import CovarianceRequest, Scenario
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.schemas.errors import EngineError
from headdiv.schemas.training_request import TrainingRequest
from headdiv.workers.engine import sampling
from headdiv.workers.engine.covariance import run_covariance
from headdiv.workers.engine.device import out_of_memory_as_error
from headdiv.workers.engine.simulation import simulate
from headdiv.workers.engine.training import run_training

FAST: dict[str, Any] = {"replicates": 12, "queries": 8, "n": 48}
F32, F64 = torch.float32, torch.float64
ARGS: dict[str, Any] = {"seed": 7, "start": 0, "stop": 3, "n": 5, "p": 4, "dtype": F32, "phi": 0.0}
"""One small training set: 3 replicates of 5 inputs in 4 dimensions."""

Key = tuple[int, int, int, int, int, float, str, torch.dtype]
_REAL_DRAW = sampling._draw


@pytest.fixture(autouse=True)
def nothing_kept(engine_device: torch.device) -> Iterator[None]:
    """Every test starts and ends with no kept training sets, whatever ran before it."""
    sampling.forget_draws()
    yield
    sampling.forget_draws()


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[Key]:
    """The arguments of every training set drawn anew (`sampling._draw`), in `_kept`'s key order."""
    drawn: list[Key] = []
    real = sampling._draw

    def counting(
        seed: int, start: int, stop: int, n: int, p: int, *, device: torch.device, dtype: torch.dtype, phi: float
    ) -> sampling.Drawn:
        drawn.append((seed, start, stop, n, p, float(phi), str(device), dtype))
        return real(seed, start, stop, n, p, device=device, dtype=dtype, phi=phi)

    monkeypatch.setattr(sampling, "_draw", counting)
    return drawn


def sets(device: torch.device, keep: bool = True, **changes: Any) -> sampling.Drawn:
    a = {**ARGS, **changes}
    return sampling.training_sets(
        a["seed"], a["start"], a["stop"], a["n"], a["p"], device=device, dtype=a["dtype"], phi=a["phi"], keep=keep
    )


def kept(device: torch.device) -> ByteLRU[Key, sampling.Drawn]:
    return sampling._kept()[device.type]


def fresh(key: Key) -> sampling.Drawn:
    """The training sets of `key` drawn anew (the real `_draw`, whatever a test put in its place)."""
    seed, start, stop, n, p, phi, device, dtype = key
    return _REAL_DRAW(seed, start, stop, n, p, device=torch.device(device), dtype=dtype, phi=phi)


def test_the_same_arguments_are_drawn_once(draws: list[Key], engine_device: torch.device) -> None:
    first = sets(engine_device)
    assert len(draws) == 1 and len(kept(engine_device)) == 1
    second = sets(engine_device)
    assert len(draws) == 1
    assert second[0] is first[0] and second[1] is first[1]  # the very same tensors
    x, eps = fresh(draws[0])
    assert torch.equal(second[0], x) and torch.equal(second[1], eps)
    assert x.shape == (3, 5, 4) and eps.shape == (3, 5) and x.device.type == engine_device.type
    assert kept(engine_device).size_bytes == (3 * 5 * 4 + 3 * 5) * 4


@pytest.mark.parametrize(
    "change",
    [{"seed": 8}, {"start": 1}, {"stop": 4}, {"start": 1, "stop": 4}, {"n": 6}, {"p": 3}, {"phi": 0.5}, {"dtype": F64}],
    ids=lambda c: "-".join(c),
)
def test_a_call_differing_in_one_argument_draws_anew(
    change: dict[str, Any], draws: list[Key], engine_device: torch.device
) -> None:
    base = sets(engine_device)
    other = sets(engine_device, **change)
    assert len(draws) == 2 and len(kept(engine_device)) == 2
    assert other[0] is not base[0] and other[1] is not base[1]
    x, eps = fresh(draws[1])
    assert torch.equal(other[0], x) and torch.equal(other[1], eps)
    # both stay kept: asking again for either draws nothing
    assert sets(engine_device)[0] is base[0] and sets(engine_device, **change)[0] is other[0]
    assert len(draws) == 2


def test_keep_false_is_drawn_every_time_and_not_kept(draws: list[Key], engine_device: torch.device) -> None:
    first = sets(engine_device, keep=False)
    assert len(kept(engine_device)) == 0 and kept(engine_device).size_bytes == 0
    second = sets(engine_device, keep=False)
    assert len(draws) == 2 and second[0] is not first[0]
    assert torch.equal(first[0], second[0]) and torch.equal(first[1], second[1])
    # a kept set is still returned to a keep=False call of the same arguments (reading it costs nothing)
    kept_x, _ = sets(engine_device)
    assert len(draws) == 3 and sets(engine_device, keep=False)[0] is kept_x and len(draws) == 3


SET_BYTES = (3 * 5 * 4 + 3 * 5) * 4
"""Bytes of one `ARGS` training set in float32."""


@pytest.fixture
def small_bound(engine_device: torch.device) -> Iterator[int]:
    """Room for two `ARGS` training sets (not three) on the device of the test."""
    bound = 2 * SET_BYTES + SET_BYTES // 2
    name = "kept_draws_bytes" if engine_device.type == "cpu" else "cuda_kept_draws_bytes"
    settings = get_engine_settings()
    before = getattr(settings, name)
    setattr(settings, name, bound)
    sampling._kept.cache_clear()
    try:
        yield bound
    finally:
        setattr(settings, name, before)
        sampling._kept.cache_clear()


def test_the_bound_evicts_the_least_recently_used_set(
    small_bound: int, draws: list[Key], engine_device: torch.device
) -> None:
    assert kept(engine_device).max_bytes == small_bound
    one = sets(engine_device, seed=1)
    sets(engine_device, seed=2)
    assert len(kept(engine_device)) == 2 and kept(engine_device).size_bytes == 2 * SET_BYTES
    assert sets(engine_device, seed=1)[0] is one[0]  # kept, and now more recent than seed 2
    sets(engine_device, seed=3)  # a third set passes the bound: seed 2 goes
    assert len(draws) == 3 and len(kept(engine_device)) == 2
    assert kept(engine_device).size_bytes == 2 * SET_BYTES <= small_bound
    assert sets(engine_device, seed=1)[0] is one[0] and len(draws) == 3
    sets(engine_device, seed=2)
    assert len(draws) == 4  # drawn again
    # a set larger than the whole bound is not kept and pushes nothing out
    before = kept(engine_device).size_bytes
    sets(engine_device, stop=9)
    assert len(draws) == 5 and kept(engine_device).size_bytes == before and len(kept(engine_device)) == 2
    sets(engine_device, stop=9)
    assert len(draws) == 6


def test_a_bound_of_zero_keeps_nothing(draws: list[Key], engine_device: torch.device) -> None:
    name = "kept_draws_bytes" if engine_device.type == "cpu" else "cuda_kept_draws_bytes"
    settings = get_engine_settings()
    before = getattr(settings, name)
    setattr(settings, name, 0)
    sampling._kept.cache_clear()
    try:
        sets(engine_device)
        sets(engine_device)
        assert len(draws) == 2 and len(kept(engine_device)) == 0
    finally:
        setattr(settings, name, before)
        sampling._kept.cache_clear()


SMALL: dict[str, Any] = {**FAST, "H": 3, "d_k": 2}
CASES: dict[str, dict[str, Any]] = {
    "gaussian": {"theta": 40.0},  # a distance kernel: keys centred on each training set's mean
    "softmax": {"theta": 40.0, "kernel": "softmax", "temperature": 0.7},
    "ar1": {"theta": 60.0, "dependence": "ar1", "phi": 0.6, "target": "quadratic"},
    "ar1-softmax-random": {
        "geometry": "random",
        "p": 7,
        "kernel": "softmax",
        "dependence": "ar1",
        "phi": 0.5,
        "weights": "maw",
    },
}
SCENARIOS = {name: Scenario.model_validate({**SMALL, **fields}) for name, fields in CASES.items()}


def assert_kept_as_drawn(draws: list[Key], device: torch.device) -> None:
    """Every set drawn is kept, and each is still exactly what a fresh draw of its arguments gives."""
    assert draws and len(set(draws)) == len(draws) == len(kept(device))
    for key in draws:
        found = kept(device).get(key)
        assert found is not None, key
        x, eps = fresh(key)
        assert torch.equal(found[0], x) and torch.equal(found[1], eps), key


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_simulation_leaves_its_sets_as_drawn_and_a_second_draws_nothing(
    name: str, draws: list[Key], engine_device: torch.device
) -> None:
    s = SCENARIOS[name]
    first = simulate(s).model_dump(mode="json")
    assert {key[5] for key in draws} == {s.ar1_phi}
    assert_kept_as_drawn(draws, engine_device)
    count = len(draws)
    second = simulate(s).model_dump(mode="json")
    assert len(draws) == count  # every set came from the kept ones
    first.pop("seconds")
    second.pop("seconds")
    assert second == first
    assert_kept_as_drawn(draws, engine_device)


def test_a_covariance_run_leaves_its_sets_as_drawn(draws: list[Key], engine_device: torch.device) -> None:
    request = CovarianceRequest.model_validate(
        {"thetas": [0, 45, 90], "base": {"H": 3, "d_k": 2, "n": 24, "queries": 6, "replicates": 6}}
    )
    first = run_covariance(request).model_dump(mode="json")
    assert len(draws) == 1  # the angles share one seed, n and p: drawn once
    assert_kept_as_drawn(draws, engine_device)
    second = run_covariance(request).model_dump(mode="json")
    assert len(draws) == 1
    first.pop("seconds", None)
    second.pop("seconds", None)
    assert second == first


def test_a_training_run_keeps_only_its_held_out_sets(draws: list[Key], engine_device: torch.device) -> None:
    """The training steps' sets (keep=False) are not kept; the held-out replicates are, as drawn."""
    base = {"H": 3, "d_k": 2, "n": 24, "queries": 6, "replicates": 8, "noise": 0.3, "seed": 3}
    request = TrainingRequest.model_validate({"base": base, "steps": 4, "record_every": 2, "batch": 2, "lr": 0.05})
    run_training(request)
    held_out = [key for key in draws if key[2] <= base["replicates"]]
    steps = [key for key in draws if key[1] >= base["replicates"]]
    assert held_out and steps and len(held_out) + len(steps) == len(draws)
    assert len(set(held_out)) == len(held_out)  # each record's evaluation takes the sets the first one drew
    assert len(kept(engine_device)) == len(held_out)
    for key in steps:
        assert kept(engine_device).get(key) is None
    for key in held_out:
        found = kept(engine_device).get(key)
        assert found is not None
        x, eps = fresh(key)
        assert torch.equal(found[0], x) and torch.equal(found[1], eps)


def test_running_out_of_memory_forgets_every_kept_set(draws: list[Key], engine_device: torch.device) -> None:
    sets(engine_device)
    sets(engine_device, seed=9)
    assert len(kept(engine_device)) == 2
    with pytest.raises(EngineError, match="ran out of memory"), out_of_memory_as_error(torch.device("cpu")):
        raise torch.OutOfMemoryError("out of memory")
    assert len(sampling._kept()["cpu"]) == 0 and len(sampling._kept()["cuda"]) == 0
    assert kept(engine_device).size_bytes == 0
    sets(engine_device)
    assert len(draws) == 3  # drawn anew


def test_other_errors_keep_the_kept_sets(engine_device: torch.device) -> None:
    sets(engine_device)
    with pytest.raises(ValueError, match="not memory"), out_of_memory_as_error(torch.device("cpu")):
        raise ValueError("not memory")
    assert len(kept(engine_device)) == 1
