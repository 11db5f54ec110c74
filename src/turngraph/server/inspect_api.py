"""Graph API routes for looking into a memory (``/v1/...``, ``read`` tier): sessions paged,
one turn with what it taught, and an entity's neighborhood as a bounded graph. The web
inspector at ``/ui`` reads through these and the other routes; they hold no rule of their own.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from turngraph.models import Neighborhood, SessionPage, TurnDetail, TurnDetailPage
from turngraph.server.common import CallerDep, DatabaseDep, bind, responses

router = APIRouter(prefix="/v1", tags=["graph API"])
_ERRS = responses(400, 401, 403, 404)


@router.get("/memories/{memory}/sessions", response_model=SessionPage, responses=_ERRS)
def list_sessions(
    memory: str,
    db: DatabaseDep,
    caller: CallerDep,
    limit: Annotated[int, Query(ge=1)] = 50,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> SessionPage:
    """Sessions, newest first (``limit`` clamped to 200)."""
    b = bind(db, caller, memory, "read", bad_id=400)
    return b.memory.list_sessions(limit=limit, offset=offset)


@router.get("/memories/{memory}/turns/{turn_id}", response_model=TurnDetail, responses=_ERRS)
def get_turn(memory: str, turn_id: str, db: DatabaseDep, caller: CallerDep) -> TurnDetail:
    """One turn with the entities, relationships, attribute versions, corrections,
    actions, instructions and uncertainties it left in the memory."""
    return bind(db, caller, memory, "read", bad_id=400).memory.get_turn(turn_id)


@router.get(
    "/memories/{memory}/sessions/{session_id}/turn-details",
    response_model=TurnDetailPage,
    responses=_ERRS,
)
def list_turn_details(
    memory: str,
    session_id: str,
    db: DatabaseDep,
    caller: CallerDep,
    limit: Annotated[int, Query(ge=1)] = 20,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> TurnDetailPage:
    """A page of a session's turns, oldest first, each with what it taught (``limit``
    clamped to 100; page on with ``next_cursor``)."""
    b = bind(db, caller, memory, "read", bad_id=400)
    return b.memory.list_turn_details(session_id, limit=limit, cursor=cursor)


@router.get("/memories/{memory}/graph", response_model=Neighborhood, responses=_ERRS)
def neighborhood(
    memory: str,
    db: DatabaseDep,
    caller: CallerDep,
    entity: Annotated[str, Query(min_length=1, max_length=200)],
    limit: Annotated[int, Query(ge=1)] = 200,
) -> Neighborhood:
    """An entity and its neighbors as nodes and edges, at most ``limit`` (up to 500)
    relationships; ``note`` says when some were cut."""
    return bind(db, caller, memory, "read", bad_id=400).memory.neighborhood(entity, limit=limit)
