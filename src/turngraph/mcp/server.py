"""A turngraph memory as MCP tools (the official MCP SDK, version 2; the only module that
imports it).

``build_server(memory, tier)`` registers the tools a connection at ``tier`` may use: tools
above the tier are not listed, and calling one anyway is refused like any unknown tool.
Inputs are typed, results are the core's models (structured output), every result stays
under ``MAX_RESULT_CHARS`` of JSON and says when it cut something, and errors are tool errors
carrying the same messages as the HTTP API.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from typing import Annotated, Any, Literal, TextIO, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent
from mcp.types import Tool as MCPTool
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from turngraph.core.access import Tier, require_overwrite, tier_allows
from turngraph.core.database import Database
from turngraph.core.memory import Memory
from turngraph.errors import ForbiddenError, TurngraphError
from turngraph.mcp.made import register_made_tools
from turngraph.mcp.tools import Listed, register_more_tools
from turngraph.models import (
    AppendixFile,
    DeleteResult,
    RecallResult,
    RememberResult,
    State,
    TurnPage,
    WriteResult,
)
from turngraph.operations import mcp_tier
from turngraph.server.common import HTTPProblem, check_servable

MAX_RESULT_CHARS = 80_000  # a tool result's JSON stays under this (about 80 KB)
FILE_CHUNK = 60_000  # bytes of a file returned by one read_file call
T = TypeVar("T")

INSTRUCTIONS = """\
This server is a turngraph memory: what the agent and its users said and learned, as turns,
observations, and a graph of entities and relationships derived from them. Recall never
calls a language model; you do the synthesis.

Each turn: recall with the user's message (or the names in it) before you answer, then
remember both the user's message and your reply (role "user", then "assistant", same
session_id). When you write observations, reuse the entity names the neighborhoods in
write results show, give every entity a description, and add relationships: they are what
makes a recall return more than the note you already had. Results are bounded: when a recall
says it was truncated, narrow it with filters (category, tags, since/until, session_id,
entity) rather than asking for more, and fetch a snippet's full text with get_observation.
"""


class FileChunk(BaseModel):
    file: AppendixFile
    offset: int
    text: str | None = None  # UTF-8 files
    base64: str | None = None  # anything else
    truncated: bool = False
    note: str | None = None


def _fits(value: BaseModel) -> bool:
    return len(value.model_dump_json()) <= MAX_RESULT_CHARS


def _listed(items: list[Any], what: str) -> Listed:
    out = Listed(items=items)
    while not _fits(out) and out.items:
        out = Listed(
            items=out.items[: len(out.items) // 2],
            truncated=True,
            note=f"{what}: showing {len(out.items) // 2} of {len(items)} to stay under "
            f"{MAX_RESULT_CHARS} characters; narrow the request",
        )
    return out


def _bounded_recall(rc: RecallResult) -> RecallResult:
    """Recall is bounded by its ceilings; this only guards the tool-size limit."""
    while not _fits(rc) and (rc.hits or rc.snippets):
        rc = rc.model_copy(
            update={
                "hits": rc.hits[: max(len(rc.hits) // 2, 0)],
                "snippets": rc.snippets[: max(len(rc.snippets) // 2, 0)],
                "truncated": [*rc.truncated, "tool result size: hits and snippets halved"],
            }
        )
    return rc


def _call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a core call; its errors become tool errors with the same message."""
    try:
        return fn(*args, **kwargs)
    except TurngraphError as exc:
        raise _CoreError(exc) from None


Str = Annotated[str, Field(min_length=1)]
EntityIn = dict[str, Any]
RelationshipIn = dict[str, Any]


# The memory and tier of the current HTTP request (set by the gateway); a stdio or
# in-process server uses the ones it was built with.
_REQUEST: ContextVar[tuple[Memory, Tier] | None] = ContextVar("turngraph_mcp", default=None)


class _CoreError(ToolError):
    """A core error, carried to the client with its message unchanged and, as structured
    content, its class and fields (``{"error": "NotFoundError", "message": ..., ...}``)."""

    def __init__(self, error: TurngraphError) -> None:
        super().__init__(error.message)
        self.error = error


class MemoryServer(MCPServer):
    """An MCP server over one memory at one tier (or, behind the HTTP gateway, the memory
    and tier of the key that made the request)."""

    def __init__(self, memory: Memory | None, tier: Tier | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._bound = (memory, tier)
        self.needs: dict[str, Tier] = {}

    def bound(self) -> tuple[Memory, Tier]:
        current = _REQUEST.get()
        if current is not None:
            return current
        memory, tier = self._bound
        if memory is None or tier is None:
            raise ToolError("no memory is bound to this connection")
        return memory, tier

    async def list_tools(self) -> list[MCPTool]:
        _, tier = self.bound()
        return [t for t in await super().list_tools() if tier_allows(tier, self.needs[t.name])]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        _, tier = self.bound()
        needed = self.needs.get(name)
        if needed is not None and not tier_allows(tier, needed):
            refusal = ForbiddenError(
                f"tool {name!r} needs the {needed!r} tier; this connection holds {tier!r}",
                tool=name,
            )
            return _error(refusal.message, refusal.to_dict())
        try:
            result = await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, _CoreError):
                return _error(str(cause), cause.error.to_dict())
            raise
        # Lists and recall cut themselves to fit; anything else that still does not fit
        # (an observation near the hard content cap, say) is refused rather than sent.
        size = sum(len(c.text) for c in getattr(result, "content", []) if hasattr(c, "text"))
        if size > MAX_RESULT_CHARS:
            return _error(
                f"the result of {name!r} has {size} characters, over the limit of "
                f"{MAX_RESULT_CHARS}; narrow the request"
            )
        return result


def _error(message: str, structured: dict[str, Any] | None = None) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=message)],
        structured_content=structured,
        is_error=True,
    )


def build_server(
    memory: Memory | None = None, tier: Tier | None = None, *, name: str = "turngraph"
) -> MemoryServer:
    """An MCP server exposing ``memory`` with the tools ``tier`` allows (without them, the
    HTTP gateway supplies both per request)."""
    server = MemoryServer(memory, tier, name=name, instructions=INSTRUCTIONS)

    def tool(description: str) -> Callable[[Callable[..., Any]], Any]:
        """Register a tool; the tier it needs comes from the table of operations."""

        def register(fn: Callable[..., Any]) -> Any:
            server.needs[fn.__name__] = mcp_tier(fn.__name__)
            server.tool(description=description, structured_output=True)(fn)
            return fn

        return register

    def mem() -> Memory:
        return server.bound()[0]

    @tool(
        "Recall what the memory knows. With a query: entities first (reuse their exact names "
        "later), the relationships among them, ranked passages (turns, notes, facts) and one "
        "short snippet per source. Without a query: structural recall by the filters. If "
        "'truncated' is not empty, narrow with category, tags, since/until, session_id or "
        "entity instead of raising k; fetch a snippet's full text with get_observation.",
    )
    def recall(
        query: str | None = None,
        k: Annotated[int, Field(ge=1, le=50)] = 10,
        mode: Literal["hybrid", "lexical", "dense", "graph"] = "hybrid",
        session_id: str | None = None,
        category: str | None = None,
        tags: list[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        entity: str | None = None,
        as_of: str | None = None,
        labels: list[str] | None = None,
    ) -> RecallResult:
        return _bounded_recall(
            _call(
                lambda: mem().recall(
                    query,
                    k=k,
                    mode=mode,
                    session_id=session_id,
                    category=category,
                    tags=tags,
                    since=since,
                    until=until,
                    entity=entity,
                    as_of=as_of,
                    labels=labels,
                )
            )
        )

    @tool(
        "Remember one message of a conversation as a turn (role user, assistant, system or "
        "tool; the exact text is kept). Store both halves of every turn in the same "
        "session_id. Returns what it taught the memory: entities, attributes (with "
        "corrections when a value changed), relations, actions, instructions, uncertainties.",
    )
    def remember(
        text: Str,
        session_id: str | None = None,
        role: Literal["user", "assistant", "system", "tool"] = "user",
        speaker: str | None = None,
        labels: list[str] | None = None,
        idempotency_key: str | None = None,
    ) -> RememberResult:
        return _call(
            lambda: mem().remember(
                text,
                session_id=session_id,
                role=role,
                speaker=speaker,
                labels=labels or (),
                idempotency_key=idempotency_key,
            )
        )

    @tool(
        "Write an observation (title, content up to about 2,000 characters) with the entities "
        "it names (name, type, and always a description: it is how they are found) and "
        "relationships {source, type, target}. Reuse names from earlier results: the same "
        "name merges into the existing entity. The result shows each entity's neighborhood.",
    )
    def add_observation(
        title: Str,
        content: Str,
        category: str | None = None,
        tags: list[str] | None = None,
        entities: list[EntityIn] | None = None,
        relationships: list[RelationshipIn] | None = None,
        observed_at: str | None = None,
        source: str | None = None,
        idempotency_key: str | None = None,
    ) -> WriteResult:
        return _call(
            lambda: mem().add_observation(
                title=title,
                content=content,
                category=category,
                tags=tags,
                entities=entities,
                relationships=relationships,
                observed_at=observed_at,
                source=source,
                idempotency_key=idempotency_key,
            )
        )

    @tool(
        "Edit an observation by slug. Entity and relationship lists merge with what it has; "
        "remove explicitly with remove_entities / remove_relationships. A changed entity "
        "description returns review hints listing edges you may want to refresh.",
    )
    def update_observation(
        slug: Str,
        title: str | None = None,
        content: str | None = None,
        category: str | None = None,
        tags: list[str] | None = None,
        entities: list[EntityIn] | None = None,
        relationships: list[RelationshipIn] | None = None,
        remove_entities: list[str] | None = None,
        remove_relationships: list[RelationshipIn] | None = None,
    ) -> WriteResult:
        return _call(
            lambda: mem().update_observation(
                slug,
                title=title,
                content=content,
                category=category,
                tags=tags,
                entities=entities,
                relationships=relationships,
                remove_entities=remove_entities,
                remove_relationships=remove_relationships,
            )
        )

    @tool(
        "Delete an observation; entities and relationships only it backed are removed too.",
    )
    def delete_observation(slug: Str) -> DeleteResult:
        return _call(lambda: mem().delete_observation(slug))

    @tool(
        "What the memory knows now (or as_of a time): entities, attributes, relations and "
        "actions by category (identity, knowledge, context), instructions, unknowns.",
    )
    def state(as_of: str | None = None, limit: Annotated[int, Field(ge=1, le=500)] = 50) -> State:
        result = _call(mem().state, as_of, limit=limit)
        while not _fits(result) and limit > 1:
            limit //= 2
            result = _call(mem().state, as_of, limit=limit)
        return result

    @tool("A session's turns, oldest first; page with next_cursor.")
    def list_turns(
        session_id: Str,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
        cursor: str | None = None,
    ) -> TurnPage:
        page = _call(mem().list_turns, session_id, limit=limit, cursor=cursor)
        while not _fits(page) and limit > 1:
            limit //= 2
            page = _call(mem().list_turns, session_id, limit=limit, cursor=cursor)
        return page

    @tool(
        f"Read an appendix file by path, {FILE_CHUNK} bytes at a time from offset: text for "
        "UTF-8 files, base64 otherwise; 'truncated' says more follows.",
    )
    def read_file(path: Str, offset: Annotated[int, Field(ge=0)] = 0) -> FileChunk:
        found = _call(lambda: mem().get_file(path))
        chunk = found.data[offset : offset + FILE_CHUNK]
        more = offset + FILE_CHUNK < len(found.data)
        note = f"more from offset {offset + len(chunk)}" if more else None
        try:
            return FileChunk(
                file=found.file,
                offset=offset,
                text=chunk.decode("utf-8"),
                truncated=more,
                note=note,
            )
        except UnicodeDecodeError:
            return FileChunk(
                file=found.file,
                offset=offset,
                base64=base64.b64encode(chunk[: FILE_CHUNK * 3 // 4]).decode(),
                truncated=more,
                note=note,
            )

    @tool(
        "Store text as an appendix file (for sources too long for an observation); "
        "reference it from observations by path.",
    )
    def store_file(path: Str, text: str, description: Str, overwrite: bool = False) -> AppendixFile:
        def store() -> AppendixFile:
            if overwrite:  # read_write adds files; replacing one is full's
                require_overwrite(server.bound()[1])
            return mem().put_file(path, text, description=description, overwrite=overwrite)

        return _call(store)

    @tool("Merge proposals (open by default).")
    def list_proposals(
        status: Literal["open", "accepted", "rejected", "obsolete", "all"] = "open",
    ) -> Listed:
        proposals = _call(lambda: mem().list_proposals(None if status == "all" else status))
        return _listed([p.model_dump(mode="json") for p in proposals], "proposals")

    register_more_tools(tool, mem, _call, _listed)
    register_made_tools(tool, mem, _call, _listed)

    @server.prompt(description="How to use this memory on every turn of a conversation.")
    def turn_protocol() -> str:
        return INSTRUCTIONS

    return server


__all__ = ["MAX_RESULT_CHARS", "Gateway", "MemoryServer", "build_server"]


class Gateway:
    """``/mcp`` on the HTTP server: streamable HTTP (stateless, JSON responses), authenticated
    with the API's keys. The key's connection decides the memory (the ``X-Turngraph-Memory``
    header or ``?memory=`` picks one when the principal has several) and the tier."""

    def __init__(self, database: Callable[[], Database]) -> None:
        self.database = database
        self.server = build_server()
        self.app = self.server.streamable_http_app(
            streamable_http_path="/mcp", stateless_http=True, json_response=True
        )

    def session(self) -> AbstractAsyncContextManager[None]:
        """Run for the server's lifetime (the transport's task group)."""
        return self.server.session_manager.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        bound = await run_in_threadpool(self._bind, request)
        if isinstance(bound, _Refusal):
            response = await _jsonrpc_error(request, bound)
            await response(scope, receive, send)
            return
        token = _REQUEST.set(bound)
        try:
            await self.app(scope, receive, send)
        finally:
            _REQUEST.reset(token)

    def _bind(self, request: Request) -> tuple[Memory, Tier] | _Refusal:
        db = self.database()
        header = request.headers.get("authorization", "")
        scheme, _, key = header.partition(" ")
        caller = db.access.authenticate(key.strip() if scheme.lower() == "bearer" else None)
        if caller is None:
            return _Refusal(401, "a valid API key is required: send 'Authorization: Bearer <key>'")
        name = request.headers.get("x-turngraph-memory") or request.query_params.get("memory")
        if name is None:
            if caller.principal.admin:
                own = caller.principal.organization
                names = [m.name for m in db.store.list_memories() if m.organization == own]
                return _Refusal(
                    400,
                    "say which memory: an admin key reaches every memory of its organization; "
                    "send the header 'X-Turngraph-Memory: NAME' (or ?memory=NAME) with one of: "
                    f"{_names(names)}",
                )
            reachable = [g.memory for g in db.access.list_grants(caller.principal.id)]
            if not reachable:
                return _Refusal(
                    403,
                    f"this key's principal {caller.principal.id!r} is connected to no memory; "
                    f"an admin connects it with: turngraph grant {caller.principal.id} MEMORY",
                )
            if len(reachable) > 1:
                return _Refusal(
                    400,
                    f"say which memory: this key reaches {len(reachable)} memories; send the "
                    f"header 'X-Turngraph-Memory: NAME' with one of: {_names(reachable)}",
                )
            name = reachable[0]
        found = caller.reach(db.store, name)
        row, tier = (None, None) if found is None else found
        if row is None or (tier is None and row.organization != caller.principal.organization):
            # Another organization's memory is not disclosed: it reads as an unknown name.
            return _Refusal(404, f"no memory named {name!r}")
        if tier is None:
            return _Refusal(403, f"this key has no connection to memory {name!r}")
        memory = db.memory_of(row)  # the row just read: no second read
        try:
            check_servable(memory)
        except HTTPProblem as exc:
            return _Refusal(exc.status, exc.message)
        return memory, tier


class _Refusal:
    """Why ``/mcp`` turned a request away before any MCP exchange, with its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.message = message


def _names(names: list[str]) -> str:
    shown = ", ".join(sorted(names)[:10]) or "(none yet)"
    return shown + (f" and {len(names) - 10} more" if len(names) > 10 else "")


# JSON-RPC error codes: the reserved "invalid request" and a server-defined one for auth.
_INVALID_REQUEST = -32600
_UNAUTHORIZED = -32001


async def _jsonrpc_error(request: Request, refusal: _Refusal) -> JSONResponse:
    """A refusal as a JSON-RPC error (which MCP clients show) answering the request's id; the
    body also carries ``message`` like every other error of the server."""
    request_id: Any = None
    if request.method == "POST":
        try:
            payload = json.loads(await request.body())
        except (ValueError, RecursionError):  # not JSON, or nested too deep to parse
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("id"), str | int):
            request_id = payload["id"]
    code = _UNAUTHORIZED if refusal.status in (401, 403) else _INVALID_REQUEST
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": refusal.message},
        "message": refusal.message,
    }
    return JSONResponse(body, status_code=refusal.status)


def refuse_stdio(message: str, stdin: TextIO, stdout: TextIO) -> None:
    """Answer every request on an MCP stdio connection with ``message`` as a JSON-RPC error,
    until the client hangs up: how a server that could not start says why (a client shows
    the error; an exit alone reads as "connection closed")."""
    for line in stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if not isinstance(request, dict) or "id" not in request or "method" not in request:
            continue  # a notification or a response: nothing to answer
        error = {"code": _INVALID_REQUEST, "message": message}
        stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "error": error}) + "\n")
        stdout.flush()
