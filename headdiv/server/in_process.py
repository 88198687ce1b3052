"""The app (API and dashboard, embedded) served from a thread of this process on a free loopback port:
`headdiv.show` starts it for a notebook's dashboard, `headdiv export` for a file computed with nothing else
running. The same guarded uvicorn configuration as `headdiv serve`."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

HOST = "127.0.0.1"


@dataclass(frozen=True)
class InProcess:
    url: str
    server: Any  # uvicorn.Server, imported only when one starts
    thread: threading.Thread

    def stop(self, timeout_s: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout_s)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start(name: str, timeout_s: float = 120.0, **settings: Any) -> InProcess:
    """Start the app in a daemon thread called `name` (`settings` override the server's, no Redis by default);
    returns once it answers, or raises `RuntimeError` when it stops or takes longer than `timeout_s`."""

    from headdiv.server.http_guard import Server, uvicorn_config
    from headdiv.server.main import create_app
    from headdiv.server.server_settings import ServerSettings

    port = free_port()
    config = ServerSettings(**{"redis_url": None, **settings, "host": HOST, "port": port})
    server = Server(uvicorn_config(create_app(config), config, HOST, port, log_level="warning"))
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the embedded server stopped while starting")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the dashboard did not start within {timeout_s:g} s")
        thread.join(0.05)
    return InProcess(f"http://{HOST}:{port}", server, thread)
