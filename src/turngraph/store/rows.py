"""The rows a storage backend returns and takes, and the neutral text search request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal


@dataclass(frozen=True, slots=True)
class MemoryRow:
    id: int
    name: str
    visibility: str
    retrieval: str  # JSON
    created_at: datetime
    organization: str = "default"


@dataclass(frozen=True, slots=True)
class ObservationRow:
    id: int
    slug: str
    title: str
    content: str
    category: str
    tags: tuple[str, ...]
    observed_at: datetime
    confidence: float | None
    source: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class EntityRow:
    id: int
    key: str
    name: str
    type: str
    description: str
    retrieval_queries: tuple[str, ...]
    degree: int
    created_at: datetime
    updated_at: datetime
    memory_category: str = "knowledge"


@dataclass(frozen=True, slots=True)
class RelationshipRow:
    id: int
    source_id: int
    source: str  # display names of the endpoints
    type: str
    target_id: int
    target: str
    description: str
    weight: float
    memory_category: str = "knowledge"
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    source_type: str = "other"
    target_type: str = "other"
    source_key: str = ""
    target_key: str = ""


@dataclass(frozen=True, slots=True)
class EntityFold:
    """What the live observations assert about an entity: the newest type and description,
    and the retrieval-query lists of the newest assertions that carry any (newest first).
    ``description`` is None when no observation asserts anything (only relationship links)."""

    type: str | None
    description: str | None
    retrieval_queries: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class RelationshipFold:
    """The newest description and weight the live observations give a relationship."""

    description: str | None
    weight: float | None


@dataclass(frozen=True, slots=True)
class LinkRow:
    entity_id: int
    explicit: bool


@dataclass(frozen=True, slots=True)
class AssertionRow:
    """What one observation says about one entity (its link), as stored."""

    entity_id: int
    explicit: bool
    type: str | None
    description: str | None
    retrieval_queries: tuple[str, ...]
    seq: int


@dataclass(frozen=True, slots=True)
class BackingRow:
    """What one observation says about one relationship it backs, as stored."""

    relationship_id: int
    description: str | None
    weight: float | None
    seq: int


@dataclass(frozen=True, slots=True)
class FileRow:
    path: str
    filename: str
    content_type: str
    size: int
    sha256: str
    description: str
    created_by: str
    created_at: datetime
    data: bytes | None  # None when listed without contents


@dataclass(frozen=True, slots=True)
class IdempotencyRow:
    key: str
    operation: str
    fingerprint: str
    slug: str | None
    result: str  # JSON
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ProposalRow:
    id: int
    canonical_key: str
    canonical_name: str
    duplicate_key: str
    duplicate_name: str
    type: str
    reasons: tuple[str, ...]
    score: float
    status: str
    created_at: datetime
    decided_at: datetime | None


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: str
    metadata: str  # JSON
    turn_count: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TurnRow:
    id: str
    session_id: str
    seq: int
    role: str
    speaker: str | None
    extracted: str
    labels: tuple[str, ...]
    created_at: datetime
    # From the observation that backs the turn.
    observation_id: int
    slug: str
    content: str
    observed_at: datetime


@dataclass(frozen=True, slots=True)
class AttributeRow:
    id: str
    entity_id: int
    key: str
    value: str
    memory_category: str
    observation_id: int
    valid_from: datetime
    valid_until: datetime | None
    supersedes: str | None
    superseded_by: str | None
    created_at: datetime
    # Joined for display.
    entity_name: str = ""
    entity_type: str = "other"
    entity_key: str = ""
    source_turn: str | None = None
    source_slug: str | None = None


@dataclass(frozen=True, slots=True)
class FactRow:
    """An action, instruction or uncertainty a turn produced."""

    id: str
    kind: str
    observation_id: int
    memory_category: str
    data: str  # JSON
    dedup: str
    happened_at: datetime
    active: bool


@dataclass(frozen=True, slots=True)
class TurnKey:
    """What recall weighs of a candidate turn beside its text: its session, speaker and
    role."""

    session_id: str
    speaker: str | None
    role: str


@dataclass(frozen=True, slots=True)
class ShownRows:
    """The rows a recall result shows, read together (:meth:`RecallReads.shown_rows`)."""

    observations: list[ObservationRow]  # in the order asked, those that exist
    turns: dict[int, TurnRow]  # by observation id, for the observations that are turns
    entities: dict[int, EntityRow]  # by id, those that exist
    relationships: list[RelationshipRow]  # among the entities, current first, strongest first


@dataclass(frozen=True, slots=True)
class ObservationFilter:
    """Structural conditions on observations; None means no condition."""

    ids: tuple[int, ...] | None = None  # restrict to these (candidates of a semantic search)
    category: str | None = None
    tags: tuple[str, ...] = ()  # all of them
    since: datetime | None = None
    until: datetime | None = None
    session_id: str | None = None
    labels: tuple[str, ...] = ()  # all of them (turn labels)
    entity_id: int | None = None


TextKind = Literal["observation", "entity", "attribute"]
# The fields of each kind of row a text search reads.
TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    "observation": ("title", "content", "context"),  # context: a turn's window
    "entity": ("name", "description", "queries"),
    "attribute": ("text",),  # entity name, key and value
}


@dataclass(frozen=True, slots=True)
class TextSearch:
    """A ranked full-text search within one memory, in terms every backend can build its own
    query from.

    ``terms`` are matched as words (each backend stems them its own way); ``match`` says
    whether a row needs any or all of them. ``fields`` names the fields searched with their
    weight in the score; empty means every field of the kind at weight 1. Rows come back
    best first, at most ``limit``, each with a score where higher is better.
    """

    kind: TextKind
    terms: tuple[str, ...]
    limit: int
    match: Literal["any", "all"] = "any"
    fields: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        known = TEXT_FIELDS[self.kind]
        for name, _ in self.fields:
            if name not in known:
                raise ValueError(f"{self.kind} has no text field {name!r}")


@dataclass(frozen=True, slots=True)
class QueuedRow:
    """A row waiting for its vector, with the stored fields the core builds its text from
    (:func:`turngraph.recall.index.embed_text`); the backend never decides what is embedded.

    observation: ``title``, ``content``, and ``speaker`` (the speaker, else the role) when it
    is a turn; entity: ``name``, ``content`` (its description), ``queries``; window: its
    ``content`` (the search context the core stored for the turn). Attributes have no
    vectors: they are found by their words and through their entity.
    """

    kind: str  # observation | entity | window
    ref: int
    content: str = ""
    title: str = ""
    speaker: str | None = None
    name: str = ""
    queries: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Counts:
    observations: int
    entities: int
    relationships: int
    files: int
    sessions: int = 0
    turns: int = 0
    open_proposals: int = 0


@dataclass(frozen=True, slots=True)
class PrincipalRow:
    id: str
    organization: str
    display_name: str
    kind: str
    admin: bool
    created_at: datetime
    # May create memories (an admin may always).
    create_memories: bool = False


@dataclass(frozen=True, slots=True)
class KeyRow:
    id: str
    principal_id: str
    name: str
    created_at: datetime
    revoked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class GrantRow:
    principal_id: str
    memory: str
    tier: str
    created_at: datetime
    organization: str = "default"  # the memory's


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    fingerprint: str
    state: str  # pending | done
    status: int | None
    body: str | None
