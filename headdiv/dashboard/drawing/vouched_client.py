"""The dashboard's client of the API: the one HTTP client (`headdiv.client`), vouching for the browser.

A browser's requests reach the API through the dashboard's server-side callbacks, so each names the
browser's address, with the dashboard's key, and the API counts a visitor's work as theirs
(`headdiv.plumbing.vouching`).
"""

from __future__ import annotations

from typing import Any

import flask

from headdiv.client import ApiClient
from headdiv.plumbing.vouching import CLIENT_HEADER, KEY_HEADER, dashboard_key


def on_behalf_of() -> dict[str, str]:
    """The browser's address, vouched for with the dashboard's key (none outside a request)."""
    if flask.has_request_context() and flask.request.remote_addr:
        return {CLIENT_HEADER: flask.request.remote_addr, KEY_HEADER: dashboard_key()}
    return {}


def dashboard_client(api_url: str, **options: Any) -> ApiClient:
    """The client the dashboard's callbacks share: the one HTTP client, vouching for each browser."""
    return ApiClient(api_url, vouch=on_behalf_of, **options)
