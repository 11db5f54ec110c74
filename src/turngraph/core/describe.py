"""Generated entity descriptions: a sentence rebuilt from what currently holds.

An entity that a turn's extraction introduced has no description anyone wrote. Its
description is generated from its current facts (attribute values not replaced or ended,
relationships not ended) every time they may have changed, so it never goes stale: "Ines is
Maya's sibling and lives in Leeds.", "Acme: Maya works there.". A description written by a
person (a graph write, or an extractor or triple that supplied one) is an assertion of an
observation; it always wins, and nothing here overwrites it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from turngraph.extract.base import MULTI_VALUED
from turngraph.store.base import EntityRow, ReadTx, RelationshipRow, WriteTx

MAX_CLAUSES = 6  # what the entity does or is
MAX_OTHERS = 3  # what others do with it ("Maya works there")
MAX_VALUES = 3  # values of one multi-valued key
# Attribute keys a generated description never says: a new value of one leaves it as it was
# (opinions are many and say little; names and family are said by relationships).
UNSAID = frozenset({"name", "family", "opinions"})
_PEOPLE = frozenset({"person", "animal"})

# X -[type]-> O, said of X: a verb phrase with X as its subject.
_OUTGOING = {
    "works_at": "works at {o}",
    "lives_in": "lives in {o}",
    "from": "is from {o}",
    "studies_at": "studies at {o}",
    "member_of": "is a member of {o}",
    "works_on": "works on {o}",
    "sibling_of": "is {o}'s sibling",
    "parent_of": "is {o}'s parent",
    "married_to": "is married to {o}",
    "partner_of": "is {o}'s partner",
    "friend_of": "is {o}'s friend",
    "colleague_of": "is {o}'s colleague",
    "relative_of": "is {o}'s relative",
    "manages": "manages {o}",
    "has_pet": "has a pet, {o}",
}
# S -[type]-> X, said of X: a verb phrase with X as subject where the relation reads both ways.
_INCOMING_ABOUT = {
    "sibling_of": "is {s}'s sibling",
    "parent_of": "is {s}'s child",
    "married_to": "is married to {s}",
    "partner_of": "is {s}'s partner",
    "friend_of": "is {s}'s friend",
    "colleague_of": "is {s}'s colleague",
    "relative_of": "is {s}'s relative",
    "manages": "is managed by {s}",
    "has_pet": "is {s}'s pet",
}
# S -[type]-> X, said of X: a clause about S ("Maya works there").
_INCOMING_OTHER = {
    "works_at": "{s} works there",
    "lives_in": "{s} lives there",
    "from": "{s} is from there",
    "studies_at": "{s} studies there",
    "member_of": "{s} is a member",
    "works_on": "{s} works on it",
}
# Single-valued keys as verb phrases; the relation of the same meaning is said once.
_SINGLE = {
    "job_title": ("works as {a} {v}", None),
    "employer": ("works at {v}", "works_at"),
    "location": ("lives in {v}", "lives_in"),
    "hometown": ("is from {v}", "from"),
    "age": ("is {v}", None),
    "nationality": ("is {v}", None),
    "preferred_name": ("goes by {v}", None),
    "school": ("studies at {v}", "studies_at"),
    "relationship_status": ("is {v}", None),
}
_MULTI = {
    "likes": "likes {v}",
    "dislikes": "dislikes {v}",
    "hobbies": "enjoys {v}",
    "languages": "speaks {v}",
    "skills": "is good at {v}",
    "allergies": "is allergic to {v}",
    "learning": "is learning {v}",
    "pets": "has {v}",
    "goals": "wants to {v}",
    "habits": "tends to {v}",
    "values": "values {v}",
}


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _join(parts: list[str]) -> str:
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _relation_clauses(
    entity: EntityRow, rels: Iterable[RelationshipRow]
) -> tuple[list[str], list[str], set[str]]:
    about: list[str] = []
    others: list[str] = []
    said: set[str] = set()  # relation types said as a verb phrase of the entity
    for rel in sorted(rels, key=lambda r: r.id):  # in the order they were first said
        if rel.valid_until is not None:
            continue
        label = rel.type.replace("_", " ")
        if rel.source_id == entity.id:
            about.append(_OUTGOING.get(rel.type, label + " {o}").format(o=rel.target))
            said.add(rel.type)
        elif rel.type in _INCOMING_ABOUT:
            about.append(_INCOMING_ABOUT[rel.type].format(s=rel.source))
        else:
            others.append(
                _INCOMING_OTHER.get(rel.type, "{s} " + label + " it").format(s=rel.source)
            )
    return about, others, said


def _attribute_clauses(
    name: str, pairs: Iterable[tuple[str, str]], said: set[str]
) -> tuple[list[str], list[str]]:
    """Verb phrases for the keys that have one, and sentences ("Maya's diet is vegan") for
    the others, from (key, value) pairs, oldest first within a key."""
    clauses: list[str] = []
    sentences: list[str] = []
    grouped: dict[str, list[str]] = {}
    for key, value in pairs:
        grouped.setdefault(key, []).append(value)
    for key, values in grouped.items():
        latest = values[-MAX_VALUES:]
        if key in _SINGLE:
            template, relation = _SINGLE[key]
            if relation not in said:
                clauses.append(template.format(v=values[-1], a=_article(values[-1])))
        elif key in _MULTI:
            if "to {v}" in _MULTI[key]:  # "wants to to travel" otherwise
                latest = [v[3:] if v.lower().startswith("to ") else v for v in latest]
            clauses.append(_MULTI[key].format(v=_join(latest)))
        elif key not in UNSAID:
            verb = "include" if key in MULTI_VALUED else "is"
            sentences.append(f"{name}'s {key.replace('_', ' ')} {verb} {_join(latest)}")
    return clauses, sentences


def generate_description(tx: ReadTx, entity: EntityRow) -> str:
    """A sentence from the entity's current facts; a plain mention when it has none."""
    rels, _ = tx.entity_relationships(entity.id, limit=MAX_CLAUSES + MAX_OTHERS + 10)
    about, others, said = _relation_clauses(entity, rels)
    values = [(key, value) for _, key, value in tx.current_values(entity.id, skip_keys=UNSAID)]
    clauses, sentences = _attribute_clauses(entity.name, values, said)
    about, others = (about + clauses)[:MAX_CLAUSES], others[:MAX_OTHERS]
    parts: list[str] = []
    if about:
        parts.append(f"{entity.name} {_join(about)}.")
    if others:
        parts.append(("" if about else f"{entity.name}: ") + "; ".join(others) + ".")
    parts += [f"{s}." for s in sentences[:MAX_OTHERS]]
    if parts:
        text = " ".join(parts)
        return text[0].upper() + text[1:]
    kind = "" if entity.type == "other" else f"{_article(entity.type)} {entity.type} "
    return f"{entity.name}: {kind}mentioned in conversation."


def describe_generated(tx: WriteTx, ids: Iterable[int], *, now: datetime) -> None:
    """Rebuild the description of each entity no live observation describes in words."""
    for entity in tx.get_entities(ids).values():
        if tx.entity_fold(entity.id).description is not None:
            continue  # someone wrote it: it stands
        text = generate_description(tx, entity)
        if text != entity.description:
            tx.update_entity(
                entity.id,
                type=entity.type,
                description=text,
                retrieval_queries=entity.retrieval_queries,
                now=now,
            )
