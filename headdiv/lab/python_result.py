"""What `headdiv`'s Python calls return: the typed result with its request, its summary, the dashboard's own
figures, its link and its command line (docs/python.md).

A `Result` holds the API's own result model (`result.result`, its fields also readable on the `Result`
itself: `r.mse`), the validated request and the job id (the same id the API and a worker give it). Its
`summary()` is a table as text, HTML and LaTeX; `figures()` are the charts the dashboard draws for it
(`headdiv.figures.catalog`); in a notebook it shows its summary and its main chart.
"""

from __future__ import annotations

import html
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from headdiv.schemas.results.result_parts import ResultModel

if TYPE_CHECKING:
    import pandas as pd  # type: ignore[import-untyped,unused-ignore]
    import plotly.graph_objects as go

DEFAULT_BASE = "http://127.0.0.1:8050"
CHART_TEXT = Path(__file__).resolve().parents[1] / "dashboard" / "assets" / "chart_text"
"""The dashboard's chart descriptions and data tables (a script and its style), read as files: the Python API
describes a chart in a notebook as the page does, without importing the dashboard."""


@dataclass(frozen=True)
class Summary:
    """A result's key numbers: `str()` is a text table, `_repr_html_` an HTML one, `to_latex()` LaTeX."""

    title: str
    rows: list[tuple[str, str]]

    def __str__(self) -> str:
        width = max((len(k) for k, _ in self.rows), default=0)
        return "\n".join([self.title, *(f"  {k.ljust(width)}  {v}" for k, v in self.rows)])

    def _repr_html_(self) -> str:
        body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in self.rows)
        return f"<table class='headdiv-summary'><caption>{html.escape(self.title)}</caption>{body}</table>"

    def to_latex(self) -> str:
        def esc(text: str) -> str:
            for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"), ("#", r"\#")):
                text = text.replace(a, b)
            return text.replace("±", r"$\pm$")

        rows = "\n".join(f"{esc(k)} & {esc(v)} \\\\" for k, v in self.rows)
        return f"\\begin{{tabular}}{{ll}}\n\\multicolumn{{2}}{{l}}{{{esc(self.title)}}} \\\\\n\\hline\n{rows}\n\\end{{tabular}}"


class Result:
    """One computation's result (see the module); made by `headdiv.simulate` and the other calls."""

    def __init__(self, call: str, request: BaseModel, result: ResultModel, job_id: str | None = None) -> None:
        self.call = call
        self.request = request
        self.result = result
        self.job_id = job_id

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.result, name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and (self.call, self.request, self.result) == (
            other.call,
            other.request,
            other.result,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<headdiv {self.call} result{f' {self.job_id[:12]}' if self.job_id else ''}>\n{self.summary()}"

    # -- numbers
    def summary(self) -> Summary:
        from headdiv.lab.summaries import summary_rows

        return Summary(f"headdiv.{self.call}", summary_rows(self.result))

    def to_json(self, indent: int | None = None) -> str:
        return self.result.model_dump_json(indent=indent)

    def to_dict(self) -> dict[str, Any]:
        return self.result.model_dump(mode="json")

    def to_frame(self) -> pd.DataFrame:
        """The result's table as a pandas DataFrame (pandas is an optional extra: `pip install pandas`)."""
        try:
            import pandas as pd  # type: ignore[import-untyped,unused-ignore]
        except ImportError:
            raise ImportError("to_frame needs pandas: pip install pandas") from None
        from headdiv.lab.summaries import table_of

        return pd.DataFrame(table_of(self.result))

    # -- figures
    def figures(self) -> dict[str, go.Figure]:
        """The charts the dashboard draws for this result, by name (the first is the main one)."""
        from headdiv.figures.catalog import charts_of

        return charts_of(self.result)

    def figure(self, name: str | None = None) -> go.Figure:
        charts = self.figures()
        if name is None:
            return next(iter(charts.values()))
        if name not in charts:
            raise KeyError(f"no figure {name!r}; this result has {', '.join(charts)}")
        return charts[name]

    def figure_html(self, name: str | None = None, *, include_plotlyjs: bool | str = "cdn") -> str:
        """The chart as HTML for a notebook or a page, readable without sight as on the dashboard: a figure
        named by its title, described from its numbers, its data a table under it ("Data table"). The
        description is the dashboard's own (`assets/chart_text.js`, inlined). `include_plotlyjs` as Plotly's
        `to_html` (`True` inlines plotly.js for a file that works offline)."""
        body = self.figure(name).to_html(full_html=False, include_plotlyjs=include_plotlyjs)
        css, script = (CHART_TEXT.with_suffix(ext).read_text(encoding="utf-8") for ext in (".css", ".js"))
        from headdiv.dashboard import inline_words

        return f'<style>{css}</style><figure class="chart-box">{body}</figure>{inline_words()}<script>{script}</script>'

    # -- the other doors
    def command(self) -> str:
        """The `headdiv` command line that computes exactly this result on any machine."""
        from headdiv.dashboard import cli_call

        return cli_call(self.call, self.request.model_dump(mode="json"))

    def python(self) -> str:
        """The Python call that computes exactly this result."""
        from headdiv.dashboard import python_call

        return python_call(self.call, self.request.model_dump(mode="json", exclude_defaults=True))

    def url(self, base: str = DEFAULT_BASE) -> str:
        """The dashboard link that reopens this result's view on this request (warns when the view cannot
        show it exactly, e.g. a sweep's angles that are not evenly spaced)."""
        from headdiv.lab.links import link_of

        query, exact = link_of(self.call, self.request)
        if not exact:
            warnings.warn(f"the dashboard shows a close state, not exactly this {self.call}", stacklevel=2)
        return base.rstrip("/") + "/" + query

    # -- notebooks
    def _repr_html_(self) -> str:
        return self.summary()._repr_html_()

    def _ipython_display_(self) -> None:
        """In a notebook: the summary, then the main chart as Plotly's own output (one display each, so
        that a front end showing the chart still shows the table)."""
        from IPython.display import HTML, display  # type: ignore[import-not-found,unused-ignore]

        display(HTML(self._repr_html_()))
        display(self.figure())
