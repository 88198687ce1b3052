"""`headdiv export tour NAME -o FILE` and `headdiv export view QUERY -o FILE`: a tour, or the view a link
shows, as one self-contained HTML file. The file is the dashboard's own download (`/_export/...`, the same
route as its "Download this tour" and "this view as HTML" buttons), asked of a running headdiv (`--url`), or
by default of one started in this process on a free loopback port (embedded: no Redis), so the command works
on a laptop with nothing else running."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TextIO
from urllib.parse import quote

from headdiv.cli.command_basics import EXIT_USAGE

PATIENCE_S = 1800.0
"""A tour's every step computed on a slow laptop: minutes at most."""


@contextmanager
def local_headdiv() -> Iterator[str]:
    """The app, embedded, served from a thread of this process (`in_process`) while the file is asked for."""
    from headdiv.server import start

    # no warm-up or warm start: their threads would still be running at exit (and the process abort with them)
    running = start("headdiv-export", warm_up=False, warm_start=False, shared_responses=False)
    try:
        yield running.url
    finally:
        running.stop()


def export_main(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import httpx

    tour = args.what == "tour"
    path = f"/_export/tour/{quote(args.name, safe='')}.html" if tour else f"/_export/view.html?{args.name.lstrip('?')}"
    with local_headdiv() if args.url is None else nullcontext(args.url.rstrip("/")) as base:
        print(f"computing every chart through headdiv at {base} ...", file=err)
        try:
            answer = httpx.get(base + path, timeout=httpx.Timeout(PATIENCE_S, connect=10.0))
        except httpx.HTTPError as exc:
            print(f"export failed: headdiv at {base} did not answer ({type(exc).__name__})", file=err)
            return 1
    if answer.status_code in (404, 422):  # the name or the link is at fault: one line saying which
        print(f"{'name' if tour else 'query'}: {answer.text.strip()}", file=err)
        return EXIT_USAGE
    if answer.status_code != 200:
        print(f"export failed: {answer.text.strip()[:500]}", file=err)
        return 1
    named = re.search(r'filename="([^"/\\]+)"', answer.headers.get("content-disposition", ""))
    target = Path(args.output) if args.output else Path(named.group(1) if named else "headdiv-export.html")
    target.write_bytes(answer.content)
    print(f"wrote {target} ({len(answer.content) / 1e6:.2f} MB); open it in any browser, no network needed", file=out)
    return 0


def add_export(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    command = sub.add_parser(
        "export",
        help="Write a tour, or the view a link shows, as one HTML file that works offline.",
        description="Write ONE self-contained .html file: plotly.js inlined, every chart precomputed, formulas "
        "rendered, nothing loaded from the network. It opens from file:// on a laptop or a phone. The charts are "
        "computed by a headdiv started in this process (or the one at --url).",
        epilog="examples: headdiv export tour why-many-heads -o lecture.html;  "
        "headdiv export view 'tab=ensemble&H=4&theta=60' -o ensemble.html",
    )
    command.add_argument("what", choices=["tour", "view"], help="a guided tour, or one view at a state")
    command.add_argument("name", help="the tour's name, or the view's link (its query string: tab=...&H=...)")
    command.add_argument(
        "-o",
        "--output",
        help="file to write (default: the name the server gives it, headdiv-tour-<name>.html or headdiv-<view>.html, here)",
    )
    command.add_argument(
        "--url", help="a running headdiv (its base URL) to compute the file, instead of one started here"
    )
    command.set_defaults(handler=export_main)
