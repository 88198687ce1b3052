"""`headdiv heads`: a trained model's heads measured, clustered and ranked (docs/model.md section 9)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from headdiv.cli.command_basics import (
    EXIT_OK,
    InputError,
)

if TYPE_CHECKING:
    from headdiv.schemas.results.report_results import ModelHeadsReport


def heads_main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """A trained model's heads measured, clustered and ranked (the Real models view, docs/model.md section 9):
    a built-in model by name, a .safetensors file, a model folder (sharded or not) or a Hugging Face id in the
    local cache; JSON, or one CSV row per head with `--csv`. With `--compare OTHER`, both models measured
    alike (the same seed): their comparison as JSON, or with `--csv` one row per model and layer."""
    from headdiv.schemas.csv_tables import head_clusters_csv, records_csv
    from headdiv.schemas.results.report_results import ModelComparison

    result = _measure(args.model, "model", args)
    if args.compare:
        other = _measure(args.compare, "compare", args)
        both = ModelComparison(a=result, b=other)
        text = records_csv(both.rows()) if args.csv else both.model_dump_json(indent=1 if args.pretty else None)
    else:
        text = head_clusters_csv(result) if args.csv else result.model_dump_json(indent=1 if args.pretty else None)
    out.write(text + "\n")
    out.flush()
    return EXIT_OK


def _measure(model: str, option: str, args: argparse.Namespace) -> ModelHeadsReport:
    from headdiv.schemas.builtin_models import BUILTINS
    from headdiv.schemas.errors import ModelFileError
    from headdiv.workers import instant_reports
    from headdiv.workers.models.checkpoint import HF_ID

    try:
        if model in BUILTINS:
            return instant_reports.builtin_heads(model, args.seed)
        if Path(model).exists() or HF_ID.fullmatch(model):
            counts = {"num_heads": args.num_heads, "num_kv_heads": args.num_kv_heads} if option == "model" else {}
            return instant_reports.model_heads(model, seed=args.seed, **counts)
        known = ", ".join(sorted(BUILTINS))
        raise InputError(
            [f"{option}: {model!r} is neither a built-in model ({known}), a file, a folder nor a Hugging Face id"]
        )
    except LookupError as exc:  # a built-in whose package is not installed
        raise InputError([f"{option}: {exc.args[0] if exc.args else exc}"]) from None
    except ModelFileError as exc:
        raise InputError([f"{option}: {exc}"]) from None
