"""Admission control (server.admission): bounded queued work per client and in all, 429 with Retry-After
beyond it, no job longer than the time limit at the runners' measured speed, and a fast lane that keeps
small jobs from waiting behind long ones - in both set-ups."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from headdiv.schemas import Scenario
from headdiv.server.admission import Admission, Busy, Claim, Speed, TooLong
from tests.server.conftest import MODES, service
from tests.server.helpers import RUN_SEED, maximal_simulation, overlong_surface, poll, slow_surface, small

ENDED = ("finished", "failed", "canceled")
SIMULATIONS = "/api/v1/simulations"
MAXIMAL_WORK = Scenario.model_validate(maximal_simulation()).work


# -- the rules ---------------------------------------------------------------------------------------


def test_a_client_past_its_bound_is_told_when_to_retry() -> None:
    rules = Admission(max_client_work=10, max_queued_work=100)
    claims = [Claim("a", 6), Claim("b", 50)]
    rules.check(claims, "a", 4, None)  # exactly at the bound
    with pytest.raises(Busy, match="your queued jobs") as busy:
        rules.check(claims, "a", 5, Speed(slowest=0.5, total=0.25))
    assert busy.value.retry_after_s == 4  # the excess of 1 unit drains at 0.25 units/s
    rules.check(claims, "c", 5, None)  # another client is not held back


def test_everyone_past_the_global_bound_waits_and_nobody_waits_for_nothing() -> None:
    rules = Admission(max_client_work=100, max_queued_work=60)
    with pytest.raises(Busy, match="all clients' queued jobs") as busy:
        rules.check([Claim("a", 30), Claim("b", 25)], "c", 10, None)
    assert busy.value.retry_after_s >= 1
    rules.check([], "c", 1000, None)  # with nothing pending, a job over both bounds still runs


def test_a_job_longer_than_the_time_limit_at_the_measured_speed_is_refused() -> None:
    rules = Admission(job_timeout_s=60)
    rules.check([], "a", 59, Speed(slowest=1, total=10))
    with pytest.raises(TooLong, match="time limit of 60 s"):
        rules.check([], "a", 61, Speed(slowest=1, total=10))  # the slowest runner bounds it, not the total
    rules.check([], "a", math.inf, None)  # speed unknown: the work budget alone applies


def test_small_jobs_are_counted_apart_from_long_ones() -> None:
    rules = Admission(max_client_work=100, fast_lane_work=10, max_client_fast_jobs=2)
    assert rules.fast(10) and not rules.fast(11)
    long_running = [Claim("a", 100)]
    with pytest.raises(Busy, match="your queued jobs"):
        rules.check(long_running, "a", 11, None)
    rules.check(long_running, "a", 10, None)  # a slider step while one's long surface runs
    with pytest.raises(Busy, match="2 small jobs") as busy:
        rules.check([*long_running, Claim("a", 4), Claim("a", 6)], "a", 1, Speed(slowest=1, total=2))
    assert busy.value.retry_after_s == 3  # one small job's work (5 units on average) at 2 units/s
    rules.check([Claim("b", 4), Claim("b", 6)], "a", 1, None)


# -- both set-ups ------------------------------------------------------------------------------------


def other_client(client: TestClient, host: str = "10.0.0.2") -> TestClient:
    return TestClient(client.app, client=(host, 5000))


def end(client: TestClient, *job_ids: str) -> None:
    for job_id in job_ids:
        client.delete(f"/api/v1/jobs/{job_id}")
    for job_id in job_ids:
        assert poll(client, job_id, ENDED, 60)["status"] in ENDED


@pytest.mark.parametrize("scaled", MODES)
def test_a_client_past_its_bound_gets_429_and_others_do_not(
    scaled: bool, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    first, second = maximal_simulation(seed=RUN_SEED + 11), maximal_simulation(seed=RUN_SEED + 12)
    with service(scaled, request, tmp_path, max_client_work=1.5 * MAXIMAL_WORK) as client:
        r = client.post(SIMULATIONS, json=first)
        assert r.status_code == 202, r.text
        busy = client.post(SIMULATIONS, json=second)
        assert busy.status_code == 429 and int(busy.headers["retry-after"]) >= 1, busy.text
        assert "your queued jobs" in busy.json()["message"]
        assert client.post(SIMULATIONS, json=first).status_code == 202  # joining a running job costs nothing
        theirs = other_client(client).post(SIMULATIONS, json=second)
        assert theirs.status_code == 202, theirs.text
        end(client, r.json()["job_id"])
        mine = client.post(SIMULATIONS, json=maximal_simulation(seed=RUN_SEED + 13))  # room again
        assert mine.status_code == 202, mine.text
        end(client, theirs.json()["job_id"], mine.json()["job_id"])


@pytest.mark.parametrize("scaled", MODES)
def test_all_clients_together_are_bounded(scaled: bool, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    with service(scaled, request, tmp_path, max_queued_work=1.5 * MAXIMAL_WORK) as client:
        r = client.post(SIMULATIONS, json=maximal_simulation(seed=RUN_SEED + 21))
        assert r.status_code == 202, r.text
        busy = other_client(client).post(SIMULATIONS, json=maximal_simulation(seed=RUN_SEED + 22))
        assert busy.status_code == 429 and "all clients' queued jobs" in busy.json()["message"], busy.text
        fits = other_client(client).post(SIMULATIONS, json=small(seed=RUN_SEED + 23))
        assert fits.status_code in (200, 202), fits.text  # what fits under the bound is still taken
        end(client, r.json()["job_id"], fits.json()["job_id"])


@pytest.mark.parametrize("scaled", MODES)
def test_a_small_job_does_not_wait_behind_long_ones(
    scaled: bool, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Embedded, two maximal jobs fill both runner threads; scaled, one fills the only general worker. A
    small job still finishes at once, on the fast lane, while they run."""
    with service(scaled, request, tmp_path, fast_lane=True, runner_threads=2) as client:
        long_jobs = [
            client.post(SIMULATIONS, json=maximal_simulation(seed=RUN_SEED + 31 + k)).json()["job_id"]
            for k in range(1 if scaled else 2)
        ]
        for job_id in long_jobs:
            poll(client, job_id, ("running", *ENDED), 120)
        small_job = client.post(SIMULATIONS, json=small(seed=RUN_SEED + 33)).json()["job_id"]
        assert poll(client, small_job, ENDED, 60)["status"] == "finished"
        assert [client.get(f"/api/v1/jobs/{j}").json()["status"] for j in long_jobs] == ["running"] * len(long_jobs)
        end(client, *long_jobs)


@pytest.mark.parametrize("scaled", MODES)
def test_the_speed_runners_report_bounds_the_largest_job(
    scaled: bool, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    speed = 1e6  # work units per second: a 60 s limit admits 6e7 units
    with service(
        scaled, request, tmp_path, job_timeout_s=60, work_per_s=speed, worker_env={"HEADDIV_WORK_PER_S": str(speed)}
    ) as client:
        health = poll_health(client, lambda h: h["speed"] is not None)
        assert health["speed"] == speed
        big = {**small(seed=RUN_SEED + 41), "replicates": 200, "queries": 64, "n": 256}  # 9.2e7 units
        r = client.post(SIMULATIONS, json=big)
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body"], r.text
        assert "time limit of 60 s" in r.json()["message"] and "HEADDIV_JOB_TIMEOUT_S" in r.json()["message"]
        assert client.post(SIMULATIONS, json=small(seed=RUN_SEED + 42), params={"wait": 60}).status_code == 200


def poll_health(client: TestClient, ready: object, timeout: float = 30) -> dict:
    import time

    deadline = time.monotonic() + timeout
    body: dict = {}
    while time.monotonic() < deadline:
        body = client.get("/api/v1/health").json()
        if ready(body):  # type: ignore[operator]
            return body
        time.sleep(0.2)
    raise TimeoutError(f"health never ready: {body}")


def test_only_small_jobs_are_computed_ahead_and_only_so_many_at_once() -> None:
    from headdiv.server.admission import MAX_AHEAD

    rules = Admission(job_timeout_s=60, fast_lane_work=10)
    rules.check_ahead(10, None, MAX_AHEAD - 1)
    with pytest.raises(Busy, match="only small jobs"):
        rules.check_ahead(11, None, 0)
    with pytest.raises(Busy, match="wait to be computed ahead"):
        rules.check_ahead(1, None, MAX_AHEAD)
    with pytest.raises(TooLong):
        rules.check_ahead(10, Speed(slowest=0.1, total=0.1), 0)  # the time limit applies as to anyone's job


@pytest.mark.parametrize("scaled", MODES)
def test_a_job_asked_for_ahead_is_computed_and_a_person_asking_takes_it_over(
    scaled: bool, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """`priority=background`: a small job is queued at the lowest priority and ends finished; the same job
    asked for by a person is the same job (single flight); a long one is refused (429) instead of queued."""
    with service(scaled, request, tmp_path, fast_lane=True) as client:
        ahead = client.post(SIMULATIONS, params={"priority": "background"}, json=small(seed=RUN_SEED + 41))
        assert ahead.status_code in (200, 202), ahead.text
        mine = client.post(SIMULATIONS, params={"wait": 30}, json=small(seed=RUN_SEED + 41))
        assert mine.json()["job_id"] == ahead.json()["job_id"] and mine.json()["status"] == "finished", mine.text
        long = client.post(SIMULATIONS, params={"priority": "background"}, json=maximal_simulation(seed=RUN_SEED + 42))
        assert long.status_code == 429 and "only small jobs" in long.json()["message"], long.text
        bad = client.post(SIMULATIONS, params={"priority": "soon"}, json=small(seed=RUN_SEED + 43))
        assert bad.status_code == 422 and "priority" in bad.text


@pytest.mark.parametrize("scaled", MODES)
def test_a_job_computed_ahead_stops_once_no_one_asks_for_it(
    scaled: bool, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Anticipation that waits behind a person's job and is not asked for again (the person moved elsewhere)
    ends canceled, saying why; one a person asks for meanwhile is theirs and finishes."""
    with service(scaled, request, tmp_path, fast_lane=True, ahead_lease_s=0.3) as client:
        # a person's job that outlasts the lease (0.3 s) on a loaded machine too, canceled once the check is
        # done: one that ended sooner would let the anticipation run. Scaled, a worker looks at the lease only
        # when it takes the job, after the surface's chunks: seconds long each, not minutes.
        long = slow_surface(cells=8, replicates=128, seed=RUN_SEED + 51)
        busy = client.post("/api/v1/surfaces", json=long if scaled else overlong_surface(seed=RUN_SEED + 51))
        assert busy.status_code == 202, busy.text
        poll(client, busy.json()["job_id"], lambda body: body["status"] == "running", 60)
        dropped = client.post(SIMULATIONS, params={"priority": "background"}, json=small(seed=RUN_SEED + 52))
        kept = client.post(SIMULATIONS, params={"priority": "background"}, json=small(seed=RUN_SEED + 53))
        assert dropped.status_code == kept.status_code == 202, (dropped.text, kept.text)
        taken = client.post(SIMULATIONS, json=small(seed=RUN_SEED + 53))  # a person asks for it
        assert taken.json()["job_id"] == kept.json()["job_id"]
        ended = poll(client, dropped.json()["job_id"], ENDED, 120)
        assert ended["status"] == "canceled", ended
        assert "moved elsewhere" in ended["error"]["message"], ended
        client.delete(f"/api/v1/jobs/{busy.json()['job_id']}")
        assert poll(client, kept.json()["job_id"], ENDED, 120)["status"] == "finished"
