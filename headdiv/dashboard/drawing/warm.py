"""What a newcomer's first clicks compute: the default state of every tab, and every preset.

The server computes these in the background after it starts (embedded) or on `headdiv warm` (scaled),
at low priority, so that opening the dashboard or clicking a preset finds its results in the cache.
Read from the views' own job declarations and the presets, so a new tab or preset is warmed too.
"""

from __future__ import annotations

from headdiv.dashboard.drawing.view_jobs import Request, request_key
from headdiv.dashboard.page.app import build_registry
from headdiv.dashboard.page.sidebar_simulation import simulation_request
from headdiv.dashboard.teaching.presets import PRESETS
from headdiv.dashboard.views import VIEWS


def warm_requests() -> list[Request]:
    """(API path, body) of each computation, each once: every tab's default, then each preset's tab."""
    registry = build_registry(VIEWS)
    found: dict[str, Request] = {}

    def add(request: Request | None) -> None:
        if request is not None:
            found.setdefault(request_key(request), request)

    default = registry.parse("")
    add(simulation_request(default))
    for view in VIEWS:
        for job in view.jobs:
            add(job.build(default))
    for preset in PRESETS:
        state = registry.parse(preset.query)
        add(simulation_request(state))
        for view in VIEWS:
            if view.id == state.get("tab"):
                for job in view.jobs:
                    add(job.build(state))
    return list(found.values())
