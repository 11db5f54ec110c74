"""Settings: limits and storage options, one frozen object.

The core never reads the environment; the faces (CLI, server) build a :class:`Settings` from
``TURNGRAPH_*`` variables and flags and pass it in.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Limits:
    """Sizes the write contract enforces and the bounds on what responses return."""

    # Observations: past the soft cap a write is accepted with a warning; past the hard cap it
    # is rejected. Long sources belong in appendix files.
    content_soft_chars: int = 2_000
    content_hard_chars: int = 32_000
    title_chars: int = 200
    category_chars: int = 64
    tag_chars: int = 64
    tags_per_observation: int = 32
    source_chars: int = 2_000
    entity_name_chars: int = 200
    entity_type_chars: int = 64
    description_chars: int = 4_000
    retrieval_queries_per_entity: int = 10
    retrieval_query_chars: int = 300
    entities_per_write: int = 100
    relationships_per_write: int = 200
    relationship_type_chars: int = 64
    files_per_observation: int = 50
    # Appendix files.
    file_bytes: int = 10 * 1024 * 1024
    file_path_chars: int = 512
    file_description_chars: int = 2_000
    # Write responses: relationships shown per touched entity.
    neighborhood_relationships: int = 25
    # get_entity: relationships and observation slugs listed.
    entity_relationships: int = 200
    entity_observations: int = 200
    idempotency_key_chars: int = 200
    # Turns and sessions.
    labels_per_turn: int = 32
    label_chars: int = 200
    speaker_chars: int = 200
    session_id_chars: int = 200
    session_metadata_chars: int = 64_000
    messages_per_batch: int = 500
    # Reads: the most one page or one query may ask for.
    query_chars: int = 4_000
    turns_per_page: int = 500
    state_items: int = 500
    entities_per_page: int = 1_000
    forget_observations: int = 500


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything configurable about one open database."""

    limits: Limits = field(default_factory=Limits)
    # SQLite: how long a writer waits for another process's write lock before failing.
    busy_timeout_ms: int = 30_000
    # SQLite synchronous mode: NORMAL keeps every committed write through a process crash in WAL
    # mode; FULL also survives power loss at the cost of an fsync per commit.
    sqlite_synchronous: str = "NORMAL"
    # PostgreSQL: connections this process keeps at most (each transaction leases one), how
    # long a transaction waits for a free one before failing, and how long connecting may take.
    postgres_pool_size: int = 16
    postgres_pool_timeout_seconds: float = 10.0
    postgres_connect_timeout_seconds: float = 5.0
    # PostgreSQL: search vectors in the database with pgvector's HNSW index, creating the
    # extension where it is installed; off, vectors are searched in each process's memory.
    postgres_vector_index: bool = True
    # ... and a memory with at most this many vectors of a kind is searched exactly (its own
    # rows), above it through the index (which every memory shares). 4,096 is all that
    # recall's cached matrices keep (store.base.CACHED_ROWS_MAX): their numpy scan takes
    # about 2 ms against 17-19 ms for the index walks of a 3,000-turn memory.
    postgres_exact_vectors_below: int = 4_096
    # Extraction of turns: "rules" (offline, the default) or "llm" (an OpenAI-compatible
    # chat-completions endpoint at llm_base_url).
    extractor: str = "rules"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_timeout_seconds: float = 30.0
    # Embedders named "openai:<model>" in a memory's retrieval configuration call this.
    embeddings_base_url: str | None = None
    embeddings_api_key: str | None = field(default=None, repr=False)
    # Embed what a write queued on a background thread (one per database, on its own CPU
    # thread) instead of before the write returns. The server does: no request waits for
    # embedding, and under load the queue is embedded in shared batches. A new row is found
    # by lexical recall at once and by the dense signal a moment later.
    index_in_background: bool = False
    # Read turns with the rules in this many worker processes (0: in the calling thread), each
    # turn within extraction_timeout_seconds (past it the turn is stored without extraction).
    # The server uses 2, so one caller's long or hostile turns never hold up other requests.
    extraction_workers: int = 0
    extraction_timeout_seconds: float = 10.0


__all__ = ["Limits", "Settings"]
