"""POST /api/v1/hdi: head diversity of any list of matrices, answered at once (it is cheap)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from fastapi import APIRouter
from fastapi.responses import Response

from server.api.errors import invalid_body
from server.api.responses import ERROR_RESPONSES
from workers.schemas import HDIRequest

router = APIRouter(tags=["diversity"], responses=ERROR_RESPONSES)


@router.post("/hdi", summary="HDI, overlap matrix and principal angles of head matrices")
def post_hdi(request: HDIRequest) -> Any:
    from workers.engine import EngineError, hdi_report

    matrices = [np.asarray(m, dtype=np.float64) for m in request.matrices]
    try:
        report = hdi_report(matrices)
        body = json.dumps(report, allow_nan=False, separators=(",", ":"))
    except (EngineError, ValueError) as exc:
        return invalid_body(f"matrices: {exc}")
    return Response(content=body, media_type="application/json")
