"""The registry of views, in tab order. A view is one module exposing `VIEW` (see `base.View`)."""

from __future__ import annotations

from dashboard.views import architecture, diversity, ensemble, surfaces, weighting
from dashboard.views.base import View

VIEWS: list[View] = [ensemble.VIEW, surfaces.VIEW, diversity.VIEW, architecture.VIEW, weighting.VIEW]

# Issue 6's views (foundations, real models) join the registry once their modules exist.
try:
    from dashboard.views import foundations

    VIEWS.append(foundations.VIEW)
except ImportError:  # pragma: no cover - only until issue 6 lands
    pass
try:
    from dashboard.views import models

    VIEWS.append(models.VIEW)
except ImportError:  # pragma: no cover - only until issue 6 lands
    pass

__all__ = ["VIEWS", "View"]
