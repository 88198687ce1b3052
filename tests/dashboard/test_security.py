"""Security headers on every response, and a Content-Security-Policy under which the pages really work:
the dashboard draws its charts and MathJax formulas, and /docs its Swagger UI from local assets, in
real Chromium with no violation reported. The Dash routes answer malformed requests 4xx in short JSON."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.dashboard.test_browser import SMALL

pytestmark = [pytest.mark.timeout(180)]

REPORT_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
    (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


def _headers_ok(r: httpx.Response) -> None:
    assert r.headers["x-content-type-options"] == "nosniff", r.url
    assert r.headers["x-frame-options"] == "DENY", r.url
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, r.url
    script_src = next(d for d in csp.split("; ") if d.startswith("script-src"))
    assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src


def test_every_kind_of_response_carries_the_security_headers(server_url: str) -> None:
    with httpx.Client(base_url=server_url, timeout=30) as c:
        page = c.get("/")
        assert page.status_code == 200
        script = page.text.split('<script src="', 1)[1].split('"', 1)[0]
        for r in (
            page,
            c.get(script),  # a Dash asset
            c.get("/docs"),
            c.get("/docs-assets/swagger-ui-bundle.js"),
            c.get("/openapi.json"),
            c.get("/api/v1/health"),
            c.get("/api/v1/nothing"),  # 404
            c.post("/api/v1/simulations", json={"H": "4"}),  # 422
            c.post("/_dash-update-component", json=None),  # 400 from Dash's route
        ):
            _headers_ok(r)


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/_dash-update-component", "null", 400),
        ("POST", "/_dash-update-component", "[]", 400),
        ("POST", "/_dash-update-component", "{}", 400),
        ("POST", "/_dash-update-component", '{"output": "no-such-output.children", "inputs": []}', 400),
        ("POST", "/_dash-update-component", "not json", 400),
        ("GET", "/_dash-component-suites/no_such_package/x.js", None, 404),
        ("GET", "/_dash-component-suites/dash/no/such/file.js", None, 404),
    ],
)
def test_malformed_dash_requests_get_a_short_json_4xx(
    server_url: str, method: str, path: str, body: str | None, status: int
) -> None:
    headers = {"content-type": "application/json"} if body is not None else {}
    r = httpx.request(method, server_url + path, content=body, headers=headers, timeout=30)
    assert r.status_code == status, r.text[:300]
    assert r.headers["content-type"].startswith("application/json")
    # one sentence (what is wrong, what to do) as `detail` and `message`: short, never a traceback
    assert len(r.content) < 800 and isinstance(r.json()["detail"], str) and r.json()["message"] == r.json()["detail"]


def _violations(page: Any) -> list[str]:
    return list(page.evaluate("() => window.__violations"))


@pytest.mark.browser
def test_the_dashboard_renders_charts_and_formulas_under_the_policy(page: Any, server_url: str) -> None:
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.add_init_script(REPORT_VIOLATIONS)
    page.goto(f"{server_url}/?{SMALL}")
    # functions, not expression strings: Playwright evaluates a bare string with eval, which the policy forbids
    page.wait_for_function("() => document.querySelector('.explain mjx-container svg') !== null")  # MathJax typeset
    page.wait_for_function(  # a chart with data drawn, not only its frame
        "() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(g => g.data && g.data.length)"
    )
    assert _violations(page) == []
    assert not [m for m in console if "Content Security Policy" in m], console


@pytest.mark.browser
def test_swagger_ui_works_offline_under_the_policy(page: Any, server_url: str) -> None:
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.add_init_script(REPORT_VIOLATIONS)
    page.goto(f"{server_url}/docs")
    page.wait_for_selector(".swagger-ui .opblock")  # the operations, rendered from /openapi.json
    assert page.locator(".swagger-ui .opblock").count() >= 10
    assert _violations(page) == []
    assert all(url.startswith(server_url) for url in requested), [u for u in requested if not u.startswith(server_url)]
