"""A tour's text as the story panel shows it: its references to a view's explanation as links to that
explanation on the page (`tours.EXPLAIN_REF`), and on a tour's last step the way out: end the tour, or go on
to the next one (the registry's order)."""

from __future__ import annotations

from dash import dcc, html
from dash.development.base_component import Component

from headdiv.dashboard.page.language import _
from headdiv.dashboard.teaching.tour_markup import text_parts
from headdiv.dashboard.teaching.tours import Tour, end_link, next_tour, step_link


def rich(text: str) -> list[str | Component]:
    """`text` with each reference a link to the explanation beside the charts. The reference, parentheses
    included, is part `explain` of the page: a link whose explanation is hidden (`hide=explain`) goes too."""
    out: list[str | Component] = []
    for part in text_parts(text):
        if isinstance(part, str):
            out.append(part)
            continue
        words, name = part
        link = html.A(words, href=f"#explain-{name}", className="explain-ref")
        out.append(html.Span([" (", link, ")"], className="part-explain"))
    return out


def closing(tour: Tour, k: int, keep: dict[str, str]) -> Component | None:
    """On the last step: a link that ends the tour where it stands, and one to the next tour's first step."""
    if k < len(tour.steps):
        return None
    after = next_tour(tour)
    links: list[str | Component] = [
        _("The tour ends here. "),
        dcc.Link(_("End the tour"), href=end_link(tour, k, keep), id="tour-end", className="btn tour-nav"),
    ]
    if after is not None:
        links += [
            " ",
            dcc.Link(
                _("Next tour: {name} →").format(name=_(after.name)),
                href=step_link(after.id, 1, keep),
                id="tour-next-tour",
                className="btn tour-nav",
                title=_(after.summary),
            ),
        ]
    return html.Span(links, className="tour-end")


def narrative(tour: Tour, k: int, keep: dict[str, str]) -> list[str | Component]:
    """Step `k`'s narrative, with its links, and the way out on the last step."""
    end = closing(tour, k, keep)
    return [*rich(_(tour.step(k).narrative)), *([html.Br(), end] if end is not None else [])]
