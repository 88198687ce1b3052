"""Small layout helpers every view uses, so charts, explanations and exports look and behave alike."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from dash import Output, dcc, html
from dash.development.base_component import Component

from headdiv.dashboard.page.language import _, spoken
from headdiv.dashboard.standalone.buttons import view_exports
from headdiv.figures.theme import empty_figure
from headdiv.i18n import SOURCE

EXPLANATIONS = Path(__file__).resolve().parents[1] / "explanations"


def chart_id(name: str) -> dict[str, str]:
    """Pattern-matching id of a chart: the app sets every chart's export format through it."""
    return {"type": "chart", "name": name}


def chart_outputs(names: Iterable[str]) -> list[Output]:
    """The figure outputs of the charts `names` (a view's `CHARTS`, in the order its callback returns them)."""
    return [Output(chart_id(name), "figure") for name in names]


def graph_config(name: str, fmt: str = "png") -> dict[str, Any]:
    """Plotly's own export button, named after the chart, in the chosen format (PNG or SVG)."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": fmt, "filename": f"headdiv-{name}", "scale": 2},
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
    }


def graph(name: str, message: str = "computing…", **style: Any) -> Component:
    """A chart in a cell of its own: under the chart's card, assets/chart_text.js puts its description and
    its data table, which take no room from the chart itself."""
    return html.Div(
        dcc.Graph(
            id=chart_id(name),
            figure=empty_figure(message),
            config=cast(Any, graph_config(name)),
            className="chart",
            style=style or None,
        ),
        className="chart-cell",
    )


def explanation_text(name: str, code: str | None = None) -> tuple[str, str]:
    """The explanation `name` in the language `code` (the one spoken now by default), as (text, its
    language): `explanations/<code>/<name>.md`, else the English `explanations/<name>.md` (English, the
    pseudo-languages, a translation not written yet)."""
    code = spoken() if code is None else code
    translated = EXPLANATIONS / code / f"{name}.md"
    if code != SOURCE and translated.is_file():
        return translated.read_text(encoding="utf-8"), code
    return (EXPLANATIONS / f"{name}.md").read_text(encoding="utf-8"), SOURCE


def explanation(name: str) -> Component:
    """The Markdown beside a view (formulas in MathJax), read from `explanations/<lang>/<name>.md` in the
    language spoken now, else from the English `explanations/<name>.md` (then marked `lang="en"`, so a
    screen reader on a page in another language reads it as English). It comes with
    MathJax off and its text hidden: assets/typeset_later.js turns MathJax on once the page's first charts
    are drawn, since fetching MathJax and typesetting would take the CPU those charts wait for, and shows
    the text once typeset (raw TeX is never seen). Its id, `explain-<name>`, is what a tour's text links to."""
    page = spoken()
    text, used = explanation_text(name, page)
    lang = {"lang": used} if used != page else {}
    return html.Aside(
        dcc.Markdown(text, mathjax=False, id={"type": "explain", "name": name}),
        id=f"explain-{name}",
        className="explain part-explain math-pending",
        **cast(dict[str, Any], lang),
    )


def view_page(content: list[Component], explain: str) -> Component:
    """The frame of a view: its controls and charts, and its explanation beside them (`hide=explain` hides it)."""
    charts = html.Div([*content, view_exports()], className="charts")
    return html.Div([charts, explanation(explain)], className="view-grid")


def job_status(prefix: str) -> Component:
    """The progress bar, status line and cancel button (shown while a cancellable job runs) of a view's job."""
    return html.Div(
        [
            dcc.Store(id=f"{prefix}-job"),
            dcc.Store(id=f"{prefix}-result"),
            dcc.Interval(id=f"{prefix}-poll", interval=400, disabled=True),
            html.Div(
                html.Div(id=f"{prefix}-progress-bar", className="progress-bar", style={"width": "0%"}),
                id=f"{prefix}-progress",
                className="progress",
                role="progressbar",
                style={"display": "none"},
                **cast(
                    dict[str, Any],
                    {"aria-label": _("progress of the computation"), "aria-describedby": f"{prefix}-status"},
                ),
            ),
            html.Span(id=f"{prefix}-status", className="job-status", role="status"),
            html.Button(
                _("Cancel"),
                id=f"{prefix}-cancel",
                className="btn btn-small btn-cancel",
                n_clicks=0,
                style={"display": "none"},
            ),
        ],
        className="job-line",
    )


def _downloads(prefix: str) -> list[Component]:
    return [
        html.Button(_("Download JSON"), id=f"{prefix}-dl-json", className="btn btn-small", n_clicks=0),
        html.Button(_("Download CSV"), id=f"{prefix}-dl-csv", className="btn btn-small", n_clicks=0),
        dcc.Download(id=f"{prefix}-download"),
    ]


def download_bar(prefix: str) -> Component:
    """Download the result held in the store `f"{prefix}-result"` as JSON or CSV (`jobs.register_exports`)."""
    return html.Div(_downloads(prefix), className="export-bar part-export")


def export_bar(prefix: str) -> Component:
    """Download the view's result as JSON or CSV, and the commands that reproduce it."""
    return html.Div(
        [
            *_downloads(prefix),
            html.Details(
                [
                    html.Summary(_("Reproduce")),
                    html.Div(
                        [
                            dcc.Clipboard(target_id=f"{prefix}-reproduce", className="clip", title=_("copy")),
                            html.Pre(id=f"{prefix}-reproduce", className="reproduce"),
                        ],
                        className="reproduce-box",
                    ),
                ],
                className="part-reproduce",
            ),
        ],
        className="export-bar part-export",
    )


def number_input(
    component_id: str,
    value: Any = None,
    *,
    low: float | None = None,
    high: float | None = None,
    step: float | str = 1,
    **extra: Any,
) -> dcc.Input:
    """A bounded number box that reports only when the user is done typing (debounced), so a half-typed
    value never starts a computation."""
    given: dict[str, Any] = {k: v for k, v in (("value", value), ("min", low), ("max", high)) if v is not None}
    return dcc.Input(id=component_id, type="number", step=step, debounce=True, className="num-input", **given, **extra)


def radio(component_id: str, options: dict[str, str], value: str, **extra: Any) -> dcc.RadioItems:
    """An inline choice of `{value: label}`; a leading space keeps each label off its button."""
    return dcc.RadioItems(
        id=component_id,
        options=[{"label": f" {label}", "value": v} for v, label in options.items()],
        value=value,
        inline=True,
        className="radio-inline",
        **extra,
    )


def control(label: str, component: Component, name: str, help_text: str = "") -> Component:
    """A labelled control; `data-ctl` lets lecture mode hide it by name (`hide=H,theta`)."""
    return html.Div(
        [
            html.Label(
                label,
                htmlFor=getattr(component, "id", None) if isinstance(getattr(component, "id", None), str) else None,
                title=help_text,
            ),
            component,
        ],
        className=f"control ctl-{name}",
        title=help_text or None,
    )


def log_scale(slider: Component, base: int) -> Component:
    """A slider that holds the exponent of its value (base**position): the wrapper's `data-scale` lets
    assets/a11y.js tell assistive technology the value itself (`aria-valuetext`), not the exponent."""
    attrs: dict[str, Any] = {"data-scale": str(base)}
    return html.Div(slider, className="log-slider", **attrs)
