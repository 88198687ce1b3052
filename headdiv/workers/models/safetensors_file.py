"""Reading safetensors files defensively: bounded in cost by what they declare, before anything is built.

The format is an 8-byte little-endian header length N, N bytes of JSON `{name: {dtype, shape,
data_offsets}, "__metadata__": {str: str}}`, then the raw buffer. Everything is checked against limits
and the file's real size first: the declared header length against `MAX_HEADER_BYTES` before a byte of
it is read, the number of entries while the JSON is parsed (`MAX_TENSORS`), then each entry's dtype,
shape and offsets. A truncated, forged or non-safetensors file (a pickle, a zip checkpoint) is refused
with a reason and nothing is ever unpickled. The file is opened once: tensors are then read from the
same handle, only those the caller names, and decoded with NumPy (BF16 by widening to F32 bits).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import struct
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from headdiv.schemas.errors import ModelFileError

MAX_HEADER_BYTES = 8 * 1024 * 1024
"""Largest JSON header read (the specification allows 100 MB). A real model's header lists each tensor in
about 100-200 bytes, so 8 MiB holds tens of thousands of entries; parsing more only costs memory and time."""

MAX_TENSORS = 20_000
"""Most entries a header may list: a 70B-parameter model has about 720 tensors, a large mixture of
experts a few thousand per file. Counted while the JSON is parsed, so a header of a million empty
entries stops at the first one past the limit."""

MAX_METADATA = 1024
"""Most `__metadata__` entries (real files carry a handful)."""

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
    start: int = 0
    """Offsets of its bytes in the data buffer (after the header)."""
    end: int = 0


@dataclass(frozen=True)
class SafetensorsHeader:
    tensors: dict[str, TensorInfo]
    metadata: dict[str, str] = field(default_factory=dict)
    data_start: int = 0
    """Where the data buffer starts in the file: 8 + the header's length."""


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


class _TooManyObjects(Exception):
    pass


def _parse_header(raw: bytes) -> Any:
    """json.loads, stopping as soon as the header holds more objects than `MAX_TENSORS` entries need."""
    count = 0

    def counted(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal count
        count += 1
        if count > MAX_TENSORS + 2:  # the entries, `__metadata__` and the header itself
            raise _TooManyObjects
        return dict(pairs)

    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=counted)
    except _TooManyObjects:
        raise ModelFileError(
            f"safetensors header lists more than {MAX_TENSORS} tensors; at most {MAX_TENSORS} are read here"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ModelFileError(f"file is not safetensors: its header is not valid JSON ({exc})") from exc
    except ValueError as exc:  # an integer past Python's digit limit: a forged header, not a model
        raise ModelFileError(
            f"file is not safetensors: its header holds a number of more than {sys.get_int_max_str_digits()} digits"
        ) from exc


def _read_header(f: IO[bytes], size: int) -> SafetensorsHeader:
    prefix = f.read(8)
    what = _sniff(prefix)
    if what:
        raise ModelFileError(f"file is not safetensors: it looks like {what}")
    if len(prefix) < 8:
        raise ModelFileError(f"file is not safetensors: only {size} bytes, shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", prefix)
    if n < 2 or n > size - 8:
        raise ModelFileError(
            f"file is not safetensors: its first 8 bytes give a header length of {n}, "
            f"impossible for a file of {size} bytes"
        )
    if n > MAX_HEADER_BYTES:
        raise ModelFileError(
            f"safetensors header of {n} bytes is over the limit of {MAX_HEADER_BYTES} bytes read here "
            f"(at most {MAX_TENSORS} tensors)"
        )
    raw = f.read(n)
    if len(raw) != n:
        raise ModelFileError(f"file is not safetensors: its header of {n} bytes is cut short (truncated file)")
    header = _parse_header(raw)
    if not isinstance(header, dict):
        raise ModelFileError("file is not safetensors: its header is not a JSON object")

    buffer = size - 8 - n
    metadata_raw = header.pop("__metadata__", None) or {}
    if not isinstance(metadata_raw, dict):
        raise ModelFileError("safetensors header: __metadata__ must be an object of strings")
    if len(metadata_raw) > MAX_METADATA:
        raise ModelFileError(f"safetensors header: __metadata__ has {len(metadata_raw)} entries, over {MAX_METADATA}")
    if len(header) > MAX_TENSORS:
        raise ModelFileError(f"safetensors header lists {len(header)} tensors; at most {MAX_TENSORS} are read here")
    metadata = {str(k): v if isinstance(v, str) else json.dumps(v)[:200] for k, v in metadata_raw.items()}
    tensors: dict[str, TensorInfo] = {}
    for name, entry in header.items():
        tensors[name] = _check_entry(name, entry, buffer)
    if not tensors:
        raise ModelFileError("safetensors file holds no tensors")
    _check_no_overlap(tensors)
    return SafetensorsHeader(tensors=tensors, metadata=metadata, data_start=8 + n)


def _check_no_overlap(tensors: dict[str, TensorInfo]) -> None:
    """Tensors may not share bytes (the specification's rule): a forged header could otherwise make one
    small buffer pass for any number of layers."""
    spans = sorted((t.start, t.end, t.name) for t in tensors.values() if t.end > t.start)
    for (_, end, name), (start, _, other) in itertools.pairwise(spans):
        if start < end:
            raise ModelFileError(f"safetensors header: tensors {name!r} and {other!r} overlap in the data buffer")


def _check_entry(name: str, entry: Any, buffer: int) -> TensorInfo:
    if not isinstance(entry, dict):
        raise ModelFileError(f"safetensors header: entry {name!r} is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in DTYPE_BYTES:
        raise ModelFileError(f"safetensors header: tensor {name!r} has unknown dtype {str(dtype)[:40]!r}")
    if (
        not isinstance(shape, list)
        or len(shape) > 8
        or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)
    ):
        raise ModelFileError(f"safetensors header: tensor {name!r} has an invalid shape {str(shape)[:80]}")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
        or not 0 <= offsets[0] <= offsets[1] <= buffer
    ):
        raise ModelFileError(
            f"safetensors header: tensor {name!r} has data offsets {str(offsets)[:80]} outside the {buffer}-byte "
            "buffer (truncated or corrupt file)"
        )
    expected = math.prod(shape) * DTYPE_BYTES[dtype]
    if offsets[1] - offsets[0] != expected:
        raise ModelFileError(
            f"safetensors header: tensor {name!r} of shape {shape} and dtype {dtype} needs {expected} bytes "
            f"but its offsets span {offsets[1] - offsets[0]}"
        )
    return TensorInfo(name=name, dtype=dtype, shape=tuple(shape), start=offsets[0], end=offsets[1])


_NUMPY_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8"}


def _decode(raw: bytes, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Little-endian bytes to a float64 array; BF16 is the top half of an F32, so it widens exactly."""
    if dtype == "BF16":
        wide = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        values = wide.view(np.float32)
    elif dtype in _NUMPY_DTYPES:
        values = np.frombuffer(raw, dtype=_NUMPY_DTYPES[dtype])
    else:
        raise ModelFileError(f"dtype {dtype} cannot be read as attention weights here")
    return values.astype(np.float64).reshape(shape)


class SafetensorsFile:
    """One open safetensors file: its header, checked once, and its tensors read from the same handle."""

    def __init__(self, f: IO[bytes], size: int) -> None:
        self._f = f
        self.size = size
        f.seek(0)
        self.header = _read_header(f, size)

    def matrix(self, name: str) -> np.ndarray:
        """A named float tensor as a float64 array, refusing NaN or infinite entries."""
        info = self.header.tensors[name]
        self._f.seek(self.header.data_start + info.start)
        raw = self._f.read(info.end - info.start)
        if len(raw) != info.end - info.start:
            raise ModelFileError(f"tensor {name!r} is cut short (truncated file)")
        arr = _decode(raw, info.dtype, info.shape)
        if not np.all(np.isfinite(arr)):
            bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
            raise ModelFileError(f"tensor {name!r} holds {bad} NaN or infinite values")
        return arr


Source = str | os.PathLike[str] | IO[bytes]
"""A path, or an open binary file that can seek (an upload's spooled file)."""


@contextmanager
def open_safetensors(source: Source) -> Iterator[SafetensorsFile]:
    """Open `source` once and check its header; the tensors are read through the object it yields."""
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as f:
            yield SafetensorsFile(f, os.fstat(f.fileno()).st_size)
        return
    size = source.seek(0, os.SEEK_END)
    yield SafetensorsFile(source, size)
