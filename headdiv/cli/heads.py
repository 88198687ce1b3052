"""`headdiv heads`: a trained model's heads measured, clustered and ranked (docs/model.md section 9)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from headdiv.cli.common import (
    EXIT_OK,
    InputError,
)


def heads_main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """A trained model's heads measured, clustered and ranked (the Real models view, docs/model.md section 9):
    a built-in model by name, a .safetensors file, a model folder (sharded or not) or a Hugging Face id in the
    local cache; JSON, or one CSV row per head with `--csv`."""
    from headdiv.schemas.builtin_models import BUILTINS
    from headdiv.schemas.csv_tables import head_clusters_csv
    from headdiv.schemas.errors import ModelFileError
    from headdiv.workers import instant_reports
    from headdiv.workers.models.checkpoint import HF_ID

    try:
        if args.model in BUILTINS:
            result = instant_reports.builtin_heads(args.model, args.seed)
        elif Path(args.model).exists() or HF_ID.fullmatch(args.model):
            result = instant_reports.model_heads(
                args.model, num_heads=args.num_heads, num_kv_heads=args.num_kv_heads, seed=args.seed
            )
        else:
            known = ", ".join(sorted(BUILTINS))
            raise InputError(
                [f"model: {args.model!r} is neither a built-in model ({known}), a file, a folder nor a Hugging Face id"]
            )
    except LookupError as exc:  # a built-in whose package is not installed
        raise InputError([f"model: {exc.args[0] if exc.args else exc}"]) from None
    except ModelFileError as exc:
        raise InputError([f"model: {exc}"]) from None
    out.write(
        (head_clusters_csv(result) if args.csv else result.model_dump_json(indent=1 if args.pretty else None)) + "\n"
    )
    out.flush()
    return EXIT_OK
