"""turngraph: memory for conversational agents.

>>> import turngraph
>>> db = turngraph.open("turngraph.db")          # doctest: +SKIP
>>> mem = db.create_memory("acme")               # doctest: +SKIP
"""

from turngraph.config import Limits, Settings
from turngraph.database import Database, open
from turngraph.errors import (
    ConflictError,
    ExtractionError,
    ForbiddenError,
    IdempotencyConflictError,
    ImmutableConfigError,
    NotFoundError,
    StoreError,
    TooLargeError,
    TurngraphError,
    ValidationError,
)
from turngraph.memory import Memory
from turngraph.models import (
    AppendixFile,
    DeleteResult,
    Entity,
    EntityNeighborhood,
    EntitySummary,
    FileContent,
    MemoryInfo,
    MergeProposal,
    MergeResult,
    Observation,
    Relationship,
    RelationshipRef,
    RetrievalConfig,
    ReviewHint,
    WriteResult,
)

__version__ = "0.1.0"

__all__ = [
    "AppendixFile",
    "ConflictError",
    "Database",
    "DeleteResult",
    "Entity",
    "EntityNeighborhood",
    "EntitySummary",
    "ExtractionError",
    "FileContent",
    "ForbiddenError",
    "IdempotencyConflictError",
    "ImmutableConfigError",
    "Limits",
    "Memory",
    "MemoryInfo",
    "MergeProposal",
    "MergeResult",
    "NotFoundError",
    "Observation",
    "Relationship",
    "RelationshipRef",
    "RetrievalConfig",
    "ReviewHint",
    "Settings",
    "StoreError",
    "TooLargeError",
    "TurngraphError",
    "ValidationError",
    "WriteResult",
    "open",
]
