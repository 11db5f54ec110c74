"""What the public API returns: frozen pydantic models, JSON-ready.

Datetimes are timezone-aware UTC. Entities are named by their display name; the normalized
form is internal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Visibility = Literal["private", "organization"]
ProposalStatus = Literal["open", "accepted", "rejected", "obsolete"]


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
    retrieval: RetrievalConfig
    created_at: datetime
    observations: int = 0
    entities: int = 0
    relationships: int = 0
    files: int = 0


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


__all__ = [
    "AppendixFile",
    "DeleteResult",
    "Entity",
    "EntityNeighborhood",
    "EntitySummary",
    "FileContent",
    "MemoryInfo",
    "MergeProposal",
    "MergeResult",
    "Observation",
    "ProposalStatus",
    "Relationship",
    "RelationshipRef",
    "RetrievalConfig",
    "ReviewHint",
    "Visibility",
    "WriteResult",
]
