"""turngraph: memory for conversational agents.

>>> import turngraph
>>> db = turngraph.open("turngraph.db")          # doctest: +SKIP
>>> mem = db.create_memory("acme")               # doctest: +SKIP
"""

from turngraph.client import AsyncClient, Client
from turngraph.config import Limits, Settings
from turngraph.core.database import Database, open
from turngraph.core.memory import Memory
from turngraph.errors import (
    AuthenticationError,
    ConflictError,
    ExtractionError,
    ForbiddenError,
    IdempotencyConflictError,
    ImmutableConfigError,
    ModelError,
    NotFoundError,
    StoreError,
    TooLargeError,
    TurngraphError,
    ValidationError,
)
from turngraph.extract.base import Extractor, TurnContext
from turngraph.extract.llm import LLMExtractor
from turngraph.extract.rules import RuleExtractor
from turngraph.models import (
    AppendixFile,
    AttributeVersion,
    BatchResult,
    DeleteResult,
    Entity,
    EntityDeleteResult,
    EntityNeighborhood,
    EntitySummary,
    Extraction,
    FileContent,
    ForgetResult,
    Hit,
    MemoryInfo,
    MergeProposal,
    MergeResult,
    Observation,
    RecalledEntity,
    RecallResult,
    Relationship,
    RelationshipRef,
    RememberResult,
    RetrievalConfig,
    ReviewHint,
    Session,
    Snippet,
    Source,
    State,
    Turn,
    TurnPage,
    WriteResult,
)
from turngraph.plugins import EmbedderRequest, register_embedder, register_extractor
from turngraph.recall.embed import Embedder, OnnxEmbedder

__version__ = "0.1.0"

__all__ = [
    "AppendixFile",
    "AsyncClient",
    "AttributeVersion",
    "AuthenticationError",
    "BatchResult",
    "Client",
    "ConflictError",
    "Database",
    "DeleteResult",
    "Embedder",
    "EmbedderRequest",
    "Entity",
    "EntityDeleteResult",
    "EntityNeighborhood",
    "EntitySummary",
    "Extraction",
    "ExtractionError",
    "Extractor",
    "FileContent",
    "ForbiddenError",
    "ForgetResult",
    "Hit",
    "IdempotencyConflictError",
    "ImmutableConfigError",
    "LLMExtractor",
    "Limits",
    "Memory",
    "MemoryInfo",
    "MergeProposal",
    "MergeResult",
    "ModelError",
    "NotFoundError",
    "Observation",
    "OnnxEmbedder",
    "RecallResult",
    "RecalledEntity",
    "Relationship",
    "RelationshipRef",
    "RememberResult",
    "RetrievalConfig",
    "ReviewHint",
    "RuleExtractor",
    "Session",
    "Settings",
    "Snippet",
    "Source",
    "State",
    "StoreError",
    "TooLargeError",
    "Turn",
    "TurnContext",
    "TurnPage",
    "TurngraphError",
    "ValidationError",
    "WriteResult",
    "open",
    "register_embedder",
    "register_extractor",
]
