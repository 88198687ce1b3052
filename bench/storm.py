"""A lecture hall opening one link at once: N fresh phones' first views, replayed against the server.

    python bench/storm.py                                  # 60 and 200 phones, shared answers off and on
    python bench/storm.py --clients 200 --link "/?tour=why-many-heads&step=2"
    python bench/storm.py --modes on                       # only the server as shipped

It records the requests one Debian Chromium makes for a first view of `--link` at 390×844 (the page, the
layout, every bundle, the callbacks and the live charts), then replays them as `--clients` simultaneous
fresh clients (no browser cache, six connections each, as a browser opens; the page first, the rest in
the recorded order, bodies as recorded, `accept-encoding: gzip, deflate, br`). For each set-up, started
on a free port (embedded, engine warm-up off, and measured once its CPU is quiet again), it prints the server's
CPU per first view (its process's user+system time over the storm, divided by the phones), the time to
a phone's whole first view (p50/p95/max), the bytes a phone received on the wire, and the errors (a
status ≥ 400 or a failed request). `off` is the server with `HEADDIV_SHARED_RESPONSES=0`, which builds and
compresses each visitor's page, layout and bundles per request (the old behaviour): the ratio between the
two rows is measured side by side in one run.

With `--polls N` (default 200) it then opens a class poll and has N phones answer it at once through the
page students use (`GET /vote/<id>` for the voter cookie, then the form's POST), all from this one address
(a hall behind one NAT), while a stuffer posts N answers with made-up voter tokens straight to the API;
it prints the answers counted against those sent, and the stuffer's counted.

Targets (2-core machine): CPU per cold first view ≤ 30 ms; 200 simultaneous first views of a tour link all
within 10 s with 0 errors; 200 poll answers in 10 s from one address: exactly 200 counted, the stuffer's 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.load import Processes, free_port, headdiv_command, wait_healthy, wait_quiet

LINK = "/?tour=why-many-heads&step=2"
CHOICES = ["falls", "stays", "rises"]
PARALLEL = 6
"""Connections a browser opens to one host."""
ACCEPT = "gzip, deflate, br"
CPU_TARGET_MS = 30.0
ALL_WITHIN_S = 10.0


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    body: bytes | None
    content_type: str | None


def record(url: str, link: str) -> list[Recorded]:
    """The same-origin requests of one Chromium's first view of `link` (until the network is idle)."""
    from playwright.sync_api import sync_playwright

    seen: list[Recorded] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=os.environ.get("HEADDIV_CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox"]
        )
        page = browser.new_page(viewport={"width": 390, "height": 844})

        def keep(request: object) -> None:
            r = request  # playwright's Request
            if not r.url.startswith(url):  # type: ignore[attr-defined]
                return
            body = r.post_data_buffer  # type: ignore[attr-defined]
            kind = r.headers.get("content-type")  # type: ignore[attr-defined]
            seen.append(Recorded(r.method, r.url[len(url) :], body, kind))  # type: ignore[attr-defined]

        page.on("request", keep)
        page.goto(url + link)
        page.wait_for_load_state("networkidle")
        browser.close()
    return seen


@dataclass
class Phone:
    seconds: float = 0.0
    wire_bytes: int = 0
    errors: list[str] = field(default_factory=list)


async def first_view(url: str, requests: list[Recorded]) -> Phone:
    phone = Phone()
    start = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=PARALLEL, force_close=False)
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(connector=connector, auto_decompress=False, timeout=timeout) as session:

        async def fetch(r: Recorded) -> None:
            headers = {"accept-encoding": ACCEPT}
            if r.content_type:
                headers["content-type"] = r.content_type
            try:
                async with session.request(r.method, url + r.path, data=r.body, headers=headers) as resp:
                    body = await resp.read()
                    phone.wire_bytes += len(body)
                    if resp.status >= 400:
                        phone.errors.append(f"{resp.status} {r.method} {r.path[:60]}")
            except (aiohttp.ClientError, TimeoutError) as exc:
                phone.errors.append(f"{type(exc).__name__} {r.method} {r.path[:60]}")

        await fetch(requests[0])  # the page, then what it names
        lanes = asyncio.Semaphore(PARALLEL)

        async def in_lane(r: Recorded) -> None:
            async with lanes:
                await fetch(r)

        await asyncio.gather(*(in_lane(r) for r in requests[1:]))
    phone.seconds = time.perf_counter() - start
    return phone


@dataclass
class Poll:
    sent: int
    counted: int
    forged_counted: int
    seconds: float
    errors: list[str]

    def row(self) -> str:
        return (
            f"poll: {self.sent} phones answered in {self.seconds:.2f} s: {self.counted} counted; "
            f"a stuffer's {self.sent} made-up tokens: {self.forged_counted} counted; errors {len(self.errors)}"
        )


async def _vote(url: str, poll_id: str, choice: str, errors: list[str]) -> None:
    jar = aiohttp.CookieJar(unsafe=True)  # the server is an IP address: keep its cookies anyway
    async with aiohttp.ClientSession(cookie_jar=jar, timeout=aiohttp.ClientTimeout(total=60)) as phone:
        async with phone.get(f"{url}/vote/{poll_id}") as page:
            await page.read()
            if page.status != 200:
                errors.append(f"{page.status} GET /vote")
                return
        async with phone.post(f"{url}/vote/{poll_id}", data={"choice": choice}) as voted:
            text = await voted.text()
            if voted.status != 200 or "Counted" not in text:
                errors.append(f"{voted.status} POST /vote")


async def _stuff(url: str, poll_id: str) -> int:
    async with aiohttp.ClientSession() as stuffer:
        body = {"choice": "falls", "voter": secrets.token_urlsafe(28)}
        async with stuffer.post(f"{url}/api/v1/polls/{poll_id}/answers", json=body) as resp:
            return 1 if resp.status == 200 else 0


def class_poll(url: str, phones: int) -> Poll:
    opened = httpx.post(f"{url}/api/v1/polls", json={"topic": "why-many-heads/3", "choices": CHOICES}, timeout=30)
    opened.raise_for_status()
    poll_id = opened.json()["id"]
    errors: list[str] = []

    async def run() -> int:
        votes = [_vote(url, poll_id, CHOICES[i % len(CHOICES)], errors) for i in range(phones)]
        stuffed = [_stuff(url, poll_id) for _ in range(phones)]
        *_, forged = await asyncio.gather(asyncio.gather(*votes), asyncio.gather(*stuffed))
        return sum(forged)

    started = time.perf_counter()
    forged = asyncio.run(run())
    seconds = time.perf_counter() - started
    total = int(httpx.get(f"{url}/api/v1/polls/{poll_id}", timeout=30).json()["total"])
    return Poll(phones, total, forged, seconds, errors)


def cpu_seconds(pid: int) -> float:
    """The user+system time of `pid` and its children (the API processes of `--workers N`)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


@dataclass
class Storm:
    mode: str
    clients: int
    cpu_ms: float
    phones: list[Phone]

    def row(self) -> str:
        times = sorted(p.seconds for p in self.phones)
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        errors = sum(len(p.errors) for p in self.phones)
        kb = statistics.mean(p.wire_bytes for p in self.phones) / 1024
        return (
            f"{self.mode:<5} {self.clients:>7} {self.cpu_ms:>12.1f} {statistics.median(times):>8.2f} s "
            f"{p95:>7.2f} s {times[-1]:>7.2f} s {kb:>9.0f} KB {errors:>7}"
        )


def storm(url: str, pid: int, requests: list[Recorded], clients: int, mode: str) -> Storm:
    async def run() -> list[Phone]:
        return list(await asyncio.gather(*(first_view(url, requests) for _ in range(clients))))

    before = cpu_seconds(pid)
    phones = asyncio.run(run())
    return Storm(mode, clients, (cpu_seconds(pid) - before) * 1000 / clients, phones)


@contextlib.contextmanager
def server(mode: str, log_dir: Path, workers: int, redis_url: str) -> Iterator[tuple[str, int]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "CACHE_REDIS_URL")}
    if workers > 1:  # several API processes share Redis: a queue of their own, results that expire
        env.update(
            {
                "REDIS_URL": redis_url,
                "HEADDIV_QUEUE_NAME": f"headdiv-storm-{secrets.token_hex(4)}",
                "HEADDIV_CACHE_TTL_S": "3600",
            }
        )
    env.update(
        {
            "HEADDIV_HOST": "127.0.0.1",
            "HEADDIV_PORT": str(port),
            "HEADDIV_WARM_UP": "0",  # no engine compilation or background precomputing during the storm
            "HEADDIV_WARM_START": "0",
            "HEADDIV_SHARED_RESPONSES": "1" if mode == "on" else "0",
            "PYTHONUNBUFFERED": "1",
        }
    )
    procs = Processes(log_dir / f"storm-{mode}.log")
    try:
        procs.start([*headdiv_command(), "serve", "--workers", str(workers)], env)
        if workers > 1:  # the jobs the first views ask for: a queue worker computes them
            procs.start([*headdiv_command(), "worker"], env)
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, procs, workers=1 if workers > 1 else 0)
        yield url, procs.procs[0][1].pid
    finally:
        procs.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--link", default=LINK)
    parser.add_argument("--clients", type=int, nargs="+", default=[60, 200])
    parser.add_argument("--modes", nargs="+", choices=("off", "on"), default=["off", "on"])
    parser.add_argument("--polls", type=int, default=200, help="phones answering a class poll at once (0: none)")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1],
        help="API processes (`headdiv serve --workers N`; N > 1 on Redis)",
    )
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    log_dir = Path(tempfile.mkdtemp(prefix="headdiv-storm-"))
    storms: list[Storm] = []
    polls: list[Poll] = []
    for mode, workers in ((m, w) for w in args.workers for m in args.modes):
        with server(mode, log_dir, workers, args.redis_url) as (url, pid):
            requests = record(url, args.link)  # also computes what the view shows: cold phones, a warm cache
            wait_quiet(60)  # the server's start-up work (compressing the bundles once) is not the storm's
            print(f"{mode}, {workers} process(es): {len(requests)} requests per first view of {args.link}", flush=True)
            for clients in args.clients:
                storms.append(storm(url, pid, requests, clients, mode if workers == 1 else f"{mode}×{workers}"))
                print(storms[-1].row(), flush=True)
            if args.polls and mode == "on":
                polls.append(class_poll(url, args.polls))
                print(polls[-1].row(), flush=True)
    print(
        f"\n{'mode':<5} {'phones':>7} {'CPU/view ms':>12} {'p50':>10} {'p95':>9} {'max':>9} {'bytes/phone':>12} {'errors':>7}"
    )
    for s in storms:
        print(s.row())
    by = {(s.mode, s.clients): s for s in storms}
    for clients in args.clients:
        off, on = by.get(("off", clients)), by.get(("on", clients))
        if off and on:
            print(
                f"{clients} phones: CPU per first view {off.cpu_ms / max(on.cpu_ms, 1e-9):.1f}x less with shared answers"
            )
    for poll in polls:
        print(poll.row())
    polls_met = all(
        poll.counted == poll.sent and poll.forged_counted == 0 and poll.seconds <= 10 and not poll.errors
        for poll in polls
    )
    met = polls_met and all(
        s.cpu_ms <= CPU_TARGET_MS
        and max(p.seconds for p in s.phones) <= ALL_WITHIN_S
        and not any(p.errors for p in s.phones)
        for s in storms
        if s.mode.startswith("on")
    )
    print(
        f"target (on): CPU per first view ≤ {CPU_TARGET_MS:.0f} ms, all within {ALL_WITHIN_S:.0f} s, 0 errors; "
        "every poll answer counted once within 10 s, no made-up token counted: "
        f"{'met' if met else 'MISSED'}"
    )
    for s in storms:
        for p in s.phones[:1]:
            for e in p.errors[:5]:
                print(f"  {s.mode} {s.clients}: {e}")
    for poll in polls:
        for e in poll.errors[:5]:
            print(f"  poll: {e}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
