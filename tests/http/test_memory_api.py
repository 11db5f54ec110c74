"""The memory API driven by the official ``surrealdb-memory`` client, unchanged, over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading

import httpx
import pytest
from surrealdb_memory import AsyncMemory, Memory, MemoryAPIError, MemoryNotFoundError

from .conftest import Running


@pytest.fixture
def ctx(server: Running, request: pytest.FixtureRequest) -> str:
    name = "ctx-" + request.node.name.replace("_", "-").replace("[", "-").strip("]")[:50]
    server.db.create_memory(name)
    return name


def client(server: Running, ctx: str, key: str | None = None) -> Memory:
    return Memory(ctx, endpoint=server.url, api_key=key or server.admin_key, max_retries=0)


def test_the_client_round_trip(server: Running, ctx: str) -> None:
    m = client(server, ctx)
    assert m.health() == {"status": "ok"}
    first = m.remember("I work at Acme as VP of sales.")
    assert first.session_id.startswith("session:")
    assert first.turn_id.startswith("turn:")
    attrs = {(a["key"], a["value"]) for a in first.extraction.attributes}
    assert ("job_title", "VP of sales") in attrs
    second = m.remember("I just got promoted to CTO", session_id=first.session_id)
    assert [(c["key"], c["oldValue"], c["newValue"]) for c in second.extraction.corrections] == [
        ("job_title", "VP of sales", "CTO")
    ]
    history = m.entities.history("person", "user", "job_title").history
    assert [(h.value, h.valid_until is None) for h in history] == [
        ("VP of sales", False),
        ("CTO", True),
    ]
    assert history[1].supersedes == history[0].id
    assert history[0].superseded_by == history[1].id
    batch = m.remember_many(
        [
            {"role": "user", "content": "My sister Maya lives in Lisbon."},
            {"role": "assistant", "content": "Lisbon is lovely in spring."},
        ],
        session_id=first.session_id,
    )
    assert batch.session_id == first.session_id
    assert len(batch.turn_ids) == 2
    turns = m.sessions.turns(first.session_id).turns
    assert [(t.seq, t.role, t.content) for t in turns] == [
        (1, "user", "I work at Acme as VP of sales."),
        (2, "user", "I just got promoted to CTO"),
        (3, "user", "My sister Maya lives in Lisbon."),
        (4, "assistant", "Lisbon is lovely in spring."),
    ]
    assert [t.seq for t in m.sessions.turns(first.session_id, limit=2, offset=2).turns] == [3, 4]
    found = m.recall("Where does Maya live?", k=3)
    # The current fact answers first; it stands for the turn that said it.
    assert (found.hits[0].source, found.hits[0].text) == ("attribute", "Maya location: Lisbon")
    assert batch.turn_ids[0] not in [h.id for h in found.hits]
    assert len(found.hits) <= 3
    assert all(h.source in ("turn", "attribute", "memory_chunk") for h in found.hits)
    assert len(m.recall("Lisbon", k=1).hits) == 1
    state = m.state()
    identity = state.identity["attributes"]
    assert {(a["key"], a["value"]) for a in identity} >= {("job_title", "CTO")}
    assert "VP of sales" not in {a["value"] for a in identity}
    listed = {e.id for e in m.entities.list().entities}
    assert {"entity:person/user", "entity:organization/acme"} <= listed
    assert {e.id for e in m.entities.list(entity_type="organization").entities} == {
        "entity:organization/acme"
    }
    acme = m.entities.get("organization", "Acme")
    assert acme.entity.name == "Acme"
    user = m.entities.get("person", "user")
    assert ("job_title", "CTO") in {(a.key, a.value) for a in user.attributes}
    assert {r.label for r in user.relations} >= {"works_at"}
    context = m.sessions.context(first.session_id, "Maya Lisbon").context
    assert "My sister Maya lives in Lisbon." in context
    me = m.whoami()
    assert (me.principal_id, me.kind) == ("admin", "human")
    assert "memory:forget" in me.grants
    assert m.consolidate().dry_run is False


def test_forget_delete_entity_and_sessions(server: Running, ctx: str) -> None:
    m = client(server, ctx)
    keep = m.remember("Our office dog is called Biscuit.")
    drop = m.remember("The wifi password is hunter2.")
    assert m.forget("wifi password").deleted == 1
    assert all(h.id != drop.turn_id for h in m.recall("wifi password").hits)
    assert m.forget("wifi password").deleted == 0
    session = m.sessions.create(metadata={"channel": "slack"})
    assert session.id.startswith("session:")
    m.remember("Dana joined Globex last week.", session_id=session.id)
    assert m.entities.get("organization", "Globex").entity.name == "Globex"
    m.entities.delete("organization", "Globex")
    with pytest.raises(MemoryNotFoundError):
        m.entities.get("organization", "Globex")
    assert "entity:organization/globex" not in {e.id for e in m.entities.list().entities}
    m.sessions.delete(session.id)
    with pytest.raises(MemoryNotFoundError):
        m.sessions.turns(session.id)
    with pytest.raises(MemoryNotFoundError):
        m.sessions.delete(session.id)
    assert [t.content for t in m.sessions.turns(keep.session_id).turns] == [
        "Our office dog is called Biscuit."
    ]
    assert m.entities.history("person", "nobody", "job_title").history == []


def test_the_async_client(server: Running, ctx: str) -> None:
    async def run() -> None:
        m = AsyncMemory(ctx, endpoint=server.url, api_key=server.admin_key, max_retries=0)
        try:
            r = await m.remember("I work at Initech as an engineer.")
            await m.remember("I just got promoted to staff engineer", session_id=r.session_id)
            history = (await m.entities.history("person", "user", "job_title")).history
            assert [h.value for h in history] == ["engineer", "staff engineer"]
            hits = (await m.recall("Initech engineer")).hits
            assert r.turn_id in {h.id for h in hits}
            batch = await m.remember_many([{"role": "user", "content": "Ping."}])
            assert len(batch.turn_ids) == 1
            assert len((await m.sessions.turns(r.session_id)).turns) == 2
            session = await m.sessions.create()
            assert (await m.sessions.turns(session.id)).turns == []
            await m.sessions.delete(session.id)
            assert (await m.forget("Ping")).deleted == 1
            assert (await m.state()).identity["attributes"]
            assert "entity:organization/initech" in {
                e.id for e in (await m.entities.list()).entities
            }
            assert (await m.entities.get("organization", "Initech")).entity.name == "Initech"
            await m.entities.delete("organization", "Initech")
            assert (await m.whoami()).principal_id == "admin"
            assert (await m.consolidate()).created == 0
            assert await m.health() == {"status": "ok"}
        finally:
            await m.close()

    asyncio.run(run())


def test_wire_rules(server: Running, ctx: str) -> None:
    auth = {"Authorization": f"Bearer {server.admin_key}"}
    with httpx.Client(base_url=server.url, headers=auth) as http:
        # An empty body (and no Content-Type) is {}.
        r = http.post(f"/api/v1/{ctx}/consolidate")
        assert r.status_code == 200
        assert r.json()["dryRun"] is False
        r = http.post(f"/api/v1/{ctx}/sessions")
        assert r.status_code == 201
        assert set(r.json()) >= {"id", "createdAt", "scopes"}
        # Errors are {"message": ...} with a trace id; bad context ids are 422, unknown 404.
        r = http.post("/api/v1/bad%20ctx!/query", json={"query": "x"})
        assert r.status_code == 422
        assert "invalid memory id" in r.json()["message"]
        assert r.headers["x-trace-id"].startswith("trace:")
        r = http.post("/api/v1/no-such-memory/query", json={"query": "x"})
        assert r.status_code == 404
        assert r.json()["message"] == "no memory named 'no-such-memory'"
        r = http.post(f"/api/v1/{ctx}/query", json={"k": 3})
        assert r.status_code == 400
        assert "query" in r.json()["message"]
        r = http.post(f"/api/v1/{ctx}/facts", json={"infer": "full"})
        assert r.status_code == 400
        assert r.json()["message"].startswith("text is required")
        r = http.post(f"/api/v1/{ctx}/facts", json={"text": "x", "session_id": "session:nope"})
        assert r.status_code == 404
        r = http.post(
            f"/api/v1/{ctx}/facts",
            content=b"{not json",
            headers={"Content-Type": "application/json"},
        )
        assert r.status_code == 400
        r = http.post(f"/api/v1/{ctx}/facts", content=b"x" * (13 * 1024 * 1024))
        assert r.status_code == 413
        assert "limit" in r.json()["message"]
        # Names with '/' and ':' round-trip through percent-encoding.
        r = http.post(
            f"/api/v1/{ctx}/facts",
            json={
                "infer": "triples",
                "triples": [
                    {
                        "entity": {"type": "organization", "name": "R/D Labs"},
                        "key": "status",
                        "value": "running",
                    }
                ],
            },
        )
        assert r.status_code == 200, r.text
        r = http.get(f"/api/v1/{ctx}/entities/organization/R%2FD%20Labs")
        assert r.status_code == 200, r.text
        assert r.json()["entity"]["name"] == "R/D Labs"
        r = http.get(f"/api/v1/{ctx}/entities/organization/R%2FD%20Labs/history/status")
        assert [h["value"] for h in r.json()["history"]] == ["running"]
        # Both on-behalf-of header names are read; a 'principal:' prefix is stripped.
        for header in ("X-Memory-On-Behalf-Of", "X-Spectron-On-Behalf-Of"):
            r = http.get(f"/api/v1/{ctx}/me", headers={header: "principal:bob"})
            assert r.json()["delegatedPrincipalId"] == "bob"
    unauth = client(server, ctx, key="tg_wrong_key")
    with pytest.raises(MemoryAPIError) as info:
        unauth.state()
    assert info.value.status_code == 401


def test_idempotency_key(server: Running, ctx: str) -> None:
    url = f"{server.url}/api/v1/{ctx}/facts"
    auth = {"Authorization": f"Bearer {server.admin_key}"}
    body = {"text": "Remember the milk."}
    with httpx.Client(headers=auth) as http:
        first = http.post(url, json=body, headers={"Idempotency-Key": "k-1"})
        again = http.post(url, json=body, headers={"Idempotency-Key": "k-1"})
        assert first.status_code == again.status_code == 200
        assert again.json() == first.json()
        assert again.headers.get("idempotent-replayed") == "true"
        other = http.post(
            url, json={"text": "Remember the eggs."}, headers={"Idempotency-Key": "k-1"}
        )
        assert other.status_code == 409
        assert "different request body" in other.json()["message"]
        session = first.json()["sessionId"]
        turns = http.get(f"{server.url}/api/v1/{ctx}/sessions/{session}/turns").json()["turns"]
        assert len(turns) == 1
        # A failed write releases its key: the retry with a fixed body goes through.
        bad = {"text": "x", "session_id": "session:missing"}
        assert http.post(url, json=bad, headers={"Idempotency-Key": "k-2"}).status_code == 404
        fixed = {"text": "x", "session_id": session}
        assert http.post(url, json=fixed, headers={"Idempotency-Key": "k-2"}).status_code == 200
        # The same key is separate per principal.
        key = server.principal("idem-bot")
        server.grant("idem-bot", ctx, "read_write")
        mine = http.post(
            url, json=body, headers={"Idempotency-Key": "k-1", "Authorization": f"Bearer {key}"}
        )
        assert mine.status_code == 200
        assert mine.json()["turnId"] != first.json()["turnId"]


def test_a_duplicate_in_flight_is_409(server: Running, ctx: str) -> None:
    """While the first request with a key is still running, a second one is refused."""
    memory = server.db.memory(ctx)
    lock_taken = threading.Event()
    release = threading.Event()
    original = memory._store.write  # type: ignore[attr-defined]

    # Hold this memory's write lock from another thread so the first request stays in flight.
    def hold() -> None:
        with original(memory._id):  # type: ignore[attr-defined]
            lock_taken.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    lock_taken.wait(5)
    url = f"{server.url}/api/v1/{ctx}/facts"
    headers = {"Authorization": f"Bearer {server.admin_key}", "Idempotency-Key": "slow"}
    results: list[int] = []

    def first() -> None:
        results.append(
            httpx.post(url, json={"text": "slow"}, headers=headers, timeout=20).status_code
        )

    def claimed() -> bool:
        with contextlib.closing(sqlite3.connect(server.db.store.path)) as conn:  # type: ignore[attr-defined]
            row = conn.execute("SELECT state FROM http_idempotency WHERE key = 'slow'").fetchone()
        return row is not None and row[0] == "pending"

    t = threading.Thread(target=first)
    t.start()
    try:
        for _ in range(200):  # until the first request has claimed the key and waits
            if claimed():
                break
            threading.Event().wait(0.02)
        second = httpx.post(url, json={"text": "slow"}, headers=headers, timeout=20)
        assert second.status_code == 409
        assert "in flight" in second.json()["message"]
    finally:
        release.set()
        holder.join()
        t.join()
    assert results == [200]
    replay = httpx.post(url, json={"text": "slow"}, headers=headers, timeout=20)
    assert replay.status_code == 200


def test_turn_pages_follow_next_cursor_and_a_known_entity_is_not_new(
    server: Running, ctx: str
) -> None:
    m = client(server, ctx)
    first = m.remember("My sister Maya lives in Lisbon.")
    entities = {e["name"]: e["isNew"] for e in first.extraction.entities}
    assert entities["Maya"] is True
    again = m.remember("Maya works at Acme.", session_id=first.session_id)
    assert {e["name"]: e["isNew"] for e in again.extraction.entities}["Maya"] is False
    m.remember_many(
        [{"role": "user", "content": f"note {i}"} for i in range(5)], session_id=first.session_id
    )
    url = f"{server.url}/api/v1/{ctx}/sessions/{first.session_id}/turns"
    seen: list[int] = []
    cursor: str | None = None
    with httpx.Client(headers={"Authorization": f"Bearer {server.admin_key}"}) as http:
        while True:
            params: dict[str, str | int] = {"limit": 3, **({"cursor": cursor} if cursor else {})}
            page = http.get(url, params=params).json()
            seen += [t["seq"] for t in page["turns"]]
            if not page["page"]["hasMore"]:
                assert page["page"]["nextCursor"] is None
                break
            cursor = page["page"]["nextCursor"]
    assert seen == list(range(1, 8))
