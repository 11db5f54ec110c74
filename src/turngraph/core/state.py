"""What a memory knows: the state by category, and the history of one attribute."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from turngraph.config import Limits
from turngraph.core import categories
from turngraph.core.ids import entity_ref
from turngraph.core.reconcile import attribute_key
from turngraph.core.validate import normalize_name, normalize_type, page_bounds, parse_datetime
from turngraph.errors import NotFoundError, ValidationError
from turngraph.models import (
    AttributeVersion,
    CategoryState,
    EntityState,
    ExtractedAction,
    Instruction,
    State,
    StateEntity,
    StateRelation,
    StateTruncation,
    Uncertainty,
)
from turngraph.store.base import AttributeRow, EntityRow, ReadTx, RelationshipRow, Store


def to_version(row: AttributeRow) -> AttributeVersion:
    return AttributeVersion(
        id=row.id,
        entity_id=entity_ref(row.entity_type, row.entity_key),
        entity=row.entity_name,
        key=row.key,
        value=row.value,
        memory_category=categories.check(row.memory_category) or "context",
        valid_from=row.valid_from,
        valid_until=row.valid_until,
        supersedes=row.supersedes,
        superseded_by=row.superseded_by,
        source_turn=row.source_turn,
        source_slug=row.source_slug,
        created_at=row.created_at,
    )


def to_state_entity(e: EntityRow) -> StateEntity:
    return StateEntity(
        id=entity_ref(e.type, e.key),
        name=e.name,
        entity_type=e.type,
        memory_category=categories.check(e.memory_category) or "knowledge",
        description=e.description,
        created_at=e.created_at,
        updated_at=e.updated_at,
    )


def to_state_relation(r: RelationshipRow) -> StateRelation:
    return StateRelation(
        id=f"relation:{r.id}",
        subject=entity_ref(r.source_type, r.source_key),
        label=r.type,
        object=entity_ref(r.target_type, r.target_key),
        memory_category=categories.check(r.memory_category) or "knowledge",
        valid_from=r.valid_from,
        valid_until=r.valid_until,
        created_at=r.valid_from or datetime.fromtimestamp(0, UTC),
    )


class StateOps:
    """The state and history reads of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _limits: Limits

    def state(self, as_of: datetime | str | None = None, *, limit: int = 100) -> State:
        """Current entities, attributes, relations and actions by memory category, plus
        active instructions and unknowns. With ``as_of``, what was known to hold then
        (validity times). Each list holds at most ``limit`` (default 100, at most 500);
        ``truncated`` says which were cut."""
        at = None if as_of is None else parse_datetime(as_of, field="as_of")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValidationError("limit must be a positive integer", field="limit")
        limit = min(limit, self._limits.state_items)
        cut = dict.fromkeys(StateTruncation.model_fields, False)
        groups: dict[str, CategoryState] = {}
        with self._store.read(self._id) as tx:
            for category in categories.CATEGORIES:
                ents = tx.state_entities(category=category, as_of=at, limit=limit + 1)
                attrs = tx.state_attributes(category=category, as_of=at, limit=limit + 1)
                rels = tx.state_relations(category=category, as_of=at, limit=limit + 1)
                acts = tx.list_facts(kind="action", category=category, as_of=at, limit=limit + 1)
                for label, rows in (
                    ("entities", ents),
                    ("attributes", attrs),
                    ("relations", rels),
                    ("actions", acts),
                ):
                    cut[label] = cut[label] or len(rows) > limit
                groups[category] = CategoryState(
                    entities=[to_state_entity(e) for e in ents[:limit]],
                    attributes=[to_version(a) for a in attrs[:limit]],
                    relations=[to_state_relation(r) for r in rels[:limit]],
                    actions=[
                        ExtractedAction.model_validate(json.loads(f.data)) for f in acts[:limit]
                    ],
                )
            instructions = tx.list_facts(
                kind="instruction", category=None, as_of=at, limit=limit + 1
            )
            unknowns = tx.list_facts(kind="uncertainty", category=None, as_of=at, limit=limit + 1)
        cut["instructions"] = len(instructions) > limit
        cut["unknowns"] = len(unknowns) > limit
        return State(
            identity=groups["identity"],
            knowledge=groups["knowledge"],
            context=groups["context"],
            instructions=[
                Instruction.model_validate(json.loads(f.data)) for f in instructions[:limit]
            ],
            unknowns=[Uncertainty.model_validate(json.loads(f.data)) for f in unknowns[:limit]],
            truncated=StateTruncation(**cut),
            as_of=at,
        )

    def entity_state(self, entity_type: str, name: str) -> EntityState:
        """One entity with its current attributes and relations. NotFoundError when no entity
        of that type has that name."""
        with self._store.read(self._id) as tx:
            entity = self._typed_entity(tx, entity_type, name)
            attributes = [
                to_version(a)
                for key in tx.attribute_keys(entity.id)
                for a in tx.current_attributes(entity.id, key)
            ]
            rels, _ = tx.entity_relationships(entity.id, limit=self._limits.state_items)
        return EntityState(
            entity=to_state_entity(entity),
            attributes=attributes,
            relations=[to_state_relation(r) for r in rels if r.valid_until is None],
        )

    def entity_states(
        self, entity_type: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[StateEntity]:
        """Entities ordered by type then name, as :meth:`state` shows them."""
        etype = (
            None
            if entity_type is None
            else normalize_type(entity_type, field="type", limit=self._limits.entity_type_chars)
        )
        limit, offset = page_bounds(limit, offset, maximum=self._limits.state_items)
        with self._store.read(self._id) as tx:
            rows = tx.list_entities(type=etype, limit=limit, offset=offset, by_name=True)
        return [to_state_entity(e) for e in rows]

    def _typed_entity(self, tx: ReadTx, entity_type: str, name: str) -> EntityRow:
        etype = normalize_type(
            entity_type, field="entity_type", limit=self._limits.entity_type_chars
        )
        _, ekey = normalize_name(name, field="name", limit=self._limits.entity_name_chars)
        entity = tx.find_entities([ekey]).get(ekey)
        if entity is None or entity.type != etype:
            raise NotFoundError(
                f"no {etype} named {name!r} in memory {self.name!r}",
                memory=self.name,
                entity=name,
                entity_type=etype,
            )
        return entity

    def entity_history(self, entity_type: str, name: str, key: str) -> list[AttributeVersion]:
        """Every version of one attribute of one entity, oldest first, superseded ones
        included, each with the turn (or observation) it came from. NotFoundError when no
        entity of that type has that name."""
        akey = attribute_key(key)
        if not akey:
            raise ValidationError("key must name an attribute", field="key")
        with self._store.read(self._id) as tx:
            entity = self._typed_entity(tx, entity_type, name)
            return [to_version(r) for r in tx.attribute_history(entity.id, akey)]
