"""The words the page's scripts show (the room's bar and its poll panel, `assets/room.js`; a chart's
description and data table, `assets/chart_text.js`), in the page's language: one registry marked for the
catalogue, written once into each language's page as JSON (`words_tag`, shared with the page by every visitor
who reads that language) and read by the scripts through `window.headdivWords` (`assets/words.js`: `{field}`s
filled in the browser). A page made elsewhere (an exported file, a notebook's chart) inlines both
(`inline_words`)."""

from __future__ import annotations

import json
from pathlib import Path

from headdiv.i18n import N_, _

SCRIPT_WORDS: dict[str, str] = {
    "room.problem": N_("Present to the room: {text}"),
    "room.qr": N_("QR code of {url}"),
    "room.code": N_("Room {code}"),
    "room.follow_at": N_("follow at"),
    "room.end": N_("End presenting"),
    "room.one_follows": N_("{n} phone follows"),
    "room.many_follow": N_("{n} phones follow"),
    "room.presenting_ended": N_("Presenting ended."),
    "room.following": N_("Following the lecturer · room {code}"),
    "room.explore": N_("Explore on my own"),
    "room.exploring": N_("Exploring on your own · room {code}"),
    "room.back": N_("Back to the lecturer"),
    "room.bar": N_("room"),
    "room.question": N_("the lecturer's question"),
    "room.asks": N_("The lecturer asks the class a question."),
    "room.own_page": N_("Answer on its own page"),
    "room.answers": N_("answers"),
    "room.sending": N_("Sending your answer…"),
    "room.unloaded": N_("The question could not be loaded here."),
    "room.ended": N_("The lecturer has ended room {code}. This page stays as it is."),
    "room.none": N_("No room {code}: it has ended, or the code is mistyped."),
    # a chart's description and data table (assets/chart_text.js), computed from the numbers it draws
    "chart.chart": N_("chart"),
    "chart.series": N_("series {n}"),
    "chart.no_value": N_("no value"),
    "chart.one_point": N_("{name}: {value} at {x}."),
    "chart.listed": N_("{name}: {values}."),
    "chart.extremes": N_("lowest {lo} at {lo_x}, highest {hi} at {hi_x}"),
    "chart.categorical": N_("{name}: {extremes}."),
    "chart.stays": N_("{name} stays at {value}; {extremes}."),
    "chart.within_error": N_(
        "{name} changes no more than its Monte Carlo error allows, from {first} to {last}; {extremes}."
    ),
    "chart.rises": N_("{name} rises from {first} to {last}; {extremes}."),
    "chart.falls": N_("{name} falls from {first} to {last}; {extremes}."),
    "chart.along": N_("Along {axis} from {lo} to {hi}:"),
    "chart.no_values": N_("No values yet."),
    "chart.column": N_("column"),
    "chart.row": N_("row"),
    "chart.grid_at": N_("at {x_axis} {x}, {y_axis} {y}"),
    "chart.grid": N_("A {rows} by {columns} grid: lowest {lo} {lo_at}, highest {hi} {hi_at}."),
    "chart.histogram": N_("{name}: {count} values from {lo} to {hi}."),
    "chart.more": N_("And {n} more series in the data table."),
    "chart.nothing": N_("Nothing drawn yet."),
    "chart.error_column": N_("{name} Monte Carlo error"),
    "chart.data_table": N_("Data table: {name}"),
}
"""Each script word by its key (what the scripts ask for), in English."""
WORDS_ID = "headdiv-words"


def words_tag() -> str:
    """The script words in the language spoken now, as a JSON script element for the page's head."""
    words = json.dumps({key: _(text) for key, text in SCRIPT_WORDS.items()}, ensure_ascii=False)
    safe = words.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{WORDS_ID}">{safe}</script>'


def inline_words() -> str:
    """The words and their reader as inline elements, for a page that is not the dashboard's."""
    reader = (Path(__file__).resolve().parents[1] / "assets" / "words.js").read_text(encoding="utf-8")
    return words_tag() + "<script>" + reader.replace("</script", "<\\/script") + "</script>"
