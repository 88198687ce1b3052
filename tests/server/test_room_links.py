"""A room's link (`POST /api/v1/rooms`) comes with the poll box's own warning when phones cannot reach it: the
lecturer's page opened at this computer's own address, with no public address configured."""

from __future__ import annotations

import httpx
import pytest

from headdiv.dashboard.teaching.poll_links import unreachable_note
from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread

pytestmark = pytest.mark.timeout(120)


def test_a_room_at_this_computers_own_address_says_phones_cannot_reach_it_and_a_public_one_does_not() -> None:
    local = embedded_settings()
    public = embedded_settings(public_url="http://192.168.1.20:8050")
    with (
        ServerThread(create_app(local, mount_dashboard=False), settings=local) as at_home,
        ServerThread(create_app(public, mount_dashboard=False), settings=public) as shared,
    ):
        made = httpx.post(f"{at_home.url}/api/v1/rooms", timeout=10).json()
        assert made["follow_url"].startswith("http://127.0.0.1:")
        assert made["unreachable"] == unreachable_note(made["follow_url"]) and "127.0.0.1" in made["unreachable"]
        made = httpx.post(f"{shared.url}/api/v1/rooms", timeout=10).json()
        assert made["follow_url"].startswith("http://192.168.1.20:8050/r/")
        assert made["unreachable"] is None
