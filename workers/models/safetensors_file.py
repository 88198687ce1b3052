"""Reading safetensors files defensively: header and shapes are checked before any tensor is loaded.

The format is an 8-byte little-endian header length N, N bytes of JSON `{name: {dtype, shape,
data_offsets}, "__metadata__": {str: str}}`, then the raw buffer. Everything here is checked against
the file's real size first, so a truncated, forged or non-safetensors file (a pickle, a zip checkpoint)
is refused with a reason and nothing is ever unpickled. Tensors are then read one at a time through
`safetensors.safe_open` (memory-mapped), only those the caller names.
"""

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import safe_open

from workers.models.errors import ModelFileError

MAX_HEADER_BYTES = 100 * 1024 * 1024
"""The safetensors specification's own cap on the JSON header."""

DTYPE_BYTES: dict[str, int] = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E5M2": 1,
    "F8_E4M3": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "I64": 8,
    "U64": 8,
    "F64": 8,
}
FLOAT_DTYPES = frozenset({"F16", "BF16", "F32", "F64"})
"""Dtypes attention weights can have here (8-bit floats need scales this reader does not know)."""


@dataclass(frozen=True)
class TensorInfo:
    name: str
    dtype: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class SafetensorsHeader:
    tensors: dict[str, TensorInfo]
    metadata: dict[str, str] = field(default_factory=dict)


def _sniff(prefix: bytes) -> str | None:
    """Name well-known non-safetensors formats, so the error says what the file is instead."""
    if prefix[:1] == b"\x80" and len(prefix) > 1 and prefix[1] in range(2, 6):
        return "a Python pickle (e.g. a PyTorch .bin/.pt file); pickles are never loaded here"
    if prefix[:4] == b"PK\x03\x04":
        return "a zip archive (e.g. a PyTorch torch.save checkpoint); only .safetensors files are accepted"
    if prefix[:4] == b"\x89HDF":
        return "an HDF5 file (e.g. a Keras .h5); only .safetensors files are accepted"
    if prefix[:4] == b"GGUF":
        return "a GGUF file; only .safetensors files are accepted"
    return None


def read_header(path: str | os.PathLike[str]) -> SafetensorsHeader:
    """Parse and validate the header: JSON object, known dtypes, shapes and offsets that fit the file."""
    path = Path(path)
    size = path.stat().st_size
    with path.open("rb") as f:
        prefix = f.read(8)
        what = _sniff(prefix)
        if what:
            raise ModelFileError(f"file is not safetensors: it looks like {what}")
        if len(prefix) < 8:
            raise ModelFileError(f"file is not safetensors: only {size} bytes, shorter than the 8-byte header length")
        (n,) = struct.unpack("<Q", prefix)
        if n < 2 or n > MAX_HEADER_BYTES or n > size - 8:
            raise ModelFileError(
                f"file is not safetensors: its first 8 bytes give a header length of {n}, "
                f"impossible for a file of {size} bytes"
            )
        raw = f.read(n)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ModelFileError(f"file is not safetensors: its header is not valid JSON ({exc})") from exc
    if not isinstance(header, dict):
        raise ModelFileError("file is not safetensors: its header is not a JSON object")

    buffer = size - 8 - n
    metadata_raw = header.pop("__metadata__", None) or {}
    if not isinstance(metadata_raw, dict):
        raise ModelFileError("safetensors header: __metadata__ must be an object of strings")
    metadata = {str(k): str(v) for k, v in metadata_raw.items()}
    tensors: dict[str, TensorInfo] = {}
    for name, entry in header.items():
        tensors[name] = _check_entry(name, entry, buffer)
    if not tensors:
        raise ModelFileError("safetensors file holds no tensors")
    return SafetensorsHeader(tensors=tensors, metadata=metadata)


def _check_entry(name: str, entry: Any, buffer: int) -> TensorInfo:
    if not isinstance(entry, dict):
        raise ModelFileError(f"safetensors header: entry {name!r} is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in DTYPE_BYTES:
        raise ModelFileError(f"safetensors header: tensor {name!r} has unknown dtype {dtype!r}")
    if not isinstance(shape, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
        raise ModelFileError(f"safetensors header: tensor {name!r} has an invalid shape {shape!r}")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
        or not 0 <= offsets[0] <= offsets[1] <= buffer
    ):
        raise ModelFileError(
            f"safetensors header: tensor {name!r} has data offsets {offsets!r} outside the {buffer}-byte buffer "
            "(truncated or corrupt file)"
        )
    expected = math.prod(shape) * DTYPE_BYTES[dtype]
    if offsets[1] - offsets[0] != expected:
        raise ModelFileError(
            f"safetensors header: tensor {name!r} of shape {shape} and dtype {dtype} needs {expected} bytes "
            f"but its offsets span {offsets[1] - offsets[0]}"
        )
    return TensorInfo(name=name, dtype=dtype, shape=tuple(shape))


def load_matrices(path: str | os.PathLike[str], names: list[str]) -> dict[str, np.ndarray]:
    """Load the named 2-D float tensors as float64 arrays, refusing NaN or infinite entries.

    Read through torch so that BF16 (which NumPy lacks) works; only the named tensors are touched.
    """
    out: dict[str, np.ndarray] = {}
    try:
        with safe_open(str(path), framework="pt", device="cpu") as f:
            for name in names:
                t: torch.Tensor = f.get_tensor(name)
                arr = t.to(torch.float64).numpy()
                if not np.all(np.isfinite(arr)):
                    bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
                    raise ModelFileError(f"tensor {name!r} holds {bad} NaN or infinite values")
                out[name] = arr
    except ModelFileError:
        raise
    except Exception as exc:  # safetensors raises its own error types for corrupt buffers
        raise ModelFileError(f"could not read tensors from the safetensors file: {exc}") from exc
    return out
