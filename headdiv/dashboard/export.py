"""What a user takes away: the result as CSV, and the commands that reproduce the current state.

Pure functions (no Dash), so the exact text a user copies is tested without a browser.
"""

from __future__ import annotations

import csv
import io
import json
import shlex
from typing import Any

from headdiv.workers.jobs.kinds import JOB_KINDS
from headdiv.workers.schemas.tables import records_csv
from headdiv.workers.schemas.weightings import WEIGHTINGS

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


def result_to_csv(result: dict[str, Any]) -> str:
    """A result as CSV: a real table where the result is one (surface cells, sweep points, candidates),
    otherwise one `key,value` row per number with dotted paths (e.g. `heads[2].variance`)."""
    if "metrics" in result and "x" in result and "y" in result:
        xp, yp = result["x"]["param"], result["y"]["param"]
        names = list(result["metrics"])
        records = []
        for i, yv in enumerate(result["y"]["values"]):
            for j, xv in enumerate(result["x"]["values"]):
                records.append({xp: xv, yp: yv, **{m: result["metrics"][m][i][j] for m in names}})
        return records_csv(records)
    if isinstance(result.get("points"), list):
        return records_csv(result["points"])
    if isinstance(result.get("candidates"), list):
        return records_csv(result["candidates"])
    rows: list[tuple[str, Any]] = []
    _flatten("", result, rows)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["key", "value"])
    w.writerows(rows)
    return buf.getvalue()


def weighting_result(result: dict[str, Any]) -> dict[str, Any]:
    """What the Weighting view shows of a simulation result: every scheme's weights, MSE decomposition and
    MSE standard error, the geometric rho curve with its best rho, and the scenario they come from."""
    return {"scenario": result.get("scenario") or {}, "weightings": result.get("weightings") or {}}


def weighting_csv(result: dict[str, Any]) -> str:
    """The Weighting view as one table: a `scheme` row per scheme (its parameters, MSE, MSE standard error,
    bias², variance, covariance and the weight of each head, MAW's being its mean gate), then a `rho_curve`
    row per rho of the geometric curve (`best` marks the best rho on it)."""
    scenario = result.get("scenario") or {}
    w = result.get("weightings") or {}
    records: list[dict[str, Any]] = []
    for scheme in WEIGHTINGS:
        entry = w.get(scheme.name)
        if not isinstance(entry, dict):
            continue
        weights = entry.get("alpha") or entry.get("mean_gate") or []
        records.append(
            {
                "row": "scheme",
                "scheme": scheme.name,
                "parameters": " ".join(f"{k}={scenario[k]}" for k in scheme.model_fields if k in scenario),
                "rho": None,
                **{k: entry.get(k) for k in ("mse", "mse_se", "bias2", "variance", "covariance")},
                **{f"weight_head_{h + 1}": a for h, a in enumerate(weights)},
            }
        )
    curve = (w.get("geometric") or {}).get("scan") or {}
    for rho, mse in zip(curve.get("values") or [], curve.get("mse") or [], strict=False):
        records.append(
            {"row": "rho_curve", "scheme": "geometric", "rho": rho, "mse": mse, "best": rho == curve.get("best")}
        )
    return records_csv(records)


def reproduce_commands(api_url: str, path: str, body: dict[str, Any]) -> str:
    """The `curl` call and the `headdiv` command that compute exactly what the view shows."""
    compact = json.dumps(body, separators=(",", ":"), sort_keys=True)
    lines = [
        "# over HTTP (waits up to 60 s for the result):",
        f"curl -s -X POST '{api_url.rstrip('/')}/api/v1{path}?wait=60' \\",
        f"     -H 'content-type: application/json' -d {shlex.quote(compact)}",
    ]
    cli = CLI_COMMANDS.get(path)
    if cli:
        lines += ["", "# on this machine, no server needed:", f"headdiv {cli} {shlex.quote(compact)}"]
    return "\n".join(lines)
