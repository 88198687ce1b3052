"""CPU and CUDA give the same experiment: the same draws (all made by the CPU generator, see
`engine.sampling`), so the numbers differ only by float rounding, in both dtypes, compiled or eager."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch

from headdiv.schemas import Scenario
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.workers.engine import nw
from headdiv.workers.engine.simulation import simulate

RUN_FIELDS = {"device", "dtype", "seconds"}
"""Fields that say how a result was computed rather than what it is."""

TOLERANCE = {"float32": (1e-4, 1e-6), "float64": (1e-9, 1e-12)}
"""(rtol, atol) on every number: float32 keeps ~6 significant digits through the NW step's sums, and a
few are lost where a covariance or an MSE difference cancels."""

SCENARIOS = [
    {"replicates": 64, "queries": 16, "n": 256, "weights": "maw"},
    {"replicates": 32, "queries": 8, "n": 128, "kernel": "softmax", "d_k": 16, "geometry": "random"},
    {"replicates": 32, "queries": 8, "n": 128, "dependence": "ar1", "phi": 0.5, "H": 4},
]


def numbers(tree: Any, path: str = "") -> Iterator[tuple[str, float]]:
    """Every number of a result, by its path, skipping `RUN_FIELDS`."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key not in RUN_FIELDS:
                yield from numbers(value, f"{path}.{key}")
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from numbers(value, f"{path}[{i}]")
    elif isinstance(tree, (int, float)) and not isinstance(tree, bool):
        yield path, float(tree)


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", SCENARIOS, ids=["gaussian-maw", "softmax-random", "ar1"])
def test_cpu_and_cuda_agree(
    case: dict, dtype: str, compiled: bool, engine_device: torch.device, monkeypatch: pytest.MonkeyPatch
) -> None:
    if engine_device.type != "cuda":
        pytest.skip("compares the CPU with CUDA: its CUDA variant does")
    monkeypatch.setattr(get_engine_settings(), "compile", "on" if compiled else "off")
    monkeypatch.setattr(nw, "_compiled", {})
    s = Scenario(**case)
    cpu = simulate(s, device="cpu", dtype=dtype).model_dump(mode="json")
    gpu = simulate(s, device="cuda", dtype=dtype).model_dump(mode="json")
    assert cpu["device"] == "cpu" and gpu["device"].startswith("cuda")
    ours, theirs = dict(numbers(cpu)), dict(numbers(gpu))
    assert ours.keys() == theirs.keys()
    rtol, atol = TOLERANCE[dtype]
    worst = max(ours, key=lambda k: abs(ours[k] - theirs[k]) / (atol + rtol * abs(ours[k])))
    relative = max(abs(ours[k] - theirs[k]) / max(abs(ours[k]), 1e-300) for k in ours)
    # printed for the record of a GPU run (pytest -s): how far the devices are apart
    print(f"cpu-vs-cuda {dtype} {'compiled' if compiled else 'eager'}: worst {worst} {relative=:.2e}")
    np.testing.assert_allclose(theirs[worst], ours[worst], rtol=rtol, atol=atol, err_msg=worst)


def test_running_out_of_device_memory_fails_the_run_with_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """An out-of-memory error becomes the job's reason and the next run works (the worker lives on)."""
    from headdiv.jobs.failures import describe_failure
    from headdiv.schemas.errors import EngineError
    from headdiv.workers.engine import montecarlo

    def full(*args: object, **kwargs: object) -> None:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    real = montecarlo.nw_attention
    monkeypatch.setattr(montecarlo, "nw_attention", full)
    s = Scenario(**SCENARIOS[0])
    with pytest.raises(EngineError, match="ran out of memory") as caught:
        simulate(s)
    reason = describe_failure(caught.value)
    assert reason.type == "error" and "fewer replicates" in reason.message and "internal" not in reason.message
    monkeypatch.setattr(montecarlo, "nw_attention", real)
    assert simulate(s).mse > 0


def test_a_gpu_takes_larger_blocks_bounded_by_its_free_memory(
    engine_device: torch.device, monkeypatch: pytest.MonkeyPatch
) -> None:
    from headdiv.workers.engine.device import MEMORY_SHARE, block_bytes

    settings = get_engine_settings()
    if engine_device.type == "cpu":
        assert block_bytes(engine_device) == (settings.chunk_bytes, settings.score_bytes)
        return
    free, _ = torch.cuda.mem_get_info(engine_device)
    chunk, score = block_bytes(engine_device)
    assert chunk == min(settings.cuda_chunk_bytes, free // MEMORY_SHARE)
    assert score == min(settings.cuda_score_bytes, free // MEMORY_SHARE)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (64 << 20, 80 << 30))
    assert block_bytes(engine_device) == (4 << 20, 4 << 20)
