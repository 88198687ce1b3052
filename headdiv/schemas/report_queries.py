"""Queries of the reports computed at once, without a job: the HDI of given heads (`HDIRequest`, bounded
by the work of its linear algebra) and the theory's architecture curve (`TheoryQuery`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, model_validator

from headdiv.schemas.fields import Float, Int, StrictModel
from headdiv.schemas.geometries import MAX_P
from headdiv.schemas.requests import MAX_BUDGET

MAX_HDI_MATRICES = 256
MAX_HDI_NUMBERS = 1 << 22
MAX_HDI_WORK = 1e10
"""Multiply-adds one /hdi request may cost (a second or two of one core): the bases, the overlaps and the
listed principal angles, as `hdi_work` counts them."""
MAX_LISTED_PAIRS = 496
"""Pairs whose principal angles are listed (all pairs of 32 heads); the overlap matrix has every pair."""
MAX_LISTED_ANGLES = 16_384
"""Angles listed in all: with the overlap matrix (at most 256^2 numbers) the answer stays under about 2 MB."""
PROJECTOR_VALUES = 1 << 23
"""Largest h * p^2 for which the overlaps are taken from flattened projectors (64 MB of float64)."""


def overlap_by_projectors(p: int, widths: list[int]) -> bool:
    """Whether the overlaps of many heads are cheaper from their p x p projectors than from the Gram matrix
    of their bases (h p^2 against (sum d)^2 values), within the projectors' memory bound."""
    h, total = len(widths), sum(widths)
    return h * p * p <= min(total * total, PROJECTOR_VALUES)


def hdi_work(p: int, widths: list[int]) -> float:
    """Multiply-adds of an HDI report: the bases' SVDs, the overlaps, and the principal angles listed."""
    h, total, widest = len(widths), sum(widths), max(widths)
    bases = 6.0 * p * sum(d * d for d in widths)
    overlaps = (
        float(h * p * p * widest + h * h * p * p) if overlap_by_projectors(p, widths) else float(p * total * total)
    )
    angles = min(h * (h - 1) // 2, MAX_LISTED_PAIRS) * 8.0 * p * widest * widest
    return bases + overlaps + angles


class HDIRequest(StrictModel):
    """Head matrices (each p x d_h, as nested lists) whose diversity is wanted."""

    model_config = ConfigDict(
        json_schema_extra={
            "x-rules": [
                "every matrix has the same number of rows p (1..4096), and rows of equal length d with 1 <= d <= p",
                f"at most {MAX_HDI_NUMBERS} numbers in all",
                f"the work of the report (bases, overlaps, listed angles) at most {MAX_HDI_WORK:.0e} multiply-adds",
            ]
        }
    )

    matrices: list[
        Annotated[
            list[Annotated[list[Float], Field(min_length=1, max_length=MAX_P)]], Field(min_length=1, max_length=MAX_P)
        ]
    ] = Field(
        min_length=1,
        max_length=MAX_HDI_MATRICES,
        description="Head matrices, each p x d as a list of p rows of d numbers (full column rank).",
    )

    @model_validator(mode="after")
    def _shapes(self) -> HDIRequest:
        p = len(self.matrices[0])
        total = 0
        for i, m in enumerate(self.matrices):
            if len(m) != p:
                raise ValueError(f"matrices[{i}]: has {len(m)} rows, matrices[0] has {p}; all must share p")
            if not 1 <= p <= MAX_P:
                raise ValueError(f"matrices[{i}]: p = {p} rows, expected 1..{MAX_P}")
            widths = {len(row) for row in m}
            if len(widths) != 1:
                raise ValueError(f"matrices[{i}]: rows have different lengths {sorted(widths)}")
            d = widths.pop()
            if not 1 <= d <= p:
                raise ValueError(f"matrices[{i}]: has {d} columns; need 1 <= d <= p = {p}")
            total += p * d
        if total > MAX_HDI_NUMBERS:
            raise ValueError(f"matrices: {total} numbers in all, over {MAX_HDI_NUMBERS}")
        work = hdi_work(p, [len(m[0]) for m in self.matrices])
        if work > MAX_HDI_WORK:
            raise ValueError(
                f"matrices: about {work:.2g} multiply-adds for {len(self.matrices)} matrices of {p} rows, over the "
                f"limit of {MAX_HDI_WORK:.0e}; send fewer or narrower matrices"
            )
        return self


class TheoryQuery(StrictModel):
    """The closed-form architecture objective of docs/model.md section 7."""

    n: Int = Field(256, ge=2, le=10**12)
    budget: Int = Field(64, ge=1, le=MAX_BUDGET)
    c1: Float = Field(1.0, ge=0, le=1e12)
    c2: Float = Field(1.0, ge=0, le=1e12)
