"""The `headdiv` command: run the app, a queue worker, the dashboard alone, or the engine on one request.

Heavy imports (torch, the engine, FastAPI, Dash) happen inside the subcommand that needs them, so
`headdiv --help` and input errors answer at once. Engine commands take a JSON request (literal, `@file`
or `-` for stdin), validate it with the same pydantic model the HTTP API uses, and print the result as
JSON on stdout; progress and errors go to stderr. Bad input exits with status 2 and one
`<field>: <reason>` line per problem, never a traceback.

This module builds the parser (`build_parser`) and runs it (`main`, the console script); the subcommands:

- `services`: `serve` (API and dashboard), `worker`, `warm` and `dashboard` (alone).
- `engine_commands`: one subcommand per job kind, plus the instant reports (`hdi`, `theory`).
- `heads_command`: `headdiv heads`: a trained model's heads measured, clustered and ranked.
- `export_command`: `headdiv export`: a tour, or the view a link shows, as one self-contained HTML file.
- `command_basics`: what every subcommand shares: exit statuses, defaults, input errors, JSON in and out, progress lines.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from headdiv.cli.command_basics import (
    DEFAULT_DASHBOARD_PORT,
    DEFAULT_HOST,
    DEFAULT_PORT,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Handler,
    InputError,
    ProgressPrinter,
    browser_url,
    nice_increment,
    port_number,
    redact_url,
    worker_count,
)
from headdiv.cli.engine_commands import ENGINE_COMMANDS, engine_main
from headdiv.cli.export_command import add_export
from headdiv.cli.heads_command import heads_main
from headdiv.cli.services import dashboard_main, serve_main, warm_main, worker_main

__all__ = ["ProgressPrinter", "browser_url", "build_parser", "main", "redact_url"]


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
        serve_main,
        "Run the API and the dashboard (embedded by default; with REDIS_URL, jobs go to workers).",
        "Run the HTTP API (/api/v1, docs at /docs) and the dashboard (/) in one process. "
        "Without REDIS_URL everything is embedded: an in-process job runner and an in-memory cache. "
        "With REDIS_URL set, results are cached in Redis and jobs queue for `headdiv worker` processes. "
        "Prints the URL to open.",
    )
    serve.add_argument("--host", help=f"address to bind (default from HEADDIV settings, else {DEFAULT_HOST})")
    serve.add_argument("--port", type=port_number, help=f"port to listen on (default {DEFAULT_PORT})")
    serve.add_argument(
        "--workers",
        type=worker_count,
        default=1,
        help="API processes sharing the port (default 1); more than one needs REDIS_URL, where they share the "
        "cache, the jobs and the class polls",
    )

    worker = service(
        "worker",
        worker_main,
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
        warm_main,
        "Compute the dashboard's first views ahead of users, at low priority (scaled set-up).",
        "Enqueue every tab's default computation and every preset's on the low-priority queue of the Redis "
        "at REDIS_URL, so that newcomers' first clicks are cache hits. Workers take low-priority jobs only "
        "when no other job waits. An embedded `headdiv serve` does this by itself after it starts.",
    )

    heads = service(
        "heads",
        heads_main,
        "Measure a trained model's heads: HDI per layer, heads clustered and ranked by diversity contribution.",
        "Per-layer key and query HDI of a built-in model (by name) or a .safetensors file, with each layer's "
        "heads clustered by their principal angles and ranked by how much diversity the layer loses without "
        "each one (a pruning forecast). Prints JSON, or with --csv one row per head.",
    )
    heads.add_argument(
        "model",
        help="a built-in model's name (see GET /api/v1/models/builtin), a .safetensors file, a model folder "
        "(config.json and one file or shards) or a Hugging Face id in the local cache (never downloaded)",
    )
    heads.add_argument("--num-heads", type=int, help="query heads per layer, when the file's metadata lacks them")
    heads.add_argument("--num-kv-heads", type=int, help="key/value heads per layer (grouped-query models)")
    heads.add_argument("--seed", type=int, default=0, help="seed of the random-subspace baseline (default 0)")
    heads.add_argument(
        "--compare",
        metavar="OTHER",
        help="a second model, named alike, measured with the same seed: prints the two side by side (a base "
        "model and its fine-tune, two sizes of one family)",
    )
    heads.add_argument(
        "--csv",
        action="store_true",
        help="print the heads clustered and ranked as CSV (with --compare: one row per model and layer)",
    )
    heads.add_argument("--pretty", action="store_true", help="indent the JSON output")

    dashboard = service(
        "dashboard",
        dashboard_main,
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

    add_export(sub)
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
        p.set_defaults(handler=lambda a, o, e, c=command: engine_main(c, a, o, e), device=None, dtype=None)
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
