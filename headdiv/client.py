"""The one HTTP client of the headdiv API: the dashboard's way to it and the Python API's (`headdiv.connect`).

The dashboard talks to the API over HTTP even when both live in one process, so it behaves the same
embedded and scaled. Callers never see an exception type from httpx or a raw response body: they get
a `JobState` (the API's own job model, read back from JSON) or an `ApiError` whose message can be put on
screen as it is, with a 422's field lines kept apart (`problems`) for the Python API's `InvalidRequest`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx
from pydantic import ValidationError

from headdiv.jobs.state import JobState
from headdiv.plumbing.vouching import UPLOAD_HEADER
from headdiv.schemas.fields import refusal_lines

API_PREFIX = "/api/v1"
UNAVAILABLE = "the API is unavailable"


class ApiError(Exception):
    """A failure the user can read: `message` is shown as is; `status` is the HTTP code, if any; `problems`,
    a 422's `<field>: <reason>` lines, all of them."""

    def __init__(self, message: str, status: int | None = None, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.problems = problems


def describe_422(body: Any) -> str:
    """The API's 422 body as 'field: reason; field: reason' (the first five: a line on screen)."""
    return "; ".join(refusal_lines(body)[:5])


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
    if resp.status_code == 429:
        detail = body.get("detail") if isinstance(body, dict) else None
        wait = resp.headers.get("retry-after", "a few")
        return f"the server is busy: {detail}" if isinstance(detail, str) else f"the server is busy; retry in {wait} s"
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


def _refusal(resp: httpx.Response) -> ApiError:
    try:
        body = resp.json()
    except ValueError:
        body = None
    problems = tuple(refusal_lines(body)) if resp.status_code == 422 else ()
    return ApiError(_message(resp), resp.status_code, problems)


class ApiClient:
    """Thin synchronous client of the headdiv API: the dashboard's server-side callbacks, the Python API.

    `vouch`: headers added to every request (the dashboard's: the browser's address, vouched for with its
    key, so the API counts a dashboard user's work as theirs, `headdiv.plumbing.vouching`)."""

    def __init__(
        self,
        api_url: str,
        *,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
        agent: str = "headdiv-dashboard",
        vouch: Callable[[], dict[str, str]] | None = None,
    ) -> None:
        self.api_url = api_url.rstrip("/")
        self._timeout = timeout
        self._vouch = vouch or dict
        self._client = httpx.Client(
            base_url=self.api_url + API_PREFIX,
            timeout=httpx.Timeout(timeout, connect=3.0),
            transport=transport,
            headers={"user-agent": agent},
            # Idle connections are dropped here after 2 s, before uvicorn drops them (5 s): at equal
            # timeouts a slider moved after a pause could go out on a connection being closed, and fail.
            limits=httpx.Limits(keepalive_expiry=2.0),
        )

    def _send(
        self, method: str, path: str, *, wait: float = 0.0, headers: dict[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        try:
            timeout = httpx.Timeout(self._timeout + wait, connect=3.0)
            sent = {**self._vouch(), **(headers or {})}
            resp = self._client.request(method, path, timeout=timeout, headers=sent, **kw)
        except httpx.TimeoutException:
            raise ApiError(f"{UNAVAILABLE}: no answer in time", None) from None
        except httpx.HTTPError as exc:
            raise ApiError(f"{UNAVAILABLE} ({type(exc).__name__})", None) from None
        if resp.status_code >= 400:
            raise _refusal(resp)
        return resp

    def _job(self, resp: httpx.Response) -> JobState:
        try:
            return JobState.model_validate(resp.json())
        except (ValueError, ValidationError):
            raise ApiError(f"the API answered {resp.status_code} with an unreadable job") from None

    def submit(
        self, path: str, body: dict[str, Any], *, wait: float = 0.0, until: str = "end", ahead: bool = False
    ) -> JobState:
        """POST a job (`/simulations`, `/surfaces`, ...), blocking up to `wait` seconds for its result (or,
        `until="progress"`, for its first step: the first cells of a surface, drawn at once); `ahead`: computed
        ahead of a person, at the lowest priority (`priority=background`)."""
        params: dict[str, Any] = {"wait": wait} if wait else {}
        if wait and until != "end":
            params["until"] = until
        if ahead:
            params["priority"] = "background"
        return self._job(self._send("POST", path, wait=wait, json=body, params=params or None))

    def job(self, job_id: str, *, wait: float = 0.0) -> JobState:
        """A job's state, blocking up to `wait` seconds for it to end."""
        return self._job(self._send("GET", f"/jobs/{job_id}", wait=wait, params={"wait": wait} if wait else None))

    def cancel(self, job_id: str) -> JobState | None:
        resp = self._send("DELETE", f"/jobs/{job_id}")
        try:
            return JobState.model_validate(resp.json())
        except (ValueError, ValidationError):
            return None

    def get(self, path: str, params: dict[str, Any] | None = None, *, slow: float = 0.0) -> dict[str, Any]:
        """GET an endpoint (e.g. `/theory/architecture`) and return its JSON object; `slow` adds seconds to
        the time it may take (a computation the API caches once done)."""
        return self._object(self._send("GET", path, wait=slow, params=params))

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST a JSON body to a cheap endpoint (e.g. `/polls`) and return its JSON object."""
        return self._object(self._send("POST", path, json=body))

    def upload(
        self, path: str, files: Mapping[str, Any] | list[tuple[str, Any]], data: Mapping[str, str], *, slow: float = 0.0
    ) -> dict[str, Any]:
        """POST a multipart form with files (a model's weights), with the upload header; its JSON object."""
        return self._object(self._send("POST", path, wait=slow, files=files, data=data, headers={UPLOAD_HEADER: "1"}))

    def relay(
        self, path: str, body: Iterator[bytes], headers: Mapping[str, str], *, extra_timeout: float = 0.0
    ) -> httpx.Response:
        """Stream a browser's upload (`body`, its `content-type` and `content-length` in `headers`) to the API
        chunk by chunk, never whole in memory, with the upload header; the API's answer is returned as it
        is, 4xx included, for the page to read. Only an unreachable API raises `ApiError`."""
        sent = {k: v for k, v in headers.items() if k.lower() in ("content-type", "content-length")}
        try:
            return self._client.request(
                "POST",
                path,
                content=body,
                headers={**self._vouch(), **sent, UPLOAD_HEADER: "1"},
                timeout=httpx.Timeout(self._timeout + extra_timeout, connect=3.0),
            )
        except httpx.TimeoutException:
            raise ApiError(f"{UNAVAILABLE}: no answer in time", None) from None
        except httpx.HTTPError as exc:
            raise ApiError(f"{UNAVAILABLE} ({type(exc).__name__})", None) from None

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
