"""What `headdiv export` writes and the page's download buttons serve: a tour, or one view's state, as one
self-contained HTML file (`page.document`), every chart computed through the API and drawn by the views'
own figure builders (`snapshot`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from headdiv.client import ApiClient
from headdiv.dashboard.drawing.live import LARGE_FONTS
from headdiv.dashboard.page.url_state import PageState, UrlRegistry
from headdiv.dashboard.standalone.document import document
from headdiv.dashboard.standalone.math_text import render
from headdiv.dashboard.standalone.snapshot import Snapshot, explanation_of, snapshot
from headdiv.dashboard.teaching.tour_markup import plain_text
from headdiv.dashboard.teaching.tours import Question, Tour, expand
from headdiv.dashboard.views.view_protocol import View
from headdiv.version import __version__


@dataclass(frozen=True)
class Exported:
    """A written page: its file name (no directory) and its text."""

    filename: str
    text: str


def _question(q: Question | None) -> dict[str, Any] | None:
    if q is None:
        return None
    return {
        "prompt": q.prompt,
        "choices": [{"id": c.id, "label": c.label} for c in q.choices],
        "answer": q.answer,
        "why": plain_text(q.why),
    }


def _step(shot: Snapshot, title: str, narrative: str, question: Question | None) -> dict[str, Any]:
    return {
        "title": title,
        "narrative": narrative,
        "view": shot.view.id,
        "viewLabel": shot.view.label,
        "description": shot.view.description,
        "scenario": shot.scenario,
        "reproduce": shot.reproduce,
        "question": _question(question),
        "charts": [{"name": name, "figure": fig} for name, fig in shot.charts],
    }


def _explanations(views: list[View]) -> dict[str, str]:
    out = {}
    for view in views:
        text = explanation_of(view)
        if text is not None:
            out[view.id] = render(text)
    return out


def _content(kind: str, title: str, summary: str, steps: list[dict[str, Any]], shown: list[View]) -> dict[str, Any]:
    return {
        "kind": kind,
        "title": title,
        "summary": summary,
        "made": f"headdiv {__version__}",
        "largeFonts": LARGE_FONTS,  # the projector theme's chart type sizes, as the dashboard's large fonts
        "explanations": _explanations(list({v.id: v for v in shown}.values())),
        "steps": steps,
    }


def _view_of(state: PageState, views: list[View]) -> View:
    tab = str(state.get("tab") or views[0].id)
    return next(v for v in views if v.id == tab)


def tour_file(tour: Tour, registry: UrlRegistry, views: list[View], client: ApiClient) -> Exported:
    """Every step of `tour`, its charts computed, as one page."""
    steps, shown = [], []
    for k, step in enumerate(tour.steps, start=1):
        state = registry.parse(expand(f"tour={tour.id}&step={k}"))
        view = _view_of(state, views)
        shown.append(view)
        shot = snapshot(view, state, registry, client)
        steps.append(_step(shot, step.title, plain_text(step.narrative), step.question))
    content = _content("tour", tour.name, tour.summary, steps, shown)
    return Exported(f"headdiv-tour-{tour.id}.html", document(f"{tour.name} · headdiv", content))


def view_file(state: PageState, registry: UrlRegistry, views: list[View], client: ApiClient) -> Exported:
    """The view a link shows, at its (validated) state, as one page."""
    view = _view_of(state, views)
    shot = snapshot(view, state, registry, client)
    content = _content("view", view.label, view.description, [_step(shot, view.label, "", None)], [view])
    return Exported(f"headdiv-{view.id}.html", document(f"{view.label} · headdiv", content))
