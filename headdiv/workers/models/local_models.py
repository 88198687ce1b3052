"""The models a server already has on disk: each folder or `.safetensors` file in `HEADDIV_MODELS_DIR` (a
lecture deployment preloads them) and each model in the local Hugging Face cache, listed with their size and
attention layout (read from headers only), and named by ids that the API measures on demand.

An id is only ever looked up in this listing, never taken as a path: a request cannot reach a file the
listing does not show. A model's measurement is cached by its content: a cached Hugging Face revision is
its commit hash (the cache is content-addressed); a folder's files are hashed once per (name, size,
modification time).
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from headdiv.schemas.errors import ModelFileError
from headdiv.schemas.results.report_results import LocalModel
from headdiv.workers.models.checkpoint import CONFIG_NAME, open_checkpoint
from headdiv.workers.models.naming import detect_layout, wanted

DIR_PREFIX = "dir:"
"""Ids of the models folder's entries start with this; a Hugging Face id is owner/name."""
MAX_LISTED = 500
HASH_CHUNK = 8 << 20


@dataclass(frozen=True)
class Found:
    id: str
    source: str
    path: Path
    revision: str | None = None


def _in_models_dir(models_dir: Path) -> list[Found]:
    found: list[Found] = []
    for entry in sorted(models_dir.iterdir())[:MAX_LISTED]:
        if entry.name.startswith("."):
            continue
        folder = entry.is_dir() and (any(entry.glob("*.safetensors")) or (entry / CONFIG_NAME).is_file())
        if folder or (entry.is_file() and entry.suffix == ".safetensors"):
            found.append(Found(DIR_PREFIX + entry.name, "models_dir", entry))
    return found


def _in_hf_cache(cache: str | None) -> list[Found]:
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    try:
        info = scan_cache_dir(cache)
    except (CacheNotFound, OSError, ValueError):
        return []
    found: list[Found] = []
    for repo in sorted(info.repos, key=lambda r: r.repo_id):
        if repo.repo_type != "model" or not repo.revisions:
            continue
        newest = max(repo.revisions, key=lambda r: r.last_modified)
        if any(f.file_name.endswith(".safetensors") for f in newest.files):
            found.append(Found(repo.repo_id, "hf_cache", Path(newest.snapshot_path), newest.commit_hash))
    return found[:MAX_LISTED]


def find_all(models_dir: Path | None, hf_cache: str | None) -> list[Found]:
    found = _in_models_dir(models_dir) if models_dir is not None and models_dir.is_dir() else []
    return found + _in_hf_cache(hf_cache)


def describe(f: Found) -> LocalModel:
    """The listing's line: size on disk, and the layout its headers show (or, in one line, why none)."""
    files = [f.path] if f.path.is_file() else sorted(f.path.glob("*.safetensors"))
    size = sum(p.stat().st_size for p in files)
    try:
        with open_checkpoint(f.path, wanted) as st:
            layout = detect_layout(st.tensors, st.config)
        style, layers, note = layout.style, len(layout.layers), None
    except ModelFileError as exc:
        style, layers, note = None, None, str(exc)
    return LocalModel(id=f.id, source=f.source, size_bytes=size, style=style, layers=layers, note=note)


_hashes: dict[tuple[str, int, int], str] = {}
_lock = threading.Lock()


def content_key(f: Found) -> str:
    """What identifies the model's bytes: its revision where the cache names one, else a hash of its files."""
    if f.revision:
        return f"hf:{f.id}@{f.revision}"
    digest = hashlib.sha256()
    files = [f.path] if f.path.is_file() else sorted(p for p in f.path.iterdir() if p.is_file())
    for p in files:
        stat = p.stat()
        memo = (str(p), stat.st_size, stat.st_mtime_ns)
        with _lock:
            known = _hashes.get(memo)
        if known is None:
            h = hashlib.sha256()
            with open(p, "rb") as fh:
                while chunk := fh.read(HASH_CHUNK):
                    h.update(chunk)
            known = h.hexdigest()
            with _lock:
                _hashes[memo] = known
        digest.update(p.name.encode() + b"\0" + known.encode())
    return "sha256:" + digest.hexdigest()


def hf_cache_dir() -> str | None:
    """The Hugging Face cache this process reads (`HF_HUB_CACHE`, else huggingface_hub's default)."""
    return os.environ.get("HF_HUB_CACHE") or None
