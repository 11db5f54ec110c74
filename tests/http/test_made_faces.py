"""Adding an operation to the core and a row to the table of operations makes it appear on
every face: the graph API (route, limits, tier, errors), the client and the async client,
MCP (tool at the row's tier, errors as structured content) and the CLI, with nothing
written for any face. The toy operation lives in this module: a method set on ``Memory``
and a row added to ``turngraph.operations.OPERATIONS`` for the test's duration."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest
from mcp import Client as MCPClient
from pydantic import BaseModel

import turngraph
from turngraph import operations
from turngraph.cli import main
from turngraph.client import AsyncClient, Client
from turngraph.core.memory import Memory
from turngraph.errors import NotFoundError
from turngraph.mcp.server import build_server
from turngraph.operations import _op

from .conftest import running


class Mentions(BaseModel):
    word: str
    observations: int
    slugs: list[str]


def count_mentions(
    self: Memory, word: str, *, mode: Literal["lexical", "hybrid"] = "lexical", k: int = 5
) -> Mentions:
    """How many observations mention a word (at most k). NotFoundError when none does."""
    hits = self.recall(word, mode=mode, k=k).hits
    if not hits:
        raise NotFoundError(f"no observation mentions {word!r}", word=word, memory=self.name)
    return Mentions(word=word, observations=len(hits), slugs=[h.id for h in hits])


TOY = _op(
    "count_mentions",
    "read_write",
    ("POST", "/mentions/{word}"),
    "count_mentions",
    "mentions",
    limits={"word": "entity_type_chars", "k": "turns_per_page"},
)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Memory, "count_mentions", count_mentions, raising=False)
    monkeypatch.setattr(operations, "OPERATIONS", (*operations.OPERATIONS, TOY))


def _mcp(mem: Memory, tier: Any, arguments: dict[str, Any]) -> tuple[list[str], Any]:
    async def run() -> tuple[list[str], Any]:
        async with MCPClient(build_server(mem, tier)) as c:
            tools = [t.name for t in (await c.list_tools()).tools]
            result = await c.call_tool("count_mentions", arguments)
            return tools, (result.is_error, result.structured_content)

    return asyncio.run(run())


def test_an_operation_added_to_the_core_and_the_table_appears_on_every_face(
    toy: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert turngraph.Limits().entity_type_chars < 100  # the limit the row names for word
    with running(tmp_path / "toy.db") as srv:
        mem = srv.db.create_memory("toy", retrieval={"embedder": "none"})
        mem.remember("I paddled my kayak down the river.")
        mem.remember("The kayak club meets on Sundays.")
        embedded = mem.count_mentions("kayak", k=5)
        reader, writer = srv.principal("reader"), srv.principal("writer")
        srv.grant("reader", "toy", "read")
        srv.grant("writer", "toy", "read_write")

        # HTTP: the route, its result, its tier, its limits and its errors.
        paths = httpx.get(f"{srv.url}/openapi.json").json()["paths"]
        assert "post" in paths["/v1/memories/{memory}/mentions/{word}"]
        url = f"{srv.url}/v1/memories/toy/mentions/kayak"
        answer = httpx.post(url, json={"k": 5}, headers={"Authorization": f"Bearer {writer}"})
        assert answer.status_code == 200
        assert Mentions.model_validate(answer.json()) == embedded
        refused = httpx.post(url, json={}, headers={"Authorization": f"Bearer {reader}"})
        assert refused.status_code == 403
        assert refused.json()["error"] == "ForbiddenError"
        bad = httpx.post(url, json={"mode": "dense"}, headers={"Authorization": f"Bearer {writer}"})
        assert bad.status_code == 400
        assert bad.json()["field"] == "mode"
        many = turngraph.Limits().turns_per_page + 1
        bad = httpx.post(url, json={"k": many}, headers={"Authorization": f"Bearer {writer}"})
        assert bad.status_code == 400
        assert bad.json()["field"] == "k"
        too_long = httpx.post(
            f"{srv.url}/v1/memories/toy/mentions/{'w' * 100}",
            headers={"Authorization": f"Bearer {writer}"},
        )
        assert too_long.status_code == 400
        assert too_long.json()["field"] == "path.word"

        # The client and the async client: the same result, the same error classes.
        with Client(srv.url, writer) as client:
            remote = client.memory("toy")
            assert remote.count_mentions("kayak", k=5) == embedded
            with pytest.raises(NotFoundError) as missing:
                remote.count_mentions("zebra")
            assert missing.value.fields["word"] == "zebra"
            with pytest.raises(TypeError):
                remote.count_mentions(wrod="kayak")
        with Client(srv.url, reader) as client, pytest.raises(turngraph.ForbiddenError):
            client.memory("toy").count_mentions("kayak")

        async def remotely() -> Mentions:
            async with AsyncClient(srv.url, writer) as client:
                found: Mentions = await client.memory("toy").count_mentions("kayak", k=5)
                return found

        assert asyncio.run(remotely()) == embedded

        # MCP: listed and run at read_write, hidden and refused at read.
        tools, (failed, result) = _mcp(mem, "read_write", {"word": "kayak", "k": 5})
        assert "count_mentions" in tools
        assert not failed
        assert Mentions.model_validate(result) == embedded
        tools, (failed, result) = _mcp(mem, "read", {"word": "kayak"})
        assert "count_mentions" not in tools
        assert failed
        assert result["error"] == "ForbiddenError"
        _, (failed, result) = _mcp(mem, "read_write", {"word": "zebra"})
        assert failed
        assert (result["error"], result["word"]) == ("NotFoundError", "zebra")

        # The CLI: the command, --json printing the core's model, errors with status 1.
        base = ["--db", str(tmp_path / "toy.db"), "--memory", "toy"]
        assert main([*base, "--json", "mentions", "kayak", "--k", "5"]) == 0
        out = capsys.readouterr().out
        assert Mentions.model_validate(json.loads(out)) == embedded
        assert main([*base, "mentions", "zebra"]) == 1
        assert "no observation mentions 'zebra'" in capsys.readouterr().err


def test_every_face_the_table_makes_is_there_for_every_operation(toy: None) -> None:
    """The parity of the made faces, over the whole table with the toy row in it."""
    from turngraph.server import create_app

    paths = create_app().openapi()["paths"]
    remote = Client("http://127.0.0.1:9", "unused").memory("m")
    for op in operations.OPERATIONS:
        for face in operations.FACES:
            assert op.made(face) or face in op.omitted or op.hand[face].strip(), (op.name, face)
        if op.http is not None:
            method, path = op.http
            assert method.lower() in paths[f"/v1/memories/{{memory}}{path}"], op.name
        if op.made("client"):
            assert callable(getattr(remote, op.name)), op.name
