"""The page in the reader's language (docs/languages.md): `<html lang dir>` on the page, the frame's words
(header, sidebar, tabs, views' descriptions) in its layout, chosen by `?lang=` (the page's own, or the Referer's
for its layout), else `Accept-Language`, else English; each built once per language and shared by everyone
who reads it, never served to a reader of another."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from headdiv.dashboard.views import VIEWS
from headdiv.i18n import LANGUAGES, translator
from headdiv.i18n.catalogues import accented

HTML_TAG = re.compile(r"<html[^>]*>")


def _html(url: str, **headers: str) -> str:
    found = HTML_TAG.search(httpx.get(url, headers=headers, timeout=30).text)
    assert found is not None
    return found.group(0)


def _texts(node: Any, out: list[str]) -> list[str]:
    """Every string child of a serialised Dash layout."""
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, list):
        for child in node:
            _texts(child, out)
    elif isinstance(node, dict):
        props = node.get("props", {})
        _texts(props.get("children"), out)
        if isinstance(props.get("label"), (str, dict, list)):
            _texts(props.get("label"), out)
    return out


def _layout(server_url: str, **headers: str) -> dict[str, Any]:
    r = httpx.get(f"{server_url}/_dash-layout", headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    assert "accept-language" in r.headers["vary"] and "referer" in r.headers["vary"]
    return dict(r.json())


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_the_page_names_its_language_and_direction(server_url: str, code: str) -> None:
    lang = LANGUAGES[code]
    assert _html(f"{server_url}/?lang={code}&theta=30") == f'<html lang="{code}" dir="{lang.direction}">'


def test_without_lang_the_browser_chooses_and_else_english(server_url: str) -> None:
    assert _html(f"{server_url}/", **{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"}) == '<html lang="zh" dir="ltr">'
    assert _html(f"{server_url}/", **{"Accept-Language": "ar-EG"}) == '<html lang="ar" dir="rtl">'
    assert _html(f"{server_url}/", **{"Accept-Language": "zh-TW, fr"}) == '<html lang="en" dir="ltr">'
    assert _html(f"{server_url}/?lang=klingon") == '<html lang="en" dir="ltr">'
    # the link's language wins over the browser's
    assert _html(f"{server_url}/?lang=es", **{"Accept-Language": "ar"}) == '<html lang="es" dir="ltr">'


def test_each_language_is_built_once_and_never_served_to_another(server_url: str) -> None:
    seen: dict[str, str] = {}
    for code in ("es", "ar", "es", "en", "ar"):
        r = httpx.get(f"{server_url}/?lang={code}", timeout=30)
        assert seen.setdefault(code, r.headers["etag"]) == r.headers["etag"]
        assert f'lang="{code}"' in r.text
    assert len(set(seen.values())) == 3


def test_the_layout_speaks_the_pages_language(server_url: str) -> None:
    """The layout's URL carries no query: the page's (its Referer's) `lang` chooses, else the browser's."""
    es = translator("es").gettext
    spanish = _texts(_layout(server_url, Referer=f"{server_url}/?tab=weighting&lang=es"), [])
    for v in VIEWS:
        assert es(v.label) in spanish and es(v.description) in spanish, v.id
    assert es("Scenario") in spanish and es("Skip to the charts") in spanish and "Scenario" not in spanish
    arabic = _texts(_layout(server_url, **{"Accept-Language": "ar"}), [])
    assert translator("ar").gettext("Scenario") in arabic
    english = _texts(_layout(server_url), [])
    assert "Scenario" in english and all(v.label in english for v in VIEWS)
    pseudo = _texts(_layout(server_url, Referer=f"{server_url}/?lang=en-XA"), [])
    assert accented("Scenario") in pseudo and accented("Presets") in pseudo


def test_the_picker_offers_every_language_in_its_own_name_with_the_pages_chosen(server_url: str) -> None:
    def picker(**headers: str) -> dict[str, Any]:
        stack: list[Any] = [_layout(server_url, **headers)]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, dict):
                props = node.get("props", {})
                if props.get("id") == "lang-picker":
                    options = [o["props"] for o in props["children"]]
                    return {
                        "options": [o["value"] for o in options],
                        "chosen": [o["value"] for o in options if o.get("selected")],
                        "own": all(
                            o["lang"] == o["value"] and o["children"] == LANGUAGES[o["value"]].name for o in options
                        ),
                    }
                stack.append(props.get("children"))
        raise AssertionError("no language picker in the layout")

    real = [code for code, lang in LANGUAGES.items() if not lang.pseudo]
    assert picker() == {"options": real, "chosen": ["en"], "own": True}
    assert picker(Referer=f"{server_url}/?lang=ar") == {"options": real, "chosen": ["ar"], "own": True}
    assert picker(Referer=f"{server_url}/?lang=ar-XB") == {
        "options": [*real, "ar-XB"],
        "chosen": ["ar-XB"],
        "own": True,
    }


SMALL = "replicates=20&queries=16"


@pytest.mark.browser
def test_the_picker_is_keyboard_usable_and_reloads_the_page_in_the_language_with_its_state(
    page: Any, server_url: str
) -> None:
    from tests.dashboard.test_layout_browser import wait_view_drawn

    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{server_url}/?tab=weighting&theta=30&{SMALL}")
    wait_view_drawn(page, "weighting")
    picker = page.locator("#lang-picker")
    assert picker.input_value() == "en" and picker.get_attribute("aria-label") == "Language"
    picker.focus()
    page.keyboard.press("ArrowDown")  # the next language, Spanish: the page reloads in it
    page.wait_for_function("() => document.documentElement.lang === 'es'")
    wait_view_drawn(page, "weighting")
    query = dict(p.split("=") for p in page.url.split("?", 1)[1].split("&"))
    assert query["lang"] == "es" and query["theta"] == "30" and query["tab"] == "weighting"
    assert page.locator("#lang-picker").input_value() == "es"
    assert page.locator(".tab-selected").inner_text().strip() == translator("es").gettext("Weighting")


@pytest.mark.browser
@pytest.mark.parametrize("code", ["ar", "ar-XB", "en-XA"])
@pytest.mark.parametrize("width,height", [(1440, 900), (390, 844)])
def test_a_page_in_another_script_is_mirrored_where_it_reads_so_and_passes_axe(
    page: Any, server_url: str, code: str, width: int, height: int
) -> None:
    """Right to left, the sidebar sits at the main's right and the tabs start at the right; the charts keep
    their axes left to right; the picker stays reachable on a phone; axe-core finds nothing serious."""
    from tests.dashboard.axe import serious_findings
    from tests.dashboard.test_layout_browser import measure, wait_view_drawn

    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server_url}/?lang={code}&{SMALL}")
    wait_view_drawn(page, "ensemble")
    rtl = LANGUAGES[code].direction == "rtl"
    assert page.evaluate("() => document.documentElement.dir") == LANGUAGES[code].direction
    assert page.locator(".lang-picker:visible").count() == 1  # the header's, or on a phone the page foot's
    boxes = page.evaluate(
        """() => { const box = (s) => document.querySelector(s).getBoundingClientRect().toJSON();
          return {sidebar: box('.sidebar'), main: box('#main'), first: box('.tab'), tabs: box('#tabs'),
                  plot: getComputedStyle(document.querySelector('.js-plotly-plot')).direction}; }"""
    )
    assert boxes["plot"] == "ltr"
    if width > 700:  # side by side: the sidebar on the reading side's start
        assert (boxes["sidebar"]["left"] >= boxes["main"]["right"]) == rtl, boxes
    first, tabs = boxes["first"], boxes["tabs"]
    assert (abs(first["right"] - tabs["right"]) < abs(first["left"] - tabs["left"])) == rtl, boxes
    # Plotly measures its text outside the chart (its tester): right to left, a measure taken in the page's
    # direction put each y-axis title over its tick labels
    assert measure(page)["overlaps"] == []
    assert serious_findings(page) == []


def test_the_scripts_words_are_in_the_pages_language_and_every_key_they_ask_for_exists(server_url: str) -> None:
    """The room's bar (assets/room.js) and the charts' descriptions (assets/chart_text.js) say their words
    through `window.headdivWords`: the page carries them in its language, and a key a script asks for that
    the registry lacks would show as the key."""
    import json as json_module
    from pathlib import Path

    from headdiv.dashboard.page.script_words import SCRIPT_WORDS, WORDS_ID

    assets = Path(__file__).resolve().parents[2] / "headdiv" / "dashboard" / "assets"
    keys = {
        key
        for script in ("room.js", "chart_text.js")
        for key in re.findall(r'"((?:room|chart)\.[a-z_]+)"', (assets / script).read_text(encoding="utf-8"))
    }
    assert keys and keys <= set(SCRIPT_WORDS), keys - set(SCRIPT_WORDS)
    for code in ("es", "ar", "en-XA"):
        page = httpx.get(f"{server_url}/?lang={code}", timeout=30).text
        found = re.search(rf'<script type="application/json" id="{WORDS_ID}">(.*?)</script>', page)
        assert found is not None
        words = json_module.loads(found.group(1))
        assert set(words) == set(SCRIPT_WORDS)
        assert all(words[k] == translator(code).gettext(v) for k, v in SCRIPT_WORDS.items())
