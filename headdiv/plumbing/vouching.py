"""How a dashboard tells the API whose request it makes (torch-free: both sides read it).

The API counts work and poll answers per client (`headdiv.server.admission`). A browser's requests reach the
API through the dashboard, so the dashboard names the browser's address in `CLIENT_HEADER`, and proves it
is the dashboard with `KEY_HEADER`: a key this process (and the API processes it starts) shares, or
HEADDIV_DASHBOARD_KEY set alike for a dashboard and an API in different processes. Anyone else's claim is
ignored, and so is X-Forwarded-For unless it comes from a configured proxy (HEADDIV_TRUSTED_PROXIES): a
client cannot get a fresh quota per header value.
"""

from __future__ import annotations

import hmac
import os
import secrets

CLIENT_HEADER = "x-headdiv-client"
KEY_HEADER = "x-headdiv-dashboard-key"
KEY_ENV = "HEADDIV_DASHBOARD_KEY"
UPLOAD_HEADER = "X-Headdiv-Upload"
"""What a client that is not one of this site's pages adds to an upload: a page of another site cannot add it
without a CORS preflight the API never approves (`headdiv.server.api.origin`)."""


def dashboard_key() -> str:
    """HEADDIV_DASHBOARD_KEY, or a random one made on first use and left in the environment, so that API
    processes started from this one (`serve --workers N`) share it."""
    return os.environ.setdefault(KEY_ENV, secrets.token_urlsafe(24))


def vouched(client: str | None, key: str | None) -> str | None:
    """The client a request names when it carries the dashboard's key, else None."""
    if not client or not key or not hmac.compare_digest(key.encode(), dashboard_key().encode()):
        return None
    return client[:64]
