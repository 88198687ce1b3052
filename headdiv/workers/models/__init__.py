"""Head diversity of real, trained Transformers read from safetensors files.

Public API, re-exported here:
`model_hdi(source, *, num_heads=None, num_kv_heads=None, seed=0, model=None, should_stop=None) -> ModelHeadsReport`
measures per-layer key and query HDI, key overlap and principal angles, beside the random-subspace baseline
(`random_subspace_hdi`); `list_builtins()`, `builtin_hdi(name, seed=0)` and `BUILTINS` are the example models
shipped in optional packages; `ModelFileError` says what is wrong with a file, with the request `field` to blame;
`MeasurementStopped` is raised between layers when the caller's `should_stop()` says so.

- `model_hdi`: HDI of a trained model's key and query heads, layer by layer, against random subspaces.
- `builtin`: the built-in example models, found in their optional packages and measured offline.
- `local_models`: the models a server already has on disk (`HEADDIV_MODELS_DIR`, the Hugging Face cache), by id.
- `checkpoint`: a checkpoint as a researcher has it: one file, a model folder (sharded or not), a cached id.
- `safetensors_file`: safetensors files read defensively, bounded in cost by what they declare.
- `naming`: where the attention weights are, from tensor names and shapes (`LAYOUTS`).
- `head_counts`: num_heads and num_kv_heads, from the request, else the file's metadata, else refused.
- `heads`: projection weights cut into per-head matrices W_h.
- `clusters`: a layer's heads clustered by their principal angles, and each head's diversity contribution.
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
