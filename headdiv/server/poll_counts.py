"""Where class polls are counted: in memory (embedded mode) or in the queue's Redis (scaled), with a TTL.

Both stores keep, per poll, its topic, its choice ids, a counter per choice and the hashes of the voter
tokens already counted; all of it expires `POLL_TTL_S` after the poll was opened. Polls live apart from
the result cache (in Redis, on the queue's server, which never evicts), so results never push a class's
poll out, and nothing else does either:

- a poll is never dropped to make room: past `MAX_POLLS` live polls a new one is refused (503), and one
  client (address) may open `CLIENT_POLLS` per `CLIENT_POLLS_WINDOW_S` (429);
- a vote counts only with a voter token this server issued for that poll (an HMAC of the poll id and a
  random nonce, `VoterTokens`), one answer per token; tokens are issued at most `VOTER_TOKENS` per client
  per `VOTER_TOKENS_WINDOW_S` (a lecture hall behind one address gets its few hundred, a script no more);
- an answer is one atomic step (a Lua script in Redis, a lock in memory): the poll must exist, the choice
  must be one of its own, the token new and the poll not full; an answer racing the poll's expiry can never
  recreate a part of it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from redis import Redis
from redis.exceptions import RedisError

from headdiv.jobs.keys import PREFIX
from headdiv.schemas.polls import MAX_ANSWERS, POLL_TTL_S, PollView
from headdiv.server.backends.backend_protocol import BackendUnavailable

MAX_POLLS = 1000
CLIENT_POLLS = 30
CLIENT_POLLS_WINDOW_S = 600
VOTER_TOKENS = 600
VOTER_TOKENS_WINDOW_S = 60
Outcome = Literal["counted", "repeat", "full", "unknown-choice", "missing"]


class PollRefused(Exception):
    """A poll that cannot be opened now: `status` 429 (this client's share) or 503 (the server's)."""

    def __init__(self, status: int, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after_s = status, message, retry_after_s


def new_poll_id() -> str:
    return secrets.token_urlsafe(12)


def voter_hash(token: str) -> str:
    """What is kept of a voter's token: enough to recognise it, nothing to recover it."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class VoterTokens:
    """Tokens bound to one poll and signed by the server: `nonce` (16 characters) + `signature` (22)."""

    NONCE = 16

    def __init__(self, secret: bytes) -> None:
        self.secret = secret

    def _signature(self, poll_id: str, nonce: str) -> str:
        mac = hmac.new(self.secret, f"{poll_id}:{nonce}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode()[:22]

    def issue(self, poll_id: str) -> str:
        nonce = secrets.token_urlsafe(12)
        return nonce + self._signature(poll_id, nonce)

    def valid(self, poll_id: str, token: str | None) -> bool:
        if not token or len(token) != self.NONCE + 22:
            return False
        nonce, signature = token[: self.NONCE], token[self.NONCE :]
        return hmac.compare_digest(signature, self._signature(poll_id, nonce))


class PollStore(Protocol):
    def create(self, topic: str, choices: list[str], client: str) -> PollView: ...

    def get(self, poll_id: str) -> PollView | None: ...

    def answer(self, poll_id: str, choice: str, voter: str) -> tuple[Outcome, PollView | None]: ...

    def allow(self, purpose: str, client: str, limit: int, window_s: int) -> bool:
        """Whether `client` may do `purpose` once more within this `window_s` window (at most `limit`)."""
        ...

    def secret(self) -> bytes:
        """The key voter tokens are signed with (shared by every API process on one Redis)."""
        ...


def _full_refusal(live: int, max_polls: int) -> PollRefused:
    return PollRefused(503, f"this server has {live} live polls, its most ({max_polls}); try again later", 60)


def _client_refusal() -> PollRefused:
    return PollRefused(
        429, f"this address has opened {CLIENT_POLLS} polls in {CLIENT_POLLS_WINDOW_S // 60} minutes", 60
    )


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
        self._windows: dict[tuple[str, str, int], int] = {}
        self._lock = threading.Lock()
        self._secret = secrets.token_bytes(32)

    def secret(self) -> bytes:
        return self._secret

    def allow(self, purpose: str, client: str, limit: int, window_s: int) -> bool:
        window = int(time.time() // window_s)
        with self._lock:
            if len(self._windows) > 10_000:  # old windows go; the current ones stay
                self._windows = {k: v for k, v in self._windows.items() if k[2] >= window - 1}
            key = (purpose, client, window)
            self._windows[key] = self._windows.get(key, 0) + 1
            return self._windows[key] <= limit

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

    def create(self, topic: str, choices: list[str], client: str = "") -> PollView:
        if not self.allow("polls", client, CLIENT_POLLS, CLIENT_POLLS_WINDOW_S):
            raise _client_refusal()
        with self._lock:
            now = time.monotonic()
            while self._polls and next(iter(self._polls.values())).expires <= now:  # the expired go (oldest first)
                self._polls.popitem(last=False)
            if len(self._polls) >= self.max_polls:
                raise _full_refusal(len(self._polls), self.max_polls)
            poll_id = new_poll_id()
            p = _Poll(topic, list(choices), now + self.ttl_s, dict.fromkeys(choices, 0))
            self._polls[poll_id] = p
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


def index_key(namespace: str = "") -> str:
    """Live polls by opening time, so their number stays bounded in Redis as in memory (per deployment:
    the namespace is its queue's name)."""
    return f"{PREFIX}:polls{':' + namespace if namespace else ''}"


def secret_key() -> str:
    return f"{PREFIX}:poll-secret"


_ANSWER = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return -2 end
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then return -3 end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return -4 end
redis.call('SADD', KEYS[2], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
"""
"""One answer, atomically: the poll exists, the choice is its own, the voter is new, the poll not full."""
_ANSWER_OUTCOMES: dict[int, Outcome] = {-1: "missing", -2: "unknown-choice", -3: "repeat", -4: "full"}

_CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local live = redis.call('ZCARD', KEYS[1])
if live >= tonumber(ARGV[3]) then return -live end
redis.call('HSET', KEYS[2], unpack(ARGV, 6))
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
"""
"""A new poll, atomically with the count of live ones: refused (minus that count) when there are enough."""


class RedisPolls:
    """A hash per poll (`topic`, `choices` as JSON, `c:<choice>` counters) and a set of voter hashes, on the
    queue's Redis (never evicted)."""

    def __init__(
        self,
        client: Redis,
        ttl_s: int = POLL_TTL_S,
        max_polls: int = MAX_POLLS,
        max_answers: int = MAX_ANSWERS,
        index: str | None = None,
        namespace: str = "",
    ) -> None:
        self.client, self.ttl_s, self.max_polls, self.max_answers = client, ttl_s, max_polls, max_answers
        self.index = index or index_key(namespace)
        self.namespace = namespace
        self._answer = client.register_script(_ANSWER)
        self._create = client.register_script(_CREATE)
        self._secret: bytes | None = None
        self._secret_at = 0.0

    def secret(self) -> bytes:
        """Made by the first process that needs it, kept while polls may use it: it expires two poll
        lifetimes after its last use (each process re-reads it, and extends it, once a minute)."""
        now = time.monotonic()
        if self._secret is None or now - self._secret_at > 60:
            lifetime = 2 * self.ttl_s
            try:
                with self.client.pipeline() as pipe:
                    pipe.set(secret_key(), secrets.token_bytes(32), nx=True, ex=lifetime)
                    pipe.expire(secret_key(), lifetime)
                    pipe.get(secret_key())
                    *_, found = pipe.execute()
            except RedisError as exc:
                raise BackendUnavailable("the poll store is unreachable") from exc
            if not isinstance(found, bytes):
                raise BackendUnavailable("poll store lost its signing key")
            self._secret, self._secret_at = found, now
        return self._secret

    def allow(self, purpose: str, client: str, limit: int, window_s: int) -> bool:
        key = f"{PREFIX}:limit:{self.namespace}:{purpose}:{int(time.time() // window_s)}:{client}"
        try:
            with self.client.pipeline() as pipe:
                pipe.incr(key)
                pipe.expire(key, window_s)
                count, _ = pipe.execute()
        except RedisError as exc:
            raise BackendUnavailable("the poll store is unreachable") from exc
        return int(count) <= limit

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

    def create(self, topic: str, choices: list[str], client: str = "") -> PollView:
        if not self.allow("polls", client, CLIENT_POLLS, CLIENT_POLLS_WINDOW_S):
            raise _client_refusal()
        poll_id = new_poll_id()
        fields: list[Any] = ["topic", topic, "choices", json.dumps(choices)]
        for c in choices:
            fields += [f"c:{c}", 0]
        try:
            made = int(
                self._create(
                    keys=[self.index, poll_key(poll_id)],
                    args=[time.time(), self.ttl_s, self.max_polls, poll_id, 0, *fields],
                )
            )
        except RedisError as exc:
            raise BackendUnavailable("the poll store is unreachable") from exc
        if made <= 0:
            raise _full_refusal(-made, self.max_polls)
        return PollView(
            id=poll_id, topic=topic, choices=choices, counts=dict.fromkeys(choices, 0), total=0, expires_in_s=self.ttl_s
        )

    def _read(self, poll_id: str) -> PollView | None:
        with self.client.pipeline() as pipe:
            pipe.hgetall(poll_key(poll_id))
            pipe.ttl(poll_key(poll_id))
            raw, ttl = pipe.execute()
        if not raw or b"choices" not in raw:
            return None
        return self._view(poll_id, raw, int(ttl))

    def get(self, poll_id: str) -> PollView | None:
        try:
            return self._read(poll_id)
        except RedisError as exc:
            raise BackendUnavailable("the poll store is unreachable") from exc

    def answer(self, poll_id: str, choice: str, voter: str) -> tuple[Outcome, PollView | None]:
        try:
            done = int(
                self._answer(
                    keys=[poll_key(poll_id), voters_key(poll_id)],
                    args=[f"c:{choice}", voter_hash(voter), self.max_answers],
                )
            )
            view = self._read(poll_id)
        except RedisError as exc:
            raise BackendUnavailable("the poll store is unreachable") from exc
        if view is None:
            return "missing", None
        return (_ANSWER_OUTCOMES.get(done, "counted") if done < 0 else "counted"), view
