"""turngraph.Client and AsyncClient: the embedded API's names and results, over real HTTP."""

from __future__ import annotations

import asyncio

import pytest

import turngraph
from turngraph.client import AsyncClient, Client
from turngraph.errors import (
    AuthenticationError,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    ValidationError,
)

from .conftest import Running


def exercise(mem: turngraph.Memory | turngraph.client.RemoteMemory) -> None:
    """The same script against an embedded memory and a remote one."""
    w = mem.add_observation(
        title="Falcon kickoff",
        content="Alice leads Project Falcon for Acme Corp.",
        category="meeting",
        entities=[
            {"name": "Alice", "type": "person", "description": "Engineering lead"},
            {"name": "Project Falcon", "type": "project", "description": "Billing migration"},
        ],
        relationships=[{"source": "Alice", "type": "leads", "target": "Project Falcon"}],
        idempotency_key="kickoff-1",
    )
    slug = w.observation.slug
    again = mem.add_observation(
        title="Falcon kickoff",
        content="Alice leads Project Falcon for Acme Corp.",
        category="meeting",
        entities=[
            {"name": "Alice", "type": "person", "description": "Engineering lead"},
            {"name": "Project Falcon", "type": "project", "description": "Billing migration"},
        ],
        relationships=[{"source": "Alice", "type": "leads", "target": "Project Falcon"}],
        idempotency_key="kickoff-1",
    )
    assert again.replayed
    assert again.observation.slug == slug
    with pytest.raises(ConflictError):
        mem.add_observation(title="Other", content="Other.", idempotency_key="kickoff-1")
    assert mem.get_observation(slug).content == "Alice leads Project Falcon for Acme Corp."
    assert mem.get_entity("Alice").relationships[0].target == "Project Falcon"
    assert [e.name for e in mem.list_entities(limit=1)] in (["Alice"], ["Project Falcon"])
    rc = mem.recall("Alice", k=5)
    assert rc.entities[0].name == "Alice"
    assert "Project Falcon" in {e.name for e in rc.entities}
    assert mem.recall(category="meeting").hits[0].source.slug == slug
    updated = mem.update_observation(slug, title="Falcon kickoff (v2)")
    assert updated.observation.slug == slug
    r = mem.remember("I work at Acme as VP of sales.", speaker="Dana")
    mem.remember("I just got promoted to CTO", speaker="Dana", session_id=r.session_id)
    history = mem.entity_history("person", "Dana", "job_title")
    assert [v.value for v in history] == ["VP of sales", "CTO"]
    batch = mem.remember_many(
        [{"role": "user", "content": "Ping."}, {"role": "assistant", "content": "Pong."}]
    )
    page = mem.list_turns(batch.session_id, limit=1)
    assert [t.content for t in page.turns] == ["Ping."]
    assert page.has_more
    assert [t.content for t in mem.list_turns(batch.session_id, cursor=page.next_cursor).turns] == [
        "Pong."
    ]
    assert mem.get_session(batch.session_id).turn_count == 2
    assert "Pong." in mem.context("Pong", session_id=batch.session_id).text
    assert mem.delete_session(batch.session_id) == 2
    state = mem.state()
    assert ("job_title", "CTO") in {(a.key, a.value) for a in state.identity.attributes}
    f = mem.put_file("docs/spec.md", "# Spec", description="The spec")
    assert f.size == 6
    assert mem.get_file("docs/spec.md").data == b"# Spec"
    assert [x.path for x in mem.list_files("docs/")] == ["docs/spec.md"]
    mem.delete_file("docs/spec.md")
    for name in ("Globex Labs", "Globex Labs Inc"):
        mem.add_observation(
            title=name,
            content=f"{name} sells widgets.",
            entities=[{"name": name, "type": "organization", "description": "Widgets"}],
        )
    proposals = mem.consolidate()
    assert proposals
    assert mem.list_proposals()[0].id == proposals[0].id
    merged = mem.accept_proposal(proposals[0].id)
    assert merged.proposal.status == "accepted"
    assert mem.forget("widgets", dry_run=True).deleted == 2
    assert mem.delete_entity("Project Falcon").entity == "Project Falcon"
    deleted = mem.delete_observation(slug)
    assert deleted.observation.slug == slug
    with pytest.raises(NotFoundError):
        mem.get_observation(slug)
    with pytest.raises(ValidationError):
        mem.add_observation(
            title="Bad", content="x", entities=[{"name": "NoDesc", "description": ""}]
        )


def test_client_and_embedded_memory_run_the_same_script(server: Running, tmp_path: object) -> None:
    with turngraph.open(f"{tmp_path}/embedded.db") as db:
        exercise(db.create_memory("script"))
    with Client(server.url, server.admin_key) as client:
        exercise(client.create_memory("script-remote"))
        assert "script-remote" in {m.name for m in client.list_memories()}
        with pytest.raises(NotFoundError):
            client.memory("absent").recall("x")


def test_client_errors_carry_the_server_message(server: Running) -> None:
    key = server.principal("client-reader")
    server.db.create_memory("client-ro")
    server.grant("client-reader", "client-ro", "read")
    with Client(server.url, key) as client:
        mem = client.memory("client-ro")
        assert mem.recall("anything").hits == []
        with pytest.raises(ForbiddenError, match="needs the 'read_write' tier"):
            mem.remember("hello")
    with Client(server.url, "tg_nope_nope") as client, pytest.raises(AuthenticationError):
        client.list_memories()


def test_async_client(server: Running) -> None:
    async def run() -> None:
        async with AsyncClient(server.url, server.admin_key) as client:
            mem = await client.create_memory("async-remote")
            r = await mem.remember("I work at Initech as an engineer.", speaker="Sam")
            assert r.extraction.attributes
            rc = await mem.recall("Initech")
            assert rc.hits[0].source.turn_id == r.turn_id
            assert (await mem.info()).name == "async-remote"
            assert (await mem.list_turns(r.session_id)).turns[0].speaker == "Sam"
            with pytest.raises(NotFoundError):
                await mem.get_entity("Nobody")

    asyncio.run(run())
