"""The FastAPI application: the API under /api/v1, the job backend, and the dashboard at `/`.

`create_app` picks the mode from the settings: embedded (no REDIS_URL: in-memory LRU cache and an
in-process thread-pool runner) or scaled (Redis cache and RQ queue, run by `headdiv worker`s).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.middleware.gzip import GZipMiddleware

from headdiv.jobs.cache.memory_cache import MemoryCache
from headdiv.server.activity import Activity, ActivityMiddleware
from headdiv.server.admission import Admission, Speed
from headdiv.server.api import error_handlers
from headdiv.server.api.docs_pages import install_docs
from headdiv.server.api.limits import BodyLimitMiddleware
from headdiv.server.api.openapi_schema import install_openapi
from headdiv.server.api.router import api_router, fallback_router
from headdiv.server.api.security import SecurityHeadersMiddleware, content_security_policy, security_headers
from headdiv.server.backends.backend_protocol import JobBackend
from headdiv.server.backends.inline import InlineBackend
from headdiv.server.dashboard_mount import dashboard_app
from headdiv.server.refusals import RefusalLogMiddleware
from headdiv.server.server_settings import ServerSettings, get_server_settings
from headdiv.server.shared_responses import SharedResponseMiddleware, SharedResponses
from headdiv.server.start_up import start_up
from headdiv.workers import __version__

log = logging.getLogger(__name__)
COMPRESS_FROM_BYTES = 1024
API_DESCRIPTION = """Input is strict JSON: numbers are JSON numbers (`"4"` is refused), booleans JSON booleans,
and unknown keys and query parameters are refused (422, naming the field). Rules between fields that JSON
Schema cannot state are listed under `x-rules` in the request's schema and in docs/api.md. Model uploads
need the `X-Headdiv-Upload` header unless they come from this site's own pages (403)."""


def make_backend(settings: ServerSettings) -> JobBackend:
    if settings.redis_url is None:
        backend = InlineBackend(
            MemoryCache(settings.cache_max_bytes),
            settings.runner_threads,
            settings.job_timeout_s,
            Admission.from_settings(settings),
        )
        if settings.work_per_s is not None:
            backend.speed = Speed(settings.work_per_s, settings.work_per_s)
        return backend
    from headdiv.server.backends.rq import RQBackend

    return RQBackend(settings)


def internal_scope(app: FastAPI) -> dict[str, object]:
    """A request of the server's own (building the shared answers before the first visitor comes)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "root_path": "",
        "headers": [(b"host", b"localhost")],
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 0),
        "app": app,
    }


def create_app(settings: ServerSettings | None = None, *, mount_dashboard: bool = True) -> FastAPI:
    settings = settings or get_server_settings()
    backend = make_backend(settings)
    shared = SharedResponses()
    sharing = mount_dashboard and settings.shared_responses
    lazy_bundles: list[str] = []
    activity = Activity()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        backend.start()
        if sharing:  # the first view's page, layout and bundles, compressed before anyone asks
            first = ["/", "/_dash-layout", "/_dash-dependencies", *lazy_bundles]
            warming = asyncio.get_running_loop().create_task(shared.warm(internal_scope(app), first))
        stopped = threading.Event()
        if settings.embedded and (settings.warm_up or settings.warm_start):  # scaled: the workers compute
            threading.Thread(
                target=start_up, args=(backend, settings, activity, stopped), name="headdiv-start-up", daemon=True
            ).start()
        try:
            yield
        finally:
            stopped.set()
            if sharing:
                warming.cancel()
            backend.close()
            aclose = getattr(backend, "aclose", None)
            if aclose is not None:
                await aclose()

    app = FastAPI(
        title="headdiv",
        version=__version__,
        summary="Head diversity in multi-head attention, as an ensemble of Nadaraya-Watson estimators.",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served from the installed package's assets, not a CDN: install_docs below
        redoc_url=None,
        # one schema per model, whether it is read (a request) or written (inside a result): a scenario is both
        separate_input_output_schemas=False,
    )
    app.state.settings = settings
    app.state.backend = backend
    app.state.shared_responses = shared
    error_handlers.install(app)
    app.add_middleware(
        BodyLimitMiddleware,
        max_body_bytes=settings.max_body_bytes,
        max_upload_bytes=settings.max_upload_bytes,
        body_timeout_s=settings.body_timeout_s,
        body_deadline_s=settings.body_deadline_s,
    )
    # Dash's bundles (plotly alone is 3.5 MB) and large results shrink 3-10x; small answers are left alone.
    app.add_middleware(GZipMiddleware, minimum_size=COMPRESS_FROM_BYTES)
    install_openapi(app)
    script_hashes = install_docs(app)
    app.include_router(api_router)
    app.include_router(fallback_router)
    if mount_dashboard:
        dashboard = dashboard_app(
            settings.api_url or "",
            public_url=settings.public_url,
            upload_limit=settings.max_upload_bytes,
            body_limit=settings.max_body_bytes,
        )
        script_hashes += dashboard.script_hashes
        lazy_bundles += dashboard.lazy_bundles
        app.mount("/", dashboard.app)
    if sharing:  # the same page, layout and bundles for every visitor: built and compressed once (outside GZip)
        app.add_middleware(SharedResponseMiddleware, store=shared)
    # outermost: every response, the 413/408 of the body limits included, carries the headers
    csp = content_security_policy(script_hashes, settings.framing_origins)
    app.add_middleware(SecurityHeadersMiddleware, csp=csp)
    # around everything: one log line per refused request, with the reason its answer gave; when people last
    # asked something (the start-up's compilation waits for a quiet moment)
    app.add_middleware(RefusalLogMiddleware)
    app.add_middleware(ActivityMiddleware, activity=activity)
    # a bug's 500 is answered by Starlette's outermost middleware, past the one above: it gets the headers
    # here, and a plain sentence (the traceback goes to the log)
    crash_headers = {name.decode(): value.decode() for name, value in security_headers(csp)}

    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
        text = "internal error; the server's log has the details"
        return JSONResponse({"detail": text, "message": text}, status_code=500, headers=crash_headers)

    app.add_exception_handler(Exception, on_crash)
    return app
