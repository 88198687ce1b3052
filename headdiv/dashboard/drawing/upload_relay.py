"""The page uploads a model straight to `POST /api/v1/models/hdi` (assets/upload.js): multipart, with a
progress bar and cancel, never base64 through a Dash callback. Where the dashboard is served with the API
(`headdiv serve`) that path is the API's own route; where it is served on its own (`headdiv dashboard`) this
route relays the body to the API as it arrives, so the page needs no cross-origin request either way."""

from __future__ import annotations

from collections.abc import Iterator

import flask

from headdiv.client import API_PREFIX, ApiClient, ApiError

UPLOAD_PATH = "/models/hdi"
RELAY_WAIT_S = 600.0
"""How long a relayed upload may take, sending and measuring (the API's own limit stops it first)."""
CHUNK = 1 << 20


def upload_url(prefix: str) -> str:
    """Where the page sends a model: its own server's `api/v1/models/hdi` under the dashboard's prefix."""
    return f"{prefix.rstrip('/')}{API_PREFIX}{UPLOAD_PATH}"


def _chunks(request: flask.wrappers.Request) -> Iterator[bytes]:
    """The request's body as it arrives, a mebibyte at a time."""
    while chunk := request.stream.read(CHUNK):
        yield chunk


def register_upload_relay(server: flask.Flask, client: ApiClient, prefix: str = "/") -> None:
    """Serve `{prefix}api/v1/models/hdi` (the page's upload address) by relaying to the API."""

    def relay() -> flask.Response:
        request = flask.request
        try:
            headers = {k: v for k, v in request.headers.items()}
            answer = client.relay(UPLOAD_PATH, _chunks(request), headers, extra_timeout=RELAY_WAIT_S)
        except ApiError as exc:
            return flask.Response(flask.json.dumps({"message": exc.message}), 503, mimetype="application/json")
        kept = {k: v for k, v in answer.headers.items() if k.lower() == "retry-after"}
        return flask.Response(answer.content, answer.status_code, headers=kept, mimetype="application/json")

    server.add_url_rule(upload_url(prefix), "upload_relay", relay, methods=["POST"])
