"""Where class polls are counted: in memory (embedded mode) or in the Redis cache (scaled), with a TTL.

Both stores keep, per poll, its topic, its choice ids, a counter per choice and the hashes of the voter
tokens already counted (so one browser is counted once); all of it expires `POLL_TTL_S` after the poll
was opened. The number of answers per poll is bounded (`MAX_ANSWERS`), and so is the number of live
polls in memory (`MAX_POLLS`, oldest dropped first).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from redis import Redis
from redis.exceptions import RedisError

from headdiv.server.backends.base import BackendUnavailable
from headdiv.workers.jobs.keys import PREFIX
from headdiv.workers.schemas.polls import MAX_ANSWERS, POLL_TTL_S, PollView

MAX_POLLS = 1000
Outcome = Literal["counted", "repeat", "full", "unknown-choice", "missing"]


def new_poll_id() -> str:
    return secrets.token_urlsafe(12)


def voter_hash(token: str) -> str:
    """What is kept of a voter's token: enough to recognise it, nothing to recover it."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class PollStore(Protocol):
    def create(self, topic: str, choices: list[str]) -> PollView: ...

    def get(self, poll_id: str) -> PollView | None: ...

    def answer(self, poll_id: str, choice: str, voter: str) -> tuple[Outcome, PollView | None]: ...


@dataclass
class _Poll:
    topic: str
    choices: list[str]
    expires: float
    counts: dict[str, int]
    voters: set[str] = field(default_factory=set)


class MemoryPolls:
    def __init__(self, ttl_s: int = POLL_TTL_S, max_polls: int = MAX_POLLS, max_answers: int = MAX_ANSWERS) -> None:
        self.ttl_s, self.max_polls, self.max_answers = ttl_s, max_polls, max_answers
        self._polls: OrderedDict[str, _Poll] = OrderedDict()
        self._lock = threading.Lock()

    def _view(self, poll_id: str, p: _Poll) -> PollView:
        return PollView(
            id=poll_id,
            topic=p.topic,
            choices=list(p.choices),
            counts=dict(p.counts),
            total=sum(p.counts.values()),
            expires_in_s=max(0, int(p.expires - time.monotonic())),
        )

    def _live(self, poll_id: str) -> _Poll | None:
        p = self._polls.get(poll_id)
        if p is not None and p.expires <= time.monotonic():
            del self._polls[poll_id]
            return None
        return p

    def create(self, topic: str, choices: list[str]) -> PollView:
        with self._lock:
            poll_id = new_poll_id()
            p = _Poll(topic, list(choices), time.monotonic() + self.ttl_s, dict.fromkeys(choices, 0))
            self._polls[poll_id] = p
            while len(self._polls) > self.max_polls:
                self._polls.popitem(last=False)
            return self._view(poll_id, p)

    def get(self, poll_id: str) -> PollView | None:
        with self._lock:
            p = self._live(poll_id)
            return None if p is None else self._view(poll_id, p)

    def answer(self, poll_id: str, choice: str, voter: str) -> tuple[Outcome, PollView | None]:
        with self._lock:
            p = self._live(poll_id)
            if p is None:
                return "missing", None
            if choice not in p.counts:
                return "unknown-choice", self._view(poll_id, p)
            h = voter_hash(voter)
            if h in p.voters:
                return "repeat", self._view(poll_id, p)
            if len(p.voters) >= self.max_answers:
                return "full", self._view(poll_id, p)
            p.voters.add(h)
            p.counts[choice] += 1
            return "counted", self._view(poll_id, p)


def poll_key(poll_id: str) -> str:
    return f"{PREFIX}:poll:{poll_id}"


def voters_key(poll_id: str) -> str:
    return f"{PREFIX}:poll:{poll_id}:voters"


def index_key() -> str:
    """Live polls by opening time, so their number stays bounded in Redis as in memory."""
    return f"{PREFIX}:polls"


class RedisPolls:
    """A hash per poll (`topic`, `choices` as JSON, `c:<choice>` counters) and a set of voter hashes."""

    def __init__(
        self,
        client: Redis,
        ttl_s: int = POLL_TTL_S,
        max_polls: int = MAX_POLLS,
        max_answers: int = MAX_ANSWERS,
        index: str | None = None,
    ) -> None:
        self.client, self.ttl_s, self.max_polls, self.max_answers = client, ttl_s, max_polls, max_answers
        self.index = index or index_key()

    def _view(self, poll_id: str, raw: dict[bytes, bytes], ttl: int) -> PollView:
        fields = {k.decode(): v.decode() for k, v in raw.items()}
        choices = [str(c) for c in json.loads(fields["choices"])]
        counts = {c: int(fields.get(f"c:{c}", "0")) for c in choices}
        return PollView(
            id=poll_id,
            topic=fields["topic"],
            choices=choices,
            counts=counts,
            total=sum(counts.values()),
            expires_in_s=max(0, ttl),
        )

    def create(self, topic: str, choices: list[str]) -> PollView:
        poll_id = new_poll_id()
        mapping = {"topic": topic, "choices": json.dumps(choices), **{f"c:{c}": 0 for c in choices}}
        try:
            with self.client.pipeline() as pipe:
                pipe.hset(poll_key(poll_id), mapping=mapping)  # type: ignore[arg-type]
                pipe.expire(poll_key(poll_id), self.ttl_s)
                pipe.zadd(self.index, {poll_id: time.time()})
                pipe.zremrangebyscore(self.index, "-inf", time.time() - self.ttl_s)
                pipe.expire(self.index, self.ttl_s)
                pipe.zcard(self.index)
                *_, live = pipe.execute()
            if int(live) > self.max_polls:  # the oldest go first, as in memory
                popped: list[tuple[Any, float]] = self.client.zpopmin(self.index, int(live) - self.max_polls)  # type: ignore[assignment]
                old = [_text(p) for p, _ in popped]
                self.client.delete(*[k for p in old for k in (poll_key(p), voters_key(p))])
        except RedisError as exc:
            raise BackendUnavailable(f"poll store unreachable: {exc}") from exc
        return PollView(
            id=poll_id, topic=topic, choices=choices, counts=dict.fromkeys(choices, 0), total=0, expires_in_s=self.ttl_s
        )

    def _read(self, poll_id: str) -> PollView | None:
        with self.client.pipeline() as pipe:
            pipe.hgetall(poll_key(poll_id))
            pipe.ttl(poll_key(poll_id))
            raw, ttl = pipe.execute()
        if not raw:
            return None
        return self._view(poll_id, raw, int(ttl))

    def get(self, poll_id: str) -> PollView | None:
        try:
            return self._read(poll_id)
        except RedisError as exc:
            raise BackendUnavailable(f"poll store unreachable: {exc}") from exc

    def answer(self, poll_id: str, choice: str, voter: str) -> tuple[Outcome, PollView | None]:
        try:
            view = self._read(poll_id)
            if view is None:
                return "missing", None
            if choice not in view.counts:
                return "unknown-choice", view
            vkey = voters_key(poll_id)
            with self.client.pipeline() as pipe:
                pipe.sadd(vkey, voter_hash(voter))
                pipe.scard(vkey)
                pipe.expire(vkey, max(1, view.expires_in_s))
                added, size, _ = pipe.execute()
            if not added:
                return "repeat", view
            if int(size) > self.max_answers:
                self.client.srem(vkey, voter_hash(voter))
                return "full", view
            self.client.hincrby(poll_key(poll_id), f"c:{choice}", 1)
            return "counted", self._read(poll_id)
        except RedisError as exc:
            raise BackendUnavailable(f"poll store unreachable: {exc}") from exc


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value
