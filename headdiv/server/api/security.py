"""Security headers on every response: no MIME sniffing, no framing, and a Content-Security-Policy.

One policy serves the whole site (API, /docs, the dashboard and its assets): everything from this
origin, no inline script but the few whose hashes are listed (Dash's renderer start-up, Swagger UI's
set-up), styles inline allowed (Plotly and MathJax write style attributes), images also from `data:`
and `blob:` URLs (Plotly's image export, MathJax's SVG). `frame-ancestors 'none'` and X-Frame-Options
keep the pages out of other sites' frames (clickjacking). A pure ASGI middleware, so it also covers the
mounted Dash app and streamed or 4xx responses; a response that sets its own policy keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def content_security_policy(script_hashes: Iterable[str] = ()) -> str:
    scripts = " ".join(["'self'", *sorted(set(script_hashes))])
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
            "frame-ancestors 'none'",
        ]
    )


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, csp: str) -> None:
        self.app = app
        self.headers = [
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"same-origin"),
            (b"content-security-policy", csp.encode()),
        ]

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
