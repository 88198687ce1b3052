"""A lecture without a server: every tour, and a view at its state, as one HTML file that opens from file://
with every network request blocked, walks its steps, asks and reveals its predictions and draws its charts
(plotly.js inlined, figures precomputed, formulas as MathML); and the file escapes what it carries."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest

from headdiv.dashboard.standalone.document import document
from headdiv.dashboard.standalone.math_text import render
from headdiv.dashboard.teaching.tours import TOURS

MAX_BYTES = 5_000_000
SMALL = "replicates=20&queries=16"


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.data: list[str] = []
        self.tags: list[str] = []
        self._in: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "script":
            self._in = dict(attrs)
            self.scripts.append(self._in)

    def handle_data(self, data: str) -> None:
        if self._in is not None and self._in.get("id") == "headdiv-content":
            self.data.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in = None


CRAFTED = '</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">\u2028&amp;'


def _crafted_content() -> dict[str, Any]:
    step = {
        "title": CRAFTED,
        "narrative": CRAFTED,
        "view": "ensemble",
        "viewLabel": CRAFTED,
        "description": "",
        "scenario": [["model", CRAFTED]],
        "reproduce": [CRAFTED],
        "question": {"prompt": CRAFTED, "choices": [{"id": "a", "label": CRAFTED}], "answer": "a", "why": CRAFTED},
        "charts": [],
    }
    return {
        "kind": "view",
        "title": CRAFTED,
        "summary": CRAFTED,
        "made": "headdiv",
        "explanations": {},
        "steps": [step],
    }


def test_formulas_become_mathml_and_markup_in_the_text_stays_text() -> None:
    out = render("Each head $h$ sees <script>alert(1)</script> and\n\n$$\\hat m = \\sum_h \\alpha_h \\hat m_h$$\n")
    assert out.count("<math") == 2 and 'display="block"' in out
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "$" not in out  # no TeX left for a script to typeset
    # a formula the converter refuses is shown as its source, escaped, instead of failing the export
    assert "<code>x^&lt;b&gt;^</code>" in render("$x^<b>^$")


def test_no_value_the_file_carries_can_close_its_script_or_add_markup() -> None:
    content = _crafted_content()
    text = document("t</title><script>x</script>", content)
    parsed = _Scripts()
    parsed.feed(text)
    # the page's own scripts (content, the scripts' words and their reader, plotly.js, ours) and no other
    # element from the content
    assert [s.get("id") for s in parsed.scripts] == ["headdiv-content", "headdiv-words", None, None, None]
    assert "img" not in parsed.tags
    assert json.loads("".join(parsed.data)) == content
    assert "<title>t&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;</title>" in text
    assert "default-src 'none'" in text  # the page itself forbids loading anything


def _offline(page: Any) -> list[str]:
    """Block every request that is not the file itself; returns the list of those that tried to leave."""
    sent: list[str] = []

    def block(route: Any) -> None:
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            sent.append(route.request.url)
            route.abort()

    page.context.route("**/*", block)
    return sent


def _errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _charts_drawn(page: Any, count: int) -> None:
    page.wait_for_function(
        "(n) => { const c = document.querySelectorAll('.charts .chart');"
        " return c.length === n && [...c].every((g) => g.data && g.data.length && g.querySelector('.main-svg')); }",
        arg=count,
    )


def _walk(page: Any, tour_id: str) -> None:
    """Every step in order with the arrow key: a question conceals the charts until it is answered (wrongly
    where it can be, so the reveal must name the right answer), then every chart is drawn."""
    tour = TOURS[tour_id]
    for k, step in enumerate(tour.steps, start=1):
        # the page draws a step on `hashchange`, after the address changed: wait for the step itself
        page.wait_for_function(
            "([k, title]) => location.hash.includes('step=' + k)"
            " && document.querySelector('.step h2').innerText === title",
            arg=[k, step.title],
        )
        n = len(page.evaluate("(k) => window.headdivExport.content.steps[k - 1].charts", k))
        assert n >= 1
        if step.question is not None:
            assert page.locator(".charts.concealed").count() == 1
            assert page.locator(".charts .chart").count() == 0
            wrong = next((c for c in step.question.choices if c.id != step.question.answer), step.question.choices[0])
            page.click(f".choice[data-choice='{wrong.id}']")
            right = step.question.choice(step.question.answer)
            assert right is not None
            page.wait_for_selector(f".reveal:has-text('{right.label}')")
            assert step.question.why[:40] in page.locator(".reveal").inner_text()
        _charts_drawn(page, n)
        if k < len(tour.steps):
            page.keyboard.press("ArrowRight")


@pytest.mark.browser
@pytest.mark.timeout(900)
def test_every_tour_downloads_as_one_file_that_works_with_the_network_off(
    page: Any, server_url: str, tmp_path: Path
) -> None:
    first = next(iter(TOURS))
    page.goto(f"{server_url}/?tour={first}&step=1&{SMALL}")
    with page.expect_download(timeout=600_000) as download:
        page.click("#tour-download")
    files = {first: tmp_path / "first.html"}
    download.value.save_as(files[first])
    for tour_id in list(TOURS)[1:]:
        answer = httpx.get(f"{server_url}/_export/tour/{tour_id}.html", timeout=600)
        assert answer.status_code == 200 and "attachment" in answer.headers["content-disposition"]
        files[tour_id] = tmp_path / f"{tour_id}.html"
        files[tour_id].write_bytes(answer.content)
    context = page.context.browser.new_context(viewport={"width": 1440, "height": 900})
    offline = context.new_page()
    sent = _offline(offline)
    errors = _errors(offline)
    for tour_id, path in files.items():
        assert path.stat().st_size <= MAX_BYTES, (tour_id, path.stat().st_size)
        offline.goto(path.as_uri())
        _walk(offline, tour_id)
    # the step and the projector theme come from the fragment (a link to the file opens where it was)
    offline.goto(files[first].as_uri() + "#step=2&theme=projector")
    offline.wait_for_selector("body.theme-projector")
    assert "Step 2 of" in offline.locator(".count").inner_text()
    offline.keyboard.press("PageUp")  # a presenter's clicker
    offline.wait_for_function("() => location.hash.includes('step=1') && location.hash.includes('projector')")
    assert sent == [] and errors == [], (sent, errors)
    context.close()


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_the_view_shown_downloads_as_one_file_with_its_state_charts_and_formulas(
    page: Any, server_url: str, tmp_path: Path
) -> None:
    page.goto(f"{server_url}/?tab=ensemble&H=3&theta=70&{SMALL}")
    page.wait_for_function("() => location.search.includes('theta=70')")
    with page.expect_download(timeout=300_000) as download:
        page.click("[id^='view-ensemble'] a.export-html")
    path = tmp_path / "view.html"
    download.value.save_as(path)
    assert download.value.suggested_filename == "headdiv-ensemble.html"
    context = page.context.browser.new_context(viewport={"width": 390, "height": 844})
    offline = context.new_page()
    sent = _offline(offline)
    errors = _errors(offline)
    offline.goto(path.as_uri())
    _charts_drawn(offline, 5)
    rows = dict(offline.evaluate("() => window.headdivExport.content.steps[0].scenario"))
    assert rows["H"] == "3" and rows["theta"] == "70"
    offline.click(".scenario summary")
    assert "headdiv simulate" in offline.locator(".reproduce").inner_text()
    offline.click(".explain summary")
    assert offline.locator(".explain-text math").count() > 3
    # slides from the file too, with the network off: one 1920x1080 PNG per chart
    offline.click("button.slides")
    offline.wait_for_function("() => window.headdivExport.slides === 5")
    assert sent == [] and errors == [], (sent, errors)
    context.close()
    # Real models has no still form (an uploaded model lives only in the page): refused in a sentence, and
    # the page does not offer it there
    refused = httpx.get(f"{server_url}/_export/view.html?tab=models", timeout=30)
    assert refused.status_code == 422 and "cannot be exported" in refused.text
    page.goto(f"{server_url}/?tab=models&{SMALL}")
    page.wait_for_function("() => document.getElementById('root').className.includes('no-html-export')")
    assert not page.locator("[id^='view-models'] a.export-html").is_visible()
    assert page.locator("[id^='view-models'] button.slides-png").is_visible()  # its charts still make slides


def _content(html_text: str) -> dict[str, Any]:
    parsed = _Scripts()
    parsed.feed(html_text)
    return json.loads("".join(parsed.data))


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("query", "charts"),
    [
        ("tab=training&trsteps=20", ["tr-curves", "tr-mse", "tr-overlap", "tr-angles"]),
        (f"tab=surfaces&s3d=1&{SMALL}", ["surf-heat", "surf-3d-chart"]),
        ("tab=foundations", ["fd-scaling", "fd-cosine", "fd-softmax", "fd-softmax-entropy", "fd-entropy", "fd-budget"]),
        (f"tab=architecture&budget=8&{SMALL}", ["arch-mse", "arch-theory"]),
    ],
)
def test_views_without_a_live_path_export_their_charts_too(server_url: str, query: str, charts: list[str]) -> None:
    """A view's still form: every chart its page draws (the full plotly.js only where a chart needs it)."""
    answer = httpx.get(f"{server_url}/_export/view.html?{query}", timeout=600)
    assert answer.status_code == 200, answer.text
    content = _content(answer.text)
    assert [c["name"] for c in content["steps"][0]["charts"]] == charts
    assert len(answer.content) <= MAX_BYTES


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_png_for_slides_gives_one_1920_by_1080_image_per_chart(page: Any, server_url: str, tmp_path: Path) -> None:
    page.goto(f"{server_url}/?tab=weighting&H=3&{SMALL}")
    charts = "[id^='view-weighting'] .js-plotly-plot"
    page.wait_for_function(
        "(s) => { const g = document.querySelectorAll(s); return g.length === 3"
        " && [...g].every((x) => x.data && x.data.length) && !document.querySelector('.busy'); }",
        arg=charts,
    )
    saved: list[Any] = []
    page.on("download", lambda d: saved.append(d))
    page.click("[id^='view-weighting'] button.slides-png")
    page.wait_for_function("() => window.headdivSlides.last === 3")
    deadline = time.monotonic() + 30
    while len(saved) < 3 and time.monotonic() < deadline:  # the download events reach Python after the page
        page.wait_for_timeout(100)
    names = sorted(d.suggested_filename for d in saved)
    assert len(names) == 3 and all(n.startswith("headdiv-wt-") and n.endswith("-1920x1080.png") for n in names), names
    path = tmp_path / "slide.png"
    saved[0].save_as(path)
    assert _png_size(path.read_bytes()) == (1920, 1080)


def test_the_export_command_says_what_it_wrote_and_refuses_an_unknown_tour(server_url: str, tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "headdiv.cli"]
    bad = subprocess.run([*cmd, "export", "tour", "no-such-tour"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "name: no tour 'no-such-tour'" in bad.stderr
    target = tmp_path / "weighting.html"
    done = subprocess.run(
        [*cmd, "export", "view", f"tab=weighting&H=3&{SMALL}", "-o", str(target), "--url", server_url],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert f"wrote {target}" in done.stdout and "MB" in done.stdout
    assert target.stat().st_size <= MAX_BYTES and b'id="headdiv-content"' in target.read_bytes()


def test_while_a_file_builds_others_are_told_to_come_back_instead_of_holding_a_thread() -> None:
    """A build holds one of the dashboard's threads for its computation: whoever asks for the same file
    meanwhile, or for a third file while two build, is answered at once (Busy: a 503 with Retry-After)."""
    import threading

    from headdiv.dashboard.standalone import download_routes as routes
    from headdiv.dashboard.standalone.files import Exported

    release = threading.Event()
    started: list[str] = []

    def slow(name: str) -> Exported:
        started.append(name)
        assert release.wait(30)
        return Exported(f"{name}.html", f"<p>{name}</p>")

    keys = [f"test-busy-{time.monotonic_ns()}-{k}" for k in range(3)]
    results: dict[str, tuple[str, bytes]] = {}
    builders = [
        threading.Thread(target=lambda k=k: results.__setitem__(k, routes._once(k, lambda k=k: slow(k))))
        for k in keys[:2]
    ]
    for t in builders:
        t.start()
    deadline = time.monotonic() + 30
    while len(started) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(routes.Busy):  # the same file: its build is under way
        routes._once(keys[0], lambda: slow("again"))
    with pytest.raises(routes.Busy):  # a third file while two build
        routes._once(keys[2], lambda: slow(keys[2]))
    release.set()
    for t in builders:
        t.join(30)
    name, body = routes._once(keys[0], lambda: slow("never built"))  # kept: served without a build
    assert name == f"{keys[0]}.html" and b"never built" not in body and sorted(started) == keys[:2]


def test_a_file_asked_for_from_a_page_in_another_language_is_the_one_english_file(server_url: str) -> None:
    """Exported files are not translated yet (docs/languages.md): one asked for from an Arabic page (its link's
    `lang`, its browser's language) is the same English file as everyone's, never another reader's charts."""
    query = f"tab=foundations&seed={secrets.randbelow(10**6)}"
    arabic = httpx.get(
        f"{server_url}/_export/view.html?{query}&lang=ar",
        headers={"Accept-Language": "ar", "Accept-Encoding": "identity"},
        timeout=600,
    )
    english = httpx.get(f"{server_url}/_export/view.html?{query}", headers={"Accept-Encoding": "identity"}, timeout=600)
    assert arabic.status_code == 200 and english.status_code == 200, arabic.text
    assert '<html lang="en">' in arabic.text and "⟦" not in arabic.text
    titles = [c["figure"]["layout"]["title"]["text"] for c in _content(arabic.text)["steps"][0]["charts"]]
    assert titles == [c["figure"]["layout"]["title"]["text"] for c in _content(english.text)["steps"][0]["charts"]]
    assert all(not any("\u0600" <= ch <= "\u06ff" for ch in t) for t in titles), titles
