"""The service subcommands: `serve` (API and dashboard), `worker`, `warm` and `dashboard` (alone)."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

from headdiv.cli.command_basics import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    InputError,
    browser_url,
    listen,
    load_engine_settings,
    redact_url,
    settings_problems,
)


def serve_main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from pydantic import ValidationError

    from headdiv.plumbing.vouching import dashboard_key
    from headdiv.server import Server, ServerSettings, create_app, uvicorn_config

    overrides: dict[str, Any] = {}
    if args.host is not None:
        overrides["host"] = args.host
    if args.port is not None:
        overrides["port"] = args.port
    try:
        settings = ServerSettings(**overrides)
    except ValidationError as exc:
        raise InputError(settings_problems(exc)) from None
    load_engine_settings()
    redis_url = getattr(settings, "redis_url", None)
    if args.workers > 1 and not redis_url:
        raise InputError(
            [
                "--workers: more than one API process needs REDIS_URL, to share the cache, the jobs and the "
                "class polls; one embedded process serves a lecture hall on its own (docs/deploy.md)"
            ]
        )
    if redis_url:
        mode = (
            f"scaled: jobs queue on Redis at {redact_url(str(redis_url))} and run in `headdiv worker` processes "
            "(start at least one)"
        )
    else:
        mode = "embedded: API, dashboard, job runner and cache in this one process (set REDIS_URL to scale out)"
    sock = listen(
        settings.host,
        settings.port,
        err,
        "choose another with --port N (or HEADDIV_PORT=N; with make, `make run PORT=N`)",
    )
    if sock is None:
        return EXIT_FAILED
    print(f"headdiv: {mode}", file=out, flush=True)
    print(f"headdiv: open {browser_url(settings.host, settings.port)} in a browser", file=out, flush=True)
    dashboard_key()  # made here once, so every API process started below vouches alike
    if args.workers == 1:
        config = uvicorn_config(
            create_app(settings), settings, settings.host, settings.port, access_log=settings.access_log
        )
        Server(config).run(sockets=[sock])
        return EXIT_OK
    # several processes on the one socket: each builds the app from the environment (the host and port
    # chosen here included, so that its dashboard calls this server's API)
    from uvicorn.supervisors import Multiprocess

    os.environ.update({"HEADDIV_HOST": settings.host, "HEADDIV_PORT": str(settings.port)})
    print(f"headdiv: {args.workers} API processes", file=out, flush=True)
    config = uvicorn_config(
        "headdiv.server.main:create_app",
        settings,
        settings.host,
        settings.port,
        workers=args.workers,
        access_log=settings.access_log,
    )
    Multiprocess(config, sockets=[sock]).run()
    return EXIT_OK


def worker_main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    redis_url = args.redis_url or os.environ.get("REDIS_URL")
    if not redis_url:
        print(
            "worker: REDIS_URL is not set: a worker takes its jobs from Redis. Set REDIS_URL "
            "(e.g. redis://127.0.0.1:6379/0) or pass --redis-url; without Redis, `headdiv serve` runs jobs itself.",
            file=err,
            flush=True,
        )
        return EXIT_USAGE
    from headdiv.workers.queue.worker_settings import get_worker_settings

    settings = get_worker_settings()
    # A worker often shares its machine with the API and Redis, and its jobs are batch work while the
    # API answers people: a lower priority lets every cache hit and poll take a core at once (see the
    # load test in docs/performance.md), and costs a job nothing when the machine is otherwise idle. Threads inherit
    # it, so it is set before torch starts its pools.
    nice = settings.worker_nice if args.nice is None else args.nice
    if nice:
        os.nice(nice)
    # Idle OpenMP threads that spin for work steal the API's CPU too, for ~10-30% of engine speed.
    # Read by libgomp when torch loads, so it must be set before the import below.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from headdiv.schemas.errors import EngineError
    from headdiv.workers.queue.device_info import describe_memory, device_probe
    from headdiv.workers.queue.worker import run_worker

    try:
        probe = device_probe()
    except EngineError as exc:
        print(f"worker: {exc}", file=err, flush=True)
        return EXIT_USAGE
    queues = args.queue or (
        [settings.fast_queue_name]
        if args.fast_lane
        else [settings.fast_queue_name, settings.queue_name, settings.low_queue_name]
    )
    print(
        f"headdiv worker: device {probe.label}{describe_memory(probe.memory())}, Redis at {redact_url(redis_url)}, "
        f"queues {', '.join(queues)}, CPU priority nice {os.nice(0)}"
        f"{' (burst: exits when they are empty)' if args.burst else ''}",
        file=out,
        flush=True,
    )
    run_worker(redis_url, queues, burst=args.burst)
    return EXIT_OK


def warm_main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Enqueue the dashboard's first computations at low priority on a scaled set-up's queue."""
    from pydantic import ValidationError

    from headdiv.server import ServerSettings

    try:
        settings = ServerSettings()
    except ValidationError as exc:
        raise InputError(settings_problems(exc)) from None
    if settings.embedded:
        print(
            "warm: REDIS_URL is not set; an embedded `headdiv serve` warms its own cache after it starts "
            "(HEADDIV_WARM_START), so there is nothing to enqueue",
            file=err,
            flush=True,
        )
        return EXIT_USAGE
    from headdiv.jobs.ids import job_id
    from headdiv.schemas.fields import canonical
    from headdiv.server import RQBackend, warm_requests

    backend = RQBackend(settings)
    requests = warm_requests()
    for kind, request in requests:
        state = backend.submit(kind.name, request, job_id(kind.name, canonical(request)), background=True)
        print(f"warm: {kind.name} {state.job_id[:12]} {state.status}", file=out, flush=True)
    print(f"warm: {len(requests)} computations submitted on queue {settings.low_queue_name}", file=out, flush=True)
    return EXIT_OK


def dashboard_main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from starlette.middleware.gzip import GZipMiddleware

    from headdiv.server import (
        COMPRESS_FROM_BYTES,
        RefusalLogMiddleware,
        SecurityHeadersMiddleware,
        Server,
        ServerSettings,
        content_security_policy,
        dashboard_app,
        uvicorn_config,
    )

    settings = ServerSettings()
    api_url = args.api_url or settings.api_url or f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
    dashboard = dashboard_app(api_url, body_limit=settings.max_body_bytes)
    csp = content_security_policy(dashboard.script_hashes, settings.framing_origins)
    sock = listen(args.host, args.port, err, "choose another with --port N")
    if sock is None:
        return EXIT_FAILED
    print(f"headdiv dashboard: talking to the API at {api_url}", file=out, flush=True)
    print(f"headdiv dashboard: open {browser_url(args.host, args.port)} in a browser", file=out, flush=True)
    served = GZipMiddleware(dashboard.app, minimum_size=COMPRESS_FROM_BYTES)
    guarded = RefusalLogMiddleware(SecurityHeadersMiddleware(served, csp=csp))
    config = uvicorn_config(guarded, settings, args.host, args.port)
    Server(config).run(sockets=[sock])
    return EXIT_OK
