"""ByteLRU: a least-recently-used map bounded by the summed size of its values, thread-safe."""

from __future__ import annotations

import sys
import threading

from headdiv.jobs.cache.memory_cache import MemoryCache
from headdiv.plumbing.lru import ByteLRU


def lru(max_bytes: int) -> ByteLRU[str, bytes]:
    return ByteLRU(max_bytes, len)


def test_the_least_recently_used_goes_first_once_the_bound_is_passed() -> None:
    cache = lru(30)
    cache.put("a", b"a" * 10)
    cache.put("b", b"b" * 10)
    cache.put("c", b"c" * 10)
    assert len(cache) == 3 and cache.size_bytes == 30  # exactly at the bound: nothing evicted
    assert cache.get("a") == b"a" * 10  # a is now the most recent, b the least
    cache.put("d", b"d" * 10)
    assert cache.get("b") is None
    assert [cache.get(k) for k in "acd"] == [b"a" * 10, b"c" * 10, b"d" * 10]
    assert len(cache) == 3 and cache.size_bytes == 30
    # recency is now a, c, d (the gets above, in that order): one value of 20 bytes evicts a and c
    cache.put("e", b"e" * 20)
    assert cache.get("a") is None and cache.get("c") is None
    assert cache.get("d") == b"d" * 10 and cache.get("e") == b"e" * 20
    assert len(cache) == 2 and cache.size_bytes == 30


def test_a_get_of_a_missing_key_changes_nothing() -> None:
    cache = lru(20)
    cache.put("a", b"a" * 10)
    cache.put("b", b"b" * 10)
    assert cache.get("zz") is None
    cache.put("c", b"c" * 10)  # a is still the least recent
    assert cache.get("a") is None and cache.get("b") is not None and cache.get("c") is not None


def test_a_value_larger_than_the_bound_is_not_kept_and_evicts_nothing() -> None:
    cache = lru(30)
    cache.put("a", b"a" * 10)
    cache.put("b", b"b" * 20)
    cache.put("huge", b"h" * 31)
    assert cache.get("huge") is None
    assert cache.get("a") == b"a" * 10 and cache.get("b") == b"b" * 20
    assert len(cache) == 2 and cache.size_bytes == 30
    cache.put("whole", b"w" * 30)  # exactly the bound is kept, and pushes out everything else
    assert cache.get("whole") == b"w" * 30 and cache.get("a") is None and cache.get("b") is None
    assert len(cache) == 1 and cache.size_bytes == 30


def test_replacing_a_value_updates_the_byte_count() -> None:
    cache = lru(30)
    cache.put("a", b"a" * 10)
    cache.put("b", b"b" * 5)
    cache.put("a", b"A" * 3)
    assert cache.get("a") == b"A" * 3 and len(cache) == 2 and cache.size_bytes == 8
    cache.put("a", b"A" * 25)  # grows to the bound: b stays (5 + 25 = 30)
    assert cache.size_bytes == 30 and len(cache) == 2
    cache.put("b", b"B" * 6)  # b replaced and now most recent: a (least recent) goes
    assert cache.get("a") is None and cache.get("b") == b"B" * 6
    assert len(cache) == 1 and cache.size_bytes == 6


def test_replacing_a_value_makes_it_the_most_recent() -> None:
    cache = lru(20)
    cache.put("a", b"a" * 10)
    cache.put("b", b"b" * 10)
    cache.put("a", b"A" * 10)  # b is now the least recent
    cache.put("c", b"c" * 10)
    assert cache.get("b") is None and cache.get("a") == b"A" * 10 and cache.get("c") == b"c" * 10


def test_sizes_come_from_the_size_function() -> None:
    cache: ByteLRU[int, list[int]] = ByteLRU(100, lambda v: 40 * len(v))
    cache.put(1, [1])
    cache.put(2, [1, 2])
    assert cache.size_bytes == 80 and len(cache) == 1  # 40 + 80 = 120 > 100: 1 went
    assert cache.get(1) is None and cache.get(2) == [1, 2]


def test_clear_empties_it() -> None:
    cache = lru(30)
    cache.put("a", b"a" * 10)
    cache.put("b", b"b" * 10)
    cache.clear()
    assert len(cache) == 0 and cache.size_bytes == 0
    assert cache.get("a") is None and cache.get("b") is None
    cache.put("c", b"c" * 30)  # the whole bound is free again
    assert cache.get("c") == b"c" * 30 and cache.size_bytes == 30


def test_concurrent_puts_keep_the_byte_count_exact_and_within_the_bound() -> None:
    """Several threads put, replace and read overlapping keys at once: afterwards size_bytes is the summed size
    of exactly what is left, and within the bound."""
    bound, threads, rounds, keys = 4000, 8, 2000, 64
    cache = lru(bound)
    start = threading.Barrier(threads)
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            start.wait()
            for i in range(rounds):
                key = f"k{(i * 7 + t * 13) % keys}"
                cache.put(key, bytes([t]) * (1 + (i * 31 + t * 17) % 200))
                if i % 3 == 0:
                    cache.get(f"k{(i + t) % keys}")
        except BaseException as exc:  # a failure in a thread would otherwise pass unnoticed
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can: interleave the puts
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    left = [v for v in (cache.get(f"k{k}") for k in range(keys)) if v is not None]
    assert len(left) == len(cache) > 0
    assert cache.size_bytes == sum(len(v) for v in left)
    assert cache.size_bytes <= bound
    # every value left is one some thread put: one thread's byte, a length it could have written
    assert all(len(set(v)) == 1 and v[0] < threads and 1 <= len(v) <= 200 for v in left)


def test_memory_cache_still_evicts_by_bytes() -> None:
    """The server's embedded result cache is a ByteLRU of encoded results, sized by their length."""
    cache = MemoryCache(max_bytes=25)
    cache.set("a", b"a" * 10)
    cache.set("b", b"b" * 10)
    assert cache.get_many(["a", "b", "c"]) == [b"a" * 10, b"b" * 10, None]  # b is now the most recent
    cache.set("c", b"c" * 10)  # 30 bytes > 25: a goes
    assert cache.get("a") is None and cache.get("b") == b"b" * 10 and cache.get("c") == b"c" * 10
    assert cache.size_bytes == 20 and len(cache) == 2
    cache.set("b", b"B" * 15)  # replaced: 15 + 10 = 25, within the bound
    assert cache.size_bytes == 25 and len(cache) == 2
    cache.set("big", b"x" * 26)  # larger than the whole cache: not kept, nothing evicted
    assert cache.get("big") is None and cache.size_bytes == 25 and len(cache) == 2
    assert cache.ping() and cache.kind == "memory" and cache.max_bytes == 25
