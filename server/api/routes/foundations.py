"""Foundations lessons API (issue 6): the scaling, softmax, entropy and budget lessons.

Each lesson answers both `GET` (query parameters, so a lesson is a shareable URL) and `POST` (a JSON
body of the same model). The query models live with the engine functions in
`workers.engine.foundations`; bounds there make every answer cheap, so the lessons run inline in the
thread pool rather than as queued jobs.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from workers.engine.foundations import (
    BudgetQuery,
    EntropyQuery,
    ScalingQuery,
    SoftmaxQuery,
    budget_lesson,
    entropy_lesson,
    scaling_lesson,
    softmax_lesson,
)

router = APIRouter(prefix="/foundations", tags=["foundations"])


@router.get("/scaling", summary="Unscaled vs scaled dot products, cosine similarity against d_k")
def get_scaling(query: Annotated[ScalingQuery, Query()]) -> dict[str, Any]:
    return scaling_lesson(query)


@router.post("/scaling", summary="Unscaled vs scaled dot products, cosine similarity against d_k")
def post_scaling(query: ScalingQuery) -> dict[str, Any]:
    return scaling_lesson(query)


@router.get("/softmax", summary="Softmax as a Boltzmann distribution at temperature T")
def get_softmax(query: Annotated[SoftmaxQuery, Query()]) -> dict[str, Any]:
    return softmax_lesson(query)


@router.post("/softmax", summary="Softmax as a Boltzmann distribution at temperature T")
def post_softmax(query: SoftmaxQuery) -> dict[str, Any]:
    return softmax_lesson(query)


@router.get("/entropy", summary="Attention entropy of random heads against H at fixed d_model")
def get_entropy(query: Annotated[EntropyQuery, Query()]) -> dict[str, Any]:
    return entropy_lesson(query)


@router.post("/entropy", summary="Attention entropy of random heads against H at fixed d_model")
def post_entropy(query: EntropyQuery) -> dict[str, Any]:
    return entropy_lesson(query)


@router.get("/budget", summary="Parameters, FLOPs and attention memory of one attention layer")
def get_budget(query: Annotated[BudgetQuery, Query()]) -> dict[str, Any]:
    return budget_lesson(query)


@router.post("/budget", summary="Parameters, FLOPs and attention memory of one attention layer")
def post_budget(query: BudgetQuery) -> dict[str, Any]:
    return budget_lesson(query)
