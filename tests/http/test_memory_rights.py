"""Who may create memories and open them to an organization; retrieval configurations checked
in full before anything is written; no memory can stop the server from starting; another
organization's memory reads as an unknown name."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

import turngraph
from turngraph.config import Settings

from ..fakes.openai_server import fake_openai
from .conftest import Running, running

DIM = 8


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _vectors(path: str, body: dict[str, Any]) -> dict[str, Any]:
    data = [
        {"object": "embedding", "index": i, "embedding": [float(len(t) + 1)] * DIM}
        for i, t in enumerate(body["input"])
    ]
    return {"object": "list", "model": body["model"], "data": data}


def test_creating_a_memory_needs_an_admin_or_an_admins_leave(server: Running) -> None:
    key = server.principal("maker")
    body = {"name": "made-by-maker", "retrieval": {"embedder": "none"}}
    refused = httpx.post(f"{server.url}/v1/memories", headers=_auth(key), json=body)
    assert refused.status_code == 403
    assert "admin" in refused.json()["message"]
    assert "made-by-maker" not in [m.name for m in server.db.list_memories()]

    patch = {"create_memories": True}
    allowed = httpx.patch(
        f"{server.url}/v1/admin/principals/maker", headers=_auth(server.admin_key), json=patch
    )
    assert allowed.status_code == 200, allowed.text
    assert allowed.json()["create_memories"] is True
    created = httpx.post(f"{server.url}/v1/memories", headers=_auth(key), json=body)
    assert created.status_code == 201, created.text
    assert created.json()["tier"] == "full"

    # Opening it to the whole organization stays an admin decision, at creation or later.
    wide = {"name": "made-wide", "visibility": "organization", "retrieval": {"embedder": "none"}}
    r = httpx.post(f"{server.url}/v1/memories", headers=_auth(key), json=wide)
    assert r.status_code == 403
    assert r.json()["field"] == "visibility"
    r = httpx.patch(
        f"{server.url}/v1/memories/made-by-maker",
        headers=_auth(key),
        json={"visibility": "organization"},
    )
    assert r.status_code == 403
    assert r.json()["field"] == "visibility"
    assert server.db.memory("made-by-maker").info().visibility == "private"
    r = httpx.patch(
        f"{server.url}/v1/memories/made-by-maker",
        headers=_auth(server.admin_key),
        json={"visibility": "organization"},
    )
    assert r.status_code == 200
    assert r.json()["visibility"] == "organization"


@pytest.mark.parametrize(
    ("retrieval", "field"),
    [
        ({"embedder": "nope", "dimension": 8}, "retrieval.embedder"),
        ({"embedder": "openai:text-embed", "dimension": 8}, "retrieval.embedder"),
        ({"embedder": "st:/no/such/model", "dimension": 384}, "retrieval.embedder"),
        ({"embedder": "minilm-l6-v2-int8", "dimension": 8}, "retrieval.dimension"),
    ],
)
def test_a_retrieval_configuration_that_cannot_serve_is_refused_before_anything_is_written(
    server: Running, retrieval: dict[str, Any], field: str
) -> None:
    before = [m.name for m in server.db.list_memories()]
    r = httpx.post(
        f"{server.url}/v1/memories",
        headers=_auth(server.admin_key),
        json={"name": "cannot-serve", "retrieval": retrieval},
        timeout=60,
    )
    assert r.status_code == 400, r.text
    assert r.json()["field"] == field
    assert retrieval["embedder"] in r.json()["message"]
    assert [m.name for m in server.db.list_memories()] == before


def test_an_embeddings_endpoint_of_another_dimension_is_refused(tmp_path: Path) -> None:
    with fake_openai() as fake:
        fake.handler = _vectors
        settings = Settings(embeddings_base_url=fake.base_url)
        with turngraph.open(tmp_path / "d.db", settings=settings) as db:
            with pytest.raises(turngraph.ValidationError) as caught:
                db.create_memory("wide", retrieval={"embedder": "openai:e", "dimension": 16})
            assert caught.value.field == "retrieval.dimension"
            assert db.list_memories() == []
            db.create_memory("fits", retrieval={"embedder": "openai:e", "dimension": DIM})


def test_a_memory_whose_embedder_no_longer_loads_does_not_stop_the_server(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.db"
    with fake_openai() as fake:
        fake.handler = _vectors
        settings = Settings(embeddings_base_url=fake.base_url)
        with turngraph.open(path, settings=settings) as db:
            db.create_memory("remote", retrieval={"embedder": "openai:e", "dimension": DIM})
            db.create_memory("local", retrieval={"embedder": "none"})
    # Restarted without the embeddings endpoint: the server starts, the other memory serves,
    # and the one that cannot load is refused with the cause.
    with running(path) as srv:
        auth = _auth(srv.admin_key)
        ok = httpx.post(f"{srv.url}/api/v1/local/facts", headers=auth, json={"text": "Hi."})
        assert ok.status_code == 200, ok.text
        for method, url, body in [
            ("POST", f"{srv.url}/api/v1/remote/facts", {"text": "Hello."}),
            ("POST", f"{srv.url}/v1/memories/remote/recall", {"query": "hello"}),
            ("GET", f"{srv.url}/v1/memories/remote", None),
        ]:
            r = httpx.request(method, url, headers=auth, json=body)
            assert r.status_code == 503, r.text
            assert "openai:e" in r.json()["message"]
        assert srv.db.memory("remote").info().observations == 0


def test_a_memory_whose_stored_configuration_is_unreadable_does_not_stop_the_server(
    tmp_path: Path,
) -> None:
    path = tmp_path / "u.db"
    with turngraph.open(path) as db:
        db.create_memory("broken", retrieval={"embedder": "none"})
        db.create_memory("fine", retrieval={"embedder": "none"})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE memories SET retrieval = '{\"embedder\": 5}' WHERE name = 'broken'")
    conn.close()
    with running(path) as srv:
        auth = _auth(srv.admin_key)
        ok = httpx.post(f"{srv.url}/api/v1/fine/facts", headers=auth, json={"text": "Hi."})
        assert ok.status_code == 200, ok.text
        r = httpx.post(f"{srv.url}/api/v1/broken/facts", headers=auth, json={"text": "Hi."})
        assert r.status_code == 503, r.text
        assert "broken" in r.json()["message"]
        listed = httpx.get(f"{srv.url}/v1/memories", headers=auth)
        assert listed.status_code == 200, listed.text
        assert [m["name"] for m in listed.json()] == ["fine"]


def test_another_organizations_memory_reads_as_an_unknown_name(server: Running) -> None:
    server.db.create_memory("inner-circle", retrieval={"embedder": "none"})
    outsider = server.principal("outsider", organization="elsewhere")
    colleague = server.principal("colleague")
    for name in ("inner-circle", "never-created"):
        for method, path in [
            ("GET", f"/v1/memories/{name}"),
            ("POST", f"/api/v1/{name}/query"),
            ("POST", f"/v1/memories/{name}/recall"),
        ]:
            r = httpx.request(
                method, server.url + path, headers=_auth(outsider), json={"query": "x"}
            )
            assert r.status_code == 404, (name, path, r.text)
            assert r.json()["message"] == f"no memory named {name!r}"
        mcp = httpx.post(
            f"{server.url}/mcp",
            headers={**_auth(outsider), "X-Turngraph-Memory": name},
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        assert mcp.status_code == 404
    # Within its own organization a memory's existence is no secret: a plain refusal.
    r = httpx.get(f"{server.url}/v1/memories/inner-circle", headers=_auth(colleague))
    assert r.status_code == 403
