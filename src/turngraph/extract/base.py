"""The Extractor protocol and the raw extraction it returns.

An extractor only reads text: it never touches the store. What it returns names entities by
their surface names; the core resolves them against the memory, versions attributes and
records corrections (``turngraph.core.turns``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

# The fixed set of entity types; anything else is stored as "other".
ENTITY_TYPES = (
    "person",
    "organization",
    "place",
    "product",
    "project",
    "date",
    "event",
    "animal",
    "other",
)
# What callers and models also call them: "organisation", "location", "company", ...
TYPE_SYNONYMS = {
    "organisation": "organization",
    "org": "organization",
    "company": "organization",
    "business": "organization",
    "institution": "organization",
    "team": "organization",
    "location": "place",
    "city": "place",
    "country": "place",
    "town": "place",
    "region": "place",
    "address": "place",
    "people": "person",
    "human": "person",
    "individual": "person",
    "pet": "animal",
    "item": "product",
    "tool": "product",
    "app": "product",
    "software": "product",
    "time": "date",
    "meeting": "event",
}


def canonical_type(name: str) -> str:
    """An entity type of the fixed set: a synonym mapped ("organisation" -> organization,
    "location" -> place), anything else outside the set "other"."""
    low = name.strip().lower()
    low = TYPE_SYNONYMS.get(low, low)
    return low if low in ENTITY_TYPES or low in STRUCTURAL_TYPES else "other"


# Types the agent kit's turn protocol writes through links; never offered to extractors.
STRUCTURAL_TYPES = ("conversation", "conversation_message")

# Attribute keys that hold one value at a time: a new value supersedes the old one.
SINGLE_VALUED = frozenset(
    {
        "name",
        "preferred_name",
        "job_title",
        "employer",
        "location",
        "age",
        "email",
        "phone",
        "birthday",
        "relationship_status",
        "nationality",
        "school",
        "hometown",
        "diet",
        "species",
        "manager",
        "partner",
        "phone_model",
    }
)
# Attribute keys that accumulate values; a negation ends a matching value.
MULTI_VALUED = frozenset(
    {
        "likes",
        "dislikes",
        "pets",
        "hobbies",
        "languages",
        "skills",
        "allergies",
        "health",
        "education",
        "goals",
        "values",
        "opinions",
        "habits",
        "family",
        "learning",
    }
)
# Relation labels where a subject has one object at a time (a new one ends the old).
SINGLE_OBJECT_RELATIONS = frozenset({"works_at", "lives_in", "married_to"})


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What an extractor knows about the turn besides its text."""

    speaker: str  # who "I" refers to
    role: str
    observed_at: datetime
    addressee: str | None = None  # who "you" refers to, when known
    # The session's turns just before this one, oldest first, as (speaker, text): what a
    # pronoun or an elided subject may point back to. Bounded; never a read of the memory.
    history: tuple[tuple[str, str], ...] = ()
    # People and animals the memory already knows (its newest few hundred), so that a name
    # said in lower case ("kunle landed in toronto") is still recognized.
    known_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RawEntity:
    name: str
    type: str = "other"


@dataclass(frozen=True, slots=True)
class RawAttribute:
    entity: str
    key: str
    value: str
    negated: bool = False  # "I don't like sushi anymore": ends a matching value
    category: str | None = None  # identity | knowledge | context; None: by key


@dataclass(frozen=True, slots=True)
class RawRelation:
    subject: str
    label: str
    object: str
    category: str | None = None
    negated: bool = False  # "we're not together anymore": ends the relationship


@dataclass(frozen=True, slots=True)
class RawAction:
    actor: str
    verb: str
    object: str | None
    summary: str
    occurred_at: datetime | None = None
    place: str | None = None
    # How precisely the turn stated the time: day, week, month, season or year.
    precision: str | None = None


@dataclass(frozen=True, slots=True)
class RawInstruction:
    label: str
    description: str


@dataclass(frozen=True, slots=True)
class RawUncertainty:
    about: str
    reason: str


@dataclass(frozen=True, slots=True)
class RawExtraction:
    entities: tuple[RawEntity, ...] = ()
    attributes: tuple[RawAttribute, ...] = ()
    relations: tuple[RawRelation, ...] = ()
    actions: tuple[RawAction, ...] = ()
    instructions: tuple[RawInstruction, ...] = ()
    uncertainties: tuple[RawUncertainty, ...] = ()
    # Extractors may describe entities they name (shown for new entities).
    descriptions: dict[str, str] = field(default_factory=dict)


class Extractor(Protocol):
    """Turns the text of one message into a :class:`RawExtraction`.

    Implementations must be deterministic for a given input where they can, must not write
    anything, and raise :class:`~turngraph.errors.ExtractionError` when they cannot produce a
    valid result.
    """

    name: str

    def extract(self, text: str, context: TurnContext) -> RawExtraction: ...
