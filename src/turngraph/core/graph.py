"""Deriving the entity graph from observations, inside one write transaction.

Each observation *asserts* things about entities (type, description, retrieval queries) and
relationships (description, weight). An entity's visible fields are a fold over the live
assertions: the newest description and type win, retrieval queries union. Deleting or editing
an observation re-folds what it touched, so the graph always equals what the live observations
say. An observation that backs a relationship is also linked to both endpoints (without an
assertion of its own), so no relationship can outlive the entities it joins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from turngraph.config import Limits
from turngraph.core import categories
from turngraph.core.describe import describe_generated
from turngraph.core.validate import EntityDraft, RelationshipDraft, description_words
from turngraph.errors import ValidationError
from turngraph.models import (
    Entity,
    EntityNeighborhood,
    Observation,
    Relationship,
    RelationshipRef,
    ReviewHint,
)
from turngraph.store.base import EntityRow, ObservationRow, ReadTx, RelationshipRow, WriteTx

MAX_RETRIEVAL_QUERIES = 20
_UNBOUNDED = 1 << 62


@dataclass
class Touched:
    """What a write changed, for re-folding, pruning and the response."""

    entity_ids: list[int] = field(default_factory=list)  # in the order the write named them
    new_entity_ids: set[int] = field(default_factory=set)
    relationship_ids: set[int] = field(default_factory=set)
    old_descriptions: dict[int, str] = field(default_factory=dict)

    def touch_entity(self, entity: EntityRow, *, new: bool = False) -> None:
        if entity.id not in self.old_descriptions and not new:
            self.old_descriptions[entity.id] = entity.description
        if entity.id not in self.entity_ids:
            self.entity_ids.append(entity.id)
        if new:
            self.new_entity_ids.add(entity.id)


def resolve_entities(
    tx: ReadTx, drafts: Sequence[EntityDraft], rels: Sequence[RelationshipDraft]
) -> dict[str, EntityRow]:
    """Existing entities for every name in the write; endpoints must exist or be in the write."""
    keys = [d.key for d in drafts] + [k for r in rels for k in (r.source_key, r.target_key)]
    found = tx.find_entities(keys)
    written = {d.key for d in drafts}
    for i, rel in enumerate(rels):
        for end, key, name in (
            ("source", rel.source_key, rel.source),
            ("target", rel.target_key, rel.target),
        ):
            if key not in written and key not in found:
                raise ValidationError(
                    f"relationship {rel.source!r} -[{rel.type}]-> {rel.target!r} names "
                    f"{name!r}, which is neither among this write's entities nor in the "
                    f"memory; add it to entities with a description",
                    field=f"relationships[{i}].{end}",
                    entity=name,
                )
    return found


def apply_entities(
    tx: WriteTx,
    observation_id: int,
    drafts: Sequence[EntityDraft],
    existing: dict[str, EntityRow],
    *,
    seq: int,
    now: datetime,
    touched: Touched,
) -> dict[str, int]:
    """Link the observation to each drafted entity (creating new ones); returns key -> id."""
    ids: dict[str, int] = {}
    for draft in drafts:
        row = existing.get(draft.key)
        if row is None:
            etype = draft.type or "other"
            row = tx.insert_entity(
                key=draft.key,
                name=draft.name,
                type=etype,
                description=draft.description or f"{etype} named {draft.name}",
                retrieval_queries=draft.retrieval_queries,
                now=now,
                memory_category=draft.memory_category or categories.for_entity_type(etype),
            )
            existing[draft.key] = row
            touched.touch_entity(row, new=True)
        else:
            touched.touch_entity(row)
        tx.put_link(
            observation_id,
            row.id,
            explicit=True,
            type=draft.type,
            description=draft.description,
            retrieval_queries=draft.retrieval_queries,
            seq=seq,
        )
        ids[draft.key] = row.id
    return ids


def apply_relationships(
    tx: WriteTx,
    observation_id: int,
    rels: Sequence[RelationshipDraft],
    entities: dict[str, EntityRow],
    *,
    seq: int,
    now: datetime,
    touched: Touched,
    valid_from: datetime | None = None,
) -> None:
    """Back each drafted relationship with the observation (creating new ones)."""
    for i, rel in enumerate(rels):
        source, target = entities[rel.source_key], entities[rel.target_key]
        if source.id == target.id:
            raise ValidationError(
                f"relationship {rel.source!r} -[{rel.type}]-> {rel.target!r} joins two names "
                f"of one entity ({source.name!r}); a relationship needs two different entities",
                field=f"relationships[{i}]",
            )
        rel_id = tx.find_relationship(source.id, rel.type, target.id)
        if rel_id is None:
            rel_id = tx.insert_relationship(
                source_id=source.id,
                type=rel.type,
                target_id=target.id,
                now=now,
                memory_category=rel.memory_category or categories.for_relation(rel.type),
                valid_from=valid_from,
            )
        tx.put_backing(
            observation_id, rel_id, description=rel.description, weight=rel.weight, seq=seq
        )
        touched.relationship_ids.add(rel_id)
        for end in (source, target):
            touched.touch_entity(end)


def link_endpoints(tx: WriteTx, observation_id: int, *, seq: int) -> None:
    """Link the observation to both ends of every relationship it backs."""
    rel_ids = tx.observation_relationship_ids(observation_id)
    if not rel_ids:
        return  # most turns back no relationship: no read of their links
    linked = {link.entity_id for link in tx.observation_links(observation_id)}
    for rel in tx.get_relationships(rel_ids):
        for end in (rel.source_id, rel.target_id):
            if end not in linked:
                tx.put_link(
                    observation_id,
                    end,
                    explicit=False,
                    type=None,
                    description=None,
                    retrieval_queries=(),
                    seq=seq,
                )
                linked.add(end)


def refold_entities(
    tx: WriteTx, ids: Iterable[int], *, now: datetime, describe: bool = True
) -> set[int]:
    """Recompute each entity's type, description and retrieval queries from its assertions.
    An entity no observation describes in words gets a description generated from its
    current facts (unless ``describe`` is False: the caller does it once the facts are in).
    Returns the entities whose generated description may now say something else (their type
    changed), for a caller that describes them later."""
    retyped: set[int] = set()
    for entity in tx.get_entities(ids).values():
        fold = tx.entity_fold(entity.id)
        if fold.description is None:
            if fold.type is not None and fold.type != entity.type:
                tx.update_entity(
                    entity.id,
                    type=fold.type,
                    description=entity.description,
                    retrieval_queries=entity.retrieval_queries,
                    now=now,
                )
                retyped.add(entity.id)
            if describe:
                describe_generated(tx, [entity.id], now=now)
            continue
        queries: list[str] = []
        for batch in fold.retrieval_queries:  # newest first
            queries += [q for q in batch if q not in queries]
        new = (fold.type or entity.type, fold.description, tuple(queries[:MAX_RETRIEVAL_QUERIES]))
        if new != (entity.type, entity.description, entity.retrieval_queries):
            tx.update_entity(
                entity.id, type=new[0], description=new[1], retrieval_queries=new[2], now=now
            )
    return retyped


def refold_relationships(tx: WriteTx, ids: Iterable[int], *, now: datetime) -> None:
    for rel in tx.get_relationships(ids):
        fold = tx.relationship_fold(rel.id)
        description = fold.description or ""
        weight = 1.0 if fold.weight is None else fold.weight
        if (description, weight) != (rel.description, rel.weight):
            tx.update_relationship(rel.id, description=description, weight=weight, now=now)


def prune(
    tx: WriteTx, entity_ids: Iterable[int], relationship_ids: Iterable[int]
) -> tuple[list[EntityRow], list[RelationshipRow]]:
    """Remove the candidates no live observation backs any more; fix the survivors' degrees."""
    dead_rel_ids = tx.unbacked_relationships(relationship_ids)
    dead_rels = tx.get_relationships(dead_rel_ids)
    tx.delete_relationships(dead_rel_ids)
    candidates = set(entity_ids) | {e for r in dead_rels for e in (r.source_id, r.target_id)}
    dead_ids = tx.unlinked_entities(candidates)
    dead_entities = list(tx.get_entities(dead_ids).values())
    # Relationships went first: an entity left without links has no backed relationship.
    tx.delete_entities(dead_ids)
    tx.recompute_degrees(candidates - set(dead_ids))
    return dead_entities, dead_rels


def to_relationship(row: RelationshipRow) -> Relationship:
    return Relationship(
        source=row.source,
        type=row.type,
        target=row.target,
        description=row.description,
        weight=row.weight,
        valid_until=row.valid_until,
    )


def to_ref(row: RelationshipRow) -> RelationshipRef:
    return RelationshipRef(source=row.source, type=row.type, target=row.target)


def to_observation(tx: ReadTx, row: ObservationRow) -> Observation:
    entity_ids = [link.entity_id for link in tx.observation_links(row.id)]
    entities = tx.get_entities(entity_ids)
    rels = tx.get_relationships(tx.observation_relationship_ids(row.id))
    return Observation(
        slug=row.slug,
        title=row.title,
        content=row.content,
        category=row.category,
        tags=list(row.tags),
        observed_at=row.observed_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
        confidence=row.confidence,
        source=row.source,
        entities=[entities[i].name for i in entity_ids if i in entities],
        relationships=[to_relationship(r) for r in rels],
        files=tx.observation_files(row.id),
    )


def to_entity(tx: ReadTx, entity: EntityRow, *, limits: Limits) -> Entity:
    """An entity with its relationships and observation slugs, each list bounded."""
    rels, rel_total = tx.entity_relationships(entity.id, limit=limits.entity_relationships)
    slugs, obs_total = tx.entity_observation_slugs(entity.id, limit=limits.entity_observations)
    return Entity(
        name=entity.name,
        type=entity.type,
        description=entity.description,
        degree=entity.degree,
        retrieval_queries=list(entity.retrieval_queries),
        aliases=tx.entity_aliases(entity.id),
        relationships=[to_relationship(r) for r in rels],
        observations=slugs,
        relationships_truncated=rel_total > len(rels),
        observations_truncated=obs_total > len(slugs),
        created_at=entity.created_at,
        updated_at=entity.updated_at,
    )


def neighborhoods(tx: ReadTx, touched: Touched, *, limit: int) -> list[EntityNeighborhood]:
    """Each touched entity as it now stands, with up to ``limit`` of its relationships."""
    rows = tx.get_entities(touched.entity_ids)
    out: list[EntityNeighborhood] = []
    for entity_id in touched.entity_ids:
        entity = rows.get(entity_id)
        if entity is None:
            continue
        rels, total = tx.entity_relationships(entity_id, limit=limit)
        cut = total > len(rels)
        out.append(
            EntityNeighborhood(
                name=entity.name,
                type=entity.type,
                description=entity.description,
                degree=entity.degree,
                is_new=entity_id in touched.new_entity_ids,
                relationships=[to_relationship(r) for r in rels],
                truncated=cut,
                note=(
                    f"showing {len(rels)} of {total} relationships; get_entity({entity.name!r}) "
                    "lists more"
                )
                if cut
                else None,
            )
        )
    return out


def review_hints(tx: ReadTx, touched: Touched, *, limit: int) -> list[ReviewHint]:
    """A hint for each entity whose description changed in wording, not just in case or spacing."""
    rows = tx.get_entities(touched.old_descriptions)
    hints: list[ReviewHint] = []
    for entity_id, old in touched.old_descriptions.items():
        entity = rows.get(entity_id)
        if entity is None or description_words(old) == description_words(entity.description):
            continue
        rels, total = tx.entity_relationships(entity_id, limit=limit)
        if not rels:
            continue
        more = f" (showing {len(rels)} of {total})" if total > len(rels) else ""
        hints.append(
            ReviewHint(
                entity=entity.name,
                old_description=old,
                new_description=entity.description,
                relationships=[to_relationship(r) for r in rels],
                message=(
                    f"the description of {entity.name!r} changed; check whether these "
                    f"relationship descriptions still hold{more}. Nothing was rewritten."
                ),
            )
        )
    return hints


def merge_entities(
    tx: WriteTx, canonical: EntityRow, duplicate: EntityRow, *, now: datetime
) -> tuple[int, list[RelationshipRef], list[RelationshipRef]]:
    """Fold ``duplicate`` into ``canonical``: links, relationship endpoints and aliases.

    Returns (observations relinked, self-loops dropped, duplicate edges merged).
    """
    tx.move_aliases(duplicate.id, canonical.id)
    tx.add_alias(key=duplicate.key, name=duplicate.name, entity_id=canonical.id)
    relinked = tx.move_links(duplicate.id, canonical.id)
    dropped: list[RelationshipRef] = []
    merged: list[RelationshipRef] = []
    survivors: set[int] = set()
    neighbours: set[int] = {canonical.id}
    rels, _ = tx.entity_relationships(duplicate.id, limit=_UNBOUNDED)
    for rel in rels:
        source = canonical.id if rel.source_id == duplicate.id else rel.source_id
        target = canonical.id if rel.target_id == duplicate.id else rel.target_id
        neighbours.update((source, target))
        if source == target:
            dropped.append(to_ref(rel))
            tx.delete_relationships([rel.id])
            continue
        existing = tx.find_relationship(source, rel.type, target)
        if existing is not None and existing != rel.id:
            tx.move_backings(rel.id, existing)
            tx.delete_relationships([rel.id])
            merged.append(to_ref(rel))
            survivors.add(existing)
        else:
            tx.repoint_relationship(rel.id, source_id=source, target_id=target)
            survivors.add(rel.id)
    tx.move_attributes(duplicate.id, canonical.id)
    tx.delete_entities([duplicate.id])
    refold_entities(tx, [canonical.id], now=now)
    refold_relationships(tx, survivors, now=now)
    tx.recompute_degrees(neighbours)
    return relinked, dropped, merged
