"""Real-model HDI API (issue 6): built-in example models and safetensors uploads.

Uploads are copied in chunks to a temporary file, stopping at `max_upload_bytes` with 413 (the body
limit middleware also enforces it on the wire); the file is then read only as safetensors - never
unpickled - with its header and shapes checked before any weight is loaded. Everything wrong with a
file is a `ModelFileError`, answered 422 naming the form field to blame.
"""

from __future__ import annotations

import os
import tempfile
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, HTTPException, Path, Query, Request, UploadFile
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from server.settings import ServerSettings, get_server_settings
from workers.models import BUILTINS, ModelFileError, builtin_hdi, list_builtins, model_hdi

router = APIRouter(prefix="/models", tags=["models"])

CHUNK_BYTES = 1 << 20
MAX_HEADS = 4096
SeedQuery = Annotated[int, Query(ge=0, le=2**32 - 1, description="Seed of the random-subspace baseline.")]


def _settings(request: Request) -> ServerSettings:
    """The app's settings when it has them (create_app sets app.state.settings), else the environment's."""
    settings = getattr(request.app.state, "settings", None)
    return settings if isinstance(settings, ServerSettings) else get_server_settings()


def _unprocessable(exc: ModelFileError) -> JSONResponse:
    """The same body shape as every other 422 of the API: `detail` list plus one readable `message`."""
    msg = str(exc)
    body = {
        "detail": [{"loc": ["body", exc.field], "msg": msg, "type": "value_error"}],
        "message": f"{exc.field}: {msg}",
    }
    return JSONResponse(body, status_code=422)


@router.get("/builtin", summary="Built-in example models and whether each is installed")
def get_builtins() -> dict[str, Any]:
    return {"models": list_builtins()}


def _builtin(name: str, seed: int) -> dict[str, Any] | JSONResponse:
    if name not in BUILTINS:
        raise HTTPException(404, f"unknown built-in model {name!r}; known: {sorted(BUILTINS)}")
    try:
        return builtin_hdi(name, seed)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from exc
    except ModelFileError as exc:  # a broken installation: say so rather than 500
        return _unprocessable(exc)


BuiltinName = Annotated[str, Path(max_length=200, description="Name from GET /models/builtin.")]


@router.get(
    "/builtin/{name}/hdi",
    summary="Per-layer HDI of a built-in model",
    responses={404: {"description": "unknown or not installed built-in model"}},
)
def get_builtin_hdi(name: BuiltinName, seed: SeedQuery = 0) -> Any:
    return _builtin(name, seed)


@router.post(
    "/builtin/{name}/hdi",
    summary="Per-layer HDI of a built-in model",
    responses={404: {"description": "unknown or not installed built-in model"}},
)
def post_builtin_hdi(name: BuiltinName, seed: SeedQuery = 0) -> Any:
    return _builtin(name, seed)


async def _spool(upload: UploadFile, limit: int) -> str:
    """Copy the upload to a named temporary file chunk by chunk; 413 as soon as it passes `limit`."""
    fd, path = tempfile.mkstemp(prefix="headdiv-upload-", suffix=".safetensors")
    written = 0
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := await upload.read(CHUNK_BYTES):
                written += len(chunk)
                if written > limit:
                    raise HTTPException(413, f"upload too large: the limit is {limit} bytes")
                out.write(chunk)
    except BaseException:
        os.unlink(path)
        raise
    return path


@router.post("/hdi", summary="Per-layer HDI of an uploaded .safetensors model")
async def post_model_hdi(
    request: Request,
    file: Annotated[UploadFile, File(description="A .safetensors file (pickles are refused).")],
    num_heads: Annotated[int | None, Form(ge=1, le=MAX_HEADS, description="Query heads per layer.")] = None,
    num_kv_heads: Annotated[
        int | None, Form(ge=1, le=MAX_HEADS, description="Key/value heads (grouped-query models).")
    ] = None,
    seed: Annotated[int, Form(ge=0, le=2**32 - 1, description="Seed of the random-subspace baseline.")] = 0,
) -> Any:
    limit = _settings(request).max_upload_bytes
    if file.size is not None and file.size > limit:
        raise HTTPException(413, f"upload too large: the limit is {limit} bytes")
    path = await _spool(file, limit)
    try:
        name = os.path.basename(file.filename or "upload.safetensors")[:200]
        return await run_in_threadpool(
            model_hdi, path, num_heads=num_heads, num_kv_heads=num_kv_heads, seed=seed, model=name
        )
    except ModelFileError as exc:
        return _unprocessable(exc)
    finally:
        os.unlink(path)
