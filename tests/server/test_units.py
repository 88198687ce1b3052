"""Pure pieces of the service: job identity, result encoding, the LRU bound, settings."""

from __future__ import annotations

import json

import pytest

from headdiv.jobs import ids
from headdiv.jobs.cache.memory_cache import MemoryCache
from headdiv.jobs.cache.result_cache import NonFiniteResult, encode_result
from headdiv.jobs.state import JobError, JobState
from headdiv.schemas import Scenario
from headdiv.schemas.fields import canonical
from headdiv.server.server_settings import ServerSettings


def test_job_id_is_the_same_for_the_same_computation() -> None:
    explicit = Scenario.model_validate({"H": 4, "d_k": 4, "n": 256, "theta": 45, "seed": 0})
    implicit = Scenario.model_validate({})
    assert ids.job_id("simulation", canonical(explicit)) == ids.job_id("simulation", canonical(implicit))
    other = Scenario.model_validate({"seed": 1})
    assert ids.job_id("simulation", canonical(other)) != ids.job_id("simulation", canonical(implicit))


def test_job_id_depends_on_kind_and_engine_version(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = canonical(Scenario())
    first = ids.job_id("simulation", payload)
    assert ids.job_id("surface", payload) != first
    monkeypatch.setattr(ids, "ENGINE_VERSION", "999")
    assert ids.job_id("simulation", payload) != first
    assert len(first) == 64 and all(c in "0123456789abcdef" for c in first)


def test_non_finite_results_cannot_be_encoded() -> None:
    assert json.loads(encode_result({"mse": 1.5, "xs": [1, 2]})) == {"mse": 1.5, "xs": [1, 2]}
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(NonFiniteResult):
            encode_result({"nested": {"values": [0.0, bad]}})


def test_memory_cache_evicts_least_recently_used_by_bytes() -> None:
    cache = MemoryCache(max_bytes=30)
    cache.set("a", b"x" * 10)
    cache.set("b", b"y" * 10)
    cache.set("c", b"z" * 10)
    assert cache.get("a") == b"x" * 10  # a is now the most recent
    cache.set("d", b"w" * 10)  # over 30 bytes: b (least recent) goes
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None and cache.get("d") is not None
    assert cache.size_bytes == 30
    cache.set("huge", b"h" * 31)  # larger than the whole cache: not kept, nothing evicted
    assert cache.get("huge") is None and len(cache) == 3


def test_job_state_json_splices_the_result_bytes() -> None:
    state = JobState.finished("ab" * 32, b'{"mse":0.25}', cached=True)
    assert json.loads(state.to_json()) == {
        "job_id": "ab" * 32,
        "status": "finished",
        "progress": 1.0,
        "cached": True,
        "error": None,
        "cells": None,
        "partial": None,
        "result": {"mse": 0.25},
    }
    failed = JobState(job_id="cd" * 32, status="failed", progress=0.5, error=JobError(message="boom", type="error"))
    assert json.loads(failed.to_json())["error"] == {"message": "boom", "type": "error"}
    assert json.loads(failed.to_json())["result"] is None


def test_settings_derive_api_url_and_cache_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://example:6379/3")
    monkeypatch.setenv("HEADDIV_PORT", "9123")
    s = ServerSettings(host="0.0.0.0")
    assert s.redis_url == "redis://example:6379/3"
    assert s.cache_redis_url == "redis://example:6379/3"
    assert s.api_url == "http://127.0.0.1:9123"
    assert not s.embedded
    monkeypatch.delenv("REDIS_URL")
    assert ServerSettings().embedded
    with pytest.raises(ValueError):
        ServerSettings(heartbeat_interval_s=10, heartbeat_ttl_s=5)


def test_a_simulation_is_hashed_once_its_job_id_is_its_cell_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """Submitting a simulation hashes its request once (the job id); its one cell reuses that id, while a
    surface's cells are each hashed."""
    from headdiv.jobs import cells
    from headdiv.jobs.kinds import job_kind
    from headdiv.schemas import SurfaceRequest

    s = Scenario.model_validate({"H": 2, "replicates": 4, "queries": 2, "n": 16})
    jid = ids.job_id("simulation", canonical(s))
    hashed: list[Scenario] = []
    real = cells.cell_id
    monkeypatch.setattr(cells, "cell_id", lambda scenario: hashed.append(scenario) or real(scenario))
    todo = cells.pending(job_kind("simulation"), s, MemoryCache(1 << 20), jid)
    assert todo.cells is not None and todo.cells.ids == [jid] and hashed == []
    surface = SurfaceRequest.model_validate(
        {
            "base": {"H": 2, "replicates": 4, "queries": 2, "n": 16},
            "x": {"param": "theta", "values": [0, 90]},
            "y": {"param": "noise", "values": [0.5]},
        }
    )
    todo = cells.pending(job_kind("surface"), surface, MemoryCache(1 << 20), "surface-id")
    assert todo.cells is not None and len(hashed) == 2
    assert todo.cells.ids == [ids.job_id("simulation", canonical(c)) for c in surface.scenarios()]


def test_a_cells_cost_is_computed_once_from_its_validation_to_its_last_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The budget check, the job's total, the batches and the progress all read one computed `work` per cell;
    a copy with other fields (or a changed field) is costed again, never served the old figure."""
    from headdiv.jobs import cells
    from headdiv.jobs.kinds import job_kind
    from headdiv.schemas import SurfaceRequest, scenario
    from headdiv.workers.engine.simulation import plan_batches

    counted: list[int] = []
    real = scenario.scenario_counts
    monkeypatch.setattr(scenario, "scenario_counts", lambda s: counted.append(s.H) or real(s))
    surface = SurfaceRequest.model_validate(
        {
            "base": {"H": 2, "replicates": 4, "queries": 2, "n": 16},
            "x": {"param": "theta", "values": [0, 45, 90]},
            "y": {"param": "H", "values": [2, 4]},
        }
    )
    cells_ = surface.scenarios()
    todo = cells.pending(job_kind("surface"), surface, MemoryCache(1 << 20), "surface-id")
    plan_batches(todo.missing, 1e9, 1e9, 10**9)
    assert sorted(counted) == sorted([surface.base.H, *(c.H for c in cells_)])  # the base's own check, each cell
    other = cells_[0].model_copy(update={"H": 8})
    assert other.work > cells_[0].work and other.work == Scenario.model_validate(other.model_dump()).work
    cells_[1].H = 8
    assert cells_[1].work == other.work
