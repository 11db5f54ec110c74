"""The graph API (``/v1/...``): every operation of the embedded :class:`~turngraph.Memory`,
over HTTP, with the same names and the same result shapes (snake_case JSON).

This module holds the memories' routes and the operations' routes written by hand (a
request model that reshapes the core's arguments, a file body, a dry-run delete); every
other operation's route is made from the table of operations (``server/routes_made.py``),
and the tier of each comes from that table.

Tiers: ``read`` for recall and every read; ``read_write`` for remembering, adding
observations, storing files, consolidating and rejecting proposals; ``full`` for updates,
deletes, forget and accepting merges. ``Idempotency-Key`` on a write has the memory API's
semantics (server/idempotency.py): per memory and principal, kept 24 hours, the first answer
replayed, 409 for a different body or while the first is still in flight.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from turngraph.config import Limits
from turngraph.core.access import Caller, Tier, require_overwrite
from turngraph.core.validate import fingerprint
from turngraph.errors import ForbiddenError
from turngraph.models import (
    AppendixFile,
    BatchResult,
    DeleteResult,
    MemoryContext,
    MemoryInfo,
    MergeProposal,
    RecallResult,
    RememberResult,
    WriteResult,
)
from turngraph.operations import tier_of
from turngraph.recall.context import DEFAULT_TOKENS
from turngraph.recall.context import MAX_TOKENS as MAX_CONTEXT_TOKENS
from turngraph.server.common import (
    Bound,
    CallerDep,
    DatabaseDep,
    bind,
    database,
    responses,
)
from turngraph.server.idempotency import run_once

router = APIRouter(prefix="/v1", tags=["graph API"])
# Sizes every request model states: the core's own limits, so the two never disagree.
L = Limits()
IdempotencyKey = Annotated[
    str | None, Header(alias="Idempotency-Key", max_length=L.idempotency_key_chars)
]
ERRS = (400, 401, 403, 404)


def _ok(*codes: int) -> dict[int | str, dict[str, Any]]:
    return responses(*ERRS, *codes)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EntityIn(_In):
    name: str = Field(min_length=1, max_length=L.entity_name_chars)
    type: str = Field(default="other", max_length=L.entity_type_chars)
    description: str = Field(max_length=L.description_chars)
    retrieval_queries: list[str] | None = Field(
        default=None, max_length=L.retrieval_queries_per_entity
    )


class RelationshipIn(_In):
    source: str = Field(min_length=1, max_length=L.entity_name_chars)
    type: str = Field(min_length=1, max_length=L.relationship_type_chars)
    target: str = Field(min_length=1, max_length=L.entity_name_chars)
    description: str | None = Field(default=None, max_length=L.description_chars)
    weight: float | None = None


class RelationshipRefIn(_In):
    source: str = Field(min_length=1, max_length=L.entity_name_chars)
    type: str = Field(min_length=1, max_length=L.relationship_type_chars)
    target: str = Field(min_length=1, max_length=L.entity_name_chars)


class ObservationIn(_In):
    title: str
    content: str
    category: str | None = None
    tags: list[str] | None = None
    observed_at: str | None = None
    confidence: float | None = None
    source: str | None = None
    entities: list[EntityIn] | None = Field(default=None, max_length=L.entities_per_write)
    relationships: list[RelationshipIn] | None = Field(
        default=None, max_length=L.relationships_per_write
    )
    files: list[str] | None = Field(default=None, max_length=L.files_per_observation)


class ObservationPatch(_In):
    title: str | None = None
    content: str | None = None
    category: str | None = None
    tags: list[str] | None = None
    observed_at: str | None = None
    confidence: float | None = None
    source: str | None = None
    entities: list[EntityIn] | None = Field(default=None, max_length=L.entities_per_write)
    relationships: list[RelationshipIn] | None = Field(
        default=None, max_length=L.relationships_per_write
    )
    remove_entities: list[str] | None = Field(default=None, max_length=L.entities_per_write)
    remove_relationships: list[RelationshipRefIn] | None = Field(
        default=None, max_length=L.relationships_per_write
    )
    files: list[str] | None = Field(default=None, max_length=L.files_per_observation)
    remove_files: list[str] | None = Field(default=None, max_length=L.files_per_observation)


class RecallIn(_In):
    query: str | None = Field(default=None, max_length=L.query_chars)
    k: int = Field(default=10, ge=1)
    mode: Literal["hybrid", "lexical", "dense", "graph"] = "hybrid"
    include: tuple[Literal["entities", "passages"], ...] = ("entities", "passages")
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)
    category: str | None = Field(default=None, max_length=L.category_chars)
    tags: list[str] | None = Field(default=None, max_length=L.tags_per_observation)
    since: str | None = None
    until: str | None = None
    entity: str | None = Field(default=None, max_length=L.entity_name_chars)
    as_of: str | None = None
    labels: list[str] | None = Field(default=None, max_length=L.labels_per_turn)
    max_entities: int | None = Field(default=None, ge=1)
    max_relationships: int | None = Field(default=None, ge=1)
    max_snippets: int | None = Field(default=None, ge=1)


class TurnIn(_In):
    text: str | None = None
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)
    role: Literal["user", "assistant", "system", "tool"] = "user"
    speaker: str | None = Field(default=None, max_length=L.speaker_chars)
    infer: Literal["full", "triples", "preview", "none"] = "full"
    observed_at: str | None = None
    memory_category: Literal["identity", "knowledge", "context"] | None = None
    labels: list[str] = Field(default_factory=list, max_length=L.labels_per_turn)
    triples: list[dict[str, Any]] | None = Field(default=None, max_length=L.relationships_per_write)
    links: list[dict[str, Any]] | None = Field(default=None, max_length=L.relationships_per_write)


class MessageIn(_In):
    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str
    ts: str | None = None
    speaker: str | None = Field(default=None, max_length=L.speaker_chars)


class TurnsIn(_In):
    messages: list[MessageIn] = Field(min_length=1, max_length=L.messages_per_batch)
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)
    extract: Literal["per_message", "whole_conversation"] = "per_message"
    infer: Literal["full", "triples", "preview", "none"] = "full"
    labels: list[str] = Field(default_factory=list, max_length=L.labels_per_turn)


class SessionIn(_In):
    metadata: Any = None
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)


class ForgetIn(_In):
    query: str = Field(min_length=1, max_length=L.query_chars)
    purge: bool = False
    dry_run: bool = False


class MemoryIn(_In):
    name: str = Field(min_length=1, max_length=64)
    visibility: Literal["private", "organization"] = "private"
    retrieval: dict[str, Any] | None = None


class MemoryPatch(_In):
    visibility: Literal["private", "organization"] | None = None
    retrieval: dict[str, Any] | None = None


def _dump(items: list[Any] | None) -> list[dict[str, Any]] | None:
    return None if items is None else [i.model_dump(exclude_none=True) for i in items]


def _m(db: DatabaseDep, caller: CallerDep, name: str, tier: Tier) -> Bound:
    return bind(db, caller, name, tier, bad_id=400)


def _once(
    b: Bound,
    request: Request,
    key: str | None,
    operation: str,
    request_body: Any,
    write: Callable[[], BaseModel],
    *,
    status: int = 200,
) -> JSONResponse:
    """Run a write at most once per Idempotency-Key, with the memory API's semantics
    (server/idempotency.py): claimed per memory and principal, 24 hours, the stored answer
    replayed (``replayed: true``), 409 for another body or while the first is still in
    flight, the key released by a write that fails. The write also records the key with the
    memory (the embedded API's keys), so the same write sent embedded and over HTTP lands
    once."""
    return run_once(
        database(request).store,
        scope=f"{b.row.id}:{b.caller.principal.id}",
        key=key,
        fp=fingerprint(f"graph:{operation}", {"body": request_body}),
        timeout_seconds=float(request.app.state.settings.request_timeout_seconds),
        write=lambda: (status, write().model_dump(mode="json")),
        memory=b.memory.name,
        replayed=_mark_replayed,
    )


def _mark_replayed(body: Any) -> Any:
    return {**body, "replayed": True} if isinstance(body, dict) and "replayed" in body else body


# -- memories ------------------------------------------------------------------------------


@router.post("/memories", status_code=201, response_model=MemoryInfo, responses=_ok(409))
def create_memory(body: MemoryIn, db: DatabaseDep, caller: CallerDep) -> MemoryInfo:
    """Create a memory in the caller's organization; the caller gets the ``full`` tier on it.
    Its retrieval configuration is validated in full (the embedder loads, its dimension
    matches) and fixed from now on. An admin right, unless an admin let the caller create
    memories; organization visibility is for an admin to set."""
    if not caller.may_create_memories:
        raise ForbiddenError(
            "creating memories needs an admin key, or an admin's leave "
            "(PATCH /v1/admin/principals/{id} with create_memories)"
        )
    _check_visibility(caller, body.visibility, body.name)
    memory = db.create_memory(
        body.name,
        visibility=body.visibility,
        retrieval=body.retrieval,
        organization=caller.principal.organization,
    )
    row = db.store.get_memory(memory.name, organization=caller.principal.organization)
    assert row is not None
    if not caller.principal.admin:
        db.access.grant(caller.principal.id, row, "full")
    return memory.info().model_copy(update={"tier": "full"})


def _check_visibility(caller: Caller, visibility: str, memory: str) -> None:
    """Opening a memory to a whole organization is for an admin to decide."""
    if visibility == "organization" and not caller.principal.admin:
        raise ForbiddenError(
            "only an admin may give a memory organization visibility",
            memory=memory,
            field="visibility",
        )


@router.get("/memories", response_model=list[MemoryInfo], responses=_ok())
def list_memories(db: DatabaseDep, caller: CallerDep) -> list[MemoryInfo]:
    """The memories the caller can reach, with its tier on each."""
    rows = db.store.list_memories()
    own = caller.principal.organization
    taken = {row.name for row in rows if row.organization == own}
    out = []
    for row in rows:
        tier = caller.tier_on(db.store, row)
        if tier is None or (row.organization != own and row.name in taken):
            continue  # no access, or its name means the caller's own organization's memory
        try:
            info = db.memory_of(row).info()
        except ValueError:  # a stored configuration that no longer parses: refused on use
            continue
        out.append(info.model_copy(update={"tier": tier}))
    return out


@router.get("/memories/{memory}", response_model=MemoryInfo, responses=_ok())
def memory_info(memory: str, db: DatabaseDep, caller: CallerDep) -> MemoryInfo:
    """A memory's settings, fixed retrieval configuration and counts."""
    b = _m(db, caller, memory, tier_of("info"))
    return b.memory.info().model_copy(update={"tier": b.tier})


@router.patch("/memories/{memory}", response_model=MemoryInfo, responses=_ok(409))
def update_memory(memory: str, body: MemoryPatch, db: DatabaseDep, caller: CallerDep) -> MemoryInfo:
    """Change visibility. A different retrieval configuration is refused (409)."""
    b = _m(db, caller, memory, "full")
    if body.visibility is not None:
        _check_visibility(caller, body.visibility, memory)
    info = db.update_memory(
        memory,
        visibility=body.visibility,
        retrieval=body.retrieval,
        organization=b.row.organization,
    )
    return info.model_copy(update={"tier": b.tier})


@router.delete("/memories/{memory}", status_code=204, responses=_ok())
def delete_memory(memory: str, db: DatabaseDep, caller: CallerDep) -> Response:
    """Delete a memory and everything in it (admin only)."""
    b = _m(db, caller, memory, "full")
    if not caller.principal.admin:
        raise ForbiddenError("only an admin may delete a whole memory", memory=memory)
    db.delete_memory(memory, organization=b.row.organization)
    return Response(status_code=204)


# -- observations ---------------------------------------------------------------------------


@router.post(
    "/memories/{memory}/observations",
    status_code=201,
    response_model=WriteResult,
    responses=_ok(409, 413),
)
def add_observation(
    memory: str,
    body: ObservationIn,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Write one observation with the entities and relationships it names."""
    b = _m(db, caller, memory, tier_of("add_observation"))
    fields = body.model_dump(exclude={"entities", "relationships"})
    return _once(
        b,
        request,
        idempotency_key,
        "add_observation",
        body.model_dump(mode="json"),
        lambda: b.memory.add_observation(
            **fields,
            entities=_dump(body.entities),
            relationships=_dump(body.relationships),
            idempotency_key=idempotency_key,
        ),
        status=201,
    )


@router.patch(
    "/memories/{memory}/observations/{slug}", response_model=WriteResult, responses=_ok(409, 413)
)
def update_observation(
    memory: str,
    slug: str,
    body: ObservationPatch,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Edit an observation; entity and relationship lists merge, removal is explicit."""
    b = _m(db, caller, memory, tier_of("update_observation"))
    fields = body.model_dump(
        exclude={"entities", "relationships", "remove_relationships"}, exclude_unset=True
    )
    return _once(
        b,
        request,
        idempotency_key,
        "update_observation",
        {"slug": slug, **body.model_dump(mode="json", exclude_unset=True)},
        lambda: b.memory.update_observation(
            slug,
            **fields,
            entities=_dump(body.entities),
            relationships=_dump(body.relationships),
            remove_relationships=_dump(body.remove_relationships),
            idempotency_key=idempotency_key,
        ),
    )


@router.delete(
    "/memories/{memory}/observations/{slug}", response_model=DeleteResult, responses=_ok(409)
)
def delete_observation(
    memory: str,
    slug: str,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
    dry_run: bool = False,
) -> Any:
    """Delete an observation and prune what only it backed. With ``dry_run`` the result
    says what would go, and nothing is deleted."""
    b = _m(db, caller, memory, tier_of("delete_observation"))
    if dry_run:
        return b.memory.preview_delete_observation(slug)
    return _once(
        b,
        request,
        idempotency_key,
        "delete_observation",
        {"slug": slug},
        lambda: b.memory.delete_observation(slug, idempotency_key=idempotency_key),
    )


# -- recall ---------------------------------------------------------------------------------


@router.post("/memories/{memory}/recall", response_model=RecallResult, responses=_ok())
def recall(memory: str, body: RecallIn, db: DatabaseDep, caller: CallerDep) -> RecallResult:
    """Semantic recall (with ``query``) or structural recall (filters only), bounded."""
    b = _m(db, caller, memory, tier_of("recall"))
    return b.memory.recall(body.query, **body.model_dump(exclude={"query"}))


@router.post("/memories/{memory}/context", response_model=MemoryContext, responses=_ok())
def context(
    memory: str,
    db: DatabaseDep,
    caller: CallerDep,
    query: Annotated[str, Body(embed=True, min_length=1, max_length=L.query_chars)],
    session_id: Annotated[str | None, Body(embed=True, max_length=L.session_id_chars)] = None,
    k: Annotated[int, Body(embed=True, ge=1)] = 10,
    max_tokens: Annotated[int, Body(embed=True, ge=1, le=MAX_CONTEXT_TOKENS)] = DEFAULT_TOKENS,
) -> MemoryContext:
    """The context payload for a message: standing instructions, current facts about the
    people it concerns, the passages recall finds, labelled in ``text`` and within
    ``max_tokens``."""
    b = _m(db, caller, memory, tier_of("context"))
    return b.memory.context(query, session_id=session_id, k=k, max_tokens=max_tokens)


# -- entities -------------------------------------------------------------------------------


# -- turns and sessions ---------------------------------------------------------------------


@router.post(
    "/memories/{memory}/turns", response_model=RememberResult, responses=_ok(409, 413, 502)
)
def remember(
    memory: str,
    body: TurnIn,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Remember one message as a turn and return what it taught the memory."""
    b = _m(db, caller, memory, tier_of("remember"))
    return _once(
        b,
        request,
        idempotency_key,
        "remember",
        body.model_dump(mode="json"),
        lambda: b.memory.remember(**body.model_dump(), idempotency_key=idempotency_key),
    )


@router.post(
    "/memories/{memory}/turns/batch", response_model=BatchResult, responses=_ok(409, 413, 502)
)
def remember_many(
    memory: str,
    body: TurnsIn,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Remember several messages, in order, as turns of one session, atomically."""
    b = _m(db, caller, memory, tier_of("remember_many"))
    fields = body.model_dump(exclude={"messages"})
    messages = [m.model_dump(exclude_none=True) for m in body.messages]
    return _once(
        b,
        request,
        idempotency_key,
        "remember_many",
        body.model_dump(mode="json"),
        lambda: b.memory.remember_many(messages, **fields, idempotency_key=idempotency_key),
    )


@router.delete("/memories/{memory}/sessions/{session_id}", responses=_ok())
def delete_session(
    memory: str, session_id: str, db: DatabaseDep, caller: CallerDep
) -> dict[str, int]:
    """Delete a session with its turns and what only they taught."""
    return {
        "deleted_turns": _m(db, caller, memory, tier_of("delete_session")).memory.delete_session(
            session_id
        )
    }


# -- files ----------------------------------------------------------------------------------


@router.put(
    "/memories/{memory}/files/{path:path}",
    status_code=201,
    response_model=AppendixFile,
    responses=_ok(409, 413),
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/octet-stream": {"schema": {"type": "string"}}},
        }
    },
)
async def put_file(
    memory: str,
    path: str,
    request: Request,
    db: DatabaseDep,
    caller: CallerDep,
    description: Annotated[str, Query(min_length=1, max_length=L.file_description_chars)],
    overwrite: bool = False,
) -> AppendixFile:
    """Store the request body as an appendix file; its Content-Type is kept."""
    data = await request.body()
    kind = request.headers.get("content-type") or "application/octet-stream"
    b = await run_in_threadpool(_m, db, caller, memory, tier_of("put_file"))
    if overwrite:
        require_overwrite(b.tier)
    return await run_in_threadpool(
        lambda: b.memory.put_file(
            path,
            data,
            description=description,
            created_by=caller.principal.id,
            content_type=kind.split(";")[0].strip(),
            overwrite=overwrite,
        )
    )


@router.get(
    "/memories/{memory}/files/{path:path}",
    responses={200: {"content": {"application/octet-stream": {}}}, **_ok()},
    response_class=Response,
)
def get_file(memory: str, path: str, db: DatabaseDep, caller: CallerDep) -> Response:
    """The file's bytes with its content type; ``X-File-Meta`` holds the file's record
    (path, description, size, sha256, ...) as ASCII JSON."""
    found = _m(db, caller, memory, tier_of("get_file")).memory.get_file(path)
    meta = json.dumps(found.file.model_dump(mode="json"), ensure_ascii=True)
    return Response(found.data, media_type=found.file.content_type, headers={"X-File-Meta": meta})


# -- consolidation --------------------------------------------------------------------------


@router.get("/memories/{memory}/proposals", response_model=list[MergeProposal], responses=_ok())
def list_proposals(
    memory: str,
    db: DatabaseDep,
    caller: CallerDep,
    status: Literal["open", "accepted", "rejected", "obsolete", "all"] = "open",
    limit: Annotated[int | None, Query(ge=1, le=1000)] = None,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[MergeProposal]:
    """Merge proposals by status, oldest first: all of them, or a page with ``limit``."""
    b = _m(db, caller, memory, tier_of("list_proposals"))
    return b.memory.list_proposals(None if status == "all" else status, limit=limit, offset=offset)
