"""The engine subcommands: one per job kind (`headdiv.jobs.kinds`), plus the instant reports
(`hdi`, `theory`). Each takes a JSON request, validates it with the API's own model and prints the result."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from headdiv.cli.command_basics import (
    EXIT_FAILED,
    EXIT_OK,
    ProgressPrinter,
    load_engine_settings,
    read_json_argument,
    validate,
)
from headdiv.jobs.kinds import JOB_KINDS, JobKind
from headdiv.schemas import HDIRequest, TheoryQuery
from headdiv.schemas.engine_settings import DoorSettings

if TYPE_CHECKING:
    from pydantic import BaseModel

    from headdiv.schemas.results.result_parts import ResultModel


@dataclass(frozen=True)
class EngineCommand:
    name: str
    help: str
    model: type[BaseModel]
    run: Callable[[Any, argparse.Namespace, TextIO], ResultModel]
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
    def run(request: Any, args: argparse.Namespace, err: TextIO) -> ResultModel:
        print(f"{kind.command}: {describe_request(request)}", file=err, flush=True)
        from headdiv.workers.runner import run_job

        progress = ProgressPrinter(kind.command, err)
        return run_job(kind.name, request, progress=progress, device=args.device, dtype=args.dtype)

    return EngineCommand(kind.command, kind.summary, kind.request, run, f"headdiv {kind.command} '{kind.example}'")


def _run_hdi(request: Any, args: argparse.Namespace, err: TextIO) -> ResultModel:
    import numpy as np

    from headdiv.schemas.report_queries import MAX_LISTED_ANGLES, MAX_LISTED_PAIRS
    from headdiv.workers import instant_reports

    matrices = [np.asarray(m, dtype=np.float64) for m in request.matrices]
    return instant_reports.hdi(matrices, max_angle_pairs=MAX_LISTED_PAIRS, max_angles=MAX_LISTED_ANGLES)


def _run_theory(request: Any, args: argparse.Namespace, err: TextIO) -> ResultModel:
    from headdiv.workers import instant_reports

    return instant_reports.theory(request)


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


def engine_main(command: EngineCommand, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    load_engine_settings()
    data = read_json_argument(args.input, sys.stdin)
    request = validate(command.model, data)
    started = time.perf_counter()
    try:
        result = command.run(request, args, err)
    except Exception as exc:
        # The engine refuses a request it cannot run (EngineError) or fails outright; either way the
        # user gets one readable line and a non-zero status. HEADDIV_DEBUG=1 shows the traceback.
        if DoorSettings().debug:
            raise
        from headdiv.jobs.failures import describe_failure

        reason = describe_failure(exc).message
        if reason.startswith("internal error"):  # here the person asking is the operator: say what it was
            reason = f"internal error ({type(exc).__name__}: {exc}); HEADDIV_DEBUG=1 shows the traceback"
        prefix = "" if reason.startswith("internal error") else "error: "
        print(f"{command.name}: {prefix}{reason}", file=err, flush=True)
        return EXIT_FAILED
    text = result.model_dump_json(indent=2 if args.pretty else None)
    out.write(text + "\n")
    out.flush()
    print(f"{command.name}: done in {time.perf_counter() - started:.2f} s", file=err, flush=True)
    return EXIT_OK
