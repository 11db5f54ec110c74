"""Errors cross the wire by class: the same failing call raises the same class with the same
fields embedded, through `turngraph.Client` over HTTP, and through the real MCP client (as
the tool error's structured content)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client as MCPClient

from turngraph.client import Client
from turngraph.errors import (
    IdempotencyConflictError,
    NotFoundError,
    TurngraphError,
    ValidationError,
)
from turngraph.mcp.server import build_server

from .conftest import Running

NOTE = {"title": "Kickoff", "content": "Alice leads Falcon."}
OTHER = {"title": "Other", "content": "Something else."}


def _mcp_error(mem: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with MCPClient(build_server(mem, "full")) as c:
            result = await c.call_tool(tool, arguments)
            assert result.is_error, result.content
            assert result.structured_content is not None
            return dict(result.structured_content)

    return asyncio.run(run())


def _failures(server: Running) -> list[tuple[str, Any, Any, Any]]:
    """(name, embedded call, remote call, MCP tool and arguments) of calls that fail."""
    return [
        (
            "unknown entity",
            lambda m: m.get_entity("Nobody"),
            lambda r: r.get_entity("Nobody"),
            ("get_entity", {"name": "Nobody"}),
        ),
        (
            "key reused with another body",
            lambda m: m.add_observation(**OTHER, idempotency_key="same"),
            lambda r: r.add_observation(**OTHER, idempotency_key="same"),
            ("add_observation", {**OTHER, "idempotency_key": "same"}),
        ),
        (
            "labels over the limit",
            lambda m: m.remember("hi", labels=[str(i) for i in range(40)]),
            lambda r: r.remember("hi", labels=[str(i) for i in range(40)]),
            ("remember", {"text": "hi", "labels": [str(i) for i in range(40)]}),
        ),
    ]


@pytest.mark.parametrize("case", [0, 1, 2])
def test_a_failing_call_raises_the_same_class_and_fields_on_every_face(
    server: Running, case: int
) -> None:
    name = f"errors{case}"
    mem = server.db.create_memory(name, retrieval={"embedder": "none"})
    label, embedded, remote, (tool, arguments) = _failures(server)[case]
    with Client(server.url, server.admin_key) as client:
        rmem = client.memory(name)
        mem.add_observation(**NOTE, idempotency_key="same")
        rmem.add_observation(**NOTE, idempotency_key="same")  # replays the embedded write
        with pytest.raises(TurngraphError) as here:
            embedded(mem)
        with pytest.raises(TurngraphError) as there:
            remote(rmem)
    over_mcp = _mcp_error(mem, tool, arguments)
    assert type(there.value) is type(here.value), label
    assert over_mcp["error"] == type(here.value).__name__, label
    if isinstance(here.value, IdempotencyConflictError | NotFoundError):
        # The fields locate the problem the same way everywhere.
        assert there.value.fields == here.value.fields, label
        assert {k: v for k, v in over_mcp.items() if k not in ("error", "message")} == (
            here.value.fields
        )
    else:
        # The HTTP schema refuses the list before the core sees it, naming the same field.
        assert isinstance(there.value, ValidationError)
        assert there.value.field == here.value.field == over_mcp["field"] == "labels"


def test_the_client_raises_idempotency_conflicts_as_their_own_class(server: Running) -> None:
    server.db.create_memory("idem-class", retrieval={"embedder": "none"})
    with Client(server.url, server.admin_key) as client:
        mem = client.memory("idem-class")
        mem.add_observation(**NOTE, idempotency_key="k1")
        with pytest.raises(IdempotencyConflictError) as info:
            mem.add_observation(**OTHER, idempotency_key="k1")
        assert info.value.status == 409
        assert info.value.idempotency_key == "k1"
