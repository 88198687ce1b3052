"""Uploads only from this site's own pages or from clients that say so: a cross-site request forgery guard.

A web page of another site can make a visitor's browser POST a multipart form here (no preflight is
needed for one), so an upload is processed only when either
- the browser says it comes from this site: its `Origin` names the host the request was sent to, or
- it carries the `X-Headdiv-Upload` header, which a page of another site cannot add without a CORS
  preflight that this server never approves (scripts, `curl`, the dashboard's own server-side client).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import HTTPException, Request

from headdiv.plumbing.vouching import UPLOAD_HEADER

__all__ = ["UPLOAD_HEADER", "check_upload_origin"]


def _same_origin(origin: str, request: Request) -> bool:
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    host = request.headers.get("x-forwarded-host") or request.headers.get("host") or ""
    default = {"http": ":80", "https": ":443"}[parts.scheme]
    return parts.netloc.lower().removesuffix(default) == host.lower().removesuffix(default)


def check_upload_origin(request: Request, header_value: str | None) -> None:
    """Raise 403 unless the upload is same-origin or carries the upload header."""
    if header_value:
        return
    origin = request.headers.get("origin")
    if origin is not None and _same_origin(origin, request):
        return
    if origin is not None:
        raise HTTPException(403, f"cross-site upload refused: this page's origin {origin[:100]!r} is not this site")
    raise HTTPException(
        403,
        f"upload refused: add the header '{UPLOAD_HEADER}: 1' (a guard against other web sites posting files "
        "through a visitor's browser), or upload from this site's own pages",
    )
