"""Where a class poll is answered: the link (and its QR code) students open on their phones, and what to
say when that link can only work on the lecturer's own computer."""

from __future__ import annotations

from urllib.parse import urlsplit

from headdiv.dashboard.page.language import _


def poll_link(href: str | None, poll_id: str, public_url: str | None = None) -> str:
    """Where students answer: under the server's public address when one is configured (HEADDIV_PUBLIC_URL),
    else under the address the lecturer's page was opened with."""
    parts = urlsplit(public_url or href or "")
    origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    return f"{origin}/vote/{poll_id}"


def unreachable_note(link: str) -> str | None:
    """What to do when the poll's address is this computer's own (a phone cannot reach it), else None."""
    host = (urlsplit(link).hostname or "").lower()
    if host not in ("localhost", "::1", "0.0.0.0") and not host.startswith("127."):
        return None
    return _(
        "Phones cannot reach {host}: it is this computer's own address. Start the server with "
        "headdiv serve --host 0.0.0.0 and open the page at this computer's network address, or set "
        "HEADDIV_PUBLIC_URL to the address students can reach."
    ).format(host=host)


def qr_data_uri(url: str) -> str:
    import segno

    return str(segno.make(url, error="m").svg_data_uri(scale=5, border=2))
