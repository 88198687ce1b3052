"""`headdiv.show(result)`: the dashboard at that result's state, in the form that lasts where Python runs.

- Connected to a server (`headdiv.connect(url)`, or `base=`): that server's page, inline in a notebook, else
  its link, which lives as long as that server does.
- In a notebook, or at a Python or IPython prompt: this session's own server (API and dashboard, as
  `headdiv serve`, on a free loopback port, started on first use and kept for the session's life), inline in a
  notebook, else as a link said to last as long as the session.
- In a script: a link to the script's own server would die with the script (the page would not even load),
  so the view is written as one self-contained HTML file instead, the dashboard's own "This view as HTML"
  (charts, scenario, formulas; no server, no network), opened in the browser when there is a desktop to show
  it, and its path printed. Its server is started for the file and stopped before `show` returns, with
  nothing left running in the background that the end of the script could catch half done.
"""

from __future__ import annotations

import hashlib
import html
import os
import sys
import threading
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from headdiv.lab import default_lab
from headdiv.lab.local_engine import engine_ready
from headdiv.lab.python_result import Result

if TYPE_CHECKING:
    from headdiv.dashboard import View

_SERVER: list[str] = []
_LOCK = threading.Lock()
EXPORT_PATIENCE_S = 1800.0
"""How long a script's file may take: its result is handed over, but other charts of the view are computed."""
QUIET = {"warm_up": False, "warm_start": False, "shared_responses": False}
"""This process's servers do no start-up work of their own: the engine is compiled in the foreground first
(`engine_ready`), and nobody else visits, so neither the dashboard's default views nor compressed bundles
are prepared ahead; there is then no background thread for the end of the process to interrupt."""


def local_server(timeout_s: float = 120.0) -> str:
    """The embedded server of this session, started on first use; its base URL."""
    with _LOCK:
        if not _SERVER:
            from headdiv.server import start

            engine_ready()  # its computations run the same compiled engine as this process's calls
            _SERVER.append(start("headdiv-show", timeout_s, **QUIET).url)
        return _SERVER[0]


def _where() -> Literal["notebook", "prompt", "script"]:
    """Where this Python runs: a notebook's kernel, a prompt that outlives this call (the Python or IPython
    prompt, `python -i`), or a script that ends when its last line has run."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    ip: Any = get() if callable(get) else None
    if ip is not None:
        return "notebook" if type(ip).__name__ == "ZMQInteractiveShell" else "prompt"
    return "prompt" if hasattr(sys, "ps1") or sys.flags.interactive else "script"


def _desktop() -> bool:
    """Whether a browser can be shown: a desktop session, or a browser the user named (`BROWSER`). Without one
    (ssh, a container, CI), Python's `webbrowser` would start a text browser in the terminal, or nothing."""
    if os.environ.get("BROWSER") or sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def show(
    target: Result | str | None = None,
    *,
    base: str | None = None,
    height: int = 800,
    file: str | Path | None = None,
    browser: bool | None = None,
) -> str:
    """Open the dashboard at `target` (a result, or a page query such as `"?tab=diversity"`); returns the link,
    or in a script the path of the file written (see the module). `base` is the server's address (default: the
    connected server, else this session's own); `file` where a script's page goes (default: the working
    directory, named after the view and its state); `browser` whether to open that file (default: when there is
    a desktop)."""
    remote = (base or default_lab().url or "").rstrip("/")
    where = _where()
    if not remote and where == "script":
        return str(_write_page(_query(target), target if isinstance(target, Result) else None, file, browser))
    root = remote or local_server()
    link = target.url(root) if isinstance(target, Result) else root + "/" + _query(target)
    if where == "notebook":
        from IPython.display import IFrame, display  # type: ignore[import-not-found,unused-ignore]

        display(IFrame(link, width="100%", height=height))
    elif remote:
        print(link)
    else:
        print(f"{link}\n(served by this Python session: the link works until the session ends)")
    return link


def _query(target: Result | str | None) -> str:
    """The page's query for `target`, with its leading `?` ("" for the default page)."""
    if isinstance(target, Result):
        return target.url("").lstrip("/")
    query = (target or "").strip()
    return query if not query or query.startswith("?") else "?" + query


def _write_page(query: str, result: Result | None, file: str | Path | None, browser: bool | None) -> Path:
    """The view at `query` as one HTML file (or, for a view with no file form yet, the result's own charts);
    its path, after saying where it is."""
    view = _view_at(query)
    if view.still is not None or view.live:  # what the dashboard's "This view as HTML" can draw
        content, kind, what = _view_file(query, result), view.id, "the dashboard's view"
    elif result is not None:
        content, kind, what = _charts_page(result).encode(), result.call.replace("_", "-"), "this result's charts"
    else:
        raise ValueError(
            f"show: the {view.label} view has no file form yet; from a script, start `headdiv serve` and call "
            "headdiv.connect(url) first to see it live"
        )
    state = hashlib.sha256(query.encode()).hexdigest()[:8]
    path = Path(file) if file is not None else Path(f"headdiv-{kind}-{state}.html")
    path.write_bytes(content)
    path = path.resolve()
    opened = (_desktop() if browser is None else browser) and webbrowser.open(path.as_uri())
    print(
        f"headdiv.show: wrote {path}\n"
        f"  {what} as one file: it opens in any browser, with no server{' (opened in your browser)' if opened else ''}\n"
        "  for the live dashboard from a script, start `headdiv serve` and call headdiv.connect(url) first"
    )
    return path


def _view_at(query: str) -> View:
    """The dashboard view a page query opens (a tour's step as the page expands it)."""
    from headdiv.dashboard import VIEWS, build_registry, expand

    tab = build_registry(VIEWS).parse(expand(query)).get("tab") or VIEWS[0].id
    return next((v for v in VIEWS if v.id == tab), VIEWS[0])


def _view_file(query: str, result: Result | None) -> bytes:
    """The dashboard's own file of the view at `query`, built by a server of this process started for it and
    stopped before this returns. It is handed `result` under its job id, so that the page draws the very
    numbers computed here rather than computing them again."""
    import httpx

    from headdiv.dashboard import EXPORT_PATH
    from headdiv.server import start

    engine_ready()  # what the page computes besides `result` runs the engine this process's calls run
    running = start("headdiv-show-file", **QUIET)
    try:
        if result is not None and result.job_id is not None:
            from headdiv.jobs.cache.result_cache import encode_result

            running.server.config.app.state.backend.cache.set(result.job_id, encode_result(result.result))
        answer = httpx.get(
            f"{running.url}/{EXPORT_PATH}/view.html{query}", timeout=httpx.Timeout(EXPORT_PATIENCE_S, connect=10.0)
        )
    finally:
        running.stop()
    if answer.status_code != 200:
        raise ValueError(f"show: the dashboard cannot write this page: {answer.text.strip()}")
    return answer.content


def _charts_page(result: Result) -> str:
    """A result whose view has no file form yet: its summary and the charts the dashboard draws for it (each
    described and tabled as on the page, `Result.figure_html`), plotly.js inlined once, in one file."""
    charts = "".join(result.figure_html(name, include_plotlyjs=k == 0) for k, name in enumerate(result.figures()))
    title = html.escape(f"headdiv.{result.call}")
    return (
        f'<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{title}</title></head>\n'
        f"<body>\n{result.summary()._repr_html_()}\n{charts}\n</body>\n</html>\n"
    )
