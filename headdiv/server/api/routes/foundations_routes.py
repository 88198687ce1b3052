"""The foundations lessons: one GET and one POST route per lesson of `headdiv.schemas.lesson_queries`.

`GET` takes the query as query parameters (so a lesson is a shareable URL; their text is read as the
numbers and booleans of the model, see `headdiv/server/api/query_text.py`) and `POST` as a JSON body of the
same model, whose types are strict. The lessons are cheap by their bounds, so they run inline in the thread pool
rather than as queued jobs; the engine (and torch) is imported at the first lesson asked for.

This module keeps its annotations evaluated (no `from __future__ import annotations`): each route is a plain
closure whose parameter is annotated with its lesson's query model, which FastAPI reads as it is.
"""

from typing import Annotated

from fastapi import APIRouter, Query

from headdiv.schemas.lesson_queries import LESSONS, Lesson
from headdiv.schemas.results.result_parts import ResultModel
from headdiv.server.api.query_text import from_query_text
from headdiv.workers import instant_reports

router = APIRouter(prefix="/foundations", tags=["foundations"])


def _add_routes(lesson: Lesson) -> None:
    body = lesson.query
    text = from_query_text(lesson.query)

    def get(query: Annotated[text, Query()]) -> ResultModel:  # type: ignore[valid-type]
        return instant_reports.lesson(query)

    def post(query: body) -> ResultModel:  # type: ignore[valid-type]
        return instant_reports.lesson(query)

    for method, answer in (("GET", get), ("POST", post)):
        router.add_api_route(
            f"/{lesson.name}",
            answer,
            methods=[method],
            name=f"{method.lower()}_{lesson.name}",
            summary=lesson.summary,
            response_model=lesson.answer,
        )


for _lesson in LESSONS.values():
    _add_routes(_lesson)
