"""Running an API job from a view: submit, poll with progress, cancel, keep the old figures meanwhile.

One callback per view owns its job's lifecycle, so there is exactly one writer of its result store:
a new state submits (blocking briefly with `?wait=` so fast and cached results arrive in one round
trip), a pending job is polled by a `dcc.Interval`, the cancel button DELETEs it. Old figures stay
on screen, dimmed, until a new result replaces them; failures become a readable line, never a blank.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dash import Dash, Input, Output, State, ctx, dcc, no_update

from dashboard.api_client import ApiClient, ApiError, Job
from dashboard.export import reproduce_commands, result_to_csv
from dashboard.ids import STATE_STORE
from dashboard.state import State as PageState

Request = tuple[str, dict[str, Any]]
Build = Callable[[PageState], Request | None]
HIDDEN = {"display": "none"}


def request_key(req: Request) -> str:
    """Identity of a request: the same path and body always give the same key."""
    return json.dumps([req[0], req[1]], sort_keys=True, separators=(",", ":"))


def _bar(progress: float) -> tuple[dict[str, str], dict[str, str]]:
    pct = max(0.0, min(1.0, float(progress or 0.0))) * 100
    return {}, {"width": f"{pct:.0f}%"}


def _finished(job: Job, key: str, started: float | None = None) -> tuple[Any, str]:
    note = "from cache" if job.cached else "computed"
    seconds = (job.result or {}).get("seconds")
    if isinstance(seconds, (int, float)) and not job.cached:
        note = f"computed in {seconds:.2f} s"
    return {"key": key, "result": job.result}, note


def register_job(
    app: Dash,
    client: ApiClient,
    prefix: str,
    build: Build,
    *,
    bodies: list[str],
    view_id: str | None = None,
    wait: float = 1.5,
    cancellable: bool = False,
) -> None:
    """Wire the job of view `prefix` (components from `components.job_status(prefix)`).

    `build(state)` gives the request for a state (None: nothing to compute). With `view_id` the job
    runs only while that tab is shown. `bodies` are the ids of containers dimmed while the job runs;
    `cancellable` shows the cancel button while it does.
    """
    outputs = [
        Output(f"{prefix}-result", "data"),
        Output(f"{prefix}-job", "data"),
        Output(f"{prefix}-poll", "disabled"),
        Output(f"{prefix}-progress", "style"),
        Output(f"{prefix}-progress-bar", "style"),
        Output(f"{prefix}-status", "children"),
        Output(f"{prefix}-status", "className"),
        Output(f"{prefix}-cancel", "style"),
        *[Output(b, "className") for b in bodies],
    ]

    def out(
        result: Any = no_update,
        job: Any = no_update,
        poll_off: Any = True,
        bar: Any = HIDDEN,
        fill: Any = no_update,
        status: Any = "",
        cls: str = "job-status",
        busy: bool = False,
    ) -> tuple[Any, ...]:
        body_cls = "view-body busy" if busy else "view-body"
        cancel = {} if busy and cancellable else HIDDEN
        return (result, job, poll_off, bar, fill, status, cls, cancel, *[body_cls for _ in bodies])

    @app.callback(
        *outputs,
        Input(STATE_STORE, "data"),
        Input(f"{prefix}-poll", "n_intervals"),
        Input(f"{prefix}-cancel", "n_clicks"),
        State(f"{prefix}-job", "data"),
        State(f"{prefix}-result", "data"),
    )
    def _run(state_data: Any, _ticks: Any, _cancel: Any, job_data: Any, result_data: Any) -> tuple[Any, ...]:
        trigger = ctx.triggered_id
        job_data = job_data or {}
        if trigger == f"{prefix}-cancel":
            if not job_data.get("id"):
                return tuple(no_update for _ in outputs)
            try:
                client.cancel(job_data["id"])
            except ApiError as exc:
                return out(status=f"could not cancel: {exc.message}", cls="job-status error")
            return out(job=None, status="canceled", cls="job-status")
        if trigger == f"{prefix}-poll":
            if not job_data.get("id"):
                return out(job=None)
            try:
                job = client.job(job_data["id"])
            except ApiError as exc:
                return out(job=None, status=exc.message, cls="job-status error")
            return _settle(job, job_data["key"])
        if not state_data:
            return tuple(no_update for _ in outputs)
        page = PageState.from_data(state_data)
        if view_id is not None and page.get("tab") != view_id:
            return tuple(no_update for _ in outputs)
        req = build(page)
        if req is None:
            return tuple(no_update for _ in outputs)
        key = request_key(req)
        if (result_data or {}).get("key") == key:
            return out(job=None)
        if job_data.get("key") == key and job_data.get("id"):
            return tuple(no_update for _ in outputs)
        try:
            job = client.submit(req[0], req[1], wait=wait)
        except ApiError as exc:
            return out(job=None, status=exc.message, cls="job-status error")
        return _settle(job, key)

    def _settle(job: Job, key: str) -> tuple[Any, ...]:
        if job.status == "finished" and job.result is not None:
            result, note = _finished(job, key)
            return out(result=result, job=None, status=note)
        if job.done:
            return out(job=None, status=job.error_message, cls="job-status error")
        bar, fill = _bar(job.progress)
        pct = f"{100 * (job.progress or 0):.0f}%"
        return out(
            job={"id": job.job_id, "key": key},
            poll_off=False,
            bar=bar,
            fill=fill,
            status=f"{job.status} {pct}",
            busy=True,
        )


def register_exports(app: Dash, client: ApiClient, prefix: str, build: Build, name: str) -> None:
    """JSON/CSV download of the view's result, and its reproduce box kept in step with the state."""

    @app.callback(
        Output(f"{prefix}-download", "data"),
        Input(f"{prefix}-dl-json", "n_clicks"),
        Input(f"{prefix}-dl-csv", "n_clicks"),
        State(f"{prefix}-result", "data"),
        prevent_initial_call=True,
    )
    def _download(_j: Any, _c: Any, data: Any) -> Any:
        result = (data or {}).get("result")
        if not result:
            return no_update
        if ctx.triggered_id == f"{prefix}-dl-csv":
            return dcc.send_string(result_to_csv(result), f"headdiv-{name}.csv")
        return dcc.send_string(json.dumps(result, indent=1), f"headdiv-{name}.json")

    @app.callback(Output(f"{prefix}-reproduce", "children"), Input(STATE_STORE, "data"))
    def _reproduce(state_data: Any) -> Any:
        if not state_data:
            return no_update
        req = build(PageState.from_data(state_data))
        if req is None:
            return "nothing to compute for this view"
        return reproduce_commands(client.api_url, req[0], req[1])
