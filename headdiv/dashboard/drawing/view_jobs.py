"""Running an API job from a view: submit, poll with progress, cancel, keep the old figures meanwhile.

One callback per view owns its job's lifecycle, so there is exactly one writer of its result store:
a new state submits (blocking briefly with `?wait=` so fast and cached results arrive in one round
trip), a pending job is polled by a `dcc.Interval`, the cancel button DELETEs it. Old figures stay
on screen, dimmed, until a new result replaces them; failures become a readable line, never a blank.
A job made of cells (a surface, a sweep) shows its partial result as it grows: the store then holds
`{"key", "result": <partial>, "partial": true}`, redrawn only when more cells are done.

The callback listens to a gated copy of the page state (`ids.view_state`, filled in the browser only
while its tab is shown), so a key press costs no request for the views that are not on screen.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from dash import Dash, Input, Output, State, ctx, dcc, no_update

from headdiv.client import ApiClient, ApiError
from headdiv.dashboard.drawing.export import reproduce_commands, result_to_csv
from headdiv.dashboard.drawing.shared_callbacks import pure_callback
from headdiv.dashboard.page.component_ids import view_state
from headdiv.dashboard.page.language import _
from headdiv.dashboard.page.url_state import PageState
from headdiv.i18n import N_
from headdiv.jobs.kinds import kind_at
from headdiv.jobs.state import JobState
from headdiv.plumbing.lru import ByteLRU
from headdiv.schemas.results.result_parts import ResultModel

Request = tuple[str, dict[str, Any]]
Build = Callable[[PageState], Request | None]
HIDDEN = {"display": "none"}
STATUS_WORDS: dict[str, str] = {"queued": N_("queued"), "running": N_("running")}
"""What the status line calls an unfinished job's state (translated where shown)."""


@dataclass(frozen=True)
class ViewJob:
    """A job a view runs while it is shown: the app wires its submission, polling, cancel, downloads and
    reproduce box (components `job_status(prefix)`, `export_bar(prefix)` in the layout), and fills the
    store `f"{prefix}-result"`. The same declaration tells the server what to compute ahead of a newcomer."""

    prefix: str
    build: Build
    """The request for a page state (None: nothing to compute)."""
    name: str
    """The stem of its download files."""
    wait: float = 1.0
    """Seconds the submission waits for the result before polling (fast results arrive in one round trip)."""
    show_partial: bool = False
    """Draw the running job's partial result (a kind that records as it goes, such as a training) meanwhile."""
    until: str = "end"
    """`progress`: the submission returns with the job's first cells instead of waiting for its end, so a
    sweep's first points are drawn while the rest compute."""


def request_key(req: Request) -> str:
    """Identity of a request: the same path and body always give the same key."""
    return json.dumps([req[0], req[1]], sort_keys=True, separators=(",", ":"))


def _bar(progress: float) -> tuple[dict[str, str], dict[str, str]]:
    pct = max(0.0, min(1.0, float(progress or 0.0))) * 100
    return {}, {"width": f"{pct:.0f}%"}


def _finished(job: JobState, key: str) -> tuple[dict[str, Any], str]:
    note = _("from cache") if job.cached else _("computed")
    seconds = (job.result or {}).get("seconds")
    if isinstance(seconds, (int, float)) and not job.cached:
        note = _("computed in {seconds} s").format(seconds=f"{seconds:.2f}")
    cells = job.cells
    if cells is not None and not job.cached and cells.total > 1 and cells.from_cache:
        note += " " + _("({cached} of {total} cells from cache)").format(cached=cells.from_cache, total=cells.total)
    return {"key": key, "result": job.result}, note


def progress_text(job: JobState) -> str:
    """`running 12 / 35 cells` for a job made of cells, `running 40%` otherwise."""
    status = _(STATUS_WORDS[job.status]) if job.status in STATUS_WORDS else job.status
    if job.cells is not None and job.cells.total > 1:
        return _("{status} {done} / {total} cells").format(status=status, done=job.cells.done, total=job.cells.total)
    return _("{status} {percent}%").format(status=status, percent=f"{100 * (job.progress or 0):.0f}")


def register_job(
    app: Dash,
    client: ApiClient,
    prefix: str,
    build: Build,
    *,
    bodies: list[str],
    view_id: str | None = None,
    state_store: str | None = None,
    wait: float = 1.5,
    cancellable: bool = False,
    reproduce: bool = False,
    show_partial: bool = False,
    until: str = "end",
    annotate: Callable[[ResultModel], dict[str, Any]] | None = None,
) -> None:
    """Wire the job of view `prefix` (components from `components.job_status(prefix)`).

    `build(state)` gives the request for a state (None: nothing to compute). With `view_id` the job
    runs only while that tab is shown, from the tab's gated state; `state_store` names another store
    of the page state to listen to. `bodies` are the ids of containers dimmed while the job runs;
    `cancellable` shows the cancel button while it does; `reproduce` fills `f"{prefix}-reproduce"`
    with the commands that reproduce the request (in the same round trip as the submission). A job made
    of cells always shows its partial result meanwhile (redrawn when more cells are done); `show_partial`
    does so for another kind that records as it goes (a training), at every poll. `annotate(result)` adds
    entries beside a finished result (as its model) in its store (e.g. numbers formatted for the browser to place).
    """
    source = state_store or (view_state(view_id) if view_id is not None else None)
    if source is None:
        raise ValueError("register_job needs the view it belongs to or the store of the state it reads")
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
        *([Output(f"{prefix}-reproduce", "children")] if reproduce else []),
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
        commands: Any = no_update,
    ) -> tuple[Any, ...]:
        body_cls = "view-body busy" if busy else "view-body"
        cancel = {} if busy and cancellable else HIDDEN
        extra = (commands,) if reproduce else ()
        return (result, job, poll_off, bar, fill, status, cls, cancel, *[body_cls for _ in bodies], *extra)

    def nothing() -> tuple[Any, ...]:
        return tuple(no_update for _ in outputs)

    @app.callback(
        *outputs,
        Input(source, "data"),
        Input(f"{prefix}-poll", "n_intervals"),
        Input(f"{prefix}-cancel", "n_clicks"),
        State(f"{prefix}-job", "data"),
        State(f"{prefix}-result", "data"),
        prevent_initial_call=True,  # the gated state arrives from the sync's first answer
    )
    def _run(state_data: Any, _ticks: Any, _cancel: Any, job_data: Any, result_data: Any) -> tuple[Any, ...]:
        trigger = ctx.triggered_id
        job_data = job_data or {}
        if trigger == f"{prefix}-cancel":
            if not job_data.get("id"):
                return nothing()
            try:
                client.cancel(job_data["id"])
            except ApiError as exc:
                return out(status=_("could not cancel: {message}").format(message=exc.message), cls="job-status error")
            return out(job=None, status=_("canceled"), cls="job-status")
        if trigger == f"{prefix}-poll":
            if not job_data.get("id"):
                return out(job=None)
            try:
                job = client.job(job_data["id"])
            except ApiError as exc:
                return out(job=None, status=exc.message, cls="job-status error")
            return _settle(job, job_data["key"], job_data.get("done"))
        if not state_data:
            return nothing()
        page = PageState.from_data(state_data)
        if view_id is not None and page.get("tab") != view_id:
            return nothing()
        req = build(page)
        commands: Any = no_update
        if reproduce:
            commands = (
                _("nothing to compute for this view")
                if req is None
                else reproduce_commands(client.api_url, req[0], req[1])
            )
        if req is None:
            return (*nothing()[:-1], commands) if reproduce else nothing()
        key = request_key(req)
        if (result_data or {}).get("key") == key and not (result_data or {}).get("partial"):
            return out(job=None, commands=commands)
        if job_data.get("key") == key and job_data.get("id"):
            return (*nothing()[:-1], commands) if reproduce else nothing()
        try:
            job = client.submit(req[0], req[1], wait=wait, until=until)
        except ApiError as exc:
            return out(job=None, status=exc.message, cls="job-status error", commands=commands)
        return _settle(job, key, None, commands)

    def _settle(job: JobState, key: str, shown: Any, commands: Any = no_update) -> tuple[Any, ...]:
        """The outputs for a job's state; `shown` is how many cells the partial figure on screen has."""
        if job.status == "finished" and job.result is not None:
            result, note = _finished(job, key)
            if annotate is not None:
                model = stored_result(result)
                assert model is not None  # a finished job's result
                result.update(annotate(model))
            return out(result=result, job=None, status=note, commands=commands)
        if job.done:
            return out(job=None, status=job.message, cls="job-status error", commands=commands)
        bar, fill = _bar(job.progress)
        done = job.cells.done if job.cells is not None else None
        partial: Any = no_update
        if job.partial is not None and (done != shown if done else show_partial and job.cells is None):
            partial = {"key": key, "result": job.partial, "partial": True}
        return out(
            result=partial,
            job={"id": job.job_id, "key": key, "done": done},
            poll_off=False,
            bar=bar,
            fill=fill,
            status=progress_text(job),
            busy=True,
            commands=commands,
        )


VALIDATED: ByteLRU[tuple[str, type[ResultModel]], ResultModel] = ByteLRU(64, lambda _: 1)
"""Finished results as their models, by request: a result is validated once in this process, not once per
callback that draws it (the headline, each chart's callback, the downloads)."""


def stored_result(data: Any, model: type[ResultModel] | None = None) -> ResultModel | None:
    """The result in a store as its model: `model`, or the result model of the job kind whose route the
    store's `key` names (`request_key`); None while the store holds none. A finished one is validated once
    per request (`VALIDATED`); a partial one, which changes as cells finish, each time."""
    raw = (data or {}).get("result")
    if not raw:
        return None
    if model is None:
        model = kind_at(json.loads(data["key"])[0]).result
    if data.get("partial") or not isinstance(data.get("key"), str):
        return model.model_validate(raw)
    memo = (data["key"], model)
    found = VALIDATED.get(memo)
    if found is None:
        found = model.model_validate(raw)
        VALIDATED.put(memo, found)
    return found


def _as_json(result: ResultModel) -> Any:
    return result.model_dump(mode="json")


def register_exports(
    app: Dash,
    prefix: str,
    name: str,
    store: str | None = None,
    to_json: Callable[[Any], Any] = _as_json,
    to_csv: Callable[[Any], str] = result_to_csv,
    model: type[ResultModel] | None = None,
) -> None:
    """JSON/CSV download of what the view shows: the result in `store` (the view's own job by default) as
    its model (`stored_result`), passed through `to_json` / `to_csv` (its reproduce box is filled by the
    job's own callback)."""

    @app.callback(
        Output(f"{prefix}-download", "data"),
        Input(f"{prefix}-dl-json", "n_clicks"),
        Input(f"{prefix}-dl-csv", "n_clicks"),
        State(store or f"{prefix}-result", "data"),
        prevent_initial_call=True,
    )
    def _download(_j: Any, _c: Any, data: Any) -> Any:
        result = stored_result(data, model)
        if result is None:
            return no_update
        if ctx.triggered_id == f"{prefix}-dl-csv":
            return dcc.send_string(to_csv(result), f"headdiv-{name}.csv")
        return dcc.send_string(json.dumps(to_json(result), indent=1), f"headdiv-{name}.json")


def register_view_job(app: Dash, client: ApiClient, view_id: str, job: ViewJob) -> None:
    """A view's own job: computed while its tab is shown, cancellable, with its downloads and reproduce box."""
    register_job(
        app,
        client,
        job.prefix,
        job.build,
        bodies=[f"{view_id}-body"],
        view_id=view_id,
        wait=job.wait,
        cancellable=True,
        reproduce=True,
        show_partial=job.show_partial,
        until=job.until,
    )
    register_exports(app, job.prefix, job.name)


def draw_result(
    app: Dash,
    store: str,
    outputs: list[Output],
    draw: Callable[..., tuple[Any, ...]],
    *inputs: Input,
    pure: bool = True,
) -> None:
    """Redraw `outputs` with `draw(result, *input values)` whenever the result in `store` or an input
    changes, the result read once as its job kind's model (`stored_result`); while there is no result,
    what is on screen stays. A `pure` drawing (the figures a function of the result and the inputs alone)
    is done once per request body for every visitor (`pure_callback`): a room of phones following one
    lecturer, or a class opening one link, gets each state's figures built once."""
    register = partial(pure_callback, app) if pure else app.callback

    @register(output=outputs, inputs=[Input(store, "data"), *inputs], prevent_initial_call=True)
    def _draw(data: Any, *values: Any) -> tuple[Any, ...]:
        result = stored_result(data)
        if result is None:
            return tuple(no_update for _ in outputs)
        return draw(result, *values)


def computed(client: ApiClient, req: Request, *, patience: float = 900.0) -> ResultModel:
    """A request's result computed to its end (an export, which has no page to poll from): asked again while
    it runs (the same request is the same job); `ApiError` when it is refused, fails or outlasts `patience`."""
    deadline = time.monotonic() + patience
    path, body = req
    while True:
        job = client.submit(path, body, wait=min(30.0, max(1.0, deadline - time.monotonic())))
        if job.done:
            if job.status != "finished" or job.result is None:
                raise ApiError(job.message or f"the computation ended {job.status}", 422)
            return kind_at(path).result.model_validate(job.result)
        if time.monotonic() > deadline:
            client.cancel(job.job_id)
            raise ApiError(f"the computation took longer than {patience:.0f} s", 504)
