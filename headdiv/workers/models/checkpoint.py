"""A checkpoint as a researcher has it on disk: one `.safetensors` file, a model folder (its `config.json`
beside one file or beside shards and their `model.safetensors.index.json`), or a Hugging Face id found in
the local cache (never downloaded here).

Only headers are read to find the attention weights; of a sharded checkpoint, only the shards that hold
them are opened, and each weight is read on its own when its layer is measured, so memory stays at one
layer's tensors whatever the model's size.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from headdiv.schemas.errors import ModelFileError
from headdiv.workers.models.safetensors_file import SafetensorsFile, Source, TensorInfo, open_safetensors

INDEX_NAME = "model.safetensors.index.json"
CONFIG_NAME = "config.json"
MAX_SHARDS = 512
MAX_JSON_BYTES = 64 << 20
"""A config or an index bigger than this is not one (the largest published indexes are a few MB)."""
HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")


@dataclass
class Checkpoint:
    """The tensors of every file that holds attention weights, by name, and the model's config (empty when
    it has none)."""

    name: str
    config: dict[str, Any]
    tensors: dict[str, TensorInfo]
    _files: dict[str, SafetensorsFile] = field(repr=False)
    metadata: dict[str, str] = field(default_factory=dict)

    def matrix(self, name: str) -> np.ndarray:
        return self._files[name].matrix(name)


def _json(path: Path, what: str) -> Any:
    if path.stat().st_size > MAX_JSON_BYTES:
        raise ModelFileError(f"{what} {path.name} is {path.stat().st_size} bytes: not a model's {what}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{what} {path.name} is not valid JSON: {exc}") from None


def config_of(folder: Path) -> dict[str, Any]:
    path = folder / CONFIG_NAME
    if not path.is_file():
        return {}
    config = _json(path, "config")
    if not isinstance(config, dict):
        raise ModelFileError(f"config {path.name} is not a JSON object")
    return config


def _shards(folder: Path, wanted: Any) -> list[Path]:
    """The shard files of a folder: those its index names (only the ones holding `wanted` tensors), else
    every `.safetensors` file in it."""
    index = folder / INDEX_NAME
    if index.is_file():
        read = _json(index, "index")
        weight_map = read.get("weight_map") if isinstance(read, dict) else None
        if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
            raise ModelFileError(f"index {INDEX_NAME} has no weight_map of tensor names to shard files")
        names = sorted({shard for tensor, shard in weight_map.items() if wanted(tensor)})
        if not names:
            names = sorted(set(weight_map.values()))  # let the layout's refusal name what the files hold
        paths = []
        for shard in names:
            path = (folder / shard).resolve()
            if path.parent != folder.resolve() or not path.is_file():
                raise ModelFileError(f"index {INDEX_NAME} names shard {shard!r}, which is not a file in the folder")
            paths.append(path)
        return paths
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        found = ", ".join(sorted(p.name for p in folder.iterdir())[:5]) or "nothing"
        raise ModelFileError(f"folder {folder.name} holds no .safetensors file (it has {found})")
    return files


def resolve(source: str | os.PathLike[str]) -> Path:
    """A path as given, or a Hugging Face id's folder in the local cache (huggingface_hub's own lookup)."""
    path = Path(source)
    if path.exists():
        return path
    text = os.fspath(source)
    if not HF_ID.fullmatch(text):
        raise ModelFileError(f"{text!r} is not a file, a folder or a Hugging Face id (owner/name)")
    from huggingface_hub import snapshot_download
    from huggingface_hub.constants import HF_HUB_CACHE
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        cache = os.environ.get("HF_HUB_CACHE") or HF_HUB_CACHE  # read now: a server's settings may set it late
        return Path(snapshot_download(text, cache_dir=cache, local_files_only=True))
    except (LocalEntryNotFoundError, FileNotFoundError, OSError, ValueError):
        raise ModelFileError(
            f"{text} is not in the local Hugging Face cache ({os.environ.get('HF_HUB_CACHE') or HF_HUB_CACHE}); nothing is downloaded here: "
            f"fetch it first (`hf download {text}`) or give its folder"
        ) from None


def is_model_file(name: str) -> bool:
    """A file that is part of a checkpoint as this reader takes it (a folder's tokenizer, README, ... is not)."""
    return name.endswith(".safetensors") or name in (CONFIG_NAME, INDEX_NAME)


@contextmanager
def as_folder(files: Sequence[tuple[str, IO[bytes]]]) -> Iterator[Path]:
    """Several uploaded files (a model folder's config, shards and index: (name, content) pairs) written into
    a private temporary folder, read as any folder is; removed afterwards."""
    names = [os.path.basename(name) for name, _ in files]
    odd = [n for n in names if not is_model_file(n)]
    if odd:
        raise ModelFileError(
            f"{odd[0]!r} is not part of a checkpoint: send its .safetensors files, and its {CONFIG_NAME} and "
            f"{INDEX_NAME} where it has them"
        )
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ModelFileError(f"two files are named {twice!r}: send each file of one model once")
    if not any(n.endswith(".safetensors") for n in names):
        raise ModelFileError(f"no .safetensors file among {', '.join(sorted(names))}: send the weights too")
    if len(names) > MAX_SHARDS + 2:
        raise ModelFileError(f"{len(names)} files; at most {MAX_SHARDS} shards are read here")
    with tempfile.TemporaryDirectory(prefix="headdiv-upload-") as tmp:
        for name, (_, stream) in zip(names, files, strict=True):
            stream.seek(0)
            with open(Path(tmp) / name, "wb") as out:
                shutil.copyfileobj(stream, out, COPY_CHUNK)
        yield Path(tmp)


COPY_CHUNK = 1 << 20


CheckpointSource = Source | list[tuple[str, IO[bytes]]]
"""A path, a Hugging Face id, one open file, or several uploaded files as (name, content) pairs."""


@contextmanager
def open_checkpoint(source: CheckpointSource, wanted: Any = lambda name: True) -> Iterator[Checkpoint]:
    """Open what `source` names (an open upload, several uploaded files by name, a file, a folder, a cached
    Hugging Face id); `wanted(name)` says which tensors' shards a sharded checkpoint must open."""
    if isinstance(source, list):
        with as_folder(source) as folder, open_checkpoint(folder, wanted) as opened:
            opened.name = f"{len(source)} files"  # a model sent in parts, when its sender names it not
            yield opened
        return
    if not isinstance(source, str | os.PathLike):
        with open_safetensors(source) as st:
            yield Checkpoint(
                "upload.safetensors", {}, st.header.tensors, dict.fromkeys(st.header.tensors, st), st.header.metadata
            )
        return
    path = resolve(source)
    if path.is_file():
        folder, files, name = path.parent, [path], path.name
        config = config_of(folder) if path.name == "model.safetensors" else {}
    else:
        folder, name = path, _display_name(source, path)
        config = config_of(folder)
        files = _shards(folder, wanted)
    if len(files) > MAX_SHARDS:
        raise ModelFileError(f"{name} has {len(files)} shards; at most {MAX_SHARDS} are read here")
    with ExitStack() as stack:
        tensors: dict[str, TensorInfo] = {}
        owner: dict[str, SafetensorsFile] = {}
        metadata: dict[str, str] = {}
        for file in files:
            st = stack.enter_context(open_safetensors(file))
            metadata.update(st.header.metadata)
            for tensor, info in st.header.tensors.items():
                if tensor in tensors:
                    raise ModelFileError(f"tensor {tensor!r} is in two shards of {name}")
                tensors[tensor] = info
                owner[tensor] = st
        yield Checkpoint(name, config, tensors, owner, metadata)


def _display_name(source: str | os.PathLike[str], path: Path) -> str:
    text = os.fspath(source)
    return text if HF_ID.fullmatch(text) and not Path(text).exists() else path.name
