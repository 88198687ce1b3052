"""The registry of views, in tab order. A view is one module exposing `VIEW` (see `base.View`)."""

from __future__ import annotations

from headdiv.dashboard.views import (
    architecture,
    covariance,
    diversity,
    ensemble,
    foundations,
    models,
    surfaces,
    training,
    weighting,
)
from headdiv.dashboard.views.base import View

VIEWS: list[View] = [
    ensemble.VIEW,
    surfaces.VIEW,
    diversity.VIEW,
    architecture.VIEW,
    weighting.VIEW,
    training.VIEW,
    foundations.VIEW,
    models.VIEW,
    covariance.VIEW,
]

__all__ = ["VIEWS", "View"]
