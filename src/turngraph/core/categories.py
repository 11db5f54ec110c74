"""Which memory category (identity, knowledge, context) a fact is filed under by default."""

from __future__ import annotations

from typing import Literal

from turngraph.extract.base import MULTI_VALUED, SINGLE_VALUED

Category = Literal["identity", "knowledge", "context"]
CATEGORIES: tuple[Category, ...] = ("identity", "knowledge", "context")

# Single-valued keys describe who someone is; multi-valued ones what they know and like.
_IDENTITY_KEYS = SINGLE_VALUED | {"languages"}
_KNOWLEDGE_KEYS = MULTI_VALUED - {"languages"}
_IDENTITY_RELATIONS = frozenset(
    {
        "works_at",
        "lives_in",
        "married_to",
        "sibling_of",
        "parent_of",
        "partner_of",
        "friend_of",
        "manages",
        "member_of",
    }
)


def for_entity_type(entity_type: str) -> Category:
    if entity_type == "person":
        return "identity"
    if entity_type in ("date", "event"):
        return "context"
    return "knowledge"


def for_attribute(key: str) -> Category:
    if key in _IDENTITY_KEYS:
        return "identity"
    if key in _KNOWLEDGE_KEYS or key.startswith("favorite_"):
        return "knowledge"
    return "context"


def for_relation(label: str) -> Category:
    return "identity" if label in _IDENTITY_RELATIONS else "knowledge"


def check(value: object) -> Category | None:
    """A valid category or None; anything else is a ValidationError at the caller."""
    for category in CATEGORIES:
        if value == category:
            return category
    return None
