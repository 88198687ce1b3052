"""headdiv's service side: the FastAPI app, the two job backends, and the dashboard's mount.

The result cache and the job protocol live in `headdiv.jobs`, the command line in `headdiv.cli`. The version lives
in `headdiv.version` so the engine, the worker and the API always report the same one.

The app:
- `main`: the FastAPI application (`create_app`): the API under /api/v1, the job backend, the dashboard at `/`.
- `server_settings`: the API's settings: the job settings it shares with the workers, plus its own.
- `api`: the HTTP API, one router per domain under /api/v1.
- `backends`: where jobs run: in this process (embedded) or on an RQ queue (scaled), one protocol.
- `dashboard_mount`: the Dash dashboard, mounted at `/` through a2wsgi, its callback route hardened.
- `start_up`: what an embedded server does in the background as it starts (compile, speed, the first views).
- `in_process`: the app served from a thread of this process on a free loopback port (`headdiv.show`, export).

Serving many visitors:
- `admission`: how much work the service takes on, from one client and from everyone.
- `activity`: when people last asked this server something, so the start-up's own work waits for a quiet moment.
- `shared_responses`: responses that are the same for every visitor, built and compressed once per process.
- `http_guard`: the HTTP connection's own limits, before any request reaches the app.
- `refusals`: refused requests: one log line each, with the reason the client was given.

The lecture hall:
- `poll_counts`: where class polls are counted: in memory (embedded) or in the queue's Redis (scaled).
- `rooms`: rooms: every phone in a lecture hall follows what the lecturer's page shows.

This module is the server's public face: the command line and the Python API use the names in `__all__` and
nothing inside the package.
"""

from headdiv.server.api.security import SecurityHeadersMiddleware, content_security_policy
from headdiv.server.backends.rq import RQBackend
from headdiv.server.dashboard_mount import dashboard_app
from headdiv.server.http_guard import Server, uvicorn_config
from headdiv.server.in_process import start
from headdiv.server.main import COMPRESS_FROM_BYTES, create_app
from headdiv.server.refusals import RefusalLogMiddleware
from headdiv.server.server_settings import ServerSettings
from headdiv.server.start_up import warm_requests
from headdiv.version import __version__

__all__ = [
    "COMPRESS_FROM_BYTES",
    "RQBackend",
    "RefusalLogMiddleware",
    "SecurityHeadersMiddleware",
    "Server",
    "ServerSettings",
    "__version__",
    "content_security_policy",
    "create_app",
    "dashboard_app",
    "start",
    "uvicorn_config",
    "warm_requests",
]
