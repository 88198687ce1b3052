"""The engine as this process runs it for the Python calls: compiled first, as every server's is."""

from __future__ import annotations

import threading
from collections.abc import Callable

_ENGINE_LOCK = threading.Lock()
_ENGINE_TRIED: list[bool] = []


def engine_ready(note: Callable[[str], None] | None = None) -> None:
    """Compile the engine's NW step before this process's first computation, as every server does at its
    start (`HEADDIV_COMPILE`, default auto): the compiled step and the eager one agree only to float rounding
    (the 8th or 9th digit in float32), so a result computed here has a server's very digits only when both
    ran the compiled one. Once per process, with `note` told first (the compilation takes seconds, a minute
    the first time on a machine); a compilation that fails (no C++ compiler) is not retried, and leaves the
    eager step, as it does on a server of this machine. `HEADDIV_COMPILE=off` skips it here as there."""
    with _ENGINE_LOCK:
        if _ENGINE_TRIED:
            return
        from headdiv.schemas.engine_settings import get_engine_settings
        from headdiv.workers import instant_reports

        if note is not None and get_engine_settings().compile != "off":
            note("compiling the engine, once per process")
        instant_reports.warm_up()
        _ENGINE_TRIED.append(True)
