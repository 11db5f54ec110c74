"""Parity of the faces with the core, from the table of operations: every public operation
of `Memory` is in the table and reachable on every face (graph API route, client and async
client, MCP tool at the table's tier, CLI command) unless the table says why it is left out;
and the same calls embedded, through the client and through MCP give equal results."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

from mcp import Client as MCPClient

import turngraph
from turngraph.cli.commands import build_parser
from turngraph.client import AsyncRemoteMemory, Client, RemoteMemory
from turngraph.core.memory import Memory
from turngraph.mcp.server import build_server
from turngraph.operations import FACES, NOT_OPERATIONS, OPERATIONS
from turngraph.server import create_app

from .conftest import Running


def _public(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}


def test_every_public_operation_of_memory_is_in_the_table() -> None:
    names = [op.name for op in OPERATIONS]
    assert len(names) == len(set(names))
    assert _public(Memory) == set(names) | set(NOT_OPERATIONS)


def test_every_operation_is_reachable_on_every_face_or_left_out_with_a_reason(
    tmp_path: Path,
) -> None:
    for op in OPERATIONS:
        assert set(op.omitted) <= set(FACES), op.name
        assert all(reason.strip() for reason in op.omitted.values()), op.name
        assert (op.http is None) == ("http" in op.omitted), op.name
        assert (op.mcp is None) == ("mcp" in op.omitted), op.name
        assert (op.cli is None) == ("cli" in op.omitted), op.name
    paths = create_app().openapi()["paths"]
    base = "/v1/memories/{memory}"
    for op in OPERATIONS:
        if op.http is not None:
            method, path = op.http
            assert method.lower() in paths.get(base + path, {}), op.name
        if "client" not in op.omitted:
            assert hasattr(RemoteMemory, op.name), op.name
            assert inspect.iscoroutinefunction(getattr(AsyncRemoteMemory, op.name)), op.name
    with turngraph.open(tmp_path / "p.db") as db:
        server = build_server(db.create_memory("p", retrieval={"embedder": "none"}), "full")
        tools = {t.name for t in asyncio.run(server.list_tools())}
        for op in OPERATIONS:
            if op.mcp is not None:
                assert op.mcp in tools, op.name
                assert server.needs[op.mcp] == op.tier, op.name
    commands = _cli_commands()
    for op in OPERATIONS:
        if op.cli is not None:
            assert op.cli in commands, (op.name, op.cli)


def _cli_commands() -> set[str]:
    parser = build_parser()
    found: set[str] = set()
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        for name, sub in action.choices.items():
            found.add(name)
            for inner in (
                getattr(sub, "_subparsers", None)._group_actions if sub._subparsers else ()
            ):  # type: ignore[union-attr]
                found.update(f"{name} {a}" for a in inner.choices)
    return found


def _mcp(mem: Memory, tool: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with MCPClient(build_server(mem, "full")) as c:
            result = await c.call_tool(tool, arguments)
            assert not result.is_error, result.content
            return result.structured_content

    return asyncio.run(run())


def test_the_same_reads_give_equal_results_embedded_over_http_and_over_mcp(
    server: Running,
) -> None:
    mem = server.db.create_memory("parity", retrieval={"embedder": "none"})
    first = mem.remember("I work at Acme as VP of sales.", speaker="Dana")
    mem.remember("I just got promoted to CTO", speaker="Dana", session_id=first.session_id)
    with Client(server.url, server.admin_key) as client:
        remote = client.memory("parity")
        calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
            ("get_entity", ("Dana",), {}),
            ("entity_state", ("person", "Dana"), {}),
            ("entity_history", ("person", "Dana", "job_title"), {}),
            ("get_session", (first.session_id,), {}),
            ("list_turns", (first.session_id,), {"limit": 50}),
            ("state", (), {"limit": 50}),
            ("list_entities", (), {}),
            ("entity_states", (), {}),
            ("list_sessions", (), {}),
            ("get_turn", (first.turn_id,), {}),
        ]
        for name, args, kwargs in calls:
            here = getattr(mem, name)(*args, **kwargs)
            there = getattr(remote, name)(*args, **kwargs)
            assert there == here, name
            op = next(o for o in OPERATIONS if o.name == name)
            assert op.mcp is not None
            params = list(inspect.signature(getattr(Memory, name)).parameters)[1:]
            over_mcp = _mcp(mem, op.mcp, {**dict(zip(params, args, strict=False)), **kwargs})
            dumped = (
                [v.model_dump(mode="json") for v in here]
                if isinstance(here, list)
                else here.model_dump(mode="json")
            )
            got = over_mcp["items"] if isinstance(here, list) else over_mcp
            assert got == dumped, name
