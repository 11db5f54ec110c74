"""MCP: every tool through the official client, in process; a stdio subprocess; streamable
HTTP on the server with key auth and a tier refusal."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

import turngraph
from turngraph.mcp.server import FILE_CHUNK, MAX_RESULT_CHARS, build_server

from .conftest import Running

READ = {
    "recall",
    "get_observation",
    "get_entity",
    "entity_history",
    "state",
    "list_turns",
    "list_files",
    "read_file",
    "list_proposals",
    "context",
    "list_entities",
    "entity_state",
    "entity_states",
    "get_session",
    "list_sessions",
    "get_turn",
}
READ_WRITE = READ | {
    "remember",
    "remember_many",
    "add_observation",
    "store_file",
    "consolidate",
    "reject_proposal",
    "create_session",
}
FULL = READ_WRITE | {
    "update_observation",
    "delete_observation",
    "accept_proposal",
    "forget",
    "delete_entity",
    "delete_session",
    "delete_file",
}


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, (tool, result.content)
    text = result.content[0].text  # type: ignore[union-attr]
    assert len(text) <= MAX_RESULT_CHARS + 1000
    return result.structured_content


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, tool
    return str(result.content[0].text)  # type: ignore[union-attr]


def test_every_tool_in_process(tmp_path: Path) -> None:
    async def run() -> None:
        with turngraph.open(tmp_path / "m.db") as db:
            mem = db.create_memory("m")
            async with Client(build_server(mem, "full")) as c:
                tools = {t.name: t for t in (await c.list_tools()).tools}
                assert set(tools) == FULL
                assert "reuse" in tools["add_observation"].description.lower()
                assert "truncated" in tools["recall"].description
                r = await call(c, "remember", text="I work at Acme as VP of sales.", speaker="Dana")
                session = r["session_id"]
                await call(
                    c,
                    "remember",
                    text="I just got promoted to CTO",
                    speaker="Dana",
                    session_id=session,
                )
                history = await call(
                    c, "entity_history", entity_type="person", name="Dana", key="job_title"
                )
                assert [v["value"] for v in history["items"]] == ["VP of sales", "CTO"]
                w = await call(
                    c,
                    "add_observation",
                    title="Falcon kickoff",
                    content="Alice leads Project Falcon.",
                    entities=[
                        {"name": "Alice", "type": "person", "description": "Engineering lead"},
                        {"name": "Project Falcon", "type": "project", "description": "Billing"},
                    ],
                    relationships=[
                        {"source": "Alice", "type": "leads", "target": "Project Falcon"}
                    ],
                )
                slug = w["observation"]["slug"]
                rc = await call(c, "recall", query="Alice")
                assert rc["entities"][0]["name"] == "Alice"
                assert (await call(c, "recall", category="observation"))["mode"] == "structural"
                assert (await call(c, "get_observation", slug=slug))["content"].startswith("Alice")
                assert (await call(c, "get_entity", name="Alice"))["degree"] == 1
                assert (await call(c, "state"))["identity"]["attributes"]
                turns = await call(c, "list_turns", session_id=session)
                assert [t["content"] for t in turns["turns"]][-1] == "I just got promoted to CTO"
                await call(c, "update_observation", slug=slug, title="Kickoff (v2)")
                big = "x" * (FILE_CHUNK + 10)
                await call(c, "store_file", path="docs/big.txt", text=big, description="Big")
                assert [f["path"] for f in (await call(c, "list_files"))["items"]] == [
                    "docs/big.txt"
                ]
                first = await call(c, "read_file", path="docs/big.txt")
                assert (len(first["text"]), first["truncated"]) == (FILE_CHUNK, True)
                rest = await call(c, "read_file", path="docs/big.txt", offset=FILE_CHUNK)
                assert (rest["text"], rest["truncated"]) == ("x" * 10, False)
                for name in ("Vega Labs", "Vega Labs Inc", "Orion Labs", "Orion Labs Inc"):
                    await call(
                        c,
                        "add_observation",
                        title=name,
                        content=f"{name} is a lab.",
                        entities=[{"name": name, "type": "organization", "description": "A lab"}],
                    )
                proposals = (await call(c, "consolidate"))["items"]
                assert len(proposals) == 2
                assert len((await call(c, "list_proposals"))["items"]) == 2
                merged = await call(c, "accept_proposal", proposal_id=proposals[0]["id"])
                assert merged["proposal"]["status"] == "accepted"
                rejected = await call(c, "reject_proposal", proposal_id=proposals[1]["id"])
                assert rejected["status"] == "rejected"
                deleted = await call(c, "delete_observation", slug=slug)
                assert "Alice" in deleted["pruned_entities"]
                # Errors carry the core's message; bad input is a tool error, not a crash.
                assert "deleted" in await refused(c, "get_observation", slug=slug)
                assert "description" in await refused(
                    c,
                    "add_observation",
                    title="t",
                    content="c",
                    entities=[{"name": "X", "description": ""}],
                )
                assert await refused(c, "recall", k=500)
            async with Client(build_server(mem, "read")) as c:
                assert {t.name for t in (await c.list_tools()).tools} == READ
                message = await refused(c, "remember", text="sneaky")
                assert (
                    message
                    == "tool 'remember' needs the 'read_write' tier; this connection holds 'read'"
                )
            async with Client(build_server(mem, "read_write")) as c:
                assert {t.name for t in (await c.list_tools()).tools} == READ_WRITE
                assert "needs the 'full' tier" in await refused(c, "delete_observation", slug="x")
                prompts = (await c.list_prompts()).prompts
                assert [p.name for p in prompts] == ["turn_protocol"]
            assert len(mem.list_turns(session).turns) == 2  # the refused remember wrote nothing

    asyncio.run(run())


def test_a_recall_stays_under_the_size_limit(tmp_path: Path) -> None:
    async def run() -> None:
        with turngraph.open(tmp_path / "m.db") as db:
            mem = db.create_memory("m")
            for i in range(60):
                mem.add_observation(title=f"Long {i}", content=f"harbor report {i} " + "w" * 1900)
            async with Client(build_server(mem, "read")) as c:
                result = await c.call_tool("recall", {"query": "harbor report", "k": 50})
                assert not result.is_error
                assert len(json.dumps(result.structured_content)) <= MAX_RESULT_CHARS
                assert len(result.structured_content["hits"]) == 50
                assert result.structured_content["snippets"]

    asyncio.run(run())


def test_stdio_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with turngraph.open(path) as db:
        db.create_memory("notes")

    async def run() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "turngraph.cli",
                "mcp",
                "--db",
                str(path),
                "--memory",
                "notes",
                "--tier",
                "read_write",
            ],
        )
        async with Client(params) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert names == READ_WRITE
            r = await call(c, "remember", text="The boat is called Wanderer.", speaker="Sam")
            rc = await call(c, "recall", query="What is the boat called?")
            assert rc["hits"][0]["source"]["turn_id"] == r["turn_id"]

    asyncio.run(run())
    with turngraph.open(path) as db:
        assert db.memory("notes").recall("Wanderer").hits


def test_stdio_on_a_fresh_database_says_why_and_creates_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"

    def params(*extra: str) -> StdioServerParameters:
        args = ["-m", "turngraph.cli", "mcp", "--db", str(path), "--memory", "default"]
        return StdioServerParameters(
            command=sys.executable, args=[*args, *extra], env=dict(os.environ)
        )

    async def refused_start() -> str:
        try:
            async with Client(params()) as c:
                await c.list_tools()
        except (MCPError, BaseExceptionGroup) as exc:
            return _mcp_error(exc)
        raise AssertionError("the server started without its memory")

    message = asyncio.run(refused_start())
    assert "no memory named 'default'" in message
    assert "--create" in message

    async def created() -> None:
        async with Client(params("--create")) as c:
            await call(c, "remember", text="The boat is called Wanderer.", speaker="Sam")

    asyncio.run(created())
    with turngraph.open(path) as db:
        assert db.memory("default").recall("Wanderer").hits


def test_streamable_http_with_keys_and_tiers(server: Running) -> None:
    server.db.create_memory("mcp-notes")
    reader = server.principal("mcp-reader")
    server.grant("mcp-reader", "mcp-notes", "read")
    writer = server.principal("mcp-writer")
    server.grant("mcp-writer", "mcp-notes", "read_write")

    def connect(key: str, **headers: str) -> Client:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}", **headers})
        return Client(streamable_http_client(f"{server.url}/mcp", http_client=http))

    async def run() -> None:
        async with connect(writer) as c:
            assert {t.name for t in (await c.list_tools()).tools} == READ_WRITE
            r = await call(c, "remember", text="Our office plant is a fern named Fred.")
            # read_write adds files; replacing one needs full
            await call(c, "store_file", path="plant.md", text="fern", description="the plant")
            message = await refused(
                c, "store_file", path="plant.md", text="cactus", description="d", overwrite=True
            )
            assert "overwriting a file needs the 'full' tier" in message
        async with connect(reader) as c:
            assert {t.name for t in (await c.list_tools()).tools} == READ
            hits = (await call(c, "recall", query="office plant"))["hits"]
            assert hits[0]["source"]["turn_id"] == r["turn_id"]
            assert "needs the 'read_write' tier" in await refused(c, "remember", text="no")
        async with connect(server.admin_key, **{"X-Turngraph-Memory": "mcp-notes"}) as c:
            assert {t.name for t in (await c.list_tools()).tools} == FULL
            await call(
                c, "store_file", path="plant.md", text="cactus", description="d", overwrite=True
            )
        assert server.db.memory("mcp-notes").get_file("plant.md").data == b"cactus"

    asyncio.run(run())
    # Without a valid key the endpoint answers 401 before any MCP exchange.
    with httpx2.Client() as http:
        r = http.post(f"{server.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert r.status_code == 401
        r = http.post(
            f"{server.url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": f"Bearer {server.admin_key}"},
        )
        assert r.status_code == 400  # the admin reaches every memory: it must say which
        assert "X-Turngraph-Memory" in r.json()["message"]


def _client_error(url: str, **headers: str) -> str:
    """What the official MCP client reports when it cannot connect."""

    async def run() -> str:
        http = httpx2.AsyncClient(headers=headers)
        try:
            async with Client(streamable_http_client(url, http_client=http)) as c:
                await c.list_tools()
        except (MCPError, BaseExceptionGroup) as exc:
            return _mcp_error(exc)
        raise AssertionError("the client connected")

    return asyncio.run(run())


def _mcp_error(exc: BaseException) -> str:
    """The message of the MCPError the client raised (the SDK may wrap it in a group)."""
    if isinstance(exc, MCPError):
        return str(exc)
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _mcp_error(inner)
            if found:
                return found
        return ""
    raise exc


def test_http_refusals_reach_the_official_client_as_readable_errors(server: Running) -> None:
    server.db.create_memory("mcp-a")
    server.db.create_memory("mcp-b")
    url = f"{server.url}/mcp"
    admin = {"Authorization": f"Bearer {server.admin_key}"}
    message = _client_error(url, **admin)
    assert "send the header 'X-Turngraph-Memory: NAME'" in message
    assert "mcp-a" in message
    assert "a valid API key is required" in _client_error(url, Authorization="Bearer tg_nope")
    lonely = server.principal("mcp-lonely")
    message = _client_error(url, Authorization=f"Bearer {lonely}")
    assert "turngraph grant mcp-lonely MEMORY" in message
    assert "no memory named 'nope'" in _client_error(url, **admin, **{"X-Turngraph-Memory": "nope"})


def test_a_result_over_the_limit_is_refused_or_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turngraph.mcp.server as module

    monkeypatch.setattr(module, "MAX_RESULT_CHARS", 1500)

    async def run() -> None:
        with turngraph.open(tmp_path / "m.db") as db:
            mem = db.create_memory("m")
            slug = mem.add_observation(title="Long", content="y" * 1800).observation.slug
            for i in range(30):
                mem.put_file(f"f/{i:02}.txt", "x", description=f"file number {i}")
            async with Client(build_server(mem, "read")) as c:
                message = await refused(c, "get_observation", slug=slug)
                assert message.startswith("the result of 'get_observation' has ")
                assert "over the limit of 1500" in message
                listed = await call(c, "list_files")
                assert listed["truncated"] is True
                assert 0 < len(listed["items"]) < 30
                assert "narrow the request" in listed["note"]

    asyncio.run(run())


def test_a_refused_request_nested_deep_is_still_refused_plainly(server: Running) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    body = '{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": ' + deep + "}"
    admin = {"Authorization": f"Bearer {server.admin_key}"}
    for headers, status in (({}, 401), (admin, 400)):
        r = httpx2.post(
            f"{server.url}/mcp",
            content=body,
            headers={**headers, "Content-Type": "application/json"},
        )
        assert r.status_code == status, r.text
        assert r.json()["error"]["message"] == r.json()["message"]
        assert r.json()["id"] is None
