"""The `headdiv` command: run the app, a queue worker, the dashboard alone, or the engine on one request.

Heavy imports (torch, the engine, FastAPI, Dash) happen inside the subcommand that needs them, so
`headdiv --help` and input errors answer at once. Engine commands take a JSON request (literal, `@file`
or `-` for stdin), validate it with the same pydantic model the HTTP API uses, and print the result as
JSON on stdout; progress and errors go to stderr. Bad input exits with status 2 and one
`<field>: <reason>` line per problem, never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from headdiv.workers.jobs.kinds import JOB_KINDS, JobKind
from headdiv.workers.schemas import HDIRequest, TheoryQuery
from headdiv.workers.schemas.fields import error_lines

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8050
DEFAULT_DASHBOARD_PORT = 8051


Handler = Callable[[argparse.Namespace, TextIO, TextIO], int]
"""What a subcommand runs: (arguments, stdout, stderr) -> exit status."""


class InputError(Exception):
    """Input the user must fix: each entry of `problems` is one `<field>: <reason>` line."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


# ---------------------------------------------------------------------------------------------------------------
# Small pure helpers (tested directly)


def bounded_int(name: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a whole number in low..high, whose errors name the option."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must lie in {low}..{high}, got {value}")
        return value

    return parse


port_number = bounded_int("port", 1, 65535)
nice_increment = bounded_int("nice", 0, 19)


def browser_url(host: str, port: int) -> str:
    """The address to type in a browser: a wildcard bind address is reached through the loopback."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def listen(host: str, port: int, err: TextIO, hint: str) -> socket.socket | None:
    """A socket bound to (host, port), or None after one line on `err` saying why not and what to do.

    Bound here rather than by uvicorn, so a busy port is one readable line (and a non-zero status)
    instead of a logged `[Errno 98]` after the URL was already printed as if all were well."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        print(f"headdiv: cannot listen on {host}:{port}: {exc.strerror or exc}", file=err, flush=True)
        return None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: restarts reuse the port
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            print(f"headdiv: port {port} on {host} is already in use; {hint}", file=err, flush=True)
        else:
            print(f"headdiv: cannot listen on {host}:{port}: {exc.strerror or exc}", file=err, flush=True)
        return None
    sock.set_inheritable(True)
    return sock


def redact_url(url: str) -> str:
    """A connection URL fit to print: the password, if any, is replaced by `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def read_json_argument(argument: str, stdin: TextIO) -> Any:
    """Parse the request: a JSON literal, `@path` for a file, or `-` for standard input."""
    if argument == "-":
        text, source = stdin.read(), "stdin"
    elif argument.startswith("@"):
        path = argument[1:]
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise InputError([f"input: cannot read {path!r}: {reason}"]) from None
        source = path
    else:
        text, source = argument, "argument"
    if not text.strip():
        raise InputError([f"input: the {source} is empty; expected a JSON object"])
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            [f"input: invalid JSON in the {source} at line {exc.lineno} column {exc.colno}: {exc.msg}"]
        ) from None
    except RecursionError:
        raise InputError([f"input: the JSON in the {source} is nested too deeply"]) from None


def settings_problems(exc: ValidationError, prefix: str = "HEADDIV_") -> list[str]:
    """Errors in settings read from the environment, each named by its environment variable."""
    lines = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error.get("loc", ())]
        name = loc[0] if loc else "settings"
        variable = name if name.isupper() else f"{prefix}{name.upper()}"
        lines.append(f"{variable}: {error.get('msg', 'invalid')}")
    return lines


def load_engine_settings() -> None:
    """Read the engine's settings now, so a bad HEADDIV_ variable is reported as such, not as a field."""
    from pydantic import ValidationError

    from headdiv.workers.settings import get_engine_settings

    try:
        get_engine_settings()
    except ValidationError as exc:
        raise InputError(settings_problems(exc)) from None


def validate(model: type[BaseModel], data: Any) -> Any:
    """`model.model_validate(data)`, with every problem turned into an `InputError`."""
    from pydantic import ValidationError

    if not isinstance(data, dict):
        raise InputError([f"input: expected a JSON object, got {type(data).__name__}"])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(error_lines(exc.errors(include_url=False))) from None
    except (ValueError, RecursionError) as exc:
        raise InputError([f"input: {exc}"]) from None


def jsonable(value: Any) -> Any:
    """Plain JSON types for `json.dumps`: numpy values become Python ones, NaN and infinities null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays, torch tensors
    if callable(tolist):
        return jsonable(tolist())
    return str(value)


class ProgressPrinter:
    """Prints `label: NN%` to stderr each time the progress has moved by at least `step` percent."""

    def __init__(self, label: str, stream: TextIO, step: int = 5) -> None:
        self.label = label
        self.stream = stream
        self.step = step
        self.last = -step

    def __call__(self, fraction: float) -> None:
        percent = int(max(0.0, min(1.0, float(fraction))) * 100)
        if percent - self.last >= self.step or (percent == 100 and self.last != 100):
            self.last = percent
            print(f"{self.label}: {percent}%", file=self.stream, flush=True)


# ---------------------------------------------------------------------------------------------------------------
# Engine commands: one per job kind (workers.jobs.kinds), plus the two instant computations.


@dataclass(frozen=True)
class EngineCommand:
    name: str
    help: str
    model: type[BaseModel]
    run: Callable[[Any, argparse.Namespace, TextIO], dict[str, Any]]
    example: str
    uses_device: bool = True


def describe_request(request: Any) -> str:
    """What a job request will run: its size for one simulation, its number of runs for many."""
    if not hasattr(request, "scenarios"):  # a kind not made of simulations declares its own work
        return f"{type(request).__name__} ({float(getattr(request, 'work', 0.0)):.3g} work units)"
    cells = request.scenarios()
    work = sum(c.work for c in cells)
    if len(cells) == 1:
        c = cells[0]
        return f"H={c.H} d_k={c.d_k} n={c.n} replicates={c.replicates} queries={c.queries} ({work:.3g} work units)"
    return f"{len(cells)} runs ({work:.3g} work units)"


def _job_command(kind: JobKind) -> EngineCommand:
    def run(request: Any, args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
        print(f"{kind.command}: {describe_request(request)}", file=err, flush=True)
        from headdiv.workers.jobs.runner import run_job

        progress = ProgressPrinter(kind.command, err)
        return run_job(kind.name, request, progress=progress, device=args.device, dtype=args.dtype)

    return EngineCommand(kind.command, kind.summary, kind.request, run, f"headdiv {kind.command} '{kind.example}'")


def _run_hdi(request: Any, args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
    import numpy as np

    from headdiv.workers import reports
    from headdiv.workers.schemas.requests import MAX_LISTED_ANGLES, MAX_LISTED_PAIRS

    matrices = [np.asarray(m, dtype=np.float64) for m in request.matrices]
    return reports.hdi(matrices, max_angle_pairs=MAX_LISTED_PAIRS, max_angles=MAX_LISTED_ANGLES)


def _run_theory(request: Any, args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
    from headdiv.workers import reports

    return reports.theory(request)


ENGINE_COMMANDS: tuple[EngineCommand, ...] = (
    *(_job_command(kind) for kind in JOB_KINDS.values()),
    EngineCommand(
        "hdi",
        "Compute the Head Diversity Index, overlaps and principal angles of head matrices (each p x d).",
        HDIRequest,
        _run_hdi,
        """headdiv hdi '{"matrices": [[[1, 0], [0, 1], [0, 0]], [[1, 0], [0, 0], [0, 1]]]}'""",
        uses_device=False,
    ),
    EngineCommand(
        "theory",
        "Evaluate the paper's closed-form architecture objective (n, budget, c1, c2) and its minimisers.",
        TheoryQuery,
        _run_theory,
        """headdiv theory '{"n": 1024, "budget": 64}'""",
        uses_device=False,
    ),
)


def _engine_main(command: EngineCommand, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    load_engine_settings()
    data = read_json_argument(args.input, sys.stdin)
    request = validate(command.model, data)
    started = time.perf_counter()
    try:
        result = command.run(request, args, err)
    except Exception as exc:
        # The engine refuses a request it cannot run (EngineError) or fails outright; either way the
        # user gets one readable line and a non-zero status. HEADDIV_DEBUG=1 shows the traceback.
        if os.environ.get("HEADDIV_DEBUG") == "1":
            raise
        from headdiv.workers.jobs.failures import describe_failure

        reason = describe_failure(exc).message
        prefix = "" if reason.startswith("internal error") else "error: "
        print(f"{command.name}: {prefix}{reason}", file=err, flush=True)
        return EXIT_FAILED
    text = json.dumps(jsonable(result), indent=2 if args.pretty else None, allow_nan=False)
    out.write(text + "\n")
    out.flush()
    print(f"{command.name}: done in {time.perf_counter() - started:.2f} s", file=err, flush=True)
    return EXIT_OK


# ---------------------------------------------------------------------------------------------------------------
# Service commands


def _serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import uvicorn
    from pydantic import ValidationError

    from headdiv.server.main import create_app
    from headdiv.server.settings import ServerSettings

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
    config = uvicorn.Config(
        create_app(settings), host=settings.host, port=settings.port, access_log=settings.access_log
    )
    uvicorn.Server(config).run(sockets=[sock])
    return EXIT_OK


def _worker(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    redis_url = args.redis_url or os.environ.get("REDIS_URL")
    if not redis_url:
        print(
            "worker: REDIS_URL is not set: a worker takes its jobs from Redis. Set REDIS_URL "
            "(e.g. redis://127.0.0.1:6379/0) or pass --redis-url; without Redis, `headdiv serve` runs jobs itself.",
            file=err,
            flush=True,
        )
        return EXIT_USAGE
    from headdiv.workers.queue.settings import get_worker_settings

    settings = get_worker_settings()
    # A worker often shares its machine with the API and Redis, and its jobs are batch work while the
    # API answers people: a lower priority lets every cache hit and poll take a core at once (see the
    # README's load test), and costs a job nothing when the machine is otherwise idle. Threads inherit
    # it, so it is set before torch starts its pools.
    nice = settings.worker_nice if args.nice is None else args.nice
    if nice:
        os.nice(nice)
    # Idle OpenMP threads that spin for work steal the API's CPU too, for ~10-30% of engine speed.
    # Read by libgomp when torch loads, so it must be set before the import below.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from headdiv.workers.queue.worker import run_worker

    queues = args.queue or (
        [settings.fast_queue_name]
        if args.fast_lane
        else [settings.fast_queue_name, settings.queue_name, settings.low_queue_name]
    )
    print(
        f"headdiv worker: Redis at {redact_url(redis_url)}, queues {', '.join(queues)}, CPU priority nice {os.nice(0)}"
        f"{' (burst: exits when they are empty)' if args.burst else ''}",
        file=out,
        flush=True,
    )
    run_worker(redis_url, queues, burst=args.burst)
    return EXIT_OK


def _heads(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """A trained model's heads measured, clustered and ranked (the Real models view, docs/model.md section 9):
    a built-in model by name or a .safetensors file; JSON, or one CSV row per head with `--csv`."""
    from headdiv.workers import reports
    from headdiv.workers.errors import ModelFileError
    from headdiv.workers.schemas.builtin_models import BUILTINS
    from headdiv.workers.schemas.tables import head_clusters_csv

    try:
        if args.model in BUILTINS:
            result = reports.builtin_heads(args.model, args.seed)
        elif Path(args.model).is_file():
            path = Path(args.model)
            result = reports.model_heads(
                path, num_heads=args.num_heads, num_kv_heads=args.num_kv_heads, seed=args.seed, model=path.name
            )
        else:
            known = ", ".join(sorted(BUILTINS))
            raise InputError([f"model: {args.model!r} is neither a built-in model ({known}) nor a file"])
    except LookupError as exc:  # a built-in whose package is not installed
        raise InputError([f"model: {exc.args[0] if exc.args else exc}"]) from None
    except ModelFileError as exc:
        raise InputError([f"model: {exc}"]) from None
    out.write((head_clusters_csv(result) if args.csv else json.dumps(result, indent=1 if args.pretty else None)) + "\n")
    out.flush()
    return EXIT_OK


def _warm(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Enqueue the dashboard's first computations at low priority on a scaled set-up's queue."""
    from pydantic import ValidationError

    from headdiv.server.settings import ServerSettings

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
    from headdiv.server.backends.rq import RQBackend
    from headdiv.server.main import warm_requests
    from headdiv.workers.jobs.ids import canonical_payload, job_id

    backend = RQBackend(settings)
    requests = warm_requests()
    for kind, request in requests:
        state = backend.submit(kind.name, request, job_id(kind.name, canonical_payload(request)), background=True)
        print(f"warm: {kind.name} {state.job_id[:12]} {state.status}", file=out, flush=True)
    print(f"warm: {len(requests)} computations submitted on queue {settings.low_queue_name}", file=out, flush=True)
    return EXIT_OK


def _dashboard(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import uvicorn
    from starlette.middleware.gzip import GZipMiddleware

    from headdiv.server.api.security import SecurityHeadersMiddleware, content_security_policy
    from headdiv.server.dashboard_mount import dashboard_app
    from headdiv.server.main import COMPRESS_FROM_BYTES

    api_url = args.api_url or os.environ.get("HEADDIV_API_URL") or f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
    dashboard = dashboard_app(api_url)
    csp = content_security_policy(dashboard.script_hashes)
    sock = listen(args.host, args.port, err, "choose another with --port N")
    if sock is None:
        return EXIT_FAILED
    print(f"headdiv dashboard: talking to the API at {api_url}", file=out, flush=True)
    print(f"headdiv dashboard: open {browser_url(args.host, args.port)} in a browser", file=out, flush=True)
    served = GZipMiddleware(dashboard.app, minimum_size=COMPRESS_FROM_BYTES)
    config = uvicorn.Config(SecurityHeadersMiddleware(served, csp=csp), host=args.host, port=args.port)
    uvicorn.Server(config).run(sockets=[sock])
    return EXIT_OK


# ---------------------------------------------------------------------------------------------------------------
# The parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="headdiv",
        description="headdiv: an interactive lab for head diversity in multi-head attention "
        "(attention heads as an ensemble of Nadaraya-Watson estimators).",
        epilog="Run `headdiv serve` and open the printed URL for the dashboard; `headdiv COMMAND --help` for more.",
    )
    from headdiv.workers import __version__

    parser.add_argument("--version", action="version", version=f"headdiv {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def service(name: str, handler: Handler, summary: str, description: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, help=summary, description=description)
        command.set_defaults(handler=handler)
        return command

    serve = service(
        "serve",
        _serve,
        "Run the API and the dashboard (embedded by default; with REDIS_URL, jobs go to workers).",
        "Run the HTTP API (/api/v1, docs at /docs) and the dashboard (/) in one process. "
        "Without REDIS_URL everything is embedded: an in-process job runner and an in-memory cache. "
        "With REDIS_URL set, results are cached in Redis and jobs queue for `headdiv worker` processes. "
        "Prints the URL to open.",
    )
    serve.add_argument("--host", help=f"address to bind (default from HEADDIV settings, else {DEFAULT_HOST})")
    serve.add_argument("--port", type=port_number, help=f"port to listen on (default {DEFAULT_PORT})")

    worker = service(
        "worker",
        _worker,
        "Run an RQ worker that computes queued jobs (needs REDIS_URL).",
        "Run a queue worker: it loads torch once and computes the jobs that `headdiv serve` "
        "enqueues on Redis. Needs REDIS_URL. Run one per GPU (CUDA_VISIBLE_DEVICES=i).",
    )
    worker.add_argument("--redis-url", help="Redis to take jobs from (default: the REDIS_URL environment variable)")
    worker.add_argument(
        "--queue", action="append", metavar="NAME", help="queue to listen on (repeatable; default: the app's queues)"
    )
    worker.add_argument(
        "--fast-lane",
        action="store_true",
        help="take only small jobs (at most HEADDIV_FAST_LANE_WORK), so they never wait behind long ones",
    )
    worker.add_argument("--burst", action="store_true", help="exit once the queues are empty")
    worker.add_argument(
        "--nice",
        type=nice_increment,
        help="lower this worker's CPU priority by N (0-19) so the API on the same machine answers first "
        "(default: HEADDIV_WORKER_NICE, 10)",
    )

    service(
        "warm",
        _warm,
        "Compute the dashboard's first views ahead of users, at low priority (scaled set-up).",
        "Enqueue every tab's default computation and every preset's on the low-priority queue of the Redis "
        "at REDIS_URL, so that newcomers' first clicks are cache hits. Workers take low-priority jobs only "
        "when no other job waits. An embedded `headdiv serve` does this by itself after it starts.",
    )

    heads = service(
        "heads",
        _heads,
        "Measure a trained model's heads: HDI per layer, heads clustered and ranked by diversity contribution.",
        "Per-layer key and query HDI of a built-in model (by name) or a .safetensors file, with each layer's "
        "heads clustered by their principal angles and ranked by how much diversity the layer loses without "
        "each one (a pruning forecast). Prints JSON, or with --csv one row per head.",
    )
    heads.add_argument("model", help="a built-in model's name (see GET /api/v1/models/builtin) or a .safetensors file")
    heads.add_argument("--num-heads", type=int, help="query heads per layer, when the file's metadata lacks them")
    heads.add_argument("--num-kv-heads", type=int, help="key/value heads per layer (grouped-query models)")
    heads.add_argument("--seed", type=int, default=0, help="seed of the random-subspace baseline (default 0)")
    heads.add_argument("--csv", action="store_true", help="print the heads clustered and ranked as CSV")
    heads.add_argument("--pretty", action="store_true", help="indent the JSON output")

    dashboard = service(
        "dashboard",
        _dashboard,
        "Run the dashboard alone, talking to a separate API over HTTP.",
        "Serve the Dash dashboard by itself; it calls the headdiv API at --api-url "
        "(for a split deployment such as docker compose). `headdiv serve` already includes the dashboard.",
    )
    dashboard.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    dashboard.add_argument(
        "--port", type=port_number, default=DEFAULT_DASHBOARD_PORT, help=f"port (default {DEFAULT_DASHBOARD_PORT})"
    )
    dashboard.add_argument(
        "--api-url",
        help=f"base URL of the headdiv API (default: HEADDIV_API_URL, else http://{DEFAULT_HOST}:{DEFAULT_PORT})",
    )

    for command in ENGINE_COMMANDS:
        p = sub.add_parser(
            command.name,
            help=command.help,
            description=f"{command.help} The request is JSON: a literal, @FILE, or - for standard input. "
            "Missing fields take their defaults. The result is printed as JSON on stdout; progress on stderr. "
            "Invalid input exits with status 2 and one `field: reason` line per problem.",
            epilog=f"example: {command.example}",
        )
        p.add_argument("input", metavar="JSON", help="the request: a JSON object, @FILE, or - for stdin")
        if command.uses_device:
            p.add_argument(
                "--device",
                choices=["auto", "cpu", "cuda"],
                help="where to compute (default: HEADDIV_DEVICE, else auto)",
            )
            p.add_argument(
                "--dtype", choices=["float32", "float64"], help="float precision (default: HEADDIV_DTYPE, else float32)"
            )
        p.add_argument("--pretty", action="store_true", help="indent the JSON output")
        p.set_defaults(handler=lambda a, o, e, c=command: _engine_main(c, a, o, e), device=None, dtype=None)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `headdiv` console script; returns the exit status."""
    # The NumPy side of the engine works on small matrices, where a multi-threaded BLAS only adds
    # spin-waiting (10-100x slower on a busy 2-core machine); torch keeps its own intra-op threads.
    # Set before NumPy is first imported, and only as defaults the user's environment overrides.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args = build_parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        status: int = args.handler(args, out, err)
    except InputError as exc:
        for line in exc.problems:
            print(line, file=err)
        err.flush()
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=err, flush=True)
        return EXIT_INTERRUPTED
    return status


if __name__ == "__main__":
    raise SystemExit(main())
