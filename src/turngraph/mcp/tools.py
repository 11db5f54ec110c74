"""The MCP tools beyond the conversational core: sessions, batches, forgetting, entity state
and the rest of the table of operations (``turngraph.operations``), registered on the server
``mcp.server.build_server`` makes. Each is a thin call into the core; lists are cut to the
tool-size limit like every other list result."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from turngraph.core.memory import Memory
from turngraph.models import (
    BatchResult,
    MemoryContext,
)

Str = Annotated[str, Field(min_length=1)]
Register = Callable[[str], Callable[[Callable[..., Any]], Any]]
Call = Callable[..., Any]


class Listed(BaseModel):
    """A list result, cut to stay under the size limit when it has to be."""

    items: list[Any]
    truncated: bool = False
    note: str | None = None


def register_more_tools(
    tool: Register,
    mem: Callable[[], Memory],
    call: Call,
    listed: Callable[[list[Any], str], Listed],
) -> None:
    """Register the tools on ``tool`` (a decorator taking the description; the tier comes from
    the table of operations)."""

    @tool(
        "The context to put in your prompt before you answer a message: standing "
        "instructions, current facts about the people it concerns, and the passages recall "
        "finds, labelled, within max_tokens (what did not fit is said at the end)."
    )
    def context(
        query: Str,
        session_id: str | None = None,
        k: Annotated[int, Field(ge=1, le=50)] = 10,
        max_tokens: Annotated[int, Field(ge=1, le=8000)] = 800,
    ) -> str:
        result: MemoryContext = call(
            lambda: mem().context(query, session_id=session_id, k=k, max_tokens=max_tokens)
        )
        return result.text

    @tool(
        "Remember several messages ({role, content, ts?, speaker?}), in order, as turns of "
        "one session, atomically. A retry with the same idempotency_key writes once."
    )
    def remember_many(
        messages: list[dict[str, Any]],
        session_id: str | None = None,
        extract: Literal["per_message", "whole_conversation"] = "per_message",
        labels: list[str] | None = None,
        idempotency_key: str | None = None,
    ) -> BatchResult:
        batch: Sequence[Mapping[str, Any]] = messages
        result: BatchResult = call(
            lambda: mem().remember_many(
                batch,
                session_id=session_id,
                extract=extract,
                labels=labels or (),
                idempotency_key=idempotency_key,
            )
        )
        return result

    @tool("Delete a session with its turns and what only they taught.")
    def delete_session(session_id: Str) -> dict[str, int]:
        return {"deleted_turns": call(lambda: mem().delete_session(session_id))}
