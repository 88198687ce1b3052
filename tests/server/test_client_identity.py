"""Whose request it is (`headdiv.plumbing.vouching`), over real sockets through `headdiv serve`'s
uvicorn configuration: X-Forwarded-For counts only from a configured proxy, a dashboard's claim only with its
key; anyone else naming a fresh address per request still gets one client's ration."""

from __future__ import annotations

import httpx
import pytest

from headdiv.plumbing.vouching import CLIENT_HEADER, KEY_HEADER, dashboard_key
from headdiv.server.api.routes import polls_routes
from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread

BODY = {"topic": "why-many-heads/3", "choices": ["falls", "stays", "rises"]}


def _tokens(settings_extra: dict, headers_for: object) -> list[int]:
    """Statuses of five voter-token requests, each naming another address (VOTER_TOKENS is 3 here)."""
    settings = embedded_settings(**settings_extra)
    with ServerThread(create_app(settings, mount_dashboard=False), settings=settings) as server:
        poll = httpx.post(f"{server.url}/api/v1/polls", json=BODY, timeout=10).json()
        url = f"{server.url}/api/v1/polls/{poll['id']}/voters"
        return [httpx.post(url, json={}, headers=headers_for(i), timeout=10).status_code for i in range(5)]  # type: ignore[operator]


@pytest.fixture(autouse=True)
def _three_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(polls_routes, "VOTER_TOKENS", 3)


def test_a_forged_forwarded_address_or_claim_gets_no_fresh_ration() -> None:
    def forged(i: int) -> dict[str, str]:
        return {"x-forwarded-for": f"198.51.100.{i}", CLIENT_HEADER: f"203.0.113.{i}", KEY_HEADER: "guessed"}

    assert _tokens({}, forged) == [201, 201, 201, 429, 429]


def test_a_configured_proxy_names_its_clients() -> None:
    assert _tokens({"trusted_proxies": "127.0.0.1"}, lambda i: {"x-forwarded-for": f"198.51.100.{i}"}) == [201] * 5


def test_the_dashboard_names_its_browsers_with_its_key() -> None:
    def vouched(i: int) -> dict[str, str]:
        return {CLIENT_HEADER: f"203.0.113.{i}", KEY_HEADER: dashboard_key()}

    assert _tokens({}, vouched) == [201] * 5
