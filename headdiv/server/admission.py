"""Admission control: how much work the service takes on, from one client and from everyone.

Work is the engine's cost measure (docs/engine.md, "What a run costs": every part of a run in work units),
counted for the cells not cached yet, from submission until the job ends. A new job is refused with 429
and a `Retry-After` when it would take its client's queued work past `max_client_work`, or everyone's past
`max_queued_work`; a client with nothing pending is never refused for its share, and a service with
nothing pending never refuses for the total, so every job that fits the budgets runs eventually. Small
jobs are counted apart: at most `max_client_fast_jobs` of them per client, whatever its long jobs. Where
the runners' speed is known (measured at start-up, see `headdiv.workers.engine.speed`), a job that could not end
within the job time limit on the slowest runner is refused at once (422), and `Retry-After` is the time
the excess takes to drain. Small jobs (at most `fast_lane_work`) take a lane of their own, so a lecture's
slider never waits behind a colleague's maximal surface.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from headdiv.server.server_settings import ServerSettings

UNKNOWN_SPEED_RETRY_S = 10
MAX_RETRY_S = 3600


@dataclass(frozen=True)
class Claim:
    """Work a job has been admitted with and not yet ended."""

    client: str
    work: float


@dataclass(frozen=True)
class Speed:
    """Engine speed in work units per second, as measured by the runners."""

    slowest: float
    """Of the slowest runner: a job may land there, so it bounds the longest job."""
    total: float
    """Of all runners together: how fast queued work drains."""


class Busy(Exception):
    """Admitting the job would pass a bound on queued work: 429, come back after `retry_after_s`."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s


class TooLong(ValueError):
    """The job could not end within the job time limit on this deployment's runners: 422, ask for less."""


MAX_AHEAD = 32
"""Jobs clients asked to be computed ahead (`priority=background`) that may wait at once, everyone's together."""


@dataclass(frozen=True)
class Admission:
    max_client_work: float = math.inf
    max_queued_work: float = math.inf
    job_timeout_s: float = math.inf
    fast_lane_work: float = 0.0
    max_client_fast_jobs: int = 1 << 30
    ahead_lease_s: float = 2.0
    """A job computed ahead of a person lives this long past the last time a client asked for it."""

    @classmethod
    def from_settings(cls, settings: ServerSettings) -> Admission:
        return cls(
            settings.max_client_work,
            settings.max_queued_work,
            settings.job_timeout_s,
            settings.fast_lane_work,
            settings.max_client_fast_jobs,
            settings.ahead_lease_s,
        )

    def check_ahead(self, work: float, speed: Speed | None, waiting: int) -> None:
        """Raise `TooLong` or `Busy` unless a client's job computed ahead of a person (`waiting` such jobs
        queued already) may be queued: only small ones (the fast lane's), at most `MAX_AHEAD` waiting, so
        anticipation never holds more than a bounded amount of background work."""
        self.check((), "", work, speed)  # the time limit, as for anyone's job
        if not self.fast(work):
            raise Busy("only small jobs are computed ahead; ask for this one without priority=background", 1)
        if waiting >= MAX_AHEAD:
            raise Busy(f"{waiting} jobs wait to be computed ahead already; retry in a moment", 1)

    def fast(self, work: float) -> bool:
        """Does a job of this much work take the fast lane?"""
        return work <= self.fast_lane_work

    def check(self, claims: Iterable[Claim], client: str, work: float, speed: Speed | None) -> None:
        """Raise `TooLong` or `Busy` unless a new job of `work` from `client` may start now.

        A client's small jobs are bounded by their number, not their work, and its long jobs do not hold
        them back: a lecturer whose maximal surface is running can still move a slider."""
        if speed is not None and work / speed.slowest > self.job_timeout_s:
            raise TooLong(
                f"work budget: this job needs {work:.3g} work units, about {work / speed.slowest:,.0f} s at the "
                f"measured {speed.slowest:.3g} units/s of this deployment's slowest runner, over the time limit "
                f"of {self.job_timeout_s:g} s (HEADDIV_JOB_TIMEOUT_S); lower replicates, n or queries, or split it"
            )
        fast = self.fast(work)
        mine = everyone = mine_fast_work = 0.0
        mine_fast = 0
        for claim in claims:
            everyone += claim.work
            if claim.client != client:
                continue
            if self.fast(claim.work):
                mine_fast += 1
                mine_fast_work += claim.work
            else:
                mine += claim.work
        if fast and mine_fast >= self.max_client_fast_jobs:
            raise Busy(
                f"you already have {mine_fast} small jobs waiting or running, the most one client may; retry in "
                f"a moment, or cancel those you no longer need",
                _retry_after(mine_fast_work / mine_fast, speed),
            )
        bounds = [(everyone, self.max_queued_work, "all clients' queued jobs")]
        if not fast:
            bounds.insert(0, (mine, self.max_client_work, "your queued jobs"))
        for pending, limit, whose in bounds:
            if pending > 0 and pending + work > limit:
                retry = _retry_after(pending + work - limit, speed)
                raise Busy(
                    f"{whose} already need {pending:.3g} work units and this one {work:.3g}, over the bound "
                    f"of {limit:.3g}; retry in about {retry} s, or cancel a job you no longer need",
                    retry,
                )


def _retry_after(excess: float, speed: Speed | None) -> int:
    """Seconds until `excess` work units have drained at the runners' total speed."""
    wait = UNKNOWN_SPEED_RETRY_S if speed is None else excess / speed.total
    return max(1, min(MAX_RETRY_S, math.ceil(wait)))
