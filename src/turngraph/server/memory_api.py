"""The memory API (``/api/v1/{context}/...``): the contract the official ``surrealdb-memory``
client speaks, on the turngraph core. A context is a memory. Requests of ``/facts`` are
snake_case, the others camelCase; every response is camelCase. An empty body means ``{}``."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.responses import JSONResponse

from turngraph.core.access import TIERS
from turngraph.core.validate import fingerprint
from turngraph.errors import NotFoundError
from turngraph.models import AttributeVersion, Extraction, StateEntity, StateRelation
from turngraph.server.common import (
    Bound,
    CallerDep,
    DatabaseDep,
    HTTPProblem,
    bind,
    principal_header,
    responses,
)
from turngraph.server.idempotency import run_once
from turngraph.server.wire import (
    BatchRequest,
    BatchResponse,
    ChatRequest,
    ConsolidateRequest,
    ConsolidateResponse,
    ContextOut,
    ContextRequest,
    EntitiesResponse,
    EntityResponse,
    FactsRequest,
    FactsResponse,
    ForgetRequest,
    ForgetResponse,
    HistoryResponse,
    QueryRequest,
    QueryResponse,
    SessionOut,
    SessionRequest,
    StateResponse,
    TurnsResponse,
    WhoAmI,
    camel,
    camel_model,
)

router = APIRouter(prefix="/api/v1", tags=["memory API"])
MODES = {"hybrid": "hybrid", "vector": "dense", "bm25": "lexical", "graph": "graph"}
VERBS = {
    "read": ["memory:read"],
    "read_write": ["memory:read", "memory:write"],
    "full": ["memory:read", "memory:write", "memory:forget"],
}
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key")]
COMMON = (400, 401, 403, 404, 422)


def ok(model: type[Any], *codes: int, status: int = 200) -> dict[int | str, dict[str, Any]]:
    """OpenAPI responses of a route: its success model and its error statuses."""
    return {status: {"model": model}, **responses(*COMMON, *codes)}


def _timeout(request: Request) -> float:
    return float(request.app.state.settings.request_timeout_seconds)


def _extraction(extraction: Extraction) -> dict[str, Any]:
    return camel_model(extraction)


def _entity(e: StateEntity) -> dict[str, Any]:
    out = camel_model(e)
    out["importance"] = 1.0
    return out


def _attribute(a: AttributeVersion) -> dict[str, Any]:
    out = camel_model(a)
    out["entityName"] = out["entity"]
    out["entity"] = a.entity_id  # the wire's "entity" is the ref
    out["importance"] = 1.0
    out["source"] = {"kind": "turn", "ref": a.source_turn} if a.source_turn else {"kind": "upsert"}
    return out


def _relation(r: StateRelation) -> dict[str, Any]:
    return camel_model(r)


def _scope(bound: Bound) -> str:
    return f"{bound.row.id}:{bound.caller.principal.id}"


@router.get("/health", tags=["memory API"])
def health() -> dict[str, str]:
    """Liveness; needs no key."""
    return {"status": "ok"}


@router.post("/{context}/facts", responses=ok(FactsResponse, 409, 413, 502))
def remember(
    context: str,
    body: FactsRequest,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Remember one turn (``remember``)."""
    bound = bind(db, caller, context, "read_write")
    if body.text is None and body.infer != "triples":
        raise HTTPProblem(400, "text is required (unless infer is 'triples')", field="text")

    def write() -> tuple[int, Any]:
        r = bound.memory.remember(
            body.text,
            session_id=body.session_id,
            role=body.role,
            speaker=body.speaker,
            infer=body.infer,
            observed_at=body.observed_at,
            memory_category=body.memory_category,
            labels=body.labels,
            triples=None if body.triples is None else [t.model_dump() for t in body.triples],
        )
        return 200, {
            "mode": r.mode,
            "sessionId": r.session_id,
            "turnId": r.turn_id,
            "chunkId": r.turn_id,
            "preview": r.preview,
            "extraction": _extraction(r.extraction),
        }

    return run_once(
        db.store,
        scope=_scope(bound),
        key=idempotency_key,
        fp=fingerprint("facts", body.model_dump(mode="json")),
        timeout_seconds=_timeout(request),
        write=write,
        memory=bound.memory.name,
    )


@router.post(
    "/{context}/facts/batch",
    responses=ok(BatchResponse, 409, 413, 502),
)
def remember_many(
    context: str,
    body: BatchRequest,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    """Remember several turns of one session, in order, atomically (``remember_many``)."""
    bound = bind(db, caller, context, "read_write")

    def write() -> tuple[int, Any]:
        r = bound.memory.remember_many(
            [m.model_dump(exclude_none=True) for m in body.messages],
            session_id=body.session_id,
            extract=body.extract or "per_message",
            infer=body.infer,
            labels=body.labels,
        )
        return 200, {
            "sessionId": r.session_id,
            "turnIds": r.turn_ids,
            "extractions": [_extraction(e) for e in r.extractions],
        }

    return run_once(
        db.store,
        scope=_scope(bound),
        key=idempotency_key,
        fp=fingerprint("facts/batch", body.model_dump(mode="json")),
        timeout_seconds=_timeout(request),
        write=write,
        memory=bound.memory.name,
    )


@router.post("/{context}/query", responses=ok(QueryResponse))
def query(context: str, body: QueryRequest, db: DatabaseDep, caller: CallerDep) -> Any:
    """Recall (``recall``): turns, observations and attribute facts, best first."""
    bound = bind(db, caller, context, "read")
    include = set(body.include or ("facts", "passages"))
    rc = bound.memory.recall(
        body.query,
        k=body.k,
        mode=MODES[body.mode],
        session_id=body.session_id,
        as_of=body.as_of,
        since=body.valid_from,
        until=body.valid_until,
        labels=body.labels,
    )
    hits = []
    for hit in rc.hits:
        if hit.kind == "attribute" and "facts" not in include:
            continue
        if hit.kind != "attribute" and "passages" not in include:
            continue
        source = {"turn": "turn", "observation": "memory_chunk"}.get(hit.kind, hit.kind)
        hits.append(
            {
                "id": hit.id,
                "score": hit.score,
                "source": source,
                "text": hit.text,
                "observedAt": hit.observed_at.isoformat(),
                "sessionId": hit.source.session_id,
                "slug": hit.source.slug,
            }
        )
    hits = hits[: body.k]
    return {
        "hits": hits,
        "tier": "hybrid",
        "queryMs": round(rc.took_ms, 3),
        "classificationKind": "hybrid",
        "seedEntities": [e.name for e in rc.entities],
        "trace": {
            "traceId": "",
            "resolutionTier": "hybrid",
            "tierReason": f"{rc.mode} recall, no language model",
            "latencyMs": round(rc.took_ms, 3),
            "retrievedCount": len(hits),
            "topScores": [h["score"] for h in hits[:5]],
        },
        "truncated": rc.truncated,
    }


@router.post("/{context}/forget", responses=ok(ForgetResponse))
def forget(context: str, body: ForgetRequest, db: DatabaseDep, caller: CallerDep) -> Any:
    """Forget every observation whose text holds all the words of the query (full tier)."""
    bound = bind(db, caller, context, "full")
    r = bound.memory.forget(body.query, purge=body.purge, dry_run=body.dry_run)
    return {"deleted": r.deleted, "dryRun": r.dry_run, "observations": r.observations}


@router.get("/{context}/state", responses=ok(StateResponse))
def state(
    context: str,
    db: DatabaseDep,
    caller: CallerDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    as_of: Annotated[str | None, Query(alias="asOf")] = None,
) -> Any:
    """Current entities, attributes and relations by category, instructions, unknowns."""
    bound = bind(db, caller, context, "read")
    s = bound.memory.state(as_of, limit=limit)
    out: dict[str, Any] = {}
    for name in ("identity", "knowledge", "context"):
        group = getattr(s, name)
        out[name] = {
            "entities": [_entity(e) for e in group.entities],
            "attributes": [_attribute(a) for a in group.attributes],
            "relations": [_relation(r) for r in group.relations],
            "actions": camel([a.model_dump(mode="json") for a in group.actions]),
        }
    out["instructions"] = camel([i.model_dump(mode="json") for i in s.instructions])
    out["unknowns"] = camel([u.model_dump(mode="json") for u in s.unknowns])
    out["truncated"] = s.truncated.model_dump()
    return out


@router.post(
    "/{context}/sessions",
    status_code=201,
    responses=ok(SessionOut, status=201),
)
def create_session(
    context: str, db: DatabaseDep, caller: CallerDep, body: SessionRequest | None = None
) -> Any:
    """Start a session (``sessions.create``); metadata is kept as given."""
    bound = bind(db, caller, context, "read_write")
    body = body or SessionRequest()
    session = bound.memory.create_session(body.metadata)
    return {
        "id": session.id,
        "createdAt": session.created_at.isoformat(),
        "scopes": body.scopes or [],
        "metadata": session.metadata,
    }


@router.delete("/{context}/sessions/{session_id}", status_code=204, responses=responses(*COMMON))
def delete_session(context: str, session_id: str, db: DatabaseDep, caller: CallerDep) -> Response:
    """Delete a session and its turns, and what only they taught (full tier)."""
    bound = bind(db, caller, context, "full")
    bound.memory.delete_session(session_id)
    return Response(status_code=204)


@router.post(
    "/{context}/sessions/{session_id}/context",
    responses=ok(ContextOut),
)
def session_context(
    context: str, session_id: str, body: ContextRequest, db: DatabaseDep, caller: CallerDep
) -> Any:
    """The context payload for a message, its passages from one session: standing
    instructions, current facts, passages, within ``maxTokens``."""
    bound = bind(db, caller, context, "read")
    bound.memory.get_session(session_id)
    ctx = bound.memory.context(
        body.query, session_id=session_id, k=body.k, max_tokens=body.max_tokens
    )
    return {
        "context": ctx.text,
        "instructions": camel([i.model_dump(mode="json") for i in ctx.instructions]),
        "facts": camel([f.model_dump(mode="json") for f in ctx.facts]),
        "cut": ctx.cut,
        "tokens": ctx.tokens,
    }


@router.get(
    "/{context}/sessions/{session_id}/turns",
    responses=ok(TurnsResponse),
)
def session_turns(
    context: str,
    session_id: str,
    db: DatabaseDep,
    caller: CallerDep,
    limit: Annotated[int, Query(ge=1)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> Any:
    """A session's turns, oldest first (``limit`` clamped to 500; ``offset`` or ``cursor``)."""
    bound = bind(db, caller, context, "read")
    page = bound.memory.list_turns(session_id, limit=limit, offset=offset, cursor=cursor)
    return {
        "turns": [
            {
                "id": t.id,
                "session": t.session_id,
                "role": t.role,
                "content": t.content,
                "seq": t.seq,
                "createdAt": t.created_at.isoformat(),
                "observedAt": t.observed_at.isoformat(),
                "speaker": t.speaker,
                "labels": t.labels,
            }
            for t in page.turns
        ],
        "page": {"hasMore": page.has_more, "nextCursor": page.next_cursor},
    }


@router.get("/{context}/entities", responses=ok(EntitiesResponse))
def list_entities(
    context: str,
    db: DatabaseDep,
    caller: CallerDep,
    type: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 500,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> Any:
    """Entities ordered by type then name."""
    bound = bind(db, caller, context, "read")
    rows = bound.memory.entity_states(type, limit=limit, offset=offset)
    return {"entities": [_entity(e) for e in rows]}


@router.get(
    "/{context}/entities/{entity_type}/{name:path}/history/{key}",
    responses=ok(HistoryResponse),
)
def entity_history(
    context: str, entity_type: str, name: str, key: str, db: DatabaseDep, caller: CallerDep
) -> Any:
    """Every version of one attribute, oldest first (empty for an unknown entity)."""
    bound = bind(db, caller, context, "read")
    try:
        history = bound.memory.entity_history(entity_type, name, key)
    except NotFoundError:
        history = []
    return {"history": [_attribute(a) for a in history]}


@router.get(
    "/{context}/entities/{entity_type}/{name:path}",
    responses=ok(EntityResponse),
)
def get_entity(
    context: str, entity_type: str, name: str, db: DatabaseDep, caller: CallerDep
) -> Any:
    """One entity with its current attributes and relations."""
    bound = bind(db, caller, context, "read")
    es = bound.memory.entity_state(entity_type, name)
    return {
        "entity": _entity(es.entity),
        "attributes": [_attribute(a) for a in es.attributes],
        "relations": [_relation(r) for r in es.relations],
    }


@router.delete(
    "/{context}/entities/{entity_type}/{name:path}", status_code=204, responses=responses(*COMMON)
)
def delete_entity(
    context: str, entity_type: str, name: str, db: DatabaseDep, caller: CallerDep
) -> Response:
    """Remove an entity with its attributes and relations; the turns stay (full tier)."""
    bound = bind(db, caller, context, "full")
    bound.memory.delete_entity(name, entity_type)
    return Response(status_code=204)


@router.post("/{context}/chat", responses=responses(*COMMON, 409, 413, 502))
def chat(
    context: str,
    body: ChatRequest,
    db: DatabaseDep,
    caller: CallerDep,
    request: Request,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """The managed chat loop (:meth:`turngraph.Memory.chat`): the message stored as the
    user's turn, the memory's context given to the configured chat model
    (``TURNGRAPH_LLM_*``, or ``model``), the reply stored and returned. With ``stream`` the
    reply comes as server-sent events: one ``delta`` with the whole reply, then ``[DONE]``.
    A model that fails answers 502 naming the stored turn; nothing is made up. With an
    ``Idempotency-Key`` a retry answers the first reply and asks the model nothing."""
    bound = bind(db, caller, context, "read_write")
    trace = getattr(request.state, "trace_id", "")

    def write() -> tuple[int, Any]:
        done = bound.memory.chat(
            body.message, session_id=body.session_id, model=body.model, labels=body.labels
        )
        return 200, {
            "reply": done.reply,
            "sessionId": done.session_id,
            "traceId": trace,
            "turnId": done.turn_id,
            "replyTurnId": done.reply_turn_id,
            "model": done.model,
            "memoryUpdates": _extraction(done.memory_updates),
            "citations": [
                {"id": h.id, "kind": h.kind, "text": h.text[:280]} for h in done.context.passages
            ],
        }

    answered = run_once(
        db.store,
        scope=_scope(bound),
        key=idempotency_key,
        fp=fingerprint("chat", body.model_dump(mode="json", exclude={"stream"})),
        timeout_seconds=_timeout(request),
        write=write,
        memory=bound.memory.name,
    )
    if not body.stream or answered.status_code != 200:
        return answered
    answer = json.loads(bytes(answered.body))
    frames = [
        {"delta": answer["reply"], "sessionId": answer["sessionId"], "traceId": trace},
        {**answer, "done": True},
    ]
    text = "".join(f"data: {json.dumps(f)}\n\n" for f in frames) + "data: [DONE]\n\n"
    return Response(text, media_type="text/event-stream")


@router.post("/{context}/consolidate", responses=ok(ConsolidateResponse))
def consolidate(
    context: str, db: DatabaseDep, caller: CallerDep, body: ConsolidateRequest | None = None
) -> Any:
    """Propose entity merges (never applied until accepted). With ``dryRun`` the open
    proposals are listed and nothing new is recorded."""
    bound = bind(db, caller, context, "read_write")
    body = body or ConsolidateRequest()
    proposals = bound.memory.list_proposals("open") if body.dry_run else bound.memory.consolidate()
    return {
        "created": 0 if body.dry_run else len(proposals),
        "updated": 0,
        "superseded": 0,
        "dryRun": body.dry_run,
        "traceId": "",
        "outcomes": [
            {
                "kind": "create",
                "entityName": p.canonical,
                "key": "same_as",
                "value": p.duplicate,
                "proofCount": len(p.reasons),
                "observationId": None,
                "rationale": "; ".join(p.reasons),
                "proposalId": p.id,
            }
            for p in proposals
        ],
    }


@router.get("/{context}/me", responses=ok(WhoAmI))
def whoami(context: str, request: Request, db: DatabaseDep, caller: CallerDep) -> Any:
    """The calling principal and what its connection to this memory allows."""
    bound = bind(db, caller, context, "read")
    grants = {verb: ["/*"] for verb in VERBS[bound.tier]}
    p = caller.principal
    return {
        "principalId": p.id,
        "displayName": p.display_name,
        "kind": p.kind,
        "organization": p.organization,
        "tier": bound.tier,
        "tiers": list(TIERS),
        "grants": grants,
        "effectiveGrants": grants,
        "delegatedPrincipalId": principal_header(request),
        "tokenGrants": None,
        "enforce": True,
    }
