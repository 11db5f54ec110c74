"""What the public API returns: frozen pydantic models, JSON-ready.

Datetimes are timezone-aware UTC. Entities are named by their display name; the normalized
form is internal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Visibility = Literal["private", "organization"]
ProposalStatus = Literal["open", "accepted", "rejected", "obsolete"]
Role = Literal["user", "assistant", "system", "tool"]
MemoryCategory = Literal["identity", "knowledge", "context"]
InferMode = Literal["full", "triples", "preview", "none"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RetrievalConfig(_Model):
    """How a memory is indexed for recall; fixed when the memory is created.

    ``embedder`` names the dense model (``"none"`` for a lexical-only memory) and ``dimension``
    its vector size; ``lexical`` names the full-text tokenizer. Changing any of them would make
    old and new entries mutually unsearchable, so it is a migration into a new memory.
    """

    embedder: str = "minilm-l6-v2-int8"
    dimension: int | None = 384
    lexical: str = "fts5:porter unicode61"


class MemoryInfo(_Model):
    name: str
    visibility: Visibility
    organization: str = "default"
    retrieval: RetrievalConfig
    created_at: datetime
    observations: int = 0
    entities: int = 0
    relationships: int = 0
    files: int = 0
    sessions: int = 0
    turns: int = 0
    open_proposals: int = 0  # merge proposals waiting for a decision
    tier: str | None = None  # the caller's tier on it, when read through a server


class RelationshipRef(_Model):
    """A relationship's identity: its endpoints and type, in authored direction."""

    source: str
    type: str
    target: str


class Relationship(_Model):
    source: str
    type: str
    target: str
    description: str = ""
    weight: float = 1.0
    valid_until: datetime | None = None  # set when a newer fact ended it (still kept)


class Observation(_Model):
    slug: str
    title: str
    content: str
    category: str
    tags: list[str] = Field(default_factory=list)
    observed_at: datetime
    created_at: datetime
    updated_at: datetime
    confidence: float | None = None
    source: str | None = None
    entities: list[str] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)


class EntitySummary(_Model):
    name: str
    type: str
    description: str
    degree: int


class Entity(_Model):
    """An entity with its relationships and the observations that back it (each list bounded)."""

    name: str
    type: str
    description: str
    degree: int
    retrieval_queries: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    observations: list[str] = Field(default_factory=list)
    relationships_truncated: bool = False
    observations_truncated: bool = False
    created_at: datetime
    updated_at: datetime


class EntityNeighborhood(_Model):
    """A touched entity as a write returns it: its current state and its relationships.

    ``truncated`` is true when the entity has more relationships than the response shows;
    ``note`` then says how many and where to read the rest.
    """

    name: str
    type: str
    description: str
    degree: int
    is_new: bool
    relationships: list[Relationship] = Field(default_factory=list)
    truncated: bool = False
    note: str | None = None


class ReviewHint(_Model):
    """An entity whose description changed materially, with the relationships to re-read.

    Nothing is rewritten automatically: an edge description may still be right after its node
    changed.
    """

    entity: str
    old_description: str
    new_description: str
    relationships: list[Relationship] = Field(default_factory=list)
    message: str


class WriteResult(_Model):
    observation: Observation
    entities: list[EntityNeighborhood] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    hints: list[ReviewHint] = Field(default_factory=list)
    replayed: bool = False


class DeleteResult(_Model):
    """What a delete removed: the observation and whatever only it backed."""

    observation: Observation
    pruned_entities: list[str] = Field(default_factory=list)
    pruned_relationships: list[RelationshipRef] = Field(default_factory=list)
    replayed: bool = False
    dry_run: bool = False  # a preview: nothing was deleted


class AppendixFile(_Model):
    path: str
    filename: str
    content_type: str
    size: int
    sha256: str
    description: str
    created_by: str
    created_at: datetime


class FileContent(_Model):
    file: AppendixFile
    data: bytes


class ForgetResult(_Model):
    """What :meth:`~turngraph.Memory.forget` removed (or, on a dry run, would remove)."""

    deleted: int
    observations: list[str] = Field(default_factory=list)  # slugs
    pruned_entities: list[str] = Field(default_factory=list)
    purged_versions: int = 0
    dry_run: bool = False


class EntityDeleteResult(_Model):
    """What :meth:`~turngraph.Memory.delete_entity` removed."""

    entity: str
    type: str
    relationships: int
    attributes: int
    unlinked_observations: int


class MergeProposal(_Model):
    """A proposed merge of ``duplicate`` into ``canonical``; applied only when accepted."""

    id: int
    status: ProposalStatus
    canonical: str
    duplicate: str
    type: str
    reasons: list[str]
    score: float
    created_at: datetime
    decided_at: datetime | None = None


class MergeResult(_Model):
    proposal: MergeProposal
    entity: Entity
    relinked_observations: int
    dropped_self_loops: list[RelationshipRef] = Field(default_factory=list)
    merged_relationships: list[RelationshipRef] = Field(default_factory=list)


# -- turns, sessions and extraction ---------------------------------------------------------


class Session(_Model):
    id: str
    created_at: datetime
    metadata: Any = None
    turn_count: int = 0


class Turn(_Model):
    """One message of a session, stored exactly as given."""

    id: str
    session_id: str
    seq: int
    role: Role
    speaker: str | None = None
    content: str
    observed_at: datetime
    created_at: datetime
    slug: str  # the observation that backs it
    extracted: str  # full | triples | none | failed
    labels: list[str] = Field(default_factory=list)


class TurnPage(_Model):
    turns: list[Turn]
    next_cursor: str | None = None
    has_more: bool = False


class SessionPage(_Model):
    """Sessions, newest first; ``has_more`` says another page follows."""

    sessions: list[Session]
    has_more: bool = False


class GraphNode(_Model):
    name: str
    type: str
    description: str
    degree: int


class GraphEdge(_Model):
    source: str
    type: str
    target: str
    current: bool = True  # False once a newer fact ended it


class Neighborhood(_Model):
    """An entity and its neighbors as a graph, at most ``limit`` edges; ``note`` says
    what was cut."""

    center: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool = False
    note: str | None = None


class ExtractedEntity(_Model):
    id: str  # entity:<type>/<normalized name>
    name: str
    entity_type: str
    memory_category: MemoryCategory
    is_new: bool


class ExtractedAttribute(_Model):
    id: str
    entity_id: str
    key: str
    value: str
    memory_category: MemoryCategory


class ExtractedRelation(_Model):
    subject: str
    label: str
    object: str
    memory_category: MemoryCategory


class ExtractedAction(_Model):
    actor: str
    verb: str
    object: str | None = None
    summary: str
    occurred_at: datetime | None = None
    # How precisely the turn gave the time (day, week, month, season, year); None without one.
    time_precision: str | None = None
    place: str | None = None
    memory_category: MemoryCategory = "context"


class Instruction(_Model):
    """A standing instruction to the assistant. ``topic`` (name, language, format, level,
    units, length, tone) is what it is about: a newer instruction on the same topic
    replaces it."""

    id: str
    label: str
    description: str
    topic: str | None = None


class Uncertainty(_Model):
    about: str
    reason: str


class Correction(_Model):
    entity_id: str
    key: str
    old_value: str
    new_value: str


class Ended(_Model):
    """A fact a turn ended without replacing it ("I don't work at Deloitte anymore", "we
    broke up", "switch back to English"): an attribute value, a relationship or a standing
    instruction, no longer current from the turn's time."""

    kind: Literal["attribute", "relation", "instruction"]
    entity_id: str | None = None  # the entity of an attribute, the subject of a relation
    key: str  # the attribute's key, the relation's label, the instruction's label
    value: str  # the value, the relation's object, the instruction's description


class Extraction(_Model):
    """The structured diff one turn produced."""

    turn_id: str
    entities: list[ExtractedEntity] = Field(default_factory=list)
    attributes: list[ExtractedAttribute] = Field(default_factory=list)
    relations: list[ExtractedRelation] = Field(default_factory=list)
    actions: list[ExtractedAction] = Field(default_factory=list)
    instructions: list[Instruction] = Field(default_factory=list)
    uncertainties: list[Uncertainty] = Field(default_factory=list)
    corrections: list[Correction] = Field(default_factory=list)
    ended: list[Ended] = Field(default_factory=list)


# The kinds of item an Extraction lists, in its fields' order.
EXTRACTION_KINDS = tuple(name for name in Extraction.model_fields if name != "turn_id")


class RememberResult(_Model):
    mode: InferMode
    session_id: str
    turn_id: str
    preview: bool = False
    extraction: Extraction
    replayed: bool = False


class BatchResult(_Model):
    session_id: str
    turn_ids: list[str]
    extractions: list[Extraction]
    replayed: bool = False


class AttributeVersion(_Model):
    """One version of an attribute; superseded versions keep their validity and links."""

    id: str
    entity_id: str
    entity: str  # display name
    key: str
    value: str
    memory_category: MemoryCategory
    valid_from: datetime
    valid_until: datetime | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    source_turn: str | None = None
    source_slug: str | None = None
    created_at: datetime


class StateEntity(_Model):
    id: str
    name: str
    entity_type: str
    memory_category: MemoryCategory
    description: str
    created_at: datetime
    updated_at: datetime


class StateRelation(_Model):
    id: str
    subject: str
    label: str
    object: str
    memory_category: MemoryCategory
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    created_at: datetime


class EntityState(_Model):
    """One entity with its current attributes and relations."""

    entity: StateEntity
    attributes: list[AttributeVersion] = Field(default_factory=list)
    relations: list[StateRelation] = Field(default_factory=list)


class CategoryState(_Model):
    entities: list[StateEntity] = Field(default_factory=list)
    attributes: list[AttributeVersion] = Field(default_factory=list)
    relations: list[StateRelation] = Field(default_factory=list)
    actions: list[ExtractedAction] = Field(default_factory=list)


class StateTruncation(_Model):
    entities: bool = False
    attributes: bool = False
    relations: bool = False
    actions: bool = False
    instructions: bool = False
    unknowns: bool = False


class State(_Model):
    """What is known (at ``as_of``), grouped by memory category; each list bounded."""

    identity: CategoryState = Field(default_factory=CategoryState)
    knowledge: CategoryState = Field(default_factory=CategoryState)
    context: CategoryState = Field(default_factory=CategoryState)
    instructions: list[Instruction] = Field(default_factory=list)
    unknowns: list[Uncertainty] = Field(default_factory=list)
    truncated: StateTruncation = Field(default_factory=StateTruncation)
    as_of: datetime | None = None


class TurnDetail(_Model):
    """A turn with what its extraction left in the memory, read back from the store:
    the entities and relationships its observation names, the attribute versions it set
    (with the corrections among them: a version that superseded an older value), and the
    actions, instructions and uncertainties it produced."""

    turn: Turn
    entities: list[GraphNode] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    attributes: list[AttributeVersion] = Field(default_factory=list)
    corrections: list[Correction] = Field(default_factory=list)
    actions: list[ExtractedAction] = Field(default_factory=list)
    instructions: list[Instruction] = Field(default_factory=list)
    uncertainties: list[Uncertainty] = Field(default_factory=list)


class TurnDetailPage(_Model):
    """A page of a session's turns, oldest first, each with what it taught."""

    turns: list[TurnDetail]
    next_cursor: str | None = None
    has_more: bool = False


# -- recall ---------------------------------------------------------------------------------


class RecalledEntity(_Model):
    name: str
    type: str
    description: str
    degree: int
    score: float


class Source(_Model):
    """Where a passage came from: the turn (with its session) or a plain observation."""

    slug: str
    turn_id: str | None = None
    session_id: str | None = None
    seq: int | None = None
    role: str | None = None
    speaker: str | None = None


class Snippet(_Model):
    """One bounded excerpt per source observation; ``truncated`` means fetch it by slug."""

    slug: str
    title: str
    text: str
    truncated: bool
    observed_at: datetime
    category: str
    source: Source
    score: float


class Hit(_Model):
    """A ranked passage: a turn, an observation or an attribute fact, with provenance.

    ``score`` is on 0..1, higher is better, and orders the hits of one recall (0.5 is an
    average candidate; scores are not comparable across recalls). ``superseded`` lists the
    facts the passage stated that were no longer current (now, or at ``as_of``), each as
    "Maya location: Manchester, now Bristol"; empty when everything it set still held.
    """

    id: str
    kind: Literal["turn", "observation", "attribute", "instruction"]
    text: str
    score: float
    observed_at: datetime
    source: Source
    superseded: list[str] = Field(default_factory=list)
    superseded_at: datetime | None = None
    superseded_by: str | None = None
    occurred_at: datetime | None = None


class ContextFact(_Model):
    """A current fact in a context payload: who, what, the value, since when, and the turn
    (or observation) that said it."""

    entity: str
    key: str
    value: str
    since: datetime
    source: Source


class MemoryContext(_Model):
    """What an agent pastes into its prompt before it answers: the standing instructions,
    the current facts about the people the turn concerns, and the passages that answer the
    message, each part labelled in ``text`` and kept within ``max_tokens`` (an estimate: one
    token per four characters). ``cut`` says what did not fit or was left out. ``str()`` of
    it is ``text``."""

    query: str
    instructions: list[Instruction] = Field(default_factory=list)
    facts: list[ContextFact] = Field(default_factory=list)
    passages: list[Hit] = Field(default_factory=list)
    cut: list[str] = Field(default_factory=list)
    max_tokens: int
    tokens: int = 0
    text: str = ""

    def __str__(self) -> str:
        return self.text


class ChatResult(_Model):
    """What :meth:`~turngraph.Memory.chat` did: the model's ``reply``, the two turns it stored
    (the user's message and the reply), what the message taught the memory
    (``memory_updates``), the ``context`` the model was given and the ``model`` that
    answered."""

    reply: str
    session_id: str
    turn_id: str  # the user's message
    reply_turn_id: str
    memory_updates: Extraction
    context: MemoryContext
    model: str


class RecallResult(_Model):
    query: str | None
    mode: str
    entities: list[RecalledEntity] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    snippets: list[Snippet] = Field(default_factory=list)
    hits: list[Hit] = Field(default_factory=list)
    truncated: list[str] = Field(default_factory=list)  # which ceilings cut what
    took_ms: float = 0.0


__all__ = [
    "EXTRACTION_KINDS",
    "AppendixFile",
    "AttributeVersion",
    "BatchResult",
    "CategoryState",
    "ChatResult",
    "ContextFact",
    "Correction",
    "DeleteResult",
    "Ended",
    "Entity",
    "EntityNeighborhood",
    "EntitySummary",
    "ExtractedAction",
    "ExtractedAttribute",
    "ExtractedEntity",
    "ExtractedRelation",
    "Extraction",
    "FileContent",
    "GraphEdge",
    "GraphNode",
    "Hit",
    "InferMode",
    "Instruction",
    "MemoryCategory",
    "MemoryContext",
    "MemoryInfo",
    "MergeProposal",
    "MergeResult",
    "Neighborhood",
    "Observation",
    "ProposalStatus",
    "RecallResult",
    "RecalledEntity",
    "Relationship",
    "RelationshipRef",
    "RememberResult",
    "RetrievalConfig",
    "ReviewHint",
    "Role",
    "Session",
    "SessionPage",
    "Snippet",
    "Source",
    "State",
    "StateEntity",
    "StateRelation",
    "StateTruncation",
    "Turn",
    "TurnDetail",
    "TurnDetailPage",
    "TurnPage",
    "Uncertainty",
    "Visibility",
    "WriteResult",
]
