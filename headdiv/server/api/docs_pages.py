"""/docs (Swagger UI) served from the assets of the installed `fastapi-offline` package.

FastAPI's own page loads its JavaScript and CSS from a CDN, so it is blank on a machine without
internet access (a lecture room, a cluster node). This page is FastAPI's, pointed at the same files
shipped inside the package; `inline_script_hashes` gives the hash of its inline script, for the
Content-Security-Policy. (ReDoc is not served: its page loads a logo from its CDN.)
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs-assets"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def assets_dir() -> Path:
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


def _swagger(app: FastAPI) -> HTMLResponse:
    return get_swagger_ui_html(
        openapi_url=app.openapi_url or "/openapi.json",
        title=f"{app.title} - Swagger UI",
        oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
        swagger_js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS_URL}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS_URL}/favicon.png",
        swagger_ui_parameters=app.swagger_ui_parameters,
    )


def install_docs(app: FastAPI) -> list[str]:
    """Add /docs and its OAuth2 redirect to an app made with `docs_url=None, redoc_url=None`; return the CSP
    hashes of their inline scripts."""
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return _swagger(app)

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    app.swagger_ui_oauth2_redirect_url = "/docs/oauth2-redirect"
    pages = [_swagger(app), get_swagger_ui_oauth2_redirect_html()]
    return inline_script_hashes(*(bytes(page.body).decode() for page in pages))


def inline_script_hashes(*html: str) -> list[str]:
    """`'sha256-...'` of every inline `<script>` (without `src`) in the pages, as CSP lists them."""
    out = []
    for page in html:
        for script in _INLINE_SCRIPT.findall(page):
            digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
            out.append(f"'sha256-{digest}'")
    return out
