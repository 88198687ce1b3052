"""What a user takes away: the result as CSV, and the commands that reproduce the current state.

Pure functions (no Dash), so the exact text a user copies is tested without a browser.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from headdiv.jobs.kinds import JOB_KINDS
from headdiv.schemas.csv_tables import csv_text, records_csv
from headdiv.schemas.fields import canonical
from headdiv.schemas.results.lab_results import CovarianceResult
from headdiv.schemas.results.report_results import ModelComparison
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.schemas.results.simulation_results import SimulationResult
from headdiv.schemas.results.sweep_results import ArchitectureResult, DiversitySweepResult, SurfaceResult
from headdiv.schemas.weightings import WEIGHTINGS

CLI_COMMANDS: dict[str, str] = {kind.path: kind.command for kind in JOB_KINDS.values()}
"""The `headdiv` subcommand that computes what each API route does, on the user's own machine."""


def _flatten(prefix: str, value: Any, rows: list[tuple[str, Any]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, rows)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _flatten(f"{prefix}[{i}]", v, rows)
    else:
        rows.append((prefix, value))


def result_to_csv(result: ResultModel) -> str:
    """A result as CSV: a real table where the result is one (surface cells, sweep points, candidates),
    otherwise one `key,value` row per number with dotted paths (e.g. `heads[2].variance`)."""
    if isinstance(result, SurfaceResult):
        x, y = result.x, result.y
        records = [
            {x.param: xv, y.param: yv, **{m: grid[i][j] for m, grid in result.metrics.items()}}
            for i, yv in enumerate(y.values)
            for j, xv in enumerate(x.values)
        ]
        return records_csv(records)
    if isinstance(result, DiversitySweepResult | CovarianceResult):
        return records_csv([p.model_dump(mode="json") for p in result.points])
    if isinstance(result, ArchitectureResult):
        return records_csv([c.model_dump(mode="json") for c in result.candidates])
    if isinstance(result, ModelComparison):
        return records_csv(result.rows())
    rows: list[tuple[str, Any]] = []
    _flatten("", result.model_dump(mode="json"), rows)
    return csv_text(["key", "value"], [list(row) for row in rows])


def weighting_result(result: SimulationResult) -> dict[str, Any]:
    """What the Weighting view shows of a simulation result: every scheme's weights, MSE decomposition and
    MSE standard error, the geometric rho curve with its best rho, and the scenario they come from."""
    shown = result.model_dump(mode="json", include={"scenario", "weightings"})
    return {"scenario": shown["scenario"], "weightings": shown["weightings"]}


def weighting_csv(result: SimulationResult) -> str:
    """The Weighting view as one table: a `scheme` row per scheme (its parameters, MSE, MSE standard error,
    bias², variance, covariance and the weight of each head, MAW's being its mean gate), then a `rho_curve`
    row per rho of the geometric curve (`best` marks the best rho on it)."""
    scenario = canonical(result.scenario)
    records: list[dict[str, Any]] = []
    for scheme in WEIGHTINGS:
        entry = result.weightings.get(scheme.name)
        if entry is None:
            continue
        weights = entry.alpha or entry.mean_gate or []
        records.append(
            {
                "row": "scheme",
                "scheme": scheme.name,
                "parameters": " ".join(f"{k}={scenario[k]}" for k in scheme.model_fields if k in scenario),
                "rho": None,
                **{k: getattr(entry, k) for k in ("mse", "mse_se", "bias2", "variance", "covariance")},
                **{f"weight_head_{h + 1}": a for h, a in enumerate(weights)},
            }
        )
    geometric = result.weightings.get("geometric")
    if geometric is not None and geometric.scan is not None:
        scan = geometric.scan
        records += [
            {"row": "rho_curve", "scheme": "geometric", "rho": rho, "mse": mse, "best": rho == scan.best}
            for rho, mse in zip(scan.values, scan.mse, strict=True)
        ]
    return records_csv(records)


def cli_call(command: str, body: dict[str, Any]) -> str:
    """The `headdiv` command line of a request: the subcommand and the body as compact, sorted JSON."""
    return f"headdiv {command} {shlex.quote(json.dumps(body, separators=(',', ':'), sort_keys=True))}"


def python_call(command: str, body: dict[str, Any]) -> str:
    """The `headdiv` Python call of a request: the subcommand's name, the body's fields as keywords."""
    return f"headdiv.{command}(" + ", ".join(f"{k}={v!r}" for k, v in sorted(body.items())) + ")"


def reproduce_commands(api_url: str, path: str, body: dict[str, Any]) -> str:
    """The `curl` call, the `headdiv` command and the Python call that compute exactly what the view shows."""
    compact = json.dumps(body, separators=(",", ":"), sort_keys=True)
    lines = [
        "# over HTTP (waits up to 60 s for the result):",
        f"curl -s -X POST '{api_url.rstrip('/')}/api/v1{path}?wait=60' \\",
        f"     -H 'content-type: application/json' -d {shlex.quote(compact)}",
    ]
    cli = CLI_COMMANDS.get(path)
    if cli:
        lines += ["", "# on this machine, no server needed:", cli_call(cli, body)]
        lines += ["", "# in Python or a notebook (import headdiv):", python_call(cli, body)]
    return "\n".join(lines)
