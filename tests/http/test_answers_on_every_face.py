"""What an agent gets back is what is true now, inside the size it asked for, on every face:
the Python API, the memory API (the official client), the graph API, turngraph's own
client, MCP, the CLI and the agent kit. A recall holds at most k hits in all (the current
fact first, standing for the turn that said it) and says what it left out; the context
payload carries the standing instruction (not the one it replaced) and the current fact,
within its token budget."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client as MCPClient
from surrealdb_memory import Memory as OfficialMemory

import turngraph
from turngraph.agent.protocol import TurnContext, with_memory
from turngraph.client import Client
from turngraph.mcp.server import build_server

from .conftest import Running

CHAT = [
    ("user", "Hi, I'm Jordan. I live in Kreuzberg and work at Zalando as a data analyst."),
    ("assistant", "Nice to meet you, Jordan! What do you work on at Zalando?"),
    ("user", "Always reply in French."),
    ("user", "We finally moved to Neukölln last weekend!"),
    ("user", "Switch back to English please, from now on."),
    *[("user", f"Neukölln note {i}: the bakery on the corner sells rye bread.") for i in range(14)],
]
QUESTION = "Where does Jordan live?"
CURRENT = "Jordan location: Neukölln"


def fill(mem: turngraph.Memory) -> str:
    session = None
    for i, (role, text) in enumerate(CHAT):
        session = mem.remember(
            text,
            session_id=session,
            role=role,
            speaker="Jordan" if role == "user" else None,
            observed_at=f"2024-03-{1 + i:02d}T10:00:00Z",
        ).session_id
    assert session is not None
    return session


@pytest.fixture(scope="module")
def jordan(server: Running) -> tuple[str, str]:
    mem = server.db.create_memory("jordan")
    return mem.name, fill(mem)


def check_hits(hits: list[dict[str, object]], k: int) -> None:
    assert 0 < len(hits) <= k
    assert hits[0]["text"] == CURRENT


def check_context(text: str, tokens: int, budget: int) -> None:
    assert tokens <= budget
    assert "Switch back to English" in text
    assert "Always reply in French" not in text.split("Facts (current):")[0]
    assert "Neukölln" in text


def test_python(server: Running, jordan: tuple[str, str]) -> None:
    mem = server.db.memory(jordan[0])
    for k in (1, 2, 10):
        rc = mem.recall(QUESTION, k=k)
        check_hits([h.model_dump() for h in rc.hits], k)
        assert any(t.startswith("hits:") for t in rc.truncated)  # 19 turns, k returned
    ctx = mem.context(QUESTION, max_tokens=150)
    check_context(ctx.text, ctx.tokens, 150)
    assert [i.topic for i in ctx.instructions] == ["language"]
    assert ctx.facts[0].value == "Neukölln"
    assert str(ctx) == ctx.text


def test_memory_api_with_the_official_client(server: Running, jordan: tuple[str, str]) -> None:
    m = OfficialMemory(jordan[0], endpoint=server.url, api_key=server.admin_key, max_retries=0)
    found = m.recall(QUESTION, k=2)
    check_hits([{"text": h.text} for h in found.hits], 2)
    assert found.hits[0].source == "attribute"
    raw = httpx.post(
        f"{server.url}/api/v1/{jordan[0]}/sessions/{jordan[1]}/context",
        headers={"Authorization": f"Bearer {server.admin_key}"},
        json={"query": QUESTION, "maxTokens": 150},
    ).json()
    check_context(raw["context"], raw["tokens"], 150)
    assert m.sessions.context(jordan[1], QUESTION).context.startswith("Instructions")


def test_graph_api_and_the_turngraph_client(server: Running, jordan: tuple[str, str]) -> None:
    auth = {"Authorization": f"Bearer {server.admin_key}"}
    base = f"{server.url}/v1/memories/{jordan[0]}"
    rc = httpx.post(f"{base}/recall", headers=auth, json={"query": QUESTION, "k": 2}).json()
    check_hits(rc["hits"], 2)
    body = {"query": QUESTION, "max_tokens": 150}
    ctx = httpx.post(f"{base}/context", headers=auth, json=body).json()
    check_context(ctx["text"], ctx["tokens"], 150)
    bad = httpx.post(f"{base}/context", headers=auth, json={**body, "max_tokens": 0})
    assert bad.status_code in (400, 422)
    with Client(server.url, server.admin_key) as client:
        remote = client.memory(jordan[0])
        check_hits([h.model_dump() for h in remote.recall(QUESTION, k=3).hits], 3)
        got = remote.context(QUESTION, max_tokens=150)
        check_context(got.text, got.tokens, 150)


def test_mcp(tmp_path: Path) -> None:
    async def run() -> None:
        with turngraph.open(tmp_path / "m.db") as db:
            fill(db.create_memory("m"))
            async with MCPClient(build_server(db.memory("m"), "read")) as c:
                rc = (await c.call_tool("recall", {"query": QUESTION, "k": 2})).structured_content
                assert rc is not None
                check_hits(rc["hits"], 2)
                out = await c.call_tool("context", {"query": QUESTION, "max_tokens": 150})
                text = out.content[0].text  # type: ignore[union-attr]
                check_context(text, len(text) // 4, 150)

    asyncio.run(run())


def test_cli(tmp_path: Path) -> None:
    with turngraph.open(tmp_path / "c.db") as db:
        fill(db.create_memory("default"))
    cli = [sys.executable, "-m", "turngraph.cli", "recall", QUESTION]
    done = subprocess.run(
        [*cli, "--db", str(tmp_path / "c.db"), "--json", "--k", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    check_hits(json.loads(done.stdout)["hits"], 2)


def test_the_agent_kit_hands_the_context_to_the_agent(tmp_path: Path) -> None:
    seen: list[TurnContext] = []

    def agent(message: str, ctx: TurnContext) -> str:
        seen.append(ctx)
        return "Neukölln, as far as I know."

    with turngraph.open(tmp_path / "a.db") as db:
        mem = db.create_memory("a")
        fill(mem)
        turn = with_memory(agent, memory=mem, conversation_id="c1")
        asyncio.run(turn(QUESTION))
    payload = seen[0].memory
    assert payload is not None
    check_context(payload.text, payload.tokens, payload.max_tokens)
    assert QUESTION not in payload.text  # asked before the message was stored
