"""The dashboard's only way to the API: HTTP through httpx, every failure turned into a readable message.

The dashboard talks to the API over HTTP even when both live in one process, so it behaves the same
embedded and scaled. Callbacks never see an exception type from httpx or a raw response body: they get
a `Job` or an `ApiError` whose message can be put on screen as it is.
"""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import BaseModel, ValidationError

API_PREFIX = "/api/v1"
UNAVAILABLE = "the API is unavailable"


class ApiError(Exception):
    """A failure the user can read: `message` is shown as is; `status` is the HTTP code, if any."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class Job(BaseModel):
    """The API's job object (issue 4): the result once finished, a reason once failed."""

    job_id: str
    status: str
    progress: float = 0.0
    cached: bool = False
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def done(self) -> bool:
        return self.status in ("finished", "failed", "canceled")

    @property
    def error_message(self) -> str:
        if self.status == "canceled":
            return "the job was canceled"
        if self.error:
            return str(self.error.get("message") or self.error)
        return f"the job {self.status} without a result"


def describe_422(body: Any) -> str:
    """FastAPI's `{detail: [{loc, msg}]}` as 'field: reason; field: reason'."""
    detail = body.get("detail") if isinstance(body, dict) else body
    if isinstance(detail, str):
        return detail
    if not isinstance(detail, list) or not detail:
        return "the request was refused as invalid"
    parts = []
    for item in detail[:5]:
        if not isinstance(item, dict):
            parts.append(str(item))
            continue
        loc = [str(p) for p in item.get("loc", []) if p not in ("body", "query", "path")]
        msg = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        field = ".".join(loc)
        parts.append(f"{field}: {msg}" if field and not msg.startswith(f"{loc[-1]}:") else msg)
    return "; ".join(parts)


def _message(resp: httpx.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        body = None
    if resp.status_code == 422:
        return describe_422(body)
    if resp.status_code in (502, 503, 504):
        return UNAVAILABLE + (
            f": {body['detail']}" if isinstance(body, dict) and isinstance(body.get("detail"), str) else ""
        )
    if resp.status_code == 413:
        return "the request is too large"
    if resp.status_code == 404:
        detail = body.get("detail") if isinstance(body, dict) else None
        if isinstance(detail, str) and "job" not in detail.lower():
            return f"not found: {detail}"
        return "not found (the job may have expired; try again)"
    if isinstance(body, dict):
        detail = body.get("detail") or body.get("error") or body.get("message")
        if isinstance(detail, dict):
            detail = detail.get("message", detail)
        if detail:
            return f"the API answered {resp.status_code}: {detail}"
    return f"the API answered {resp.status_code}"


class ApiClient:
    """Thin synchronous client of the headdiv API for server-side Dash callbacks."""

    def __init__(self, api_url: str, *, timeout: float = 10.0, transport: httpx.BaseTransport | None = None) -> None:
        self.api_url = api_url.rstrip("/")
        self._timeout = timeout
        self._client = httpx.Client(
            base_url=self.api_url + API_PREFIX,
            timeout=httpx.Timeout(timeout, connect=3.0),
            transport=transport,
            headers={"user-agent": "headdiv-dashboard"},
            # Idle connections are dropped here after 2 s, before uvicorn drops them (5 s): at equal
            # timeouts a slider moved after a pause could go out on a connection being closed, and fail.
            limits=httpx.Limits(keepalive_expiry=2.0),
        )

    def _send(self, method: str, path: str, *, wait: float = 0.0, **kw: Any) -> httpx.Response:
        try:
            timeout = httpx.Timeout(self._timeout + wait, connect=3.0)
            resp = self._client.request(method, path, timeout=timeout, **kw)
        except httpx.TimeoutException:
            raise ApiError(f"{UNAVAILABLE}: no answer in time", None) from None
        except httpx.HTTPError as exc:
            raise ApiError(f"{UNAVAILABLE} ({type(exc).__name__})", None) from None
        if resp.status_code >= 400:
            raise ApiError(_message(resp), resp.status_code)
        return resp

    def _job(self, resp: httpx.Response) -> Job:
        try:
            return Job.model_validate(resp.json())
        except (ValueError, ValidationError):
            raise ApiError(f"the API answered {resp.status_code} with an unreadable job") from None

    def submit(self, path: str, body: dict[str, Any], *, wait: float = 0.0) -> Job:
        """POST a job (`/simulations`, `/surfaces`, ...), blocking up to `wait` seconds for its result."""
        params = {"wait": wait} if wait else None
        return self._job(self._send("POST", path, wait=wait, json=body, params=params))

    def job(self, job_id: str) -> Job:
        return self._job(self._send("GET", f"/jobs/{job_id}"))

    def cancel(self, job_id: str) -> Job | None:
        resp = self._send("DELETE", f"/jobs/{job_id}")
        try:
            return Job.model_validate(resp.json())
        except (ValueError, ValidationError):
            return None

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """GET a cheap endpoint (e.g. `/theory/architecture`) and return its JSON object."""
        return self._object(self._send("GET", path, params=params))

    def upload(
        self, path: str, *, files: dict[str, Any], data: dict[str, str] | None = None, extra_timeout: float = 0.0
    ) -> dict[str, Any]:
        """POST a multipart form (e.g. a .safetensors file to `/models/hdi`) and return its JSON object."""
        resp = self._send("POST", path, wait=extra_timeout, files=files, data=data)
        return self._object(resp)

    def _object(self, resp: httpx.Response) -> dict[str, Any]:
        try:
            data = resp.json()
        except ValueError:
            raise ApiError("the API answered with something that is not JSON") from None
        if not isinstance(data, dict):
            raise ApiError("the API answered with an unexpected shape")
        return data

    def close(self) -> None:
        self._client.close()
