"""Class polls: the request and response bodies (torch-free, shared by the API and the dashboard).

A poll counts answers to one prediction question of a guided tour. Nothing a voter sends is kept but
the choice it counts (one of the poll's choice ids, checked against them) and a one-way hash of the
browser's random voter token, so the same browser is counted once; no text from users is stored, so
none can ever be shown.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, model_validator

from headdiv.schemas.fields import Int, StrictModel

MAX_CHOICES = 8
MAX_ANSWERS = 2000
"""Answers counted per poll; the next ones are refused (a lecture hall, not a referendum)."""
POLL_TTL_S = 4 * 3600
"""A poll and its counts expire this long after it was opened."""
POLL_ID_PATTERN = r"^[A-Za-z0-9_-]{16}$"
"""`secrets.token_urlsafe(12)`: 96 random bits, unguessable, and short enough to type from a projector."""
_POLL_ID = re.compile(POLL_ID_PATTERN)


def poll_id_or_none(value: object) -> str | None:
    """`value` if it is a poll id, else None: an id a browser or a link holds is checked before it becomes
    part of a path the dashboard asks the API for (whole string: `$` alone would let a newline through)."""
    return value if isinstance(value, str) and _POLL_ID.fullmatch(value) else None


ChoiceId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,23}$", description="A choice's id (a slug).")]
Topic = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9][a-z0-9-]{0,39}/[1-9][0-9]?$",
        description="What the poll asks: `tour/step` of a guided tour (the dashboard shows that step's question).",
    ),
]
VoterToken = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9_-]{16,64}$",
        description="A voter token this server issued for this poll (`POST /polls/{id}/voters`); one answer each.",
    ),
]
POLL_FULL = "this poll is full: it has counted all the answers it can"
ANSWERED_ALREADY = "this browser has answered this poll already: one answer each; watch for the reveal"
NO_POLL = (
    f"no poll {{}}: it has closed (a poll lasts {POLL_TTL_S // 3600} hours) or the link is mistyped; "
    "ask for the link again"
)
NOT_ISSUED = "this voter token was not issued by this server for this poll: ask for one (open the poll's page again)"


class PollCreate(StrictModel):
    topic: Topic
    choices: list[ChoiceId] = Field(min_length=2, max_length=MAX_CHOICES, description="The choice ids, in order.")

    @model_validator(mode="after")
    def _unique(self) -> PollCreate:
        if len(set(self.choices)) != len(self.choices):
            raise ValueError("choices: the choice ids must be different")
        return self


class PollAnswer(StrictModel):
    choice: ChoiceId
    voter: VoterToken


class VoterRequest(StrictModel):
    voter: VoterToken | None = Field(
        None, description="The token this browser holds, if any: given back when this server issued it for this poll."
    )


class VoterIssued(StrictModel):
    voter: str
    """The token to answer this poll with (the one sent, when it was valid; a fresh one otherwise)."""


class PollView(StrictModel):
    id: str
    topic: str
    choices: list[str]
    counts: dict[str, Int]
    """Answers per choice id, every choice listed (0 when none)."""
    total: Int
    expires_in_s: Int
