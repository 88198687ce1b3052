"""Security headers on every response: no MIME sniffing, no framing, and a Content-Security-Policy.

One policy serves the whole site (API, /docs, the dashboard and its assets): everything from this
origin, no inline script but the few whose hashes are listed (Dash's renderer start-up, Swagger UI's
set-up), styles inline allowed (Plotly and MathJax write style attributes), images also from `data:`
and `blob:` URLs (Plotly's image export, MathJax's SVG). `frame-ancestors 'none'` and X-Frame-Options
keep the pages out of other sites' frames (clickjacking), unless an operator lists the origins that may
frame them (`HEADDIV_FRAME_ANCESTORS`: then `frame-ancestors` names them, and X-Frame-Options, which cannot,
is left out). A pure ASGI middleware, so it also covers the
mounted Dash app and streamed or 4xx responses; a response that sets its own policy keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def content_security_policy(script_hashes: Iterable[str] = (), frame_ancestors: Iterable[str] = ()) -> str:
    """The site's policy; `frame_ancestors` lists the origins allowed to frame its pages (none: no framing),
    for a view embedded with `?embed=1` in a course page (`HEADDIV_FRAME_ANCESTORS`)."""
    scripts = " ".join(["'self'", *sorted(set(script_hashes))])
    framers = " ".join(frame_ancestors) or "'none'"
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "worker-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            f"frame-ancestors {framers}",
        ]
    )


def security_headers(csp: str) -> list[tuple[bytes, bytes]]:
    """The headers every answer carries, for a page with this content security policy."""
    headers = [
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"content-security-policy", csp.encode()),
    ]
    if "frame-ancestors 'none'" in csp:  # X-Frame-Options cannot name origins: only when none may frame
        headers.insert(1, (b"x-frame-options", b"DENY"))
    return headers


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, csp: str) -> None:
        self.app = app
        self.headers = security_headers(csp)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                extra = [(name, value) for name, value in self.headers if name not in present]
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
