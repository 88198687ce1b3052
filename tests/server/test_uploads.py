"""Model uploads bounded by cost, not only size: hostile files are refused early, slow ones stopped, a busy
server answers 429, an abandoned upload stops computing, and only same-site pages or clients that say so
may upload."""

from __future__ import annotations

import io
import json
import logging
import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from headdiv.server.api.heavy import HeavyWork
from headdiv.server.main import create_app
from headdiv.workers.models.naming import MAX_LAYERS
from headdiv.workers.models.safetensors_file import MAX_HEADER_BYTES, MAX_TENSORS
from tests.server.conftest import embedded_settings
from tests.server.helpers import ServerThread

UPLOAD = {"X-Headdiv-Upload": "1"}


def safetensors(header: dict[str, Any], data: bytes = b"", header_bytes: bytes | None = None) -> bytes:
    raw = json.dumps(header).encode() if header_bytes is None else header_bytes
    return struct.pack("<Q", len(raw)) + raw + data


def bert_layers(layers: int, d_model: int = 2, rows: int = 2, seed: int = 0) -> bytes:
    """`layers` BERT-named layers of F16 query and key weights (rows x d_model each), random entries."""
    rng = np.random.default_rng(seed)
    header: dict[str, Any] = {}
    chunks: list[bytes] = []
    offset = 0
    for i in range(layers):
        for kind in ("query", "key"):
            data = rng.standard_normal((rows, d_model)).astype(np.float16).tobytes()
            header[f"encoder.layer.{i}.attention.self.{kind}.weight"] = {
                "dtype": "F16",
                "shape": [rows, d_model],
                "data_offsets": [offset, offset + len(data)],
            }
            chunks.append(data)
            offset += len(data)
    return safetensors(header, b"".join(chunks))


@pytest.fixture
def api() -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(), mount_dashboard=False)) as c:
        yield c


def post(client: TestClient, content: bytes, headers: dict[str, str] | None = None, **form: object) -> Any:
    files = {"file": ("hostile.safetensors", io.BytesIO(content), "application/octet-stream")}
    return client.post(
        "/api/v1/models/hdi", files=files, data={k: str(v) for k, v in form.items()}, headers=UPLOAD | (headers or {})
    )


def refusal(r: Any, field: str = "file") -> str:
    assert r.status_code == 422, r.text[:400]
    body = r.json()
    assert body["detail"][0]["loc"] == ["body", field] and body["message"].startswith(f"{field}: ")
    return str(body["message"])


def test_twenty_thousand_tiny_layers_are_refused_by_count(api: TestClient) -> None:
    """The 5 MB file of 20,000 tiny BERT layers that ran for 15 minutes: 40,000 tensors, over the limit."""
    message = refusal(post(api, bert_layers(20_000), num_heads=1))
    assert f"more than {MAX_TENSORS} tensors" in message


def test_too_many_layers_are_refused_naming_the_limit(api: TestClient) -> None:
    message = refusal(post(api, bert_layers(MAX_LAYERS + 1), num_heads=1))
    assert f"{MAX_LAYERS + 1} attention layers" in message and f"at most {MAX_LAYERS}" in message


def test_a_header_over_the_byte_limit_is_refused_before_it_is_read(api: TestClient) -> None:
    entry = {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}
    header = {f"t{i}": entry for i in range(MAX_HEADER_BYTES // 40)}  # about 50 bytes an entry
    content = safetensors(header)
    assert len(content) > MAX_HEADER_BYTES
    message = refusal(post(api, content, num_heads=1))
    assert f"over the limit of {MAX_HEADER_BYTES} bytes" in message


def test_a_header_of_very_many_empty_entries_stops_at_the_limit(api: TestClient) -> None:
    entry = {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}
    content = safetensors({f"t{i}": entry for i in range(3 * MAX_TENSORS)})
    assert len(content) < MAX_HEADER_BYTES  # under the byte limit: the count stops it
    assert f"more than {MAX_TENSORS} tensors" in refusal(post(api, content, num_heads=1))


def test_a_five_thousand_digit_integer_in_the_header_is_a_422(api: TestClient) -> None:
    raw = b'{"w": {"dtype": "F32", "shape": [' + b"9" * 5000 + b'], "data_offsets": [0, 4]}}'
    message = refusal(post(api, safetensors({}, b"\x00" * 4, header_bytes=raw), num_heads=1))
    assert "more than 4300 digits" in message and "sys." not in message


def test_overlapping_tensors_are_refused(api: TestClient) -> None:
    entry = {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}
    header = {"layer.0.attention.self.query.weight": entry, "layer.0.attention.self.key.weight": entry}
    assert "overlap" in refusal(post(api, safetensors(header, b"\x00\x3c" * 4), num_heads=1))


@pytest.mark.parametrize(("value", "field"), [("٢", "num_heads"), ("2" * 30, "num_heads")])
def test_head_counts_in_metadata_are_ascii_whole_numbers(api: TestClient, value: str, field: str) -> None:
    entry = {"dtype": "F16", "shape": [2, 2]}
    header = {
        "__metadata__": {"num_attention_heads": value},
        "layer.0.attention.self.query.weight": {**entry, "data_offsets": [0, 8]},
        "layer.0.attention.self.key.weight": {**entry, "data_offsets": [8, 16]},
    }
    message = refusal(post(api, safetensors(header, b"\x00\x3c" * 8)), field)
    assert "ASCII digits" in message


def test_a_measurement_past_its_time_limit_is_stopped_with_a_422() -> None:
    with TestClient(create_app(embedded_settings(upload_timeout_s=1e-6), mount_dashboard=False)) as c:
        message = refusal(post(c, bert_layers(3, d_model=8, rows=8), num_heads=2))
    assert "HEADDIV_UPLOAD_TIMEOUT_S" in message and "1e-06 s" in message


def test_a_busy_server_answers_429_with_retry_after() -> None:
    app = create_app(embedded_settings(upload_slots=1, busy_wait_s=0.1), mount_dashboard=False)
    with TestClient(app) as c:
        work = HeavyWork("model upload", slots=1, wait_s=0.1, timeout_s=60)
        app.state.upload_work = work
        assert work._try_acquire()  # another upload holds the only slot
        r = post(c, bert_layers(1, d_model=4, rows=4), num_heads=2)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1, r.text
        assert "busy" in r.json()["detail"]
        work._release()
        assert post(c, bert_layers(1, d_model=4, rows=4), num_heads=2).status_code == 200


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"X-Headdiv-Upload": "", "Origin": "https://evil.example"}, 403),  # a cross-site browser form post
        ({"X-Headdiv-Upload": ""}, 403),  # no origin, no header
        ({"X-Headdiv-Upload": "", "Origin": "http://testserver"}, 200),  # this site's own page
        ({"Origin": "https://evil.example"}, 200),  # the header: a client that is no browser form
    ],
)
def test_uploads_need_a_same_origin_page_or_the_upload_header(
    api: TestClient, headers: dict[str, str], status: int
) -> None:
    r = post(api, bert_layers(1, d_model=4, rows=4), headers=headers, num_heads=2)
    assert r.status_code == status, r.text
    if status == 403:
        assert "X-Headdiv-Upload" in r.json()["detail"] or "cross-site" in r.json()["detail"]


def _multipart(content: bytes, fields: dict[str, str]) -> tuple[bytes, str]:
    boundary = "headdivboundary7"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.safetensors"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return b"".join(parts), boundary


@pytest.mark.slow
def test_an_upload_whose_client_leaves_stops_computing(caplog: pytest.LogCaptureFixture) -> None:
    """500 layers take seconds to measure; the client sends them and hangs up at once."""
    caplog.set_level(logging.INFO, logger="headdiv.server.api.routes.models_routes")
    app = create_app(embedded_settings(), mount_dashboard=False)
    body, boundary = _multipart(bert_layers(500, d_model=96, rows=96), {"num_heads": "12"})
    with ServerThread(app) as server:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            head = (
                f"POST /api/v1/models/hdi HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Headdiv-Upload: 1\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            sock.sendall(head.encode() + body)
        deadline = time.monotonic() + 120
        work = None
        while time.monotonic() < deadline:
            work = getattr(app.state, "upload_work", None)
            if isinstance(work, HeavyWork) and work.abandoned == 1 and work.busy == 0:
                break
            time.sleep(0.05)
        assert isinstance(work, HeavyWork) and work.abandoned == 1 and work.busy == 0
    lines = [r.getMessage() for r in caplog.records if "went away" in r.getMessage()]
    assert len(lines) == 1, lines
    done = int(lines[0].split("stopped after ")[1].split(" of ")[0])
    assert done < 500 and "of 500 layers" in lines[0]  # stopped between layers, not run to the end


def test_the_dashboard_relay_streams_the_upload_with_its_header(api: TestClient) -> None:
    """A dashboard served apart from the API relays the page's upload as it arrives; it must pass the guard
    as a same-site client, and hand back the API's answer as it is."""
    import httpx

    from headdiv.client import ApiClient

    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("x-headdiv-upload"))
        r = api.post("/api/v1/models/hdi", content=request.read(), headers={k: v for k, v in request.headers.items()})
        return httpx.Response(r.status_code, content=r.content, headers={"content-type": "application/json"})

    client = ApiClient("http://testserver", transport=httpx.MockTransport(handler))
    files = {"file": ("m.safetensors", bert_layers(1, d_model=4, rows=4), "application/octet-stream")}
    form = httpx.Request("POST", "http://page", files=files, data={"num_heads": "2"})
    body = form.read()
    chunks = iter([body[:100], body[100:]])  # as the browser's body arrives, in pieces
    answer = client.relay("/models/hdi", chunks, form.headers)
    assert seen == ["1"] and answer.status_code == 200 and len(answer.json()["layers"]) == 1
    refused = client.relay("/models/hdi", iter([body]), {**form.headers, "content-type": "text/plain"})
    assert refused.status_code == 422  # a refusal comes back as the API said it, for the page to show


def test_a_stalled_body_is_answered_408_after_the_body_timeout() -> None:
    """Headers and half a body, then nothing: the server answers 408 (after 0.5 s here) and closes."""
    app = create_app(embedded_settings(body_timeout_s=0.5), mount_dashboard=False)
    with ServerThread(app) as server:
        for path, kind in (("/api/v1/simulations", "application/json"), ("/api/v1/models/hdi", "multipart/form-data")):
            with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
                head = (
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {kind}; boundary=x\r\n"
                    "X-Headdiv-Upload: 1\r\nContent-Length: 1000\r\n\r\n"
                )
                sock.sendall(head.encode() + b"--x\r\n")
                answer = b""
                while chunk := sock.recv(65536):  # until the server closes the connection
                    answer += chunk
            status_line, _, rest = answer.partition(b"\r\n")
            assert status_line.startswith(b"HTTP/1.1 408"), answer[:300]
            assert b"stalled" in rest and b"connection: close" in rest.lower()
