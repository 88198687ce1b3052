"""What a link's bad values make the page say: each notice in the page's language, a few of them, clipped
(a link's author chooses its text), the rest counted."""

from __future__ import annotations

from headdiv.dashboard.page.param import Param
from headdiv.i18n import _

MAX_NOTICES = 6
"""Notices shown for one link: a link's author chooses its text, so the page shows a few and counts the rest."""
NOTICE_CHARS = 160
"""Longest notice shown (a value a link carries is echoed in its notice)."""


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bounded_notices(notices: list[str], unknown: list[str]) -> list[str]:
    """The notices of one link, bounded: unknown parameters in one line naming the first three, each notice
    clipped, at most `MAX_NOTICES` of them and a count of the rest."""
    distinct = list(dict.fromkeys(unknown))
    if distinct:
        names = ", ".join(f"'{_clip(k, 24)}'" for k in distinct[:3])
        if len(distinct) > 3:
            said = _("unknown URL parameters {names} and {more} more ignored").format(
                names=names, more=len(distinct) - 3
            )
        elif len(distinct) > 1:
            said = _("unknown URL parameters {names} ignored").format(names=names)
        else:
            said = _("unknown URL parameter {names} ignored").format(names=names)
        notices = [said, *notices]
    shown = [_clip(text, NOTICE_CHARS) for text in notices[:MAX_NOTICES]]
    if len(notices) > MAX_NOTICES:
        shown.append(_("and {count} more problems with this link").format(count=len(notices) - MAX_NOTICES))
    return shown


def using_default(problem: str, param: Param) -> str:
    """`problem`, and the default the page uses instead."""
    value = param.dump(param.default) or _(param.absent)
    return _("{problem}; using the default {value}").format(problem=problem, value=value)
