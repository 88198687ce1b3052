"""Real-model HDI API: built-in example models and safetensors uploads.

An upload must come from this site's own pages or carry the `X-Headdiv-Upload` header (see
`headdiv/server/api/origin.py`). Its size is bounded by `max_upload_bytes` (413), and its cost by the reader's
limits on header bytes, tensors and layers and by the measured work (each a 422 naming the limit). The
file is read where the form parser spooled it, opened once, only as safetensors - never unpickled - with
its header and shapes checked before any weight is loaded. The measurement runs in a thread, one upload
at a time by default (`HeavyWork`: 429 when busy), stops at its time limit (422) and when its client
disconnects. Everything wrong with a file is a `ModelFileError`, answered 422 naming the form field to
blame. The readers are imported at the first request that needs them, so the API starts without them.
"""

from __future__ import annotations

import logging
import os
import time
from typing import IO, Annotated, Any

from fastapi import APIRouter, File, Form, Header, HTTPException, Path, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from headdiv.plumbing.lru import ByteLRU
from headdiv.schemas.builtin_models import BUILTINS
from headdiv.schemas.errors import MeasurementStopped, ModelFileError
from headdiv.schemas.fields import MAX_MODEL_HEADS, MAX_SEED
from headdiv.schemas.results.report_results import BuiltinModels, LocalModels, ModelHeadsReport
from headdiv.server.api.heavy import ClientGone, HeavyWork, TimedOut, heavy_work
from headdiv.server.api.limits import BIGGER_MODEL
from headdiv.server.api.origin import UPLOAD_HEADER, check_upload_origin
from headdiv.server.server_settings import ServerSettings, get_server_settings
from headdiv.workers import instant_reports

log = logging.getLogger(__name__)
router = APIRouter(prefix="/models", tags=["models"])

ABSENT: Any = None
"""The default of an optional form field (None: read from the file)."""
FORM_FIELDS = frozenset({"file", "model", "num_heads", "num_kv_heads", "seed"})
UPLOAD_RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {"description": f"Neither from this site's pages (Origin) nor with the `{UPLOAD_HEADER}` header."},
    413: {"description": "The upload is larger than `HEADDIV_MAX_UPLOAD_BYTES`."},
    422: {"description": "A bad form field, or a file that is not safetensors, over a limit, or too slow to measure."},
    429: {"description": "Every upload slot is busy; retry after `Retry-After` seconds."},
}
SeedQuery = Annotated[int, Query(ge=0, le=MAX_SEED, description="Seed of the random-subspace baseline.")]


def _settings(request: Request) -> ServerSettings:
    """The app's settings when it has them (create_app sets app.state.settings), else the environment's."""
    settings = getattr(request.app.state, "settings", None)
    return settings if isinstance(settings, ServerSettings) else get_server_settings()


def _unprocessable(exc: ModelFileError) -> JSONResponse:
    return _refuse(exc.field, str(exc))


def _refuse(field: str, msg: str) -> JSONResponse:
    """The same body shape as every other 422 of the API: `detail` list plus one readable `message`."""
    body = {"detail": [{"loc": ["body", field], "msg": msg, "type": "value_error"}], "message": f"{field}: {msg}"}
    return JSONResponse(body, status_code=422)


@router.get("/builtin", summary="Built-in example models and whether each is installed")
def get_builtins() -> BuiltinModels:
    return BuiltinModels(models=instant_reports.builtin_models())


def _builtin(name: str, seed: int) -> ModelHeadsReport | JSONResponse:
    if name not in BUILTINS:
        raise HTTPException(404, f"unknown built-in model {name!r}; known: {sorted(BUILTINS)}")
    try:
        return instant_reports.builtin_heads(name, seed)
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from exc
    except ModelFileError as exc:  # a broken installation: say so rather than 500
        return _unprocessable(exc)


BuiltinName = Annotated[str, Path(max_length=200, description="Name from GET /models/builtin.")]


def builtin_model_hdi(name: BuiltinName, seed: SeedQuery = 0) -> Any:
    return _builtin(name, seed)


for _method in ("GET", "POST"):
    router.add_api_route(
        "/builtin/{name}/hdi",
        builtin_model_hdi,
        methods=[_method],
        name=f"{_method.lower()}_builtin_hdi",
        response_model=ModelHeadsReport,
        summary="Per-layer HDI of a built-in model",
        responses={404: {"description": "unknown or not installed built-in model"}},
    )


def _uploads(request: Request) -> HeavyWork:
    settings = _settings(request)
    return heavy_work(
        request,
        "upload_work",
        lambda: HeavyWork(
            "model upload",
            slots=settings.upload_slots,
            wait_s=settings.busy_wait_s,
            timeout_s=settings.upload_timeout_s,
        ),
    )


async def _refuse_unknown_fields(request: Request) -> None:
    """Unknown form fields are refused as unknown JSON keys are (the form is already parsed and cached)."""
    form = await request.form()
    unknown = sorted(set(form.keys()) - FORM_FIELDS)
    if unknown:
        raise RequestValidationError(
            [
                {"loc": ("body", name), "msg": "Extra inputs are not permitted", "type": "extra_forbidden"}
                for name in unknown
            ]
        )


@router.post(
    "/hdi",
    summary="Per-layer HDI of an uploaded model: one .safetensors file, or a model folder's files",
    responses=UPLOAD_RESPONSES,
    response_model=ModelHeadsReport,
)
async def post_model_hdi(
    request: Request,
    file: Annotated[
        list[UploadFile],
        File(
            min_length=1,
            description="A .safetensors file, or several `file` parts: a model folder's `config.json`, its "
            "`.safetensors` shards and their `model.safetensors.index.json` (pickles are refused). Together "
            "within `HEADDIV_MAX_UPLOAD_BYTES`.",
        ),
    ],
    model: Annotated[
        str, Form(min_length=1, max_length=200, description="The model's name in the report (default: the file's).")
    ] = ABSENT,
    # `int` defaulting to None rather than `int | None`: a form field cannot be null, so the schema says
    # integer (left out when not given) instead of offering a null that no form can send
    num_heads: Annotated[int, Form(ge=1, le=MAX_MODEL_HEADS, description="Query heads per layer.")] = ABSENT,
    num_kv_heads: Annotated[
        int, Form(ge=1, le=MAX_MODEL_HEADS, description="Key/value heads (grouped-query models).")
    ] = ABSENT,
    seed: Annotated[int, Form(ge=0, le=MAX_SEED, description="Seed of the random-subspace baseline.")] = 0,
    upload_header: Annotated[
        str | None,
        Header(
            alias=UPLOAD_HEADER,
            description="Any non-empty value: required unless the upload comes from this site's own pages "
            "(a browser's same-origin `Origin`). Web pages of other sites cannot send it.",
        ),
    ] = None,
) -> Any:
    check_upload_origin(request, upload_header)
    await _refuse_unknown_fields(request)
    settings = _settings(request)
    limit = settings.max_upload_bytes
    size = sum(f.size if f.size is not None else f.file.seek(0, os.SEEK_END) for f in file)
    if size > limit:
        raise HTTPException(413, f"upload too large: this server takes at most {limit} bytes; {BIGGER_MODEL}")
    names = [os.path.basename(f.filename or "upload.safetensors")[:200] for f in file]
    name = model or (names[0] if len(file) == 1 else None)  # several: the checkpoint's own name
    # one file is read where the form parser spooled it; several are a folder (`checkpoint.as_folder`)
    parts: list[tuple[str, IO[bytes]]] = [(n, f.file) for n, f in zip(names, file, strict=True)]
    source = parts[0][1] if len(parts) == 1 else parts

    def measure(should_stop: Any) -> ModelHeadsReport:
        return instant_reports.model_heads(
            source, num_heads=num_heads, num_kv_heads=num_kv_heads, seed=seed, model=name, should_stop=should_stop
        )

    return await _measure_in_a_slot(
        request, measure, field="file", label=f"model upload {name!r}", advice="; upload fewer or smaller layers"
    )


async def _measure_in_a_slot(request: Request, measure: Any, *, field: str, label: str, advice: str = "") -> Any:
    """A model measured in one of the upload slots (`HeavyWork`): its report, or each way it can end short as
    an answer: a refused model (422 naming `field`), the time limit (422), the client gone (499)."""
    try:
        return await _uploads(request).run(request, measure)
    except ModelFileError as exc:
        return _unprocessable(exc)
    except TimedOut as exc:
        return _refuse(
            field,
            f"measuring this model took longer than the limit of {exc.limit_s:g} s (HEADDIV_UPLOAD_TIMEOUT_S) "
            f"and was stopped{advice}",
        )
    except ClientGone as exc:
        where = f" ({exc.stopped})" if isinstance(exc.stopped, MeasurementStopped) else ""
        log.warning("%s: the client went away; its measurement was stopped%s", label, where)
        return Response(status_code=499)  # nobody reads it: the connection is gone


# ---------------------------------------------------------------------------------------------------------
# Models on this server: HEADDIV_MODELS_DIR and the local Hugging Face cache
# ---------------------------------------------------------------------------------------------------------

LOCAL_RESULTS_BYTES = 64 << 20
"""Measured local models kept in memory, by content (a model's report is some hundred KB)."""
LocalId = Annotated[
    str,
    Path(
        max_length=200,
        pattern=r"^(dir:)?[A-Za-z0-9][A-Za-z0-9_.-]*(/[A-Za-z0-9][A-Za-z0-9_.-]*)?$",
        description="An id from GET /models/local.",
    ),
]


LISTING_TTL_S = 30.0
"""How long the listing is kept: every page that opens the Real models view asks for it, and a lecture
deployment's models do not change while a class follows along."""


def _listing(request: Request) -> tuple[list[Any], LocalModels]:
    """The server's models (found on disk, each described from its headers), found once per LISTING_TTL_S."""
    state = request.app.state
    kept = getattr(state, "local_listing", None)
    if kept is not None and time.monotonic() - kept[0] < LISTING_TTL_S:
        return kept[1], kept[2]
    found = instant_reports.local_models(_settings(request).models_dir)
    described = LocalModels(models=[instant_reports.describe_local_model(f) for f in found])
    state.local_listing = (time.monotonic(), found, described)
    return found, described


@router.get("/local", summary="The models this server has on disk (its models folder and Hugging Face cache)")
async def get_local_models(request: Request) -> LocalModels:
    return (await run_in_threadpool(_listing, request))[1]


def _local_results(request: Request) -> ByteLRU[tuple[str, int], ModelHeadsReport]:
    state = request.app.state
    if getattr(state, "local_model_results", None) is None:
        state.local_model_results = ByteLRU(LOCAL_RESULTS_BYTES, lambda r: len(r.model_dump_json()))
    results: ByteLRU[tuple[str, int], ModelHeadsReport] = state.local_model_results
    return results


async def local_model_hdi(request: Request, model_id: LocalId, seed: SeedQuery = 0) -> Any:
    found = {f.id: f for f in (await run_in_threadpool(_listing, request))[0]}
    if model_id not in found:
        raise HTTPException(404, f"no model {model_id!r} on this server; GET /api/v1/models/local lists them")
    model = found[model_id]
    key = (await run_in_threadpool(instant_reports.local_model_key, model), seed)
    cached = _local_results(request).get(key)
    if cached is not None:
        return cached

    def measure(should_stop: Any) -> ModelHeadsReport:
        return instant_reports.model_heads(model.path, seed=seed, model=model_id, should_stop=should_stop)

    report = await _measure_in_a_slot(request, measure, field="model", label=f"model {model_id!r}")
    if isinstance(report, ModelHeadsReport):
        _local_results(request).put(key, report)
    return report


for _method in ("GET", "POST"):
    router.add_api_route(
        "/local/{model_id:path}/hdi",
        local_model_hdi,
        methods=[_method],
        name=f"{_method.lower()}_local_hdi",
        response_model=ModelHeadsReport,
        summary="Per-layer HDI of a model on this server, measured on demand and cached by its content",
        responses={404: {"description": "no such model on this server"}, 429: UPLOAD_RESPONSES[429]},
    )
