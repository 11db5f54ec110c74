"""Who may create memories and open them to an organization; retrieval configurations checked
in full before anything is written; no memory can stop the server from starting; another
organization's memory reads as an unknown name."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client as McpClient
from mcp.client.streamable_http import streamable_http_client
from surrealdb_memory import Memory, MemoryNotFoundError

import turngraph
from turngraph.client import Client
from turngraph.config import Settings
from turngraph.errors import ConflictError, NotFoundError

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


def _maker(server: Running, pid: str, organization: str) -> str:
    key = server.principal(pid, organization=organization)
    server.db.access.allow_memory_creation(pid)
    return key


def test_two_organizations_each_have_their_own_memory_of_one_name(server: Running) -> None:
    plants = {"north": "Fern", "south": "Cactus"}
    keys = {org: _maker(server, f"{org}-maker", org) for org in plants}
    for org, key in keys.items():
        with Client(server.url, key) as client:
            mem = client.create_memory("notes", retrieval={"embedder": "none"})
            mem.add_observation(
                title="Office plant",
                content=f"The {org} office plant is {plants[org]}.",
                entities=[{"name": plants[org], "type": "project", "description": "A plant"}],
            )
    for org, key in keys.items():
        other = plants["south" if org == "north" else "north"]
        # The graph API, through turngraph's client.
        with Client(server.url, key) as client:
            with pytest.raises(ConflictError):  # a name is still unique in its organization
                client.create_memory("notes", retrieval={"embedder": "none"})
            assert [(m.name, m.organization) for m in client.list_memories()] == [("notes", org)]
            mem = client.memory("notes")
            assert (mem.info().organization, mem.info().observations) == (org, 1)
            assert mem.get_entity(plants[org]).name == plants[org]
            with pytest.raises(NotFoundError):
                mem.get_entity(other)
        # The memory API, through the official surrealdb-memory client.
        remote = Memory("notes", endpoint=server.url, api_key=key, max_retries=0)
        assert remote.entities.get("project", plants[org]).entity.name == plants[org]
        with pytest.raises(MemoryNotFoundError):
            remote.entities.get("project", other)
        # MCP, through the official client.
        assert plants[org] in _mcp_entity(server, key, "notes", plants[org])
        assert "no entity" in _mcp_entity(server, key, "notes", other)
    # Embedded use keeps to the default organization unless told otherwise.
    with pytest.raises(NotFoundError):
        server.db.memory("notes")
    assert server.db.memory("notes", organization="south").info().organization == "south"


def _mcp_entity(server: Running, key: str, memory: str, name: str) -> str:
    """What MCP's get_entity answers for ``name`` in ``memory``: the entity, or the error."""

    async def run() -> str:
        headers = {"Authorization": f"Bearer {key}", "X-Turngraph-Memory": memory}
        http = httpx2.AsyncClient(headers=headers)
        async with McpClient(streamable_http_client(f"{server.url}/mcp", http_client=http)) as c:
            result = await c.call_tool("get_entity", {"name": name})
            return str(result.content[0].text)  # type: ignore[union-attr]

    return asyncio.run(run())


def test_a_name_another_organization_uses_is_free_and_its_memory_unknown(
    server: Running,
) -> None:
    server.db.create_memory("ledger", retrieval={"embedder": "none"})
    server.db.memory("ledger").remember("The budget is 40k.", speaker="Sam")
    outsider = _maker(server, "ledger-outsider", "far")

    def ask(name: str) -> list[tuple[int, Any]]:
        answers = []
        for method, path, body in [
            ("GET", f"/v1/memories/{name}", None),
            ("PATCH", f"/v1/memories/{name}", {"visibility": "private"}),
            ("DELETE", f"/v1/memories/{name}", None),
            ("POST", f"/v1/memories/{name}/recall", {"query": "budget"}),
            ("POST", f"/api/v1/{name}/query", {"query": "budget"}),
            ("POST", f"/api/v1/{name}/facts", {"text": "Hi."}),
            ("GET", f"/api/v1/{name}/state", None),
        ]:
            r = httpx.request(method, server.url + path, headers=_auth(outsider), json=body)
            answers.append((r.status_code, r.json()))
        mcp = httpx.post(
            f"{server.url}/mcp",
            headers={**_auth(outsider), "X-Turngraph-Memory": name},
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
        )
        answers.append((mcp.status_code, mcp.json()))
        return answers

    # Another organization's memory and a name nobody uses: the same answers, word for word.
    unknown = json.loads(json.dumps(ask("no-ledger")).replace("no-ledger", "ledger"))
    assert ask("ledger") == [tuple(a) for a in unknown]
    assert all(status == 404 for status, _ in unknown)
    # And the name is free in the outsider's organization.
    r = httpx.post(
        f"{server.url}/v1/memories",
        headers=_auth(outsider),
        json={"name": "ledger", "retrieval": {"embedder": "none"}},
    )
    assert r.status_code == 201, r.text
    assert r.json()["organization"] == "far"
    assert server.db.memory("ledger").info().observations == 1
    assert server.db.memory("ledger", organization="far").info().observations == 0


def test_a_connection_to_another_organizations_memory_still_reaches_it(server: Running) -> None:
    server.db.create_memory("handbook", retrieval={"embedder": "none"})
    guest = server.principal("handbook-guest", organization="visitors")
    r = httpx.put(
        f"{server.url}/v1/admin/grants",
        headers=_auth(server.admin_key),
        json={"principal": "handbook-guest", "memory": "handbook", "tier": "read"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["organization"] == "default"
    r = httpx.get(f"{server.url}/v1/memories/handbook", headers=_auth(guest))
    assert r.status_code == 200, r.text
    assert (r.json()["organization"], r.json()["tier"]) == ("default", "read")
    # A memory of the guest's own organization takes the name first once it has one; the
    # grant names the memory it connects, so the connection stays visible and revocable.
    server.db.create_memory("handbook", organization="visitors", retrieval={"embedder": "none"})
    r = httpx.get(f"{server.url}/v1/memories/handbook", headers=_auth(guest))
    assert r.status_code == 403
    grants = httpx.get(
        f"{server.url}/v1/admin/grants",
        headers=_auth(server.admin_key),
        params={"principal": "handbook-guest"},
    ).json()
    assert [(g["memory"], g["organization"]) for g in grants] == [("handbook", "default")]
    r = httpx.delete(
        f"{server.url}/v1/admin/grants/handbook-guest/handbook",
        headers=_auth(server.admin_key),
        params={"organization": "default"},
    )
    assert r.status_code == 204, r.text
