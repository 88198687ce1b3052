"""`headdiv.show(result)`: the dashboard at that result's state, inside a notebook or as a link.

With `headdiv.connect(url)` the page is that server's; otherwise the first call starts the embedded server
(API and dashboard, one process, as `headdiv serve`) in a background thread of this kernel, on a free local
port, and keeps it for the kernel's life. In a notebook the page is shown inline (an iframe, as Dash's
`jupyter_mode="inline"` does); elsewhere the link is printed. Either way the link is returned.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

from headdiv.lab import default_lab
from headdiv.lab.results import Result

_SERVER: list[str] = []
_LOCK = threading.Lock()


def local_server(timeout_s: float = 120.0) -> str:
    """The embedded server of this process, started on first use; its base URL."""
    with _LOCK:
        if not _SERVER:
            from headdiv.server.in_process import start

            _SERVER.append(start("headdiv-show", timeout_s).url)
        return _SERVER[0]


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    ip: Any = get() if callable(get) else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def show(target: Result | str | None = None, *, base: str | None = None, height: int = 800) -> str:
    """Open the dashboard at `target` (a result, or a page query such as `"?tab=diversity"`); returns the
    link. `base` is the server's address (default: the connected server, else this kernel's own)."""
    root = (base or default_lab().url or local_server()).rstrip("/")
    if isinstance(target, Result):
        link = target.url(root)
    else:
        query = (target or "").strip()
        link = root + "/" + (query if not query or query.startswith("?") else "?" + query)
    if _in_notebook():
        from IPython.display import IFrame, display  # type: ignore[import-not-found,unused-ignore]

        display(IFrame(link, width="100%", height=height))
    else:
        print(link)
    return link
