"""The HTTP connection's own limits, before any request reaches the app: what uvicorn leaves open.

uvicorn (with httptools) reads a request head of any size (a 100 MB header cost 11 s of CPU and stalled
every other request) and keeps a connection that sends nothing, or a head that never ends, open for ever
(1,050 such sockets used up a 1,024-descriptor limit). `GuardedHttpToolsProtocol` adds, per connection:

- a head size limit (`max_head_bytes`, request line and headers): 431, checked on the bytes as they arrive,
  before the parser accumulates them; and a header count limit (`max_headers`): 431;
- a head deadline (`head_timeout_s`) from the connection's start, or from the end of its previous answer:
  a head that is not complete by then gets 408 and the connection is closed (an idle fresh socket too);
- the answers carry the site's security headers, like every other answer.

Between requests uvicorn's keep-alive timeout already closes an idle connection; the body's deadlines are
`headdiv.server.api.limits`'s. Selected with `uvicorn.Config(http=GuardedHttpToolsProtocol)`.

An answer given before its request's body was read (a 413) must neither poison the connection nor be lost:
- the head limits count only head bytes: the rest of an answered request's body is not the next head (it
  was, and a keep-alive client's next request got 431);
- closing such a connection is graceful: the answer is sent, then the write side shut (FIN), and what the
  client still sends is read and dropped (up to `DRAIN_BYTES` or `DRAIN_S`) before the socket closes, so the
  client reads the answer instead of a reset (a socket closed with unread data sends RST at once).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from headdiv.server.refusals import log_refusal

_END = b"\r\n\r\n"
SECURITY_HEADERS = (
    b"x-content-type-options: nosniff\r\n"
    b"x-frame-options: DENY\r\n"
    b"referrer-policy: same-origin\r\n"
    b"content-security-policy: default-src 'none'; frame-ancestors 'none'\r\n"
)
FIRST_BYTES = 120
"""The start of a request line kept for a refusal: a page's GET or the API's, and the log line's path."""
MALFORMED = "send a well-formed HTTP/1.1 request (a request line, then one `Name: value` header per line)"
REASONS = {400: b"Bad Request", 408: b"Request Timeout", 431: b"Request Header Fields Too Large"}


PAGE = (
    "<!doctype html><html lang='en'><meta charset='utf-8'><title>Link too long</title>"
    "<body style='font-family:sans-serif;max-width:40em;margin:3em auto'><h1>This link is too long to open</h1>"
    "<p>{message}. A headdiv link names a few settings and is rarely over a few hundred characters: ask "
    "whoever sent it for the link again, or <a href='/'>open headdiv</a> and choose the settings.</p>"
)
"""What a browser that followed an over-long link reads (a page, not a JSON line)."""


def refusal(status: int, message: str, *, page: bool = False, remedy: str = "") -> bytes:
    """A complete HTTP/1.1 answer that closes the connection: JSON `{"detail", "message"}` (the message and
    what to do), or for a page a browser asked for (`page`), a short HTML page that says what happened."""
    if page:
        body, kind = PAGE.format(message=message.capitalize()).encode(), b"text/html; charset=utf-8"
    else:
        text = f"{message}; {remedy}" if remedy else message
        body, kind = json.dumps({"detail": text, "message": text}).encode(), b"application/json"
    return b"".join(
        [
            b"HTTP/1.1 %d %s\r\n" % (status, REASONS[status]),
            b"content-type: " + kind + b"\r\n",
            b"content-length: %d\r\n" % len(body),
            b"connection: close\r\n",
            SECURITY_HEADERS,
            b"\r\n",
            body,
        ]
    )


class _GracefulClose:
    """The connection's transport, whose `close` is the protocol's graceful one (uvloop's transports cannot
    be patched, so the protocol hands out this instead); the rest is what uvicorn asks of a transport."""

    def __init__(self, transport: asyncio.Transport, protocol: GuardedHttpToolsProtocol) -> None:
        self._transport = transport
        self._protocol = protocol

    def close(self) -> None:
        self._protocol.graceful_close(self._transport)

    def write(self, data: bytes) -> None:
        self._transport.write(data)

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def write_eof(self) -> None:
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def abort(self) -> None:
        self._transport.abort()


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """Its limits are class attributes (`guarded_protocol` makes a class with others); left None, they are
    the server's settings (`HEADDIV_MAX_HEAD_BYTES`, ...), read in each process (several workers)."""

    max_head_bytes: int | None = None
    max_headers: int | None = None
    head_timeout_s: float | None = None
    DRAIN_BYTES = 8 << 20
    """The most of an answered request's unread body read and dropped before its connection closes."""
    DRAIN_S = 5.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from headdiv.server.server_settings import get_server_settings

        settings = (
            get_server_settings() if None in (self.max_head_bytes, self.max_headers, self.head_timeout_s) else None
        )
        self._max_head_bytes: int = self.max_head_bytes or (settings.max_head_bytes if settings else 0)
        self._max_headers: int = self.max_headers or (settings.max_headers if settings else 0)
        self._head_timeout_s: float = self.head_timeout_s or (settings.head_timeout_s if settings else 0.0)
        self._in_head = True
        self._head_bytes = 0
        self._tail = b""
        self._lines = 0
        self._first = b""
        """The head's first bytes (the request line's start)."""
        self._head_timer: asyncio.TimerHandle | None = None
        self._message_done = True
        """Whether the parser has read the whole of the current request (its body included)."""
        self._head_after_body = False
        self._draining = False
        self._drained = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._real_close = transport.close
        # uvicorn closes a connection through `self.transport` (its request cycles get it from here): with a
        # body still coming, the close shuts the write side and drains instead
        self.transport = _GracefulClose(transport, self)  # type: ignore[assignment]
        self._await_head()

    def graceful_close(self, transport: asyncio.Transport) -> None:
        if self._message_done or self._draining or transport.is_closing() or not transport.can_write_eof():
            transport.close()
            return
        self._draining = True
        self._stop_head_timer()
        transport.write_eof()
        self.loop.call_later(self.DRAIN_S, transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def eof_received(self) -> None:
        if self._draining:  # the client has sent all it will: the drain is over
            self._real_close()
            return
        super().eof_received()

    def _await_head(self) -> None:
        self._in_head, self._head_bytes, self._tail, self._lines, self._first = True, 0, b"", 0, b""
        self._stop_head_timer()
        self._head_timer = self.loop.call_later(self._head_timeout_s, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _refuse(self, status: int, message: str, remedy: str) -> None:
        self._stop_head_timer()
        if not self.transport.is_closing():
            # a page's GET (not the API's): the start of the request line is in `_first`
            page = self._first.startswith(b"GET /") and not self._first.startswith(b"GET /api/")
            self._log_refusal(status, f"{message}; {remedy}")
            self.transport.write(refusal(status, message, page=page, remedy=remedy))
            self.transport.close()

    def _log_refusal(self, status: int, reason: str) -> None:
        # only the head's first bytes are kept (`_first`): the path may be cut short
        method, _, rest = self._first.decode("latin-1").partition(" ")
        path, cut, _ = rest.partition(" ")
        client = getattr(self, "client", None)
        log_refusal(status, method, path if cut else path + "...", client[0] if client else "", reason)

    def send_400_response(self, msg: str) -> None:
        """The parser's own 400 (a malformed request line or header), with the security headers."""
        self._stop_head_timer()
        if not self.transport.is_closing():
            self._log_refusal(400, f"{msg}; {MALFORMED}")
            self.transport.write(refusal(400, msg, remedy=MALFORMED))
            self.transport.close()

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self._in_head and not self.transport.is_closing():
            if self._head_bytes or self._tail:
                self._refuse(
                    408,
                    f"the request head took longer than {self._head_timeout_s:g} s",
                    "send the request line and headers at once",
                )
            else:
                self.transport.close()  # an idle socket: nothing was asked, nothing to answer

    def data_received(self, data: bytes) -> None:
        if self._draining:  # an answered request's body: read and dropped, up to a bound
            self._drained += len(data)
            if self._drained > self.DRAIN_BYTES:
                self._real_close()
            return
        if self._in_head and not self.transport.is_closing():
            seen = self._tail + data
            if len(self._first) < FIRST_BYTES:
                self._first = (self._first + data)[:FIRST_BYTES]
            end = seen.find(_END)
            in_head = len(data) if end < 0 else end + len(_END) - len(self._tail)
            size = self._head_bytes + in_head
            if size > self._max_head_bytes:
                self._refuse(
                    431,
                    f"the request head is larger than {self._max_head_bytes} bytes",
                    "send a shorter URL or fewer, shorter headers (cookies count)",
                )
                return
            self._lines += data.count(b"\n", 0, in_head)
            if self._lines > self._max_headers + 2:  # the request line, the headers, the empty line
                self._refuse(
                    431,
                    f"the request has more than {self._max_headers} headers",
                    f"send at most {self._max_headers}",
                )
                return
            self._head_bytes = size
            self._tail = seen[-(len(_END) - 1) :]
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._message_done = False

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._message_done = True
        if self._head_after_body:  # the request was answered before its body ended: now a head may come
            self._head_after_body = False
            if not self.transport.is_closing():
                self._await_head()

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._stop_head_timer()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing():
            return
        if self._message_done:
            self._await_head()  # the keep-alive timeout closes it if nothing comes; a head must complete
        else:
            self._head_after_body = True  # the rest of this body is not a head: count from its end


def guarded_protocol(max_head_bytes: int, max_headers: int, head_timeout_s: float) -> type[GuardedHttpToolsProtocol]:
    """The protocol class with these limits (uvicorn takes a class, not an instance)."""
    return type(
        "GuardedHttpToolsProtocol",
        (GuardedHttpToolsProtocol,),
        {"max_head_bytes": max_head_bytes, "max_headers": max_headers, "head_timeout_s": head_timeout_s},
    )


def raise_descriptor_limit() -> int:
    """Raise this process's open-file limit to its hard limit (each connection is a descriptor); the soft
    limit it now has."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return int(soft)


def connection_limit(configured: int | None, descriptors: int) -> int:
    """Connections served at once before uvicorn answers 503: the configured number, else what the
    descriptors allow with room for files, Redis and the job runner."""
    return configured if configured is not None else max(64, descriptors - 128)


class Server(uvicorn.Server):
    """`uvicorn.Server` that first ends the rooms' event streams when it stops (`headdiv.server.rooms`): a
    stream never ends by itself, and each would hold the stop for the graceful timeout, then be cancelled."""

    async def shutdown(self, sockets: Any = None) -> None:
        from headdiv.server.rooms import end_streams

        end_streams()
        await asyncio.sleep(0)  # the woken streams end before the connections are waited for
        await super().shutdown(sockets)


def uvicorn_config(app: Any, settings: Any, host: str, port: int, workers: int = 1, **extra: Any) -> Any:
    """The server's uvicorn configuration: the guarded protocol and the connection limits of `settings`.
    With several `workers`, `app` is an import string of an app factory, and each process reads its limits
    from the environment (what crosses to a worker process must be importable)."""

    protocol: Any = (
        guarded_protocol(settings.max_head_bytes, settings.max_headers, settings.head_timeout_s)
        if workers == 1
        else f"{__name__}:GuardedHttpToolsProtocol"
    )
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol,
        timeout_keep_alive=settings.keep_alive_s,
        # X-Forwarded-For from the configured proxies only (none by default): anyone else could name any address
        proxy_headers=bool(proxies := getattr(settings, "trusted_proxies", "").strip()),
        forwarded_allow_ips=proxies or None,
        server_header=False,  # names the server software to every client, for no one's benefit
        limit_concurrency=connection_limit(settings.max_connections, raise_descriptor_limit()),
        workers=workers,
        factory=workers > 1,
        # a room's followers hold their event streams for the whole lecture, long-polls up to a minute: a
        # stop waits this long for them, then ends them (their clients reconnect to whatever comes next)
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        **extra,
    )


GRACEFUL_SHUTDOWN_S = 5
