"""Work that is the same at every start, kept on disk once per installed version (`EngineSettings.cache_dir`).

A server started as a class walks in must not spend its first minute recomputing what the last start
computed already: the shared answers' brotli and gzip encodings (by their content's hash), the engine's
measured speed (by what it depends on: device, dtype, compilation, threads, torch), the warm start's results
(by job id, which names the engine's version), the charts drawn for a state someone opened (by the state's
content and `code_digest`: the figures of a link or a tour's slide, drawn cold in over a second at a start),
the engine's compiled NW kernels (by what their code depends on: tracing them again cost 5 s of CPU).
Each is a file under `<cache_dir>/<version>/`, written whole
(a temporary file renamed into place, so a reader never sees half of one) and read back as bytes; what
cannot be read or written is computed again, never an error.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import re
import tempfile
from importlib import metadata
from pathlib import Path

from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.version import __version__

log = logging.getLogger(__name__)

KEPT_NAME = re.compile(r"[A-Za-z0-9._-]{1,200}")
"""A kept file's name: one path segment, never a way out of the folder."""
MAX_KIND_BYTES = 64 << 20
"""Each kind's folder is bounded: past this, the files least recently used go (a page whose body changes at
every start would otherwise add a file per start)."""


def kept_dir() -> Path | None:
    """This version's folder of kept work (None: 'off')."""
    where = get_engine_settings().cache_dir.strip()
    if where == "off":
        return None
    if not where:
        where = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "headdiv")
    return Path(where) / __version__


def source_digest(root: Path) -> str:
    """A hash of the sources under `root` (Python, scripts, styles) and of the drawing libraries' versions."""
    h = hashlib.sha256()
    for lib in ("plotly", "dash"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            h.update(f"{lib} {metadata.version(lib)}\n".encode())
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".js", ".css") and "__pycache__" not in path.parts and path.is_file():
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


@functools.cache
def code_digest() -> str:
    """This package's `source_digest`, read once per process (about 10 ms): what is kept of drawn output is
    named by it, so a figure builder edited under an unchanged version never serves what the old code drew."""
    return source_digest(Path(__file__).resolve().parents[1])


def _path(kind: str, name: str) -> Path | None:
    if not KEPT_NAME.fullmatch(kind) or not KEPT_NAME.fullmatch(name):
        raise ValueError(f"not a kept file's name: {kind}/{name}")
    folder = kept_dir()
    return None if folder is None else folder / kind / name


def read_kept(kind: str, name: str) -> bytes | None:
    """The bytes kept as `kind/name`, or None (never kept, unreadable, or keeping is off)."""
    path = _path(kind, name)
    if path is None:
        return None
    try:
        data = path.read_bytes()
        os.utime(path)  # recently used: the last to go when the folder is trimmed
    except OSError:
        return None
    return data


def kept_path(kind: str, name: str) -> Path | None:
    """Where `kind/name` is kept, for a reader that needs a file rather than its bytes (a shared library's
    package), or None (never kept, or keeping is off)."""
    path = _path(kind, name)
    if path is None:
        return None
    try:
        os.utime(path)
    except OSError:
        return None
    return path


def keep(kind: str, name: str, data: bytes) -> bool:
    """Keep `data` as `kind/name` for the next start; False when it could not be written (nothing changes)."""
    path = _path(kind, name)
    if path is None:
        return False
    written = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as f:
            written = f.name
            f.write(data)
        os.replace(written, path)
        _trim(path.parent)
    except OSError as exc:
        log.info("could not keep %s/%s: %s", kind, name, exc)
        if written is not None:
            with contextlib.suppress(OSError):
                os.unlink(written)
        return False
    return True


def _trim(folder: Path) -> None:
    """Remove the least recently used files of `folder` until it holds at most `MAX_KIND_BYTES`."""
    files = sorted((f.stat().st_mtime, f.stat().st_size, f) for f in folder.iterdir() if f.is_file())
    total = sum(size for _, size, _ in files)
    for _, size, f in files[:-1]:  # the newest always stays
        if total <= MAX_KIND_BYTES:
            break
        with contextlib.suppress(OSError):
            f.unlink()
            total -= size
