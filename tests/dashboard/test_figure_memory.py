"""The live charts and the pure callbacks keep their answers in one memory per app, under one byte bound
(`headdiv/dashboard/drawing/figure_memory.py`): whichever is busy uses the room, and neither's keys meet the other's."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from headdiv.dashboard.drawing import figure_memory as memory_module
from headdiv.dashboard.drawing.figure_memory import figure_memory, new_memory
from headdiv.dashboard.drawing.live import FigureCache, figure_key, variant_of
from headdiv.dashboard.drawing.shared_callbacks import SharedCallbacks, shared_callbacks
from headdiv.dashboard.page.app import create_dash_app
from headdiv.dashboard.teaching.tours import expand
from headdiv.dashboard.views import ensemble_view as ensemble

ANSWER = (200, b"y" * 40, "application/json")


def test_one_bound_for_both_and_one_key_is_two_entries() -> None:
    memory = new_memory(100)
    figures, callbacks = FigureCache(memory=memory), SharedCallbacks(memory=memory)
    figures.put("k", b"x" * 40)
    callbacks.put("k", *ANSWER)  # the same key, the other kind: both kept
    assert figures.get("k") == b"x" * 40 and callbacks.get("k") == ANSWER
    callbacks.put("k2", *ANSWER)  # past the one bound: the oldest entry goes, whichever side it came from
    assert figures.get("k") is None and callbacks.get("k") == ANSWER and callbacks.get("k2") == ANSWER
    assert memory.size_bytes == 80


def test_the_apps_live_path_and_callbacks_share_the_memory_the_one_setting_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(memory_module, "FIGURE_CACHE_BYTES", 1000)
    app = create_dash_app("http://127.0.0.1:9")  # no API: the live path answers only from memory
    memory = figure_memory(app)
    assert memory.max_bytes == 1000 and shared_callbacks(app).memory is memory
    query = "tab=ensemble&theta=33"
    state = app.headdiv_registry.parse(expand(query))  # type: ignore[attr-defined]
    (part,) = ensemble.VIEW.live
    req = part.request(state)
    assert req is not None
    key = ("live", figure_key("ensemble", req, variant_of(state, part)))
    memory.put(key, b'{"key":"k","charts":{}}')
    client: Any = app.server.test_client()
    cached = client.get(f"/_live?{query}")
    assert cached.status_code == 200 and cached.headers["x-headdiv-live"] == "cached"
    shared_callbacks(app).put("body", 200, b"x" * 990, "application/json")  # the callbacks' side fills the bound
    assert memory.get(key) is None
    assert client.get(f"/_live?{query}").status_code != 200  # to be drawn again, and the API is gone


@pytest.mark.parametrize(("setting", "bound"), [("12345", 12345), (None, (32 + 16) << 20)], ids=["set", "default"])
def test_the_bound_is_read_from_the_one_setting(setting: str | None, bound: int) -> None:
    """The default is what the two caches it replaced held together (32 MiB of figures, 16 MiB of answers)."""
    env = {k: v for k, v in os.environ.items() if k != "HEADDIV_FIGURE_CACHE_BYTES"}
    if setting is not None:
        env["HEADDIV_FIGURE_CACHE_BYTES"] = setting
    code = "from headdiv.dashboard.drawing.figure_memory import FIGURE_CACHE_BYTES as B; print(B)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == str(bound), done.stderr
