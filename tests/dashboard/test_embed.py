"""`?embed=1`: one view's charts in a course page's frame, allowed only for the origins an operator lists
(`HEADDIV_FRAME_ANCESTORS`, reflected in the CSP's `frame-ancestors`; none by default)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import ValidationError
from starlette.testclient import TestClient

from headdiv.dashboard.page.url_state import EMBED_HIDES, PageState
from headdiv.server.api.security import content_security_policy
from headdiv.server.main import create_app
from headdiv.server.server_settings import ServerSettings
from tests.dashboard.conftest import ARTIFACTS
from tests.dashboard.test_browser import SMALL
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread, free_port


def test_the_policy_names_the_listed_origins_and_only_then_drops_x_frame_options() -> None:
    assert "frame-ancestors 'none'" in content_security_policy()
    policy = content_security_policy(frame_ancestors=["https://lms.example.edu", "http://127.0.0.1:9"])
    assert "frame-ancestors https://lms.example.edu http://127.0.0.1:9" in policy
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as closed:
        assert closed.get("/api/v1/health").headers["x-frame-options"] == "DENY"
    settings = embedded_settings(frame_ancestors="https://lms.example.edu, https://b.example")
    assert settings.framing_origins == ["https://lms.example.edu", "https://b.example"]
    with TestClient(create_app(settings, mount_dashboard=False)) as open_:
        answer = open_.get("/api/v1/health")
    assert "x-frame-options" not in answer.headers
    assert "frame-ancestors https://lms.example.edu https://b.example" in answer.headers["content-security-policy"]


@pytest.mark.parametrize("bad", ["*", "https://x.example/path", "javascript:alert(1)", "lms.example.edu"])
def test_only_origins_may_be_listed(bad: str) -> None:
    with pytest.raises(ValidationError, match="frame_ancestors"):
        ServerSettings(redis_url=None, frame_ancestors=bad)


def _course_page(port: int, frame_url: str) -> ThreadingHTTPServer:
    """Another origin's page (another port) with the view in an iframe."""
    body = f'<!doctype html><title>course</title><iframe id="lab" src="{frame_url}" width="900" height="600"></iframe>'

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def allowed() -> Iterator[tuple[str, int]]:
    """The app, framable by one course origin (its port), in a thread: (its URL, the allowed port)."""
    course = free_port()
    port = free_port()  # the dashboard calls the API at the port its settings name
    settings = ServerSettings(
        redis_url=None, warm_up=False, warm_start=False, port=port, frame_ancestors=f"http://127.0.0.1:{course}"
    )
    with ServerThread(create_app(settings), port=port) as running:
        yield running.url, course


@pytest.mark.browser
@pytest.mark.timeout(180)
def test_an_embedded_view_shows_its_charts_in_an_allowed_frame_and_is_refused_elsewhere(
    page: Any, allowed: tuple[str, int]
) -> None:
    url, course = allowed
    link = f"{url}/?tab=ensemble&embed=1&{SMALL}"
    ok = _course_page(course, link)
    elsewhere_port = free_port()
    other = _course_page(elsewhere_port, link)
    try:
        page.goto(f"http://127.0.0.1:{course}/")
        frame = page.frame_locator("#lab")
        frame.locator(".js-plotly-plot .main-svg").first.wait_for(timeout=60_000)
        page.frames[1].wait_for_function(
            "() => document.getElementById('root').classList.contains('embed') && [...document"
            ".querySelectorAll('#view-ensemble .js-plotly-plot')].some((g) => g.data && g.data.length)",
            timeout=60_000,
        )
        shown = page.frames[1].evaluate(
            """() => ({
              header: getComputedStyle(document.querySelector('.header')).display,
              sidebar: getComputedStyle(document.querySelector('.sidebar')).display,
              tabs: [...document.querySelectorAll('.tab')].filter((t) => t.getBoundingClientRect().height > 0).length,
              root: document.getElementById('root').className,
              charts: document.querySelectorAll('.js-plotly-plot').length,
            })"""
        )
        assert shown["header"] == "none" and shown["sidebar"] == "none" and shown["tabs"] == 0, shown
        assert "embed" in shown["root"] and shown["charts"] >= 3
        page.screenshot(path=str(ARTIFACTS / "embed-in-a-course-page.png"))
        # the same link framed by an origin nobody listed: the browser refuses to show it
        page.goto(f"http://127.0.0.1:{elsewhere_port}/", wait_until="load")  # the frame's answer included
        refused = page.frames[1]
        assert refused.url.startswith("chrome-error://"), refused.url  # the browser's own refusal page
    finally:
        ok.shutdown()
        other.shutdown()


def test_embed_hides_the_page_around_the_charts() -> None:
    assert {"sidebar", "tabs", "explain"} <= PageState({"embed": True}).hidden() == EMBED_HIDES
    assert PageState({"embed": False}).hidden() == set()
