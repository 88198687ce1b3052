"""The lab from Python: `headdiv.simulate(H=8, theta=45)` and the other calls (docs/python.md).

Every call takes the fields of the API's request body as keyword arguments (or the request model itself),
validates them with the API's own model (a bad value raises `InvalidRequest`, whose lines name the field
as the API's 422 does), runs the computation, and returns a `headdiv.lab.python_result.Result`.

By default the computation runs in this process (CUDA when torch sees a GPU): a job through the same runner as
the server's (`headdiv.workers.runner`, whose `run_job` computes one here), a report through the server's own road
(`headdiv.workers.instant_reports`), with the engine compiled as a server compiles it (`engine_ready`).
`headdiv.connect(url)` sends the same calls to a running server (its cache, its GPU workers), after checking that
one answers there, and returns the same objects, with the same job id.
Long jobs show a progress bar (tqdm's, notebook-aware, when tqdm is installed) and stop on Ctrl-C or a
notebook's stop button: a local run is interrupted, a remote job is cancelled on the server.

This module holds `Lab` (where the calls run) and the calls themselves; beside it:

- `calls`: the calls' declarations (`CALLS`), one per job kind and report, with the API's request models.
- `local_engine`: the engine as this process runs it for the calls, compiled first as every server's is.
- `python_result`: what a call returns (`Result`): the typed result, its request, summary, figures, link and command.
- `summaries`: each result's key numbers (its summary) and its table (its DataFrame).
- `links`: a result's dashboard link: the page state whose view computes that very request.
- `show`: `headdiv.show(result)`: the dashboard at that result's state, in the form that lasts where Python runs.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from headdiv.client import API_PREFIX, UNAVAILABLE, ApiClient, ApiError
from headdiv.jobs.ids import job_id
from headdiv.lab.calls import CALLS, CallSpec, CompareHeadsRequest, HeadsRequest
from headdiv.lab.local_engine import engine_ready
from headdiv.lab.python_result import Result
from headdiv.schemas.fields import canonical, error_lines
from headdiv.schemas.results.report_results import LocalModel, LocalModels, ModelComparison, ModelHeadsReport

LONG_POLL_S = 2.0
CHECK_TIMEOUT_S = 10.0
"""How long `connect` waits for a server's health answer (a busy server still answers it at once)."""


class InvalidRequest(ValueError):
    """A request the API would refuse with 422: one `<field>: <reason>` line per problem (`problems`)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class JobFailed(RuntimeError):
    """The computation ended without a result; the message is the job's reason."""


class ServerUnreachable(ConnectionError):
    """No headdiv server answers at the connected address (never started, stopped, another port, or something
    else listening there); the message names the address and what to do."""


def _unreachable(url: str, error: ApiError) -> ServerUnreachable:
    """The client's "the API is unavailable (ConnectError)", said for a person at a Python prompt: which server,
    what happened, what to do."""
    why = error.message.removeprefix(UNAVAILABLE).strip(" :()")
    if why == "no answer in time":
        return ServerUnreachable(f"the headdiv server at {url} gave no answer in time: is it overloaded, or stopped?")
    why = {
        "ConnectError": "nothing accepts a connection there",
        "UnsupportedProtocol": "an address starts with http:// or https://",
    }.get(why, why)
    return ServerUnreachable(
        f"no headdiv server answers at {url} ({why}): start one with `headdiv serve` (it prints its address), "
        "or call headdiv.connect(None) to compute in this process"
    )


def _request(spec: CallSpec, given: BaseModel | Mapping[str, Any] | None, fields: Mapping[str, Any]) -> BaseModel:
    if isinstance(given, spec.model) and not fields:
        return given
    data = {**(given.model_dump() if isinstance(given, BaseModel) else dict(given or {})), **fields}
    try:
        return spec.model.model_validate(data)
    except ValidationError as exc:
        raise InvalidRequest(error_lines(exc.errors(include_url=False))) from None


def _has(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(module) is not None


class _Bar:
    """A progress bar when tqdm is installed and the job is long enough to care; otherwise nothing."""

    def __init__(self, label: str, shown: bool) -> None:
        self.label, self.shown = label, shown
        self.bar: Any = None

    def __call__(self, fraction: float) -> None:
        if not self.shown:
            return
        if self.bar is None:
            try:
                from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]

                if _has("ipywidgets"):  # a notebook's widget bar (tqdm.auto warns without ipywidgets)
                    from tqdm.auto import tqdm  # type: ignore[import-untyped,no-redef,unused-ignore]
            except ImportError:
                self.shown = False
                return
            self.bar = tqdm(total=100, desc=self.label, leave=False)
        self.bar.update(max(0, round(fraction * 100) - self.bar.n))

    def note(self, text: str | None) -> None:
        """Say what happens before the progress starts (the engine's compilation) in the bar's label; None
        gives the label back."""
        if text is not None and self.shown:
            self(0.0)
        if self.bar is not None:
            self.bar.set_description(self.label if text is None else f"{self.label} ({text})")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Lab:
    """Where the calls run: this process (`url` None) or the headdiv server at `url` (not contacted until a call,
    or `check()`; `headdiv.connect(url)` checks at once)."""

    def __init__(self, url: str | None = None, *, progress: bool = True, timeout_s: float = 3600.0) -> None:
        self.url = url.rstrip("/") if url else None
        self.progress = progress
        self.timeout_s = timeout_s

    def __repr__(self) -> str:
        return f"Lab({self.url or 'this process'})"

    def check(self) -> dict[str, Any]:
        """The server's health (`GET /api/v1/health`), so that a wrong address fails here, naming it, rather than
        at the first computation; raises `ServerUnreachable` when nothing answers or what answers is not a
        headdiv server, and warns when the server runs another version (its numbers may differ)."""
        if self.url is None:
            raise ValueError("this Lab computes in this process: there is no server to check")
        from headdiv.version import __version__

        client = ApiClient(self.url, timeout=CHECK_TIMEOUT_S, agent="headdiv-python")
        try:
            health = client.get("/health")
        except ApiError as exc:
            if exc.status is None:
                raise _unreachable(self.url, exc) from None
            raise ServerUnreachable(
                f"{self.url} answers, but not as a headdiv server (GET {API_PREFIX}/health: {exc.message}): "
                "is it the address `headdiv serve` printed?"
            ) from None
        finally:
            client.close()
        if "version" not in health or "status" not in health:
            raise ServerUnreachable(f"{self.url} answers, but not as a headdiv server (its health has no version)")
        if health["version"] != __version__:
            warnings.warn(
                f"the server at {self.url} runs headdiv {health['version']}, this Python has {__version__}: "
                "its results may differ from this process's",
                stacklevel=2,
            )
        if health["status"] != "ok":  # answers, but its jobs would wait for a queue or a worker that is not there
            warnings.warn(
                f"the server at {self.url} is degraded: {health.get('detail') or 'see its log'}", stacklevel=2
            )
        return health

    def run(self, name: str, given: BaseModel | Mapping[str, Any] | None = None, **fields: Any) -> Result:
        """The call `name` (`simulate`, `surface`, ...) on a request or its fields."""
        spec = CALLS.get(name)
        if spec is None:
            raise ValueError(f"no call {name!r}; the calls are {', '.join(CALLS)}")
        request = _request(spec, given, fields)
        jid = job_id(spec.kind, canonical(request)) if spec.kind else None
        bar = _Bar(name, self.progress)
        try:
            if not self.url and spec.kind is not None:
                engine_ready(bar.note)
                bar.note(None)
            result = self._remote(spec, request, jid, bar) if self.url else self._local(spec, request, bar)
        finally:
            bar.close()
        return Result(name, request, result, jid)

    def _local(self, spec: CallSpec, request: BaseModel, bar: _Bar) -> Any:
        if spec.kind is not None:
            from headdiv.workers.runner import run_job

            return run_job(spec.kind, request, progress=bar)
        from headdiv.workers import instant_reports

        if spec.name == "hdi":
            import numpy as np

            return instant_reports.hdi([np.asarray(m, dtype=np.float64) for m in request.matrices])  # type: ignore[attr-defined]
        return instant_reports.theory(request)  # type: ignore[arg-type]

    @contextmanager
    def _client(self) -> Iterator[ApiClient]:
        """The one HTTP client (`headdiv.client`), its failures as this API's exceptions: a 422 as
        `InvalidRequest` with every field line, a server gone (or never there) as `ServerUnreachable`, anything
        else as `JobFailed`; each names the server, since the client's messages are written for its page."""
        assert self.url is not None
        client = ApiClient(self.url, timeout=max(30.0, LONG_POLL_S + 30), agent="headdiv-python")
        try:
            yield client
        except ApiError as exc:
            if exc.status == 422:
                raise InvalidRequest(list(exc.problems)) from None
            if exc.status is None:
                raise _unreachable(self.url, exc) from None
            raise JobFailed(f"{exc.message} (the headdiv server at {self.url})") from None
        finally:
            client.close()

    def _remote(self, spec: CallSpec, request: BaseModel, jid: str | None, bar: _Bar) -> Any:
        body = request.model_dump(mode="json")
        with self._client() as api:
            if spec.method == "GET":
                return spec.result.model_validate(api.get(spec.path, body))
            if spec.kind is None:
                return spec.result.model_validate(api.post(spec.path, body))
            state = api.submit(spec.path, body, wait=LONG_POLL_S)
            deadline = time.monotonic() + self.timeout_s
            try:
                while not state.done:
                    bar(state.progress)
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"job {state.job_id} not done in {self.timeout_s:g} s")
                    state = api.job(state.job_id, wait=LONG_POLL_S)
            except BaseException:  # Ctrl-C, a notebook's stop button, the timeout: the server stops it too
                if not state.done:
                    with contextlib.suppress(ApiError):  # a server gone away: the reason to stop stays the one raised
                        api.cancel(state.job_id)
                raise
            if state.status != "finished" or state.result is None:
                raise JobFailed(f"{spec.name}: {state.message}")
            return spec.result.model_validate(state.result)

    def heads(
        self,
        model_or_path: str,
        *,
        num_heads: int | None = None,
        num_kv_heads: int | None = None,
        seed: int = 0,
    ) -> Result:
        """Per-layer key and query HDI of a trained model (the same report as the dashboard's Real models
        view): a built-in model's name, a `.safetensors` file, a model folder, a Hugging Face id in the local
        cache, or an id of `local_models()`. Through a server (`connect(url)`), a file is uploaded, and
        names are the server's built-ins and models."""
        try:
            query = HeadsRequest(model=str(model_or_path), num_heads=num_heads, num_kv_heads=num_kv_heads, seed=seed)
        except ValidationError as exc:
            raise InvalidRequest(error_lines(exc.errors(include_url=False))) from None
        result = self._remote_heads(query) if self.url else self._local_heads(query)
        return Result("heads", query, result)

    def local_models(self) -> list[LocalModel]:
        """The models on disk that `heads(id)` measures by id: a server's (its `HEADDIV_MODELS_DIR` and
        Hugging Face cache), or without one this machine's (the same variables)."""
        if self.url:
            with self._client() as api:
                return LocalModels.model_validate(api.get("/models/local")).models
        from headdiv.workers import instant_reports

        return [instant_reports.describe_local_model(f) for f in _found_here()]

    def _local_heads(self, query: HeadsRequest) -> ModelHeadsReport:
        from headdiv.workers import instant_reports

        builtin = {m.name for m in instant_reports.builtin_models()}
        if query.model in builtin:
            return instant_reports.builtin_heads(query.model, query.seed)
        listed = {f.id: f for f in _found_here()} if query.model.startswith("dir:") else {}
        return instant_reports.model_heads(
            listed[query.model].path if query.model in listed else query.model,
            num_heads=query.num_heads,
            num_kv_heads=query.num_kv_heads,
            seed=query.seed,
            model=query.model if query.model in listed else None,
        )

    def _remote_heads(self, query: HeadsRequest) -> ModelHeadsReport:
        with self._client() as api:
            if not os.path.exists(query.model):
                # a built-in's name, else a model on the server (its id from `GET /models/local`)
                builtin = query.model in {m["name"] for m in api.get("/models/builtin")["models"]}
                where = "builtin" if builtin else "local"
                got = api.get(f"/models/{where}/{query.model}/hdi", {"seed": query.seed}, slow=600)
                return ModelHeadsReport.model_validate(got)
            form = {k: str(v) for k, v in (("num_heads", query.num_heads), ("num_kv_heads", query.num_kv_heads)) if v}
            # a folder goes as its checkpoint's files (config, index, shards; the rest stays here)
            from headdiv.workers.models.checkpoint import is_model_file

            folder = Path(query.model)
            paths = [p for p in sorted(folder.iterdir()) if is_model_file(p.name)] if folder.is_dir() else [folder]
            if folder.is_dir():
                form["model"] = folder.resolve().name
            with contextlib.ExitStack() as stack:
                files = [("file", (p.name, stack.enter_context(open(p, "rb")))) for p in paths]
                got = api.upload("/models/hdi", files, {**form, "seed": str(query.seed)}, slow=600)
            return ModelHeadsReport.model_validate(got)

    def compare_heads(self, model: str, other: str, *, seed: int = 0) -> Result:
        """Two models' heads measured alike (each as `heads` takes it, the same baseline seed), for reading on
        the same axes: a base model and its fine-tune, two sizes of one family. Its figures draw both
        models' per-layer key HDI against their baselines (by depth when their layer counts differ) and
        each one's layers x heads diversity; its table is one row per model and layer."""
        try:
            query = CompareHeadsRequest(model=model, other=other, seed=seed)
        except ValidationError as exc:
            raise InvalidRequest(error_lines(exc.errors(include_url=False))) from None
        a, b = (self.heads(name, seed=seed).result for name in (query.model, query.other))
        assert isinstance(a, ModelHeadsReport) and isinstance(b, ModelHeadsReport)
        return Result("compare_heads", query, ModelComparison(a=a, b=b))


def _call(name: str) -> Callable[..., Result]:
    def call(given: BaseModel | Mapping[str, Any] | None = None, /, **fields: Any) -> Result:
        return default_lab().run(name, given, **fields)

    spec = CALLS[name]
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (
        f"{(spec.model.__doc__ or name).strip().splitlines()[0]}\n\nKeyword arguments are the fields of "
        f"`{spec.model.__name__}` (the body of `{spec.method} /api/v1{spec.path}`); returns a `Result`."
    )
    return call


_DEFAULT = [Lab()]


def default_lab() -> Lab:
    return _DEFAULT[0]


def connect(url: str | None) -> Lab:
    """Send every later call to the headdiv server at `url` (None: back to this process); returns its Lab. The
    server is asked for its health first, so a wrong address raises `ServerUnreachable` here, naming it, and
    leaves the calls where they were."""
    lab = Lab(url)
    if lab.url is not None:
        lab.check()
    _DEFAULT[0] = lab
    return lab


simulate = _call("simulate")
surface = _call("surface")
architecture = _call("architecture")
sweep = _call("sweep")
covariance = _call("covariance")
train = _call("train")
hdi = _call("hdi")
theory = _call("theory")


def _found_here() -> list[Any]:
    from headdiv.schemas.engine_settings import DoorSettings
    from headdiv.workers import instant_reports

    return instant_reports.local_models(DoorSettings().models_dir)


def local_models() -> list[LocalModel]:
    """The models on disk `heads(id)` measures by id (`HEADDIV_MODELS_DIR`, the Hugging Face cache)."""
    return default_lab().local_models()


def heads(model_or_path: str, **options: Any) -> Result:
    """Per-layer key and query HDI of a trained model (a built-in name or a `.safetensors` path)."""
    return default_lab().heads(model_or_path, **options)


def compare_heads(model: str, other: str, *, seed: int = 0) -> Result:
    """Two models' heads side by side (`Lab.compare_heads`)."""
    return default_lab().compare_heads(model, other, seed=seed)
