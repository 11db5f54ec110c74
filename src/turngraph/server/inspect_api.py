"""Graph API routes for looking into a memory (``/v1/...``, ``read`` tier): an entity's
neighborhood as a bounded graph (its query names the entity ``entity``). Sessions paged and
one turn with what it taught are routes made from the table of operations. The web
inspector at ``/ui`` reads through these and the other routes; they hold no rule of their own.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from turngraph.models import Neighborhood
from turngraph.operations import tier_of
from turngraph.server.common import CallerDep, DatabaseDep, bind, responses

router = APIRouter(prefix="/v1", tags=["graph API"])
_ERRS = responses(400, 401, 403, 404)


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
    return bind(db, caller, memory, tier_of("neighborhood"), bad_id=400).memory.neighborhood(
        entity, limit=limit
    )
