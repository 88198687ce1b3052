"""Every engine test runs on the CPU and, where one is present, on a CUDA device.

The device reaches the engine through its setting (HEADDIV_DEVICE), so a test that leaves `device` unset
runs on each in turn; `engine_device` names the one in use. The CUDA variants skip with a reason on a
machine without CUDA; HEADDIV_TEST_DEVICE=cuda makes a missing CUDA device a failure instead (for a run on
a GPU machine that must not pass by skipping), and HEADDIV_TEST_DEVICE=cpu runs the CPU variants alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import torch

from headdiv.schemas.engine_settings import get_engine_settings

WANTED = os.environ.get("HEADDIV_TEST_DEVICE", "")
DEVICES = ["cpu", "cuda"]


@pytest.fixture(autouse=True, params=DEVICES)
def engine_device(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[torch.device]:
    name: str = request.param
    if WANTED == "cpu" and name == "cuda":
        pytest.skip(f"HEADDIV_TEST_DEVICE={WANTED} leaves out {name}")
    if name == "cuda" and not torch.cuda.is_available():
        if WANTED == "cuda":
            pytest.fail("HEADDIV_TEST_DEVICE=cuda but torch sees no CUDA device", pytrace=False)
        pytest.skip("no CUDA device here (set HEADDIV_TEST_DEVICE=cuda on a GPU machine to require one)")
    monkeypatch.setenv("HEADDIV_DEVICE", name)
    get_engine_settings.cache_clear()
    yield torch.device(name)
    get_engine_settings.cache_clear()
