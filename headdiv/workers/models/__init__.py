"""Head diversity of real, trained Transformers read from safetensors files.

Public API:
- `model_hdi(path, *, num_heads=None, num_kv_heads=None, seed=0, model=None) -> dict`: per-layer key
  and query HDI, key overlap and principal angles, and the random-subspace baseline.
- `list_builtins()`, `builtin_hdi(name, seed=0)`, `BUILTINS`: example models shipped in optional packages.
- `ModelFileError`: what is wrong with a file, with the request `field` to blame.
- `MeasurementStopped`: raised between layers when the caller's `should_stop()` says so.
"""

from headdiv.schemas.errors import MeasurementStopped, ModelFileError
from headdiv.workers.models.builtin import BUILTINS, builtin_hdi, list_builtins
from headdiv.workers.models.model_hdi import model_hdi, random_subspace_hdi

__all__ = [
    "BUILTINS",
    "MeasurementStopped",
    "ModelFileError",
    "builtin_hdi",
    "list_builtins",
    "model_hdi",
    "random_subspace_hdi",
]
