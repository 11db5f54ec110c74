"""Inputs that once answered 500: each now gets a 4xx (or 503) naming what is wrong, writes
nothing, and leaves the connection open."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

import turngraph
from turngraph.config import Settings
from turngraph.server import ServerSettings, create_app

from ..integration.rows import table_rows
from .conftest import Running, free_port, running

EDGES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"]
JSON = {"content-type": "application/json"}


def _date_requests(when: str) -> list[tuple[str, str, dict[str, Any], str]]:
    """Every date field of both APIs: (method, path, request arguments, field)."""
    g, a = "/v1/memories/edges", "/api/v1/edges"
    return [
        (
            "POST",
            f"{g}/observations",
            {"json": {"title": "T", "content": "C", "observed_at": when}},
            "observed_at",
        ),
        ("PATCH", f"{g}/observations/kept", {"json": {"observed_at": when}}, "observed_at"),
        (
            "POST",
            f"{g}/turns",
            {"json": {"text": "I moved to Rome.", "observed_at": when}},
            "observed_at",
        ),
        (
            "POST",
            f"{g}/turns/batch",
            {"json": {"messages": [{"content": "Hi.", "ts": when}]}},
            "observed_at",
        ),
        ("POST", f"{g}/recall", {"json": {"query": "rome", "since": when}}, "since"),
        ("POST", f"{g}/recall", {"json": {"query": "rome", "until": when}}, "until"),
        ("POST", f"{g}/recall", {"json": {"query": "rome", "as_of": when}}, "as_of"),
        ("GET", f"{g}/state", {"params": {"as_of": when}}, "as_of"),
        (
            "POST",
            f"{a}/facts",
            {"json": {"text": "I moved to Rome.", "observed_at": when}},
            "observed_at",
        ),
        (
            "POST",
            f"{a}/facts/batch",
            {"json": {"messages": [{"content": "Hi.", "ts": when}]}},
            "observed_at",
        ),
        ("POST", f"{a}/query", {"json": {"query": "rome", "validFrom": when}}, "since"),
        ("POST", f"{a}/query", {"json": {"query": "rome", "validUntil": when}}, "until"),
        ("POST", f"{a}/query", {"json": {"query": "rome", "asOf": when}}, "as_of"),
        ("GET", f"{a}/state", {"params": {"asOf": when}}, "as_of"),
    ]


@pytest.fixture(scope="module")
def edges(server: Running) -> Running:
    mem = server.db.create_memory("edges", retrieval={"embedder": "none"})
    mem.add_observation(title="Kept", content="A note that stays as it is.")
    return server


def _path(server: Running) -> Path:
    path: Path = server.db.store.path  # type: ignore[attr-defined]
    return path


@pytest.mark.parametrize("when", EDGES)
def test_a_datetime_past_the_calendars_edge_in_utc_is_refused_in_every_date_field(
    edges: Running, when: str
) -> None:
    auth = {"Authorization": f"Bearer {edges.admin_key}"}
    with httpx.Client(base_url=edges.url, headers=auth, timeout=30) as http:
        for method, path, kwargs, field in _date_requests(when):
            before = table_rows(_path(edges))
            r = http.request(method, path, **kwargs)
            assert r.status_code == 400, (method, path, r.text)
            assert r.json()["field"] == field, (path, r.text)
            assert "calendar" in r.json()["message"]
            assert table_rows(_path(edges)) == before, (method, path)


def test_the_calendars_own_edges_are_accepted_as_times(edges: Running) -> None:
    auth = {"Authorization": f"Bearer {edges.admin_key}"}
    for when in ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"):
        r = httpx.post(
            f"{edges.url}/v1/memories/edges/observations",
            headers=auth,
            json={"title": f"At {when}", "content": "An old or a far note.", "observed_at": when},
        )
        assert r.status_code == 201, r.text
        assert r.json()["observation"]["observed_at"].startswith(when[:19])
        r = httpx.post(f"{edges.url}/v1/memories/edges/recall", headers=auth, json={"since": when})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/edges/facts", b'{"text": "Hi \\ud800 there"}'),
        ("/api/v1/edges/facts/batch", b'{"messages": [{"content": "Hi \\ud800"}]}'),
        ("/api/v1/edges/sessions", b'{"metadata": {"user": "\\ud800"}}'),
        ("/v1/memories/edges/sessions", b'{"metadata": {"\\ud800": 1}}'),
        ("/api/v1/edges/sessions", json.dumps({"metadata": {"n": [[[[[[]]]]]] * 2}}).encode()),
    ],
)
def test_a_lone_surrogate_or_bad_metadata_is_refused_and_writes_nothing(
    edges: Running, path: str, body: bytes
) -> None:
    auth = {"Authorization": f"Bearer {edges.admin_key}", "Idempotency-Key": f"k-{path}"}
    before = table_rows(_path(edges))
    r = httpx.post(f"{edges.url}{path}", headers={**auth, **JSON}, content=body)
    if b"[[[[[[" in body:  # shallow nesting is fine
        assert r.status_code == 201, r.text
        return
    assert r.status_code == 400, r.text
    assert "surrogate" in r.json()["message"]
    assert table_rows(_path(edges)) == before


def test_deeply_nested_session_metadata_is_refused_and_no_session_is_created(
    edges: Running,
) -> None:
    deep: Any = {}
    for _ in range(500):
        deep = {"a": deep}
    auth = {"Authorization": f"Bearer {edges.admin_key}"}
    for path in ("/api/v1/edges/sessions", "/v1/memories/edges/sessions"):
        before = table_rows(_path(edges))
        r = httpx.post(
            f"{edges.url}{path}", headers={**auth, **JSON}, content=json.dumps({"metadata": deep})
        )
        assert r.status_code == 400, r.text
        assert r.json()["field"] == "metadata"
        assert "nested" in r.json()["message"]
        assert table_rows(_path(edges)) == before


def test_deciding_a_decided_proposal_is_a_conflict(edges: Running) -> None:
    mem = edges.db.memory("edges")
    for name in ("Vega Labs", "Vega Labs Inc"):
        mem.add_observation(
            title=name,
            content=f"{name} builds telescopes.",
            entities=[{"name": name, "type": "organization", "description": "Maker"}],
        )
    first = mem.consolidate()[0]
    auth = {"Authorization": f"Bearer {edges.admin_key}"}
    base = f"{edges.url}/v1/memories/edges/proposals"
    assert httpx.post(f"{base}/{first.id}/reject", headers=auth).status_code == 200
    for verb in ("reject", "accept"):
        r = httpx.post(f"{base}/{first.id}/{verb}", headers=auth)
        assert r.status_code == 409, r.text
        assert r.json()["status"] == "rejected"
        assert "rejected" in r.json()["message"]


def test_creating_a_memory_while_another_process_holds_the_write_lock_is_503(
    tmp_path: Path,
) -> None:
    path = tmp_path / "locked.db"
    with running(path, core=Settings(busy_timeout_ms=200)) as srv:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            r = httpx.post(
                f"{srv.url}/v1/memories",
                headers={"Authorization": f"Bearer {srv.admin_key}"},
                json={"name": "late", "retrieval": {"embedder": "none"}},
            )
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert r.status_code == 503, r.text
        assert "locked" in r.json()["message"]
        assert [m.name for m in srv.db.list_memories()] == []


@pytest.fixture
def failing_server(tmp_path: Path) -> Iterator[str]:
    """A real server with one extra route that fails unexpectedly."""
    db = turngraph.open(tmp_path / "f.db")
    port = free_port()
    app = create_app(ServerSettings(db=str(tmp_path / "f.db"), port=port), db=db)

    def boom() -> None:
        raise RuntimeError("an unexpected failure")

    app.add_api_route("/boom", boom)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started and thread.is_alive():
        threading.Event().wait(0.02)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(10)
        db.close()


def _read_response(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += sock.recv(4096)
    return head


def test_a_500_keeps_the_connection_open(failing_server: str) -> None:
    host, port = failing_server.split(":")
    request = f"GET /boom HTTP/1.1\r\nHost: {failing_server}\r\n\r\n".encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        for _ in range(2):
            sock.sendall(request)
            head = _read_response(sock)
            assert head.startswith(b"HTTP/1.1 500"), head
            assert b"connection: close" not in head.lower()


@pytest.mark.parametrize("path", ["/api/v1/edges/query", "/v1/memories/edges/recall"])
def test_a_lone_surrogate_in_a_label_filter_is_refused(edges: Running, path: str) -> None:
    auth = {"Authorization": f"Bearer {edges.admin_key}"}
    body = b'{"query": "rome", "labels": ["ok", "\\ud800"]}'
    r = httpx.post(f"{edges.url}{path}", headers={**auth, **JSON}, content=body)
    assert r.status_code == 400, r.text
    assert "surrogate" in r.json()["message"]
    assert "labels[1]" in r.text


def test_a_huge_session_limit_gets_one_bounded_page(edges: Running) -> None:
    mem = edges.db.create_memory("many-sessions")
    for _ in range(205):
        mem.create_session()
    auth = {"Authorization": f"Bearer {edges.admin_key}"}
    for limit in ("9223372036854775808", str(10**29)):
        r = httpx.get(
            f"{edges.url}/v1/memories/many-sessions/sessions",
            params={"limit": limit},
            headers=auth,
        )
        assert r.status_code == 200, r.text
        assert (len(r.json()["sessions"]), r.json()["has_more"]) == (200, True)
