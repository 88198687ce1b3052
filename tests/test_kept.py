"""Work kept from one start to the next (`headdiv.plumbing.kept`): per installed version, by name, written whole,
and never an error when the disk says no."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from headdiv.plumbing.kept import keep, kept_dir, read_kept
from headdiv.schemas.engine_settings import get_engine_settings
from headdiv.version import __version__


@pytest.fixture
def kept_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("HEADDIV_CACHE_DIR", str(tmp_path))
    get_engine_settings.cache_clear()
    yield tmp_path
    get_engine_settings.cache_clear()


def test_what_is_kept_is_read_back_from_this_versions_folder(kept_in: Path) -> None:
    assert read_kept("speed", "cpu-x.json") is None
    assert keep("speed", "cpu-x.json", b'{"work_per_s": 5}')
    assert read_kept("speed", "cpu-x.json") == b'{"work_per_s": 5}'
    assert kept_dir() == kept_in / __version__ and (kept_in / __version__ / "speed" / "cpu-x.json").is_file()
    assert [p.name for p in (kept_in / __version__ / "speed").iterdir()] == ["cpu-x.json"]  # no temporary left


def test_off_keeps_nothing_and_a_name_cannot_leave_the_folder(kept_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError):
        keep("results", "../../escape", b"x")
    monkeypatch.setenv("HEADDIV_CACHE_DIR", "off")
    get_engine_settings.cache_clear()
    assert kept_dir() is None and not keep("speed", "a.json", b"1") and read_kept("speed", "a.json") is None


def test_a_folder_that_cannot_be_written_keeps_nothing_without_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")  # a file where the folder should be
    monkeypatch.setenv("HEADDIV_CACHE_DIR", str(blocker))
    get_engine_settings.cache_clear()
    try:
        assert not keep("speed", "a.json", b"1") and read_kept("speed", "a.json") is None
    finally:
        get_engine_settings.cache_clear()


def test_the_engine_speed_is_measured_once_per_setup_and_kept(kept_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from headdiv.workers.engine import speed

    measured: list[float] = []
    monkeypatch.setattr(speed, "measure_speed", lambda device=None: measured.append(1.5e9) or 1.5e9)
    assert speed.engine_speed("cpu") == 1.5e9 and speed.engine_speed("cpu") == 1.5e9
    assert measured == [1.5e9]  # the second start reads it back
    monkeypatch.setenv("HEADDIV_COMPILE", "off")  # another setup: measured again
    get_engine_settings.cache_clear()
    speed.engine_speed("cpu")
    assert len(measured) == 2


def test_shared_answers_are_compressed_once_across_starts(kept_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from headdiv.server import shared_responses as sr

    body = b"var x = 1;\n" * 20000
    calls: list[str] = []
    real_gzip, real_br = sr.gzip.compress, sr.brotli.compress
    monkeypatch.setattr(sr.gzip, "compress", lambda b, **kw: calls.append("gzip") or real_gzip(b, **kw))
    monkeypatch.setattr(sr.brotli, "compress", lambda b, **kw: calls.append("br") or real_br(b, **kw))

    async def app(scope: dict, receive: object, send: object) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/javascript")]})
        await send({"type": "http.response.body", "body": body})

    async def one_start() -> dict[str, bytes]:
        store = sr.SharedResponses()
        store.app = app
        shared = await store.get({"type": "http", "method": "GET", "path": "/assets/a.js", "headers": []})
        assert shared is not None
        while "br" not in shared.encoded:  # brotli follows in a thread
            await asyncio.sleep(0.01)
        return shared.encoded

    # each start in a thread of its own, with its own event loop (a test before may leave one running here)
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(asyncio.run, one_start()).result()
        second = pool.submit(asyncio.run, one_start()).result()
    assert calls == ["gzip", "br"] and first == second and real_gzip(body) != body


def test_a_kind_is_trimmed_to_its_bound_least_recently_used_first(
    kept_in: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from headdiv.plumbing import kept

    monkeypatch.setattr(kept, "MAX_KIND_BYTES", 350)
    for i in range(3):
        assert keep("responses", f"{i}.gz", bytes(100))
        os.utime(kept_in / __version__ / "responses" / f"{i}.gz", (1000 + i, 1000 + i))
    assert read_kept("responses", "0.gz") is not None  # used again: now the most recent
    keep("responses", "3.gz", bytes(100))
    left = sorted(p.name for p in (kept_in / __version__ / "responses").iterdir())
    assert left == ["0.gz", "2.gz", "3.gz"]  # 1, the least recently used, went


def test_the_source_digest_changes_with_a_source_and_not_with_anything_else(tmp_path: Path) -> None:
    from headdiv.plumbing.kept import source_digest

    (tmp_path / "views").mkdir()
    (tmp_path / "views" / "chart.py").write_text("COLOUR = 'blue'\n")
    (tmp_path / "page.js").write_text("draw();\n")
    before = source_digest(tmp_path)
    (tmp_path / "notes.txt").write_text("not a source")
    (tmp_path / "views" / "__pycache__").mkdir()
    (tmp_path / "views" / "__pycache__" / "chart.py").write_text("compiled")
    assert source_digest(tmp_path) == before
    (tmp_path / "views" / "chart.py").write_text("COLOUR = 'orange'\n")  # a figure builder edited
    edited = source_digest(tmp_path)
    assert edited != before
    (tmp_path / "page.js").write_text("draw(); draw();\n")
    assert source_digest(tmp_path) not in (before, edited)
