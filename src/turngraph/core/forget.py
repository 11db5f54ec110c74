"""Corrective removals: forgetting what a query names, deleting an entity.

``forget`` removes the observations (turns and notes) whose text contains every term of the
query, and with them whatever only they backed: entities, relationships, attribute versions
(chains are repaired, so an older value becomes current again where one exists). With
``purge`` the superseded versions of every attribute those observations touched are erased
too, so no history of the forgotten facts is left. It matches words, not meaning, so what it
removes is predictable; ``dry_run`` shows what would go.

``delete_entity`` removes an entity from the graph with its attributes, its relationships and
its links to observations; the observations themselves (the source text) stay.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from turngraph.config import Limits
from turngraph.core.validate import normalize_name, normalize_type
from turngraph.errors import NotFoundError, ValidationError
from turngraph.models import DeleteResult, EntityDeleteResult, ForgetResult
from turngraph.recall.search import query_terms
from turngraph.store.base import ObservationRow, Store, TextSearch, WriteTx


class ForgetOps:
    """The corrective removals of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _limits: Limits

    if TYPE_CHECKING:  # provided by Memory

        def _delete_in_tx(
            self, tx: WriteTx, row: ObservationRow, now: datetime
        ) -> DeleteResult: ...
        def _after_write(self) -> None: ...

    def forget(self, query: str, *, purge: bool = False, dry_run: bool = False) -> ForgetResult:
        """Remove every observation whose text contains all the words of ``query``.

        Raises ValidationError for a query without searchable words, or one that matches
        more than 500 observations (narrow it).
        """
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query must be a non-empty string", field="query")
        terms = query_terms(query)
        if not terms:
            raise ValidationError(
                "query has no searchable words (only question words or punctuation)",
                field="query",
            )
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            most = self._limits.forget_observations
            found = tx.search_text(
                TextSearch(
                    "observation",
                    tuple(terms),
                    limit=most + 1,
                    match="all",
                    fields=(("content", 1.0),),
                )
            )
            if len(found) > most:
                raise ValidationError(
                    f"query matches more than {most} observations; narrow it",
                    field="query",
                )
            rows = tx.get_observations([oid for oid, _ in found])
            if dry_run:
                return ForgetResult(
                    deleted=len(rows), observations=[r.slug for r in rows], dry_run=True
                )
            chains: set[tuple[int, str]] = set()
            pruned: list[str] = []
            for row in rows:
                chains.update(tx.attribute_chains(row.id))
                pruned += self._delete_in_tx(tx, row, now).pruned_entities
            purged = 0
            if purge:
                for entity_id, key in sorted(chains):
                    old = [r.id for r in tx.attribute_history(entity_id, key) if r.valid_until]
                    tx.delete_attributes(old)
                    purged += len(old)
        if rows:
            self._after_write()
        return ForgetResult(
            deleted=len(rows),
            observations=[r.slug for r in rows],
            pruned_entities=pruned,
            purged_versions=purged,
        )

    def delete_entity(self, name: str, entity_type: str | None = None) -> EntityDeleteResult:
        """Remove an entity, its attributes and relationships from the graph; the
        observations that mention it stay. NotFoundError when no entity (of that type) has
        that name."""
        _, key = normalize_name(name, field="name", limit=self._limits.entity_name_chars)
        etype = (
            None
            if entity_type is None
            else normalize_type(entity_type, field="type", limit=self._limits.entity_type_chars)
        )
        with self._store.write(self._id) as tx:
            entity = tx.find_entities([key]).get(key)
            if entity is None or (etype is not None and entity.type != etype):
                kind = "entity" if etype is None else etype
                raise NotFoundError(
                    f"no {kind} named {name!r} in memory {self.name!r}",
                    memory=self.name,
                    entity=name,
                )
            rels, total_rels = tx.entity_relationships(entity.id, limit=1_000_000)
            neighbours = {r.source_id for r in rels} | {r.target_id for r in rels}
            neighbours.discard(entity.id)
            attributes = sum(
                len(tx.attribute_history(entity.id, k)) for k in tx.attribute_keys(entity.id)
            )
            _, linked = tx.entity_observation_slugs(entity.id, limit=1)
            tx.delete_entities([entity.id])
            tx.recompute_degrees(sorted(neighbours))
        self._after_write()
        return EntityDeleteResult(
            entity=entity.name,
            type=entity.type,
            relationships=total_rels,
            attributes=attributes,
            unlinked_observations=linked,
        )
