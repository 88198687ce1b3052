"""GET /api/v1/theory/architecture: the closed-form curves of docs/model.md section 7 (cheap, no job)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from headdiv.schemas import TheoryQuery
from headdiv.schemas.errors import EngineError
from headdiv.schemas.results.report_results import TheoryReport
from headdiv.server.api.error_handlers import invalid_body
from headdiv.server.api.query_text import from_query_text
from headdiv.workers import instant_reports

if TYPE_CHECKING:
    TheoryText = TheoryQuery
else:
    TheoryText = from_query_text(TheoryQuery)

router = APIRouter(prefix="/theory", tags=["theory"])


@router.get(
    "/architecture", summary="Closed-form architecture objective and optimal splits", response_model=TheoryReport
)
def get_architecture_theory(query: Annotated[TheoryText, Query()]) -> Any:
    try:
        body = instant_reports.theory(query).model_dump_json()
    except (EngineError, ValueError) as exc:
        return invalid_body(f"query: {exc}")
    return Response(content=body, media_type="application/json")
