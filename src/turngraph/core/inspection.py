"""Reads for looking into a memory (the inspector and anyone else): sessions paged, one turn
with what its extraction left behind, an entity's neighborhood as a bounded graph, and the
preview of an observation's delete."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from turngraph.config import Limits
from turngraph.core import graph
from turngraph.core.sessions import to_session, to_turn
from turngraph.core.state import to_version
from turngraph.core.validate import normalize_name, page_bounds, required_text
from turngraph.errors import NotFoundError
from turngraph.models import (
    Correction,
    DeleteResult,
    ExtractedAction,
    GraphEdge,
    GraphNode,
    Instruction,
    Neighborhood,
    SessionPage,
    TurnDetail,
    TurnDetailPage,
    TurnPage,
    Uncertainty,
)
from turngraph.store.base import EntityRow, ObservationRow, ReadTx, Store, WriteTx

MAX_SESSION_PAGE = 200
MAX_GRAPH_EDGES = 500
MAX_DETAIL_PAGE = 100


class _Discard(Exception):
    """Raised inside a preview's transaction to roll it back."""


def to_node(e: EntityRow) -> GraphNode:
    return GraphNode(name=e.name, type=e.type, description=e.description, degree=e.degree)


class InspectOps:
    """The inspection reads of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _limits: Limits

    if TYPE_CHECKING:  # provided by Memory

        def _delete_in_tx(
            self, tx: WriteTx, row: ObservationRow, now: datetime
        ) -> DeleteResult: ...
        def _slug(self, slug: object) -> str: ...
        def _observation_row(self, tx: ReadTx, slug: str) -> ObservationRow: ...
        def list_turns(
            self, session_id: str, *, limit: int = 100, cursor: str | None = None, offset: int = 0
        ) -> TurnPage: ...

    def list_sessions(self, *, limit: int = 50, offset: int = 0) -> SessionPage:
        """Sessions, newest first; ``limit`` at most 200."""
        limit, offset = page_bounds(limit, offset, maximum=MAX_SESSION_PAGE)
        with self._store.read(self._id) as tx:
            rows = tx.list_sessions(offset=offset, limit=limit + 1)
        return SessionPage(
            sessions=[to_session(r) for r in rows[:limit]], has_more=len(rows) > limit
        )

    def get_turn(self, turn_id: str) -> TurnDetail:
        """One turn with what it taught the memory, as the memory holds it now (a version
        it set that was later superseded is still listed, with its ``valid_until``)."""
        turn_id = required_text(turn_id, field="turn_id", limit=200)
        with self._store.read(self._id) as tx:
            row = tx.get_turn(turn_id)
            if row is None:
                raise NotFoundError(
                    f"no turn {turn_id!r} in memory {self.name!r}", memory=self.name, turn=turn_id
                )
            links = tx.observation_links(row.observation_id)
            entities = tx.get_entities([link.entity_id for link in links])
            rels = tx.get_relationships(tx.observation_relationship_ids(row.observation_id))
            attrs = tx.attributes_for_observations([row.observation_id])
            corrections = []
            for a in attrs:
                if a.supersedes is None:
                    continue
                older = {v.id: v for v in tx.attribute_history(a.entity_id, a.key)}
                old = older.get(a.supersedes)
                if old is not None and old.value != a.value:
                    corrections.append(
                        Correction(
                            entity_id=to_version(a).entity_id,
                            key=a.key,
                            old_value=old.value,
                            new_value=a.value,
                        )
                    )
            facts = tx.facts_for_observation(row.observation_id)
        by_kind: dict[str, list[str]] = {"action": [], "instruction": [], "uncertainty": []}
        for f in facts:
            by_kind.setdefault(f.kind, []).append(f.data)
        return TurnDetail(
            turn=to_turn(row),
            entities=[
                to_node(entities[link.entity_id]) for link in links if link.entity_id in entities
            ],
            relationships=[graph.to_relationship(r) for r in rels],
            attributes=[to_version(a) for a in attrs],
            corrections=corrections,
            actions=[ExtractedAction.model_validate(json.loads(d)) for d in by_kind["action"]],
            instructions=[
                Instruction.model_validate(json.loads(d)) for d in by_kind["instruction"]
            ],
            uncertainties=[
                Uncertainty.model_validate(json.loads(d)) for d in by_kind["uncertainty"]
            ],
        )

    def list_turn_details(
        self, session_id: str, *, limit: int = 20, cursor: str | None = None
    ) -> TurnDetailPage:
        """A page of a session's turns (as :meth:`list_turns`, ``limit`` at most 100), each
        with what it taught (as :meth:`get_turn`)."""
        limit, _ = page_bounds(limit, 0, maximum=MAX_DETAIL_PAGE)
        page = self.list_turns(session_id, limit=limit, cursor=cursor)
        return TurnDetailPage(
            turns=[self.get_turn(t.id) for t in page.turns],
            next_cursor=page.next_cursor,
            has_more=page.has_more,
        )

    def neighborhood(self, name: str, *, limit: int = 200) -> Neighborhood:
        """Entity ``name`` and its neighbors, with at most ``limit`` (up to 500) of its
        relationships, strongest first; ``truncated`` and ``note`` say when some were cut."""
        _, key = normalize_name(name, field="entity", limit=self._limits.entity_name_chars)
        limit, _ = page_bounds(limit, 0, maximum=MAX_GRAPH_EDGES)
        with self._store.read(self._id) as tx:
            center = tx.find_entities([key]).get(key)
            if center is None:
                raise NotFoundError(
                    f"no entity named {name!r} in memory {self.name!r}",
                    memory=self.name,
                    entity=name,
                )
            rels, total = tx.entity_relationships(center.id, limit=limit)
            ids = {center.id} | {r.source_id for r in rels} | {r.target_id for r in rels}
            rows = tx.get_entities(ids)
        nodes = [to_node(center)] + [
            to_node(rows[i]) for i in sorted(ids - {center.id}) if i in rows
        ]
        cut = total > len(rels)
        return Neighborhood(
            center=center.name,
            nodes=nodes,
            edges=[
                GraphEdge(
                    source=r.source, type=r.type, target=r.target, current=r.valid_until is None
                )
                for r in rels
            ],
            truncated=cut,
            note=f"showing {len(rels)} of {total} relationships" if cut else None,
        )

    def preview_delete_observation(self, slug: str) -> DeleteResult:
        """What deleting observation ``slug`` would remove (the same result as the delete),
        with nothing changed."""
        slug = self._slug(slug)
        now = datetime.now(UTC)
        result: DeleteResult | None = None
        try:
            with self._store.write(self._id) as tx:
                result = self._delete_in_tx(tx, self._observation_row(tx, slug), now)
                raise _Discard
        except _Discard:
            pass
        assert result is not None
        return result.model_copy(update={"dry_run": True})
