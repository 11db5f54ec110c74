"""Caller-supplied facts (``infer="triples"``) as a raw extraction: no text is read."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from turngraph.core import categories
from turngraph.core.validate import check_text, required_text
from turngraph.errors import ValidationError
from turngraph.extract.base import RawAttribute, RawEntity, RawExtraction, RawRelation


def triples_extraction(triples: object) -> RawExtraction:
    """Caller-supplied facts: ``{entity: {type, name}, key, value? | target?,
    memory_category?}``; a value makes an attribute, a target a relation."""
    if not isinstance(triples, Sequence) or isinstance(triples, (str, bytes)) or not triples:
        raise ValidationError("triples must be a non-empty list", field="triples")
    entities: list[RawEntity] = []
    attributes: list[RawAttribute] = []
    relations: list[RawRelation] = []
    descriptions: dict[str, str] = {}
    for i, triple in enumerate(triples):
        f = f"triples[{i}]"
        if not isinstance(triple, Mapping):
            raise ValidationError(f"{f} must be an object", field=f)
        subject = _triple_entity(triple.get("entity"), f"{f}.entity", descriptions)
        key = required_text(triple.get("key"), field=f"{f}.key", limit=100)
        category = triple.get("memory_category")
        if category is not None and categories.check(category) is None:
            raise ValidationError(
                f"{f}.memory_category must be identity, knowledge or context",
                field=f"{f}.memory_category",
            )
        entities.append(subject)
        if triple.get("value") is not None:
            value = (
                check_text(triple["value"], field=f"{f}.value")
                if isinstance(triple["value"], str)
                else json.dumps(triple["value"])
            )
            attributes.append(RawAttribute(subject.name, key, value, category=category))
        elif triple.get("target") is not None:
            target = _triple_entity(triple["target"], f"{f}.target", descriptions)
            entities.append(target)
            relations.append(RawRelation(subject.name, key, target.name, category=category))
        else:
            raise ValidationError(
                f"{f} needs a value (an attribute) or a target (a relation)", field=f
            )
    return RawExtraction(
        entities=tuple(entities),
        attributes=tuple(attributes),
        relations=tuple(relations),
        descriptions=descriptions,
    )


def merge(a: RawExtraction | None, b: RawExtraction | None) -> RawExtraction | None:
    """Two raw extractions as one (the caller's links added to what the text yielded)."""
    if a is None or b is None:
        return a or b
    return RawExtraction(
        entities=a.entities + b.entities,
        attributes=a.attributes + b.attributes,
        relations=a.relations + b.relations,
        actions=a.actions + b.actions,
        instructions=a.instructions + b.instructions,
        uncertainties=a.uncertainties + b.uncertainties,
        descriptions={**a.descriptions, **b.descriptions},
    )


def _triple_entity(value: object, field: str, descriptions: dict[str, str]) -> RawEntity:
    if not isinstance(value, Mapping):
        raise ValidationError(f"{field} must be an object with type and name", field=field)
    name = required_text(value.get("name"), field=f"{field}.name", limit=200)
    etype = required_text(value.get("type", "other"), field=f"{field}.type", limit=64).lower()
    if value.get("description") is not None:
        descriptions[name] = check_text(value["description"], field=f"{field}.description")
    return RawEntity(name, etype)
