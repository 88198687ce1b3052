"""The `headdiv` command: run the app, a queue worker, the dashboard alone, or the engine on one request.

Heavy imports (torch, the engine, FastAPI, Dash) happen inside the subcommand that needs them, so
`headdiv --help` and input errors answer at once. Engine commands take a JSON request (literal, `@file`
or `-` for stdin), validate it with the same pydantic model the HTTP API uses, and print the result as
JSON on stdout; progress and errors go to stderr. Bad input exits with status 2 and one
`<field>: <reason>` line per problem, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8050
DEFAULT_DASHBOARD_PORT = 8051


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


def validation_problems(exc: ValidationError) -> list[str]:
    """One `<field>: <reason>` line per pydantic error.

    Cross-field rules already start their message with the field they blame, so an error without a
    location is printed as its message alone.
    """
    lines = []
    for error in exc.errors(include_url=False):
        message = str(error.get("msg", "invalid"))
        for prefix in ("Value error, ", "Assertion failed, "):
            if message.startswith(prefix):
                message = message[len(prefix) :]
        field = ".".join(str(part) for part in error.get("loc", ()))
        lines.append(f"{field}: {message}" if field else message)
    return lines


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

    from workers.settings import get_engine_settings

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
        raise InputError(validation_problems(exc)) from None
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


def describe_failure(exc: BaseException) -> str:
    """`error: <message>` for the engine's own refusals, `internal error (<type>): ...` for bugs."""
    errors = sys.modules.get("workers.engine.errors")
    expected: tuple[type[BaseException], ...] = (ValueError,)
    if errors is not None:
        expected += (errors.EngineError,)
    kind = "error" if isinstance(exc, expected) else f"internal error ({type(exc).__name__})"
    return f"{kind}: {exc}"


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
# Engine commands: one table says which model validates a command's input and which engine call runs it.


@dataclass(frozen=True)
class EngineCommand:
    name: str
    help: str
    model: Callable[[], type[BaseModel]]
    run: Callable[[Any, argparse.Namespace, TextIO], dict[str, Any]]
    example: str
    uses_device: bool = True


def _engine_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"device": args.device, "dtype": args.dtype}


def _run_simulate(request: Any, args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
    from workers.engine import simulate

    print(
        f"simulating H={request.H} d_k={request.d_k} n={request.n} replicates={request.replicates} "
        f"queries={request.queries} ({request.work:.3g} work units)",
        file=err,
        flush=True,
    )
    return simulate(request, **_engine_options(args))


def _run_grid(runner_name: str, label: str) -> Callable[[Any, argparse.Namespace, TextIO], dict[str, Any]]:
    def run(request: Any, args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
        import workers.engine as engine

        runner = getattr(engine, runner_name)
        print(f"{label}: {len(request.scenarios())} runs", file=err, flush=True)
        result: dict[str, Any] = runner(request, progress=ProgressPrinter(label, err), **_engine_options(args))
        return result

    return run


def _run_hdi(request: Any, args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
    import numpy as np

    from workers.engine import hdi_report

    return hdi_report([np.asarray(m, dtype=np.float64) for m in request.matrices])


def _run_theory(request: Any, args: argparse.Namespace, err: TextIO) -> dict[str, Any]:
    import workers.engine as engine

    result: dict[str, Any] = engine.architecture_theory(request)
    return result


def _model(name: str) -> Callable[[], type[BaseModel]]:
    def load() -> type[BaseModel]:
        import workers.schemas as schemas

        model: type[BaseModel] = getattr(schemas, name)
        return model

    return load


ENGINE_COMMANDS: tuple[EngineCommand, ...] = (
    EngineCommand(
        "simulate",
        "Run one Monte Carlo simulation of a scenario and print its bias-variance-covariance decomposition.",
        _model("Scenario"),
        _run_simulate,
        """headdiv simulate '{"H": 8, "d_k": 4, "theta": 60, "replicates": 100}'""",
    ),
    EngineCommand(
        "surface",
        "Simulate a grid over two scenario parameters (x and y) and print every metric per cell.",
        _model("SurfaceRequest"),
        _run_grid("run_surface", "surface"),
        """headdiv surface '{"x": {"param": "theta", "values": [0, 45, 90]}, "y": {"param": "H", "values": [2, 4]}}'""",
    ),
    EngineCommand(
        "architecture",
        "Simulate every split H x d_k of a total head dimension (budget) and print the best one.",
        _model("ArchitectureRequest"),
        _run_grid("run_architecture", "architecture"),
        """headdiv architecture '{"budget": 16, "base": {"replicates": 50}}'""",
    ),
    EngineCommand(
        "sweep",
        "Sweep the angle between equiangular heads and print MSE against HDI with the paper's bound (4.4).",
        _model("DiversitySweepRequest"),
        _run_grid("run_diversity_sweep", "sweep"),
        """headdiv sweep '{"thetas": [0, 30, 60, 90], "base": {"replicates": 50}}'""",
    ),
    EngineCommand(
        "hdi",
        "Compute the Head Diversity Index, overlaps and principal angles of head matrices (each p x d).",
        _model("HDIRequest"),
        _run_hdi,
        """headdiv hdi '{"matrices": [[[1, 0], [0, 1], [0, 0]], [[1, 0], [0, 0], [0, 1]]]}'""",
        uses_device=False,
    ),
    EngineCommand(
        "theory",
        "Evaluate the paper's closed-form architecture objective (n, budget, c1, c2) and its minimisers.",
        _model("TheoryQuery"),
        _run_theory,
        """headdiv theory '{"n": 1024, "budget": 64}'""",
        uses_device=False,
    ),
)


def _engine_main(command: EngineCommand, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    load_engine_settings()
    data = read_json_argument(args.input, sys.stdin)
    request = validate(command.model(), data)
    started = time.perf_counter()
    try:
        result = command.run(request, args, err)
    except Exception as exc:
        # The engine refuses a request it cannot run (EngineError) or fails outright; either way the
        # user gets one readable line and a non-zero status. HEADDIV_DEBUG=1 shows the traceback.
        if os.environ.get("HEADDIV_DEBUG") == "1":
            raise
        print(f"{command.name}: {describe_failure(exc)}", file=err, flush=True)
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

    from server.main import create_app
    from server.settings import ServerSettings

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
    print(f"headdiv: {mode}", file=out, flush=True)
    print(f"headdiv: open {browser_url(settings.host, settings.port)} in a browser", file=out, flush=True)
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, access_log=settings.access_log)
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
    from server.settings import get_server_settings

    settings = get_server_settings()
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
    from workers.queue.worker import run_worker

    queues = args.queue or [settings.queue_name]
    print(
        f"headdiv worker: Redis at {redact_url(redis_url)}, queues {', '.join(queues)}, CPU priority nice {os.nice(0)}"
        f"{' (burst: exits when they are empty)' if args.burst else ''}",
        file=out,
        flush=True,
    )
    run_worker(redis_url, queues, burst=args.burst)
    return EXIT_OK


def _dashboard(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import uvicorn
    from a2wsgi import WSGIMiddleware

    from dashboard.app import create_dash_app

    api_url = args.api_url or os.environ.get("HEADDIV_API_URL") or f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
    app = create_dash_app(api_url)
    print(f"headdiv dashboard: talking to the API at {api_url}", file=out, flush=True)
    print(f"headdiv dashboard: open {browser_url(args.host, args.port)} in a browser", file=out, flush=True)
    uvicorn.run(WSGIMiddleware(app.server), host=args.host, port=args.port)
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
    from workers import __version__

    parser.add_argument("--version", action="version", version=f"headdiv {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    serve = sub.add_parser(
        "serve",
        help="Run the API and the dashboard (embedded by default; with REDIS_URL, jobs go to workers).",
        description="Run the HTTP API (/api/v1, docs at /docs) and the dashboard (/) in one process. "
        "Without REDIS_URL everything is embedded: an in-process job runner and an in-memory cache. "
        "With REDIS_URL set, results are cached in Redis and jobs queue for `headdiv worker` processes. "
        "Prints the URL to open.",
    )
    serve.add_argument("--host", help=f"address to bind (default from HEADDIV settings, else {DEFAULT_HOST})")
    serve.add_argument("--port", type=port_number, help=f"port to listen on (default {DEFAULT_PORT})")
    serve.set_defaults(handler=_serve)

    worker = sub.add_parser(
        "worker",
        help="Run an RQ worker that computes queued jobs (needs REDIS_URL).",
        description="Run a queue worker: it loads torch once and computes the jobs that `headdiv serve` "
        "enqueues on Redis. Needs REDIS_URL. Run one per GPU (CUDA_VISIBLE_DEVICES=i).",
    )
    worker.add_argument("--redis-url", help="Redis to take jobs from (default: the REDIS_URL environment variable)")
    worker.add_argument(
        "--queue", action="append", metavar="NAME", help="queue to listen on (repeatable; default: the app's queues)"
    )
    worker.add_argument("--burst", action="store_true", help="exit once the queues are empty")
    worker.add_argument(
        "--nice",
        type=nice_increment,
        help="lower this worker's CPU priority by N (0-19) so the API on the same machine answers first "
        "(default: HEADDIV_WORKER_NICE, 10)",
    )
    worker.set_defaults(handler=_worker)

    dashboard = sub.add_parser(
        "dashboard",
        help="Run the dashboard alone, talking to a separate API over HTTP.",
        description="Serve the Dash dashboard by itself; it calls the headdiv API at --api-url "
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
    dashboard.set_defaults(handler=_dashboard)

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
