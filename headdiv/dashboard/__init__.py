"""The headdiv dashboard: a Dash app that talks to the headdiv API over HTTP (`create_dash_app`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dash import Dash


def create_dash_app(api_url: str, **kwargs: Any) -> Dash:
    """Build the dashboard (imported lazily so `import headdiv.dashboard` stays cheap)."""
    from headdiv.dashboard.app import create_dash_app as _create

    return _create(api_url, **kwargs)


__all__ = ["create_dash_app"]
