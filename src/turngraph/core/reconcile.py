"""Applying an extraction to the memory inside the turn's write transaction.

Entities merge into existing ones by name; relations become relationships backed by the turn;
attributes are versioned (a new differing value of a single-valued key supersedes the current
one and yields a correction; multi-valued keys accumulate; a negation ends a matching value);
actions, instructions and uncertainties are stored apart from facts, each with the turn as
provenance.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from turngraph.core import categories, graph
from turngraph.core.describe import UNSAID, describe_generated
from turngraph.core.ids import entity_ref, new_id
from turngraph.core.validate import EntityDraft, RelationshipDraft, name_key, normalize_name
from turngraph.errors import ValidationError
from turngraph.extract.base import (
    MULTI_VALUED,
    SINGLE_OBJECT_RELATIONS,
    RawAttribute,
    RawEntity,
    RawExtraction,
    RawRelation,
    canonical_type,
)
from turngraph.extract.instructions import instruction_topic
from turngraph.extract.keys import canonical_key
from turngraph.models import (
    Correction,
    Ended,
    ExtractedAction,
    ExtractedAttribute,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
    Instruction,
    Uncertainty,
)
from turngraph.store.base import AttributeRow, EntityRow, FactRow, WriteTx

MAX_VALUE_CHARS = 500
_KEY_RE = re.compile(r"[^a-z0-9]+")
# Attributes said together with a relationship to the entity their value names: when the
# value ends or is replaced, the relationship ends with it (True: the relationship points
# from the value's entity to the attribute's, as "Katrin manages Lena").
# Keys whose values exclude each other: liking a thing ends disliking it, and back.
OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}
LINKED = {
    "employer": ("works_at", False),
    "location": ("lives_in", False),
    "school": ("studies_at", False),
    "partner": ("partner_of", False),
    "manager": ("manages", True),
}


@dataclass(frozen=True, slots=True)
class TurnWrite:
    """Where an extraction lands: the turn's observation, time and write sequence."""

    observation_id: int
    turn_id: str
    observed_at: datetime
    seq: int
    now: datetime
    category: str | None  # the caller's override for everything this turn files


def attribute_key(key: str) -> str:
    """An attribute's canonical key ("favourite colour" -> "favorite_color")."""
    return canonical_key(key)


def relation_label(label: str) -> str:
    return _KEY_RE.sub("_", unicodedata.normalize("NFKC", label).lower()).strip("_")


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


# Names a later turn may say shorter, meaning the same one ("at Máximo" after "Máximo
# Bistrot"): the first words of the value held say no change.
SHORTENED_KEYS = frozenset({"employer", "location", "school", "hometown"})


def _shortened(said: str, held: str) -> bool:
    """Whether ``said`` is the first words of ``held``, fewer of them ("Máximo" of "Máximo
    Bistrot"; not "York" of "New York")."""
    short, full = said.casefold().split(), held.casefold().split()
    return 0 < len(short) < len(full) and full[: len(short)] == short


def apply_extraction(tx: WriteTx, raw: RawExtraction, at: TurnWrite) -> Extraction:
    """Write what ``raw`` says into the memory and return the turn's structured diff."""
    touched = graph.Touched()
    entities = _apply_entities(tx, raw, at, touched)
    ended: set[int] = set()
    stopped: list[Ended] = []
    relations = _apply_relations(tx, raw.relations, entities, at, touched, ended, stopped)
    if touched.relationship_ids:  # the turn's observation is new: it backs only these
        graph.link_endpoints(tx, at.observation_id, seq=at.seq)
    # Whose generated description may change: new entities, retyped ones, both ends of the
    # relations written or ended ("Manchester: Maya lives there" goes when she moves), and
    # the entities whose said attributes changed. An entity only mentioned again keeps its.
    redescribe = graph.refold_entities(tx, touched.entity_ids, now=at.now, describe=False)
    redescribe |= touched.new_entity_ids | ended
    redescribe |= {entities[k].id for s, _, o, _ in relations for k in (s, o)}
    graph.refold_relationships(tx, touched.relationship_ids, now=at.now)
    if touched.relationship_ids:  # a degree counts relationships: none written, none moved
        tx.recompute_degrees(touched.entity_ids)
    current = tx.get_entities(touched.entity_ids)
    refs = {key: entity_ref(current[row.id].type, key) for key, row in entities.items()}
    attributes, corrections = _apply_attributes(
        tx, raw.attributes, entities, refs, at, redescribe, stopped
    )
    describe_generated(tx, sorted(redescribe), now=at.now)
    extraction = Extraction(
        turn_id=at.turn_id,
        entities=[
            ExtractedEntity(
                id=refs[key],
                name=current[row.id].name,
                entity_type=current[row.id].type,
                memory_category=categories.check(current[row.id].memory_category) or "knowledge",
                is_new=row.id in touched.new_entity_ids,
            )
            for key, row in entities.items()
        ],
        attributes=attributes,
        relations=[
            ExtractedRelation(
                subject=refs[s], label=label, object=refs[o], memory_category=category
            )
            for s, label, o, category in relations
        ],
        corrections=corrections,
        ended=stopped,
    )
    return _apply_turn_facts(tx, raw, extraction, at)


def _apply_entities(
    tx: WriteTx, raw: RawExtraction, at: TurnWrite, touched: graph.Touched
) -> dict[str, EntityRow]:
    named: dict[str, RawEntity] = {}
    for entity in raw.entities:
        _add_name(named, entity.name, entity.type)
    for attr in raw.attributes:
        _add_name(named, attr.entity, "other")
    for rel in raw.relations:
        _add_name(named, rel.subject, "other")
        _add_name(named, rel.object, "other")
    existing = tx.find_entities(named)
    drafts = []
    for key, entity in named.items():
        etype = canonical_type(entity.type)
        is_new = key not in existing
        drafts.append(
            EntityDraft(
                name=entity.name,
                key=key,
                type=etype if is_new else None,
                # Only a description someone supplied is asserted; otherwise the entity's
                # description is generated from its current facts (turngraph.core.describe).
                description=raw.descriptions.get(entity.name) if is_new else None,
                retrieval_queries=(),
                memory_category=at.category or categories.for_entity_type(etype),
            )
        )
    graph.apply_entities(
        tx, at.observation_id, drafts, existing, seq=at.seq, now=at.now, touched=touched
    )
    return {key: existing[key] for key in named}


def _add_name(named: dict[str, RawEntity], name: str, etype: str) -> None:
    try:
        display, key = normalize_name(name, field="name", limit=200)
    except ValidationError:
        return  # an extractor's odd span is not worth failing the turn for
    known = named.get(key)
    if known is None or (known.type == "other" and etype != "other"):
        named[key] = RawEntity(known.name if known else display, etype)


def _apply_relations(
    tx: WriteTx,
    relations: Sequence[RawRelation],
    entities: dict[str, EntityRow],
    at: TurnWrite,
    touched: graph.Touched,
    ended: set[int],
    stopped: list[Ended],
) -> list[tuple[str, str, str, Any]]:
    drafts: list[RelationshipDraft] = []
    out: list[tuple[str, str, str, Any]] = []
    for rel in relations:
        s, o = name_key(rel.subject), name_key(rel.object)
        if s not in entities or o not in entities or entities[s].id == entities[o].id:
            continue
        label = relation_label(rel.label) or "related_to"
        if rel.negated:
            if _end_relationship(tx, entities[s], label, entities[o], at, stopped):
                ended |= {entities[s].id, entities[o].id}
                if label == "has_pet":
                    _end_pet_kind(tx, entities[s], entities[o], at, stopped)
            continue
        category = at.category or rel.category or categories.for_relation(label)
        drafts.append(
            RelationshipDraft(entities[s].name, s, label, entities[o].name, o, None, None, category)
        )
        out.append((s, label, o, category))
    graph.apply_relationships(
        tx,
        at.observation_id,
        drafts,
        entities,
        seq=at.seq,
        now=at.now,
        touched=touched,
        valid_from=at.observed_at,
    )
    for draft in drafts:
        source, target = entities[draft.source_key], entities[draft.target_key]
        rel_id = tx.find_relationship(source.id, draft.type, target.id)
        assert rel_id is not None
        # Re-asserting an ended relation makes it current again.
        tx.set_relationship_validity(
            rel_id, memory_category=None, valid_from=None, valid_until=None
        )
        if draft.type in SINGLE_OBJECT_RELATIONS:
            rels, _ = tx.entity_relationships(source.id, limit=1000)
            for other in rels:
                if (
                    other.source_id == source.id
                    and other.type == draft.type
                    and other.target_id != target.id
                    and other.valid_until is None
                ):
                    tx.set_relationship_validity(
                        other.id,
                        memory_category=None,
                        valid_from=None,
                        valid_until=at.observed_at,
                    )
                    ended.add(other.target_id)
    return out


def _end_relationship(
    tx: WriteTx,
    source: EntityRow,
    label: str,
    target: EntityRow,
    at: TurnWrite,
    stopped: list[Ended],
) -> bool:
    """End the current relationship ``source -label-> target`` from the turn's time, if
    there is one; says whether there was."""
    rel_id = tx.find_relationship(source.id, label, target.id)
    if rel_id is None:
        return False
    rows = tx.get_relationships([rel_id])
    if not rows or rows[0].valid_until is not None:
        return False
    tx.set_relationship_validity(
        rel_id, memory_category=None, valid_from=None, valid_until=at.observed_at
    )
    stopped.append(
        Ended(
            kind="relation",
            entity_id=entity_ref(source.type, source.key),
            key=label,
            value=target.name,
        )
    )
    return True


def _end_pet_kind(
    tx: WriteTx, owner: EntityRow, pet: EntityRow, at: TurnWrite, stopped: list[Ended]
) -> None:
    """A pet no longer had ("Tango died") ends the owner's "pets: dog" too, unless another
    current pet of the owner is of that kind."""
    kinds = {row.value.casefold() for row in tx.current_attributes(pet.id, "species")}
    if not kinds:
        return
    rels, _ = tx.entity_relationships(owner.id, limit=1000)
    others = [
        r.target_id
        for r in rels
        if r.type == "has_pet" and r.source_id == owner.id and r.valid_until is None
    ]
    for other in others:
        kinds -= {row.value.casefold() for row in tx.current_attributes(other, "species")}
    for row in tx.current_attributes(owner.id, "pets"):
        if row.value.casefold() in kinds:
            _end_attribute(tx, row, at, stopped, entity_ref(owner.type, owner.key), "pets")


def _end_attribute(
    tx: WriteTx, row: AttributeRow, at: TurnWrite, stopped: list[Ended], ref: str, key: str
) -> None:
    """End a current attribute version as of this turn, with nothing after it."""
    tx.set_attribute_links(
        row.id, valid_until=at.observed_at, supersedes=row.supersedes, superseded_by=None
    )
    stopped.append(Ended(kind="attribute", entity_id=ref, key=key, value=row.value))


def _end_linked(
    tx: WriteTx,
    entity: EntityRow,
    key: str,
    value: str,
    at: TurnWrite,
    stopped: list[Ended],
    changed: set[int],
) -> None:
    """The relationship said with an attribute value that ended ("works at Deloitte" with
    "employer: Deloitte") ends too."""
    linked = LINKED.get(key)
    if linked is None:
        return
    other = tx.find_entities([name_key(value)]).get(name_key(value))
    if other is None or other.id == entity.id:
        return
    label, inverse = linked
    source, target = (other, entity) if inverse else (entity, other)
    if _end_relationship(tx, source, label, target, at, stopped):
        changed |= {entity.id, other.id}


def _apply_attributes(
    tx: WriteTx,
    attributes: Sequence[RawAttribute],
    entities: dict[str, EntityRow],
    refs: dict[str, str],
    at: TurnWrite,
    changed: set[int],
    stopped: list[Ended],
) -> tuple[list[ExtractedAttribute], list[Correction]]:
    """Write each attribute as a new version, an end or nothing (the same value again); adds
    to ``changed`` the entities whose said attributes changed."""
    out: list[ExtractedAttribute] = []
    corrections: list[Correction] = []
    for attr in attributes:
        ekey = name_key(attr.entity)
        entity = entities.get(ekey)
        key = attribute_key(attr.key)
        value = " ".join(attr.value.split())[:MAX_VALUE_CHARS]
        if entity is None or not key or not value:
            continue
        category = at.category or attr.category or categories.for_attribute(key)
        if attr.negated:
            ended = [
                row for row in tx.current_attributes(entity.id, key) if _same(row.value, value)
            ]
            for row in ended:
                _end_attribute(tx, row, at, stopped, refs[ekey], key)
                _end_linked(tx, entity, key, row.value, at, stopped, changed)
            if ended and key not in UNSAID:
                changed.add(entity.id)
            if ended or key != "likes":
                continue
            key, category = "dislikes", at.category or categories.for_attribute("dislikes")
        opposite = OPPOSITES.get(key)
        if opposite is not None:  # "I love reggaeton now": no longer among the dislikes
            for row in tx.current_attributes(entity.id, opposite):
                if _same(row.value, value):
                    _end_attribute(tx, row, at, stopped, refs[ekey], opposite)
                    changed.add(entity.id)
        # A multi-valued key (opinions) may hold hundreds of values: only those that may be
        # the same value are read, and only their ids and values.
        current = tx.current_values(entity.id, key, like=value)
        same = next((row for row in current if _same(row[2], value)), None)
        if same is None and key in SHORTENED_KEYS:  # "Máximo" after "Máximo Bistrot"
            held = tx.current_values(entity.id, key)
            same = next((row for row in held if _shortened(value, row[2])), None)
        if same is not None:  # the same value again: no new version
            out.append(
                ExtractedAttribute(
                    id=same[0],
                    entity_id=refs[ekey],
                    key=key,
                    value=same[2],
                    memory_category=category,
                )
            )
            continue
        row = AttributeRow(
            id=new_id("attribute"),
            entity_id=entity.id,
            key=key,
            value=value,
            memory_category=category,
            observation_id=at.observation_id,
            valid_from=at.observed_at,
            valid_until=None,
            supersedes=None,
            superseded_by=None,
            created_at=at.now,
        )
        tx.insert_attribute(row)
        if key not in UNSAID:
            changed.add(entity.id)
        out.append(
            ExtractedAttribute(
                id=row.id, entity_id=refs[ekey], key=key, value=value, memory_category=category
            )
        )
        if key in MULTI_VALUED:
            continue
        chain = repair_chain(tx, entity.id, key)
        if (
            chain
            and chain[-1].id == row.id
            and len(chain) > 1
            and not _same(chain[-2].value, value)
        ):
            corrections.append(
                Correction(
                    entity_id=refs[ekey], key=key, old_value=chain[-2].value, new_value=value
                )
            )
            _end_linked(tx, entity, key, chain[-2].value, at, [], changed)
    return out, corrections


def repair_chain(tx: WriteTx, entity_id: int, key: str) -> list[AttributeRow]:
    """Relink a single-valued attribute's versions in time order; the last one is current.

    Run after any insert or delete in the chain, so out-of-order writes and deleted turns
    leave a consistent history. Multi-valued keys have no chain and are left as they are.
    """
    if key in MULTI_VALUED:
        return []
    rows = tx.attribute_history(entity_id, key)  # oldest first
    for i, row in enumerate(rows):
        prev = rows[i - 1].id if i > 0 else None
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        links = (nxt.valid_from if nxt else None, prev, nxt.id if nxt else None)
        if links != (row.valid_until, row.supersedes, row.superseded_by):
            tx.set_attribute_links(
                row.id, valid_until=links[0], supersedes=links[1], superseded_by=links[2]
            )
    return rows


def _apply_turn_facts(
    tx: WriteTx, raw: RawExtraction, extraction: Extraction, at: TurnWrite
) -> Extraction:
    actions: list[ExtractedAction] = []
    for action in raw.actions:
        category = categories.check(at.category) or "context"
        model = ExtractedAction(
            actor=action.actor,
            verb=action.verb,
            object=action.object,
            summary=action.summary,
            occurred_at=action.occurred_at,
            time_precision=action.precision if action.occurred_at else None,
            place=action.place,
            memory_category=category,
        )
        _insert_fact(
            tx,
            "action",
            model.model_dump(mode="json"),
            model.summary,
            action.occurred_at or at.observed_at,
            category,
            at,
        )
        actions.append(model)
    instructions: list[Instruction] = []
    ended = list(extraction.ended)
    for instruction in raw.instructions:
        dedup = " ".join(instruction.description.casefold().split())
        found = tx.find_active_fact("instruction", dedup)
        if found is not None:
            instructions.append(Instruction.model_validate(json.loads(found.data)))
            continue
        topic = instruction_topic(instruction.description) or instruction_topic(instruction.label)
        model_i = Instruction(
            id=new_id("instruction"),
            label=instruction.label,
            description=instruction.description,
            topic=topic,
        )
        if topic is not None:
            ended += _replace_instructions(tx, topic, at)
        _insert_fact(
            tx,
            "instruction",
            model_i.model_dump(mode="json"),
            dedup,
            at.observed_at,
            categories.check(at.category) or "context",
            at,
            fact_id=model_i.id,
        )
        instructions.append(model_i)
    uncertainties = [Uncertainty(about=u.about, reason=u.reason) for u in raw.uncertainties]
    for u in uncertainties:
        _insert_fact(
            tx,
            "uncertainty",
            u.model_dump(mode="json"),
            u.reason,
            at.observed_at,
            categories.check(at.category) or "context",
            at,
        )
    return extraction.model_copy(
        update={
            "actions": actions,
            "instructions": instructions,
            "uncertainties": uncertainties,
            "ended": ended,
        }
    )


REPLACEABLE = 500  # active instructions looked through for one on the same topic


def _replace_instructions(tx: WriteTx, topic: str, at: TurnWrite) -> list[Ended]:
    """Retire the active instructions on ``topic`` that earlier turns gave (one turn may
    give several on one topic: "no bullet points, write paragraphs")."""
    out: list[Ended] = []
    for row in tx.list_facts(kind="instruction", category=None, as_of=None, limit=REPLACEABLE):
        if row.observation_id == at.observation_id or row.happened_at > at.observed_at:
            continue
        old = Instruction.model_validate(json.loads(row.data))
        if (old.topic or instruction_topic(old.description)) != topic:
            continue
        tx.deactivate_fact(row.id)
        out.append(Ended(kind="instruction", key=old.label, value=old.description))
    return out


def _insert_fact(
    tx: WriteTx,
    kind: str,
    data: dict[str, Any],
    dedup: str,
    happened_at: datetime,
    category: str,
    at: TurnWrite,
    *,
    fact_id: str | None = None,
) -> None:
    tx.insert_fact(
        FactRow(
            id=fact_id or new_id(kind),
            kind=kind,
            observation_id=at.observation_id,
            memory_category=category,
            data=json.dumps(data),
            dedup=dedup[:500],
            happened_at=happened_at,
            active=True,
        )
    )
