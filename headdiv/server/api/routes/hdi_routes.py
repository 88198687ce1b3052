"""POST /api/v1/hdi: head diversity of any list of matrices, answered at once.

Bounded in cost and size: the request model refuses a report over `MAX_HDI_WORK` multiply-adds, the
overlaps of many heads come from one product rather than a loop over pairs, and principal angles are
listed for at most `MAX_LISTED_PAIRS` pairs (`MAX_LISTED_ANGLES` angles), with a note when pairs are left
out, so the answer stays under about 2 MB. It runs off the event loop in one of a few slots (429 when
busy), under `hdi_timeout_s`, and stops when its client goes away.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from headdiv.schemas import HDIRequest
from headdiv.schemas.errors import EngineError
from headdiv.schemas.report_queries import MAX_LISTED_ANGLES, MAX_LISTED_PAIRS
from headdiv.schemas.results.report_results import HdiReport
from headdiv.server.api.error_handlers import validation_body
from headdiv.server.api.heavy import ClientGone, HeavyWork, TimedOut, heavy_work
from headdiv.server.api.responses import ERROR_RESPONSES
from headdiv.server.server_settings import ServerSettings
from headdiv.workers import instant_reports

log = logging.getLogger(__name__)
router = APIRouter(tags=["diversity"], responses=ERROR_RESPONSES)
BUSY: dict[int | str, dict[str, Any]] = {429: {"description": "Every /hdi slot is busy; retry after `Retry-After`."}}


def _work(request: Request) -> HeavyWork:
    settings: ServerSettings = request.app.state.settings
    return heavy_work(
        request,
        "hdi_work",
        lambda: HeavyWork(
            "hdi", slots=settings.hdi_slots, wait_s=settings.busy_wait_s, timeout_s=settings.hdi_timeout_s
        ),
    )


def _refuse(reason: str) -> Response:
    body = validation_body([{"loc": ["body", "matrices"], "msg": reason, "type": "value_error"}])
    return JSONResponse(body, status_code=422)


@router.post(
    "/hdi",
    summary="HDI, overlap matrix and principal angles of head matrices",
    responses=BUSY,
    response_model=HdiReport,
)
async def post_hdi(body: HDIRequest, request: Request) -> Any:
    def compute(should_stop: Callable[[], bool]) -> bytes:
        matrices = [np.asarray(m, dtype=np.float64) for m in body.matrices]
        report = instant_reports.hdi(
            matrices, max_angle_pairs=MAX_LISTED_PAIRS, max_angles=MAX_LISTED_ANGLES, should_stop=should_stop
        )
        return report.model_dump_json().encode()

    try:
        content = await _work(request).run(request, compute)
    except (EngineError, ValueError) as exc:  # e.g. a rank-deficient head: a rule of the values, as a 422
        return _refuse(str(exc).removeprefix("matrices: "))
    except TimedOut as exc:
        return _refuse(f"computing took longer than the limit of {exc.limit_s:g} s (HEADDIV_HDI_TIMEOUT_S)")
    except ClientGone:
        log.warning("/hdi: the client went away; its computation was stopped")
        return Response(status_code=499)
    return Response(content=content, media_type="application/json")
