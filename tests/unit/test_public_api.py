"""The public API is explicit and pinned: a change to it is a deliberate edit here."""

from __future__ import annotations

import turngraph
import turngraph.errors

PUBLIC = [
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


def test_all_is_sorted_and_pinned() -> None:
    assert turngraph.__all__ == sorted(turngraph.__all__)
    assert turngraph.__all__ == PUBLIC
    for name in PUBLIC:
        assert hasattr(turngraph, name), name


def test_every_error_is_a_turngraph_error_with_fields() -> None:
    for name in turngraph.errors.__all__:
        cls = getattr(turngraph.errors, name)
        assert issubclass(cls, turngraph.TurngraphError)
    err = turngraph.ValidationError("bad title", field="title", memory="m")
    assert str(err) == "bad title"
    assert (err.field, err.memory) == ("title", "m")
    assert err.to_dict() == {
        "error": "ValidationError",
        "message": "bad title",
        "field": "title",
        "memory": "m",
    }
    assert issubclass(turngraph.TooLargeError, turngraph.ValidationError)
    assert issubclass(turngraph.ImmutableConfigError, turngraph.ConflictError)
