"""The compiled NW kernels kept for the next start (`headdiv.workers.engine.kernel_build`): a later start loads
them instead of compiling, with the compiled kernels' very numbers, and the process that builds them ends
with the server."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from headdiv.plumbing.kept import keep
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.workers.engine import kernel_build, nw


@pytest.fixture
def kept_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine_device: torch.device) -> Iterator[Path]:
    """A folder of kept work of this test's own, with no kernel compiled or loaded yet (the CPU's: a GPU
    compiles at every start)."""
    if engine_device.type != "cpu":
        pytest.skip("kernels are kept for the CPU only")
    monkeypatch.setenv("HEADDIV_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("HEADDIV_DTYPE", "float32")
    monkeypatch.setenv("HEADDIV_COMPILE", "auto")
    get_engine_settings.cache_clear()
    monkeypatch.setattr(nw, "_compiled", {})
    monkeypatch.setattr(nw, "_from_kept", set())
    yield tmp_path
    get_engine_settings.cache_clear()


def cases() -> list[tuple[torch.Tensor, ...]]:
    """Inputs of both kernels: key widths from 2 to 32 (narrow up to `nw.NARROW_KEYS`, wide beyond)."""
    g = torch.Generator().manual_seed(7)
    out = []
    for width in (2, 4, 5, 8, 12, 32):
        q, k = torch.randn(37, 11, width, generator=g), torch.randn(37, 129, width, generator=g)
        out.append((q, k, torch.randn(37, 129, generator=g), torch.randn(37, 129, generator=g)))
    return out


@pytest.mark.slow
def test_a_later_start_loads_the_kept_kernels_and_gets_the_compiled_numbers(
    kept_in: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cpu = torch.device("cpu")
    assert nw.warm_up() and not nw.compiled_from_kept()  # the first start compiles
    compiled = [nw.nw_attention(*c, with_stats=True, score_bytes=4096) for c in cases()]
    assert kernel_build.build(torch.float32) and kernel_build.missing(torch.float32) == []

    def no_compiling(fn: Any, **options: Any) -> Any:
        raise AssertionError("compiled again")

    monkeypatch.setattr(nw, "_compiled", {})  # a later start
    monkeypatch.setattr(nw.torch, "compile", no_compiling)
    assert nw.warm_up() and nw.compiled_from_kept(cpu, torch.float32)
    for c, ours in zip(cases(), compiled, strict=True):
        kept = nw.nw_attention(*c, with_stats=True, score_bytes=4096)
        assert all(torch.equal(a, b) for a, b in zip(kept, ours, strict=True))  # the same code, the same numbers
        q, k, _, y = c
        # a view into a larger tensor: read where it starts (a package reads its inputs as contiguous ones), so
        # it gives the very numbers of the same values laid out on their own
        offset = torch.randn(38, 129, generator=torch.Generator().manual_seed(11))[1:]
        kept_offset = nw.nw_attention(q, k, offset, y, score_bytes=4096)[0]
        assert torch.equal(kept_offset, nw.nw_attention(q, k, offset.clone(), y, score_bytes=4096)[0])
        torch.testing.assert_close(kept_offset, nw._nw_plain(q, k.transpose(1, 2), offset, y)[0], rtol=1e-4, atol=1e-5)


def test_the_building_process_runs_as_a_module_and_ends_with_its_server(
    kept_in: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = torch.get_num_threads()
    command = [sys.executable, "-m", kernel_build.MODULE, "float32", str(threads)]
    for kernel in nw.COMPILED_KERNELS:  # packages (stand-ins) already kept: the process finds nothing to build
        keep(nw.KEPT_KIND, nw.kept_name(kernel, torch.float32, threads), b"package")
    assert subprocess.run([*command, str(os.getpid())], timeout=120).returncode == 0
    assert subprocess.run([*command, "1"], timeout=120).returncode == 1  # its server is gone already

    for path in kept_in.rglob("*.pt2"):
        path.unlink()
    stop = threading.Event()
    started: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def spy(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
        process = real(command, **options)
        if kernel_build.MODULE in command:
            started.append(process)
            stop.set()  # the server shuts down as it starts building
        return process

    monkeypatch.setattr(subprocess, "Popen", spy)
    assert not kernel_build.build_elsewhere(stop)
    assert len(started) == 1 and started[0].returncode is not None  # stopped, not left running
    assert kernel_build.missing(torch.float32) == ["wide", "narrow"]


def test_a_build_that_failed_is_not_tried_again_at_every_start(kept_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    real = subprocess.Popen

    def spy(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
        if "headdiv.no_such_module" in command:
            started.append(command)
        return real(command, **options)

    monkeypatch.setattr(subprocess, "Popen", spy)
    monkeypatch.setattr(kernel_build, "MODULE", "headdiv.no_such_module")  # a process that fails at once
    assert not kernel_build.build_elsewhere()
    assert not kernel_build.build_elsewhere()  # the next start: the failure is kept, nothing is started
    assert len(started) == 1
