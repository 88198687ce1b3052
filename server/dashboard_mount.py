"""The Dash dashboard, mounted at `/` of the API app through a2wsgi (one process, one port)."""

from __future__ import annotations

import logging

from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)

PLACEHOLDER = """<!doctype html><html><head><title>headdiv</title></head><body>
<h1>headdiv</h1><p>The dashboard is not available in this installation ({reason}).
The API is: see <a href="/docs">/docs</a>.</p></body></html>"""


def dashboard_app(api_url: str) -> ASGIApp:
    """The real Dash app when it imports; otherwise a small page that says why (the API still works)."""
    try:
        from a2wsgi import WSGIMiddleware

        from dashboard.app import create_dash_app  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        log.warning("dashboard unavailable: %s", exc)
        return _placeholder(f"import failed: {exc}")
    dash_app = create_dash_app(api_url)
    wsgi: ASGIApp = WSGIMiddleware(dash_app.server)  # type: ignore[assignment,unused-ignore]
    return wsgi


def _placeholder(reason: str) -> ASGIApp:
    page = HTMLResponse(PLACEHOLDER.format(reason=reason.replace("<", "&lt;")))

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await page(scope, receive, send)

    return app
