"""The FastAPI application: the API under /api/v1, the job backend, and the dashboard at `/`.

`create_app` picks the mode from the settings: embedded (no REDIS_URL: in-memory LRU cache and an
in-process thread-pool runner) or scaled (Redis cache and RQ queue, run by `headdiv worker`s).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from server.api import errors
from server.api.limits import BodyLimitMiddleware
from server.api.router import api_router, fallback_router
from server.cache.memory import MemoryCache
from server.dashboard_mount import dashboard_app
from server.jobs.backend import JobBackend
from server.settings import ServerSettings, get_server_settings
from workers import __version__

log = logging.getLogger(__name__)


def make_backend(settings: ServerSettings) -> JobBackend:
    if settings.redis_url is None:
        from server.jobs.inline import InlineBackend

        return InlineBackend(MemoryCache(settings.cache_max_bytes), settings.runner_threads, settings.job_timeout_s)
    from server.jobs.rq_backend import RQBackend

    return RQBackend(settings)


def _warm_up() -> None:
    """Compile the engine so the first user never waits for it; failures leave the eager path in place."""
    try:
        from workers.engine import warm_up

        warm_up()
    except Exception:
        log.warning("engine warm-up failed; the eager path will be used", exc_info=True)


def create_app(settings: ServerSettings | None = None, *, mount_dashboard: bool = True) -> FastAPI:
    settings = settings or get_server_settings()
    backend = make_backend(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        backend.start()
        if settings.warm_up and settings.embedded:  # in scaled mode the workers compute, not the API
            threading.Thread(target=_warm_up, name="headdiv-warm-up", daemon=True).start()
        try:
            yield
        finally:
            backend.close()
            aclose = getattr(backend, "aclose", None)
            if aclose is not None:
                await aclose()

    app = FastAPI(
        title="headdiv",
        version=__version__,
        summary="Head diversity in multi-head attention, as an ensemble of Nadaraya-Watson estimators.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.backend = backend
    errors.install(app)
    app.add_middleware(
        BodyLimitMiddleware, max_body_bytes=settings.max_body_bytes, max_upload_bytes=settings.max_upload_bytes
    )
    app.include_router(api_router)
    app.include_router(fallback_router)
    if mount_dashboard:
        app.mount("/", dashboard_app(settings.api_url or ""))
    return app
