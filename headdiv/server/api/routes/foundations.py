"""The foundations lessons: one GET and one POST route per lesson of `headdiv.workers.schemas.lessons`.

`GET` takes the query as query parameters (so a lesson is a shareable URL; their text is read as the
numbers and booleans of the model, see `headdiv/server/api/query_text.py`) and `POST` as a JSON body of the
same model, whose types are strict. The lessons are cheap by their bounds, so they run inline in the thread pool
rather than as queued jobs; the engine (and torch) is imported at the first lesson asked for.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query

from headdiv.server.api.query_text import from_query_text
from headdiv.workers import reports
from headdiv.workers.schemas.lessons import LESSONS, Lesson
from headdiv.workers.schemas.results.common import ResultModel

router = APIRouter(prefix="/foundations", tags=["foundations"])


def _endpoint(lesson: Lesson, method: str) -> Callable[..., ResultModel]:
    def answer(query: Any) -> ResultModel:
        return reports.lesson(query)

    # GET reads the model from the query string, POST from the body.
    annotation = Annotated[from_query_text(lesson.query), Query()] if method == "GET" else lesson.query
    signature = inspect.signature(answer)
    answer.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[signature.parameters["query"].replace(annotation=annotation)]
    )
    answer.__name__ = f"{method.lower()}_{lesson.name}"
    return answer


for _lesson in LESSONS.values():
    for _method in ("GET", "POST"):
        router.add_api_route(
            f"/{_lesson.name}",
            _endpoint(_lesson, _method),
            methods=[_method],
            summary=_lesson.summary,
            response_model=_lesson.answer,
        )
