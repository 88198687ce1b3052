"""What RQ recorded of a failed job reaches the user as a plain reason: a crash's traceback (module paths,
class names, addresses) stays in the log."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from headdiv.server.backends.rq_records import failure_of

TRACEBACK = (
    'Traceback (most recent call last):\n  File "/srv/headdiv/workers/queue/tasks.py", line 9, in run\n'
    "headdiv.workers.jobs.cache.base.CacheUnavailable: Error 111 connecting to 10.0.0.5:6379. Connection refused.\n"
)


def _job(text: str, timeout: int = 60) -> Any:
    return SimpleNamespace(id="j1", timeout=timeout, latest_result=lambda: SimpleNamespace(exc_string=text))


def test_a_crash_is_a_plain_sentence() -> None:
    error = failure_of(_job(TRACEBACK))
    assert "headdiv." not in error.message and "10.0.0.5" not in error.message and "Error 111" not in error.message
    assert "failed in a worker" in error.message


def test_timeouts_and_lost_workers_keep_their_reasons() -> None:
    assert failure_of(_job("rq.timeouts.JobTimeoutException: Task exceeded", 7)).type == "timeout"
    assert failure_of(_job("rq.exceptions.AbandonedJobError")).type == "abandoned"


def test_a_bug_in_any_runner_is_a_plain_sentence_for_the_user() -> None:
    from headdiv.workers.errors import EngineError
    from headdiv.workers.jobs.failures import describe_failure

    error = describe_failure(RuntimeError("could not reach 10.0.0.5:6379 from /srv/headdiv/x.py"))
    assert "RuntimeError" not in error.message and "10.0.0.5" not in error.message and "/srv" not in error.message
    assert error.message.startswith("internal error")
    assert describe_failure(EngineError("n: too small")).message == "n: too small"  # the engine's own reasons stay
