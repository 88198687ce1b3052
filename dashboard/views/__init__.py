"""The registry of views, in tab order. A view is one module exposing `VIEW` (see `base.View`)."""

from __future__ import annotations

from dashboard.views import architecture, diversity, ensemble, foundations, models, surfaces, weighting
from dashboard.views.base import View

VIEWS: list[View] = [
    ensemble.VIEW,
    surfaces.VIEW,
    diversity.VIEW,
    architecture.VIEW,
    weighting.VIEW,
    foundations.VIEW,
    models.VIEW,
]

__all__ = ["VIEWS", "View"]
