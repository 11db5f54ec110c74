"""A slow or greedy client cannot hold the server's connections: a request's headers must
arrive in time (408, then closed), its body too (closed, nothing written), and one address
holds a bounded number of connections (503 beyond). Raw sockets play the slow clients."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import Running, running
from .test_hostile_inputs import table_rows

LIMITS = {"head_timeout_seconds": 1.0, "body_timeout_seconds": 1.0, "connections_per_client": 4}


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Path]]:
    path = tmp_path_factory.mktemp("slow") / "slow.db"
    with running(path, **LIMITS) as srv:
        srv.db.create_memory("slow")
        yield srv, path


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=15)
    return sock


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends before it closes the connection (fails after 15 s)."""
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def test_headers_sent_a_byte_at_a_time_get_408_and_the_connection_closes(
    bounded: tuple[Running, Path],
) -> None:
    srv, _ = bounded
    with _connect(srv.url) as sock:
        started = time.monotonic()
        head = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
        sent = 0
        try:
            while sent < len(head) and time.monotonic() - started < 12:
                sock.sendall(head[sent : sent + 1])
                sent += 1
                time.sleep(0.2)
        except OSError:  # the server closed it under us
            pass
        answer = _read_until_closed(sock)
    assert sent < len(head), "the server waited for the whole trickle"
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b"did not arrive within 1 s" in answer


def test_a_body_that_never_arrives_closes_the_connection_and_writes_nothing(
    bounded: tuple[Running, Path],
) -> None:
    srv, path = bounded
    before = table_rows(path)
    body = b'{"title": "Slow", "content": "A note that never arrives in full."}'
    head = (
        "POST /v1/memories/slow/observations HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {srv.admin_key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with _connect(srv.url) as sock:
        sock.sendall(head + body[:10])
        answer = _read_until_closed(sock)
    assert b"201" not in answer
    assert table_rows(path) == before
    # The same request sent whole is written.
    r = httpx.post(
        f"{srv.url}/v1/memories/slow/observations",
        content=body,
        headers={"Authorization": f"Bearer {srv.admin_key}", "Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text


def test_one_address_holds_a_bounded_number_of_connections(
    bounded: tuple[Running, Path],
) -> None:
    srv, _ = bounded
    held = [_connect(srv.url) for _ in range(LIMITS["connections_per_client"])]
    try:
        for sock in held:  # each is in the middle of a request's headers
            sock.sendall(b"GET /api/v1/health HTTP/1.1\r\n")
        time.sleep(0.2)
        with _connect(srv.url) as extra:
            answer = _read_until_closed(extra)
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert b"too many connections from this address (at most 4)" in answer
    finally:
        for sock in held:
            sock.close()
    # Once they are gone, the address is served again, and a kept-alive connection serves
    # one request after another.
    deadline = time.monotonic() + 10
    with httpx.Client() as client:
        while True:
            try:
                r = client.get(f"{srv.url}/api/v1/health")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the address was not served again"
                time.sleep(0.1)
        assert r.status_code == 200
        for _ in range(3):
            time.sleep(0.3)
            assert client.get(f"{srv.url}/api/v1/health").status_code == 200
