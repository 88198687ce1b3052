"""The page's two ways to a file that works without a server (served by `routes`): links, so the browser
downloads the file itself (with its own progress), relative to the page, so they work under any prefix."""

from __future__ import annotations

from dash import html

from headdiv.dashboard.page.language import _

EXPORT_PATH = "_export"
"""Under the dashboard's prefix: `tour/<name>.html`, `view.html?<query>` (`routes`)."""


def view_exports() -> html.Div:
    """Under a view's charts: the view as one HTML file, and its charts as PNGs for slides (classes, not ids:
    every view has them; views whose charts have no still form hide the first, `no-html-export`)."""
    return html.Div([view_file_button(), slides_button()], className="view-exports part-export")


def view_file_button() -> html.A:
    """The shown view, at the page's state: assets/export_format.js puts the page's query on it when clicked."""
    return html.A(
        _("This view as HTML"),
        href=f"{EXPORT_PATH}/view.html",
        download="",
        className="btn btn-small export-html",
        title=_(
            "One HTML file with this view's charts (interactive), its scenario and formulas: "
            "it opens with no server and no network"
        ),
    )


def slides_button() -> html.Button:
    """Each chart of the view shown as a 1920x1080 PNG with large type, drawn in the browser (assets/slides.js)."""
    return html.Button(
        _("PNG for slides"),
        className="btn btn-small slides-png",
        title=_("Each chart of this view as a 1920×1080 PNG with a projector's type sizes, one file per chart"),
    )


def tour_file_button() -> html.A:
    """The whole tour as one file; its `href` is the tour's (`tour_file_link`), set with the step."""
    return html.A(
        _("Download this tour"),
        id="tour-download",
        href="",
        download="",
        className="btn btn-small tour-download",
        title=_("One HTML file with every step's charts: open it with no server and no network"),
    )


def tour_file_link(tour_id: str) -> str:
    return f"{EXPORT_PATH}/tour/{tour_id}.html"
