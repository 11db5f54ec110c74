"""The storage contract: what the core needs from a backend, and the rows it gets back.

A backend provides memories (create, find, list) and two kinds of transaction scoped to one
memory: :class:`ReadTx` (a consistent snapshot that never waits for writers) and
:class:`WriteTx` (serialized per memory, atomic: everything in it commits or nothing does).
The rules of the memory (normalization, pruning, folding assertions) live in the core; a
backend only stores and finds rows, so every backend behaves the same and one conformance
suite checks them all.

The protocol is split by job, so a reader sees what a backend must do: :class:`GraphReads`
and :class:`GraphWrites` (observations, entities, relationships, attribute versions),
:class:`TurnReads` and :class:`TurnWrites` (sessions, turns, turn facts), :class:`FileReads`
and :class:`FileWrites`, :class:`RecallReads` and :class:`RecallWrites` (text search,
vectors, the index queue), and :class:`AccessStore` (principals, keys, grants, HTTP
idempotency). The transactions combine them.

Besides the rows it is given, a backend keeps two things current by itself, inside the
transaction that changes the rows (SQLite does most of it with triggers):

- **Text search.** Every observation (title, content, and the search context the core gives
  ``insert_observation`` and changes with ``set_search_context``), entity (name, description,
  retrieval queries) and attribute version (its entity's name, key and value) is searchable
  by :class:`TextSearch` as soon as its write commits, and stops being found when it is
  deleted. The core asks in neutral terms (words, any or all, fields and their weights, a
  limit); each backend builds its own query and ranking from that, stemming words its own
  way.
- **The index queue and the index version.** Inserting or changing an observation's title or
  content, or an entity's name, description or retrieval queries, queues that row for
  embedding (``index_queue``), unless the memory's retrieval embedder is ``"none"``
  (attribute versions have no vectors); the core queues windows itself (``enqueue``).
  Deleting a row drops its queue entries and its vectors. ``index_version`` moves whenever
  the memory's stored vectors change (``put_vector``, or a row's vectors deleted), and
  ``load_vectors(since=v)`` returns the vectors written after version ``v``: caches of
  vectors and row counts rely on it. The queue hands back each row's stored fields
  (:class:`QueuedRow`); what is embedded is built from them in the core.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Protocol, runtime_checkable

from turngraph.config import Settings
from turngraph.store.rows import (
    TEXT_FIELDS,
    AssertionRow,
    AttributeRow,
    BackingRow,
    Counts,
    EntityFold,
    EntityRow,
    FactRow,
    FileRow,
    GrantRow,
    IdempotencyRecord,
    IdempotencyRow,
    KeyRow,
    LinkRow,
    MemoryRow,
    ObservationFilter,
    ObservationRow,
    PrincipalRow,
    ProposalRow,
    QueuedRow,
    RelationshipFold,
    RelationshipRow,
    SessionRow,
    ShownRows,
    TextKind,
    TextSearch,
    TurnKey,
    TurnRow,
)

# The protocols, and the rows (defined in turngraph.store.rows) that are part of them.
__all__ = [
    "TEXT_FIELDS",
    "AccessStore",
    "AssertionRow",
    "AttributeRow",
    "BackingRow",
    "CopyReads",
    "Counts",
    "EntityFold",
    "EntityRow",
    "FactRow",
    "FileReads",
    "FileRow",
    "FileWrites",
    "GrantRow",
    "GraphReads",
    "GraphWrites",
    "IdempotencyRecord",
    "IdempotencyRow",
    "KeyRow",
    "LinkRow",
    "MemoryRow",
    "ObservationFilter",
    "ObservationRow",
    "PrincipalRow",
    "ProposalRow",
    "QueuedRow",
    "ReadTx",
    "RecallReads",
    "RecallWrites",
    "RelationshipFold",
    "RelationshipRow",
    "SessionRow",
    "ShownRows",
    "Store",
    "TextKind",
    "TextSearch",
    "TurnKey",
    "TurnReads",
    "TurnRow",
    "TurnWrites",
    "VectorSearch",
    "WriteTx",
]


class GraphReads(Protocol):
    """The graph: observations, entities, relationships, attribute versions, merge proposals
    and idempotency records."""

    memory_id: int

    def counts(self) -> Counts: ...

    # observations
    def get_observation(self, slug: str) -> ObservationRow | None: ...
    def get_observations(self, ids: Sequence[int]) -> list[ObservationRow]: ...
    def slug_taken(self, slug: str) -> bool: ...
    def slugs_starting(self, prefix: str, *, limit: int) -> list[str]: ...
    def slug_retired(self, slug: str) -> bool: ...
    def observation_links(self, observation_id: int) -> list[LinkRow]: ...
    def observation_relationship_ids(self, observation_id: int) -> list[int]: ...
    def observation_files(self, observation_id: int) -> list[str]: ...
    def observations_citing_file(self, path: str) -> list[str]: ...

    # entities
    def find_entities(self, keys: Iterable[str]) -> dict[str, EntityRow]: ...
    def get_entities(self, ids: Iterable[int]) -> dict[int, EntityRow]: ...
    def list_entities(
        self,
        *,
        type: str | None,
        limit: int,
        offset: int,
        by_name: bool = False,
        exclude: Sequence[str] = (),
    ) -> list[EntityRow]:
        """Entities of ``type`` (any, when None, except the types in ``exclude``), most
        connected first (or by type and key with ``by_name``)."""
        ...

    def iter_entities(self) -> Iterator[EntityRow]: ...
    def entity_aliases(self, entity_id: int) -> list[str]: ...
    def entity_fold(self, entity_id: int) -> EntityFold: ...
    def described_entities(self) -> set[int]: ...
    def entity_speakers(self, ids: Sequence[int]) -> dict[int, set[str]]: ...
    def entity_observation_slugs(self, entity_id: int, *, limit: int) -> tuple[list[str], int]: ...
    def entity_relationships(
        self, entity_id: int, *, limit: int
    ) -> tuple[list[RelationshipRow], int]: ...

    # relationships
    def get_relationships(self, ids: Iterable[int]) -> list[RelationshipRow]: ...
    def find_relationship(self, source_id: int, type: str, target_id: int) -> int | None: ...
    def relationship_fold(self, relationship_id: int) -> RelationshipFold: ...

    # attributes and current state
    def attribute_history(self, entity_id: int, key: str) -> list[AttributeRow]: ...
    def current_attributes(self, entity_id: int, key: str) -> list[AttributeRow]: ...
    def current_values(
        self,
        entity_id: int,
        key: str | None = None,
        *,
        skip_keys: Collection[str] = (),
        like: str | None = None,
    ) -> list[tuple[str, str, str]]:
        """(id, key, value) of each current attribute of the entity (of ``key`` only when
        given; none of ``skip_keys``), by key and oldest first: the rows' few fields the write
        path compares. With an ASCII ``like``, only the rows whose value may equal it once
        both are stripped and case-folded: an ASCII value equal to it but for spaces at its
        ends and ASCII case, and any value with a character past ASCII (the caller compares
        them)."""
        ...

    def attribute_chains(self, observation_id: int) -> list[tuple[int, str]]: ...
    def attribute_keys(self, entity_id: int) -> list[str]: ...
    def state_entities(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[EntityRow]: ...
    def state_attributes(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[AttributeRow]: ...
    def state_relations(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[RelationshipRow]: ...

    # idempotency and consolidation
    def get_idempotency(self, key: str) -> IdempotencyRow | None: ...
    def get_proposal(self, proposal_id: int) -> ProposalRow | None: ...
    def list_proposals(
        self, *, status: str | None, limit: int | None = None, offset: int = 0
    ) -> list[ProposalRow]: ...
    def rejected_pairs(self) -> set[tuple[str, str]]: ...


class TurnReads(Protocol):
    """Sessions, their turns and the facts extracted from them."""

    memory_id: int

    # sessions and turns
    def get_session(self, session_id: str) -> SessionRow | None: ...
    def list_sessions(self, *, offset: int, limit: int) -> list[SessionRow]: ...
    def get_turn(self, turn_id: str) -> TurnRow | None: ...
    def facts_for_observation(self, observation_id: int) -> list[FactRow]: ...
    def list_turns(
        self, session_id: str, *, after_seq: int, offset: int, limit: int
    ) -> list[TurnRow]: ...
    def last_turns(self, session_id: str, *, count: int) -> list[TurnRow]: ...
    def write_count(self) -> int:
        """How many write transactions the memory has committed (see :attr:`WriteTx.writes`)."""
        ...

    def get_turn_by_observation(self, observation_id: int) -> TurnRow | None: ...
    def session_observation_ids(self, session_id: str) -> list[int]: ...

    # turn facts
    def list_facts(
        self,
        *,
        kind: str,
        category: str | None,
        as_of: datetime | None,
        limit: int,
        retired: bool = False,
    ) -> list[FactRow]:
        """A kind of turn fact, oldest first: the active ones (with ``retired``, those
        a later one replaced too)."""
        ...

    def find_active_fact(self, kind: str, dedup: str) -> FactRow | None: ...


class FileReads(Protocol):
    """Files attached to a memory."""

    memory_id: int

    # files
    def get_file(self, path: str, *, with_data: bool) -> FileRow | None: ...
    def list_files(self, *, prefix: str | None) -> list[FileRow]: ...


class RecallReads(Protocol):
    """What recall reads: text search, vectors and the queue of rows to embed, and the
    candidate lookups that rank them."""

    memory_id: int

    # recall
    def index_version(self) -> int: ...
    def load_vectors(self, kind: str, *, since: int = -1) -> list[tuple[int, bytes]]: ...
    def vector_count(self, kind: str) -> int: ...
    def index_queue(self, *, limit: int, written_at: datetime | None = None) -> list[QueuedRow]:
        """Rows of this memory waiting for their vector, by kind and ref. With
        ``written_at``, only the entities a write stamped with that time (their
        ``updated_at``) wrote: its own."""
        ...

    def window_turns(
        self, observation_ids: Sequence[int]
    ) -> dict[int, list[tuple[int, str, str, bytes | None]]]:
        """For each turn's observation, the turns of its window in order: observation id,
        speaker (else role), content, and the stored vector if any."""
        ...

    def search_text(self, search: TextSearch) -> list[tuple[int, float]]:
        """Observation or entity ids matching ``search``, best first, with their score."""
        ...

    def search_texts(self, searches: Sequence[TextSearch]) -> list[list[tuple[int, float]]]:
        """What :meth:`search_text` answers for each of ``searches``, in their order; a
        backend may send them together (one round trip to a database server)."""
        ...

    def search_attributes(self, search: TextSearch) -> list[tuple[AttributeRow, float]]:
        """Attribute versions matching ``search`` (of kind ``attribute``), best first."""
        ...

    def term_frequencies(self, search: TextSearch) -> list[int]:
        """For each term of ``search``, how many rows of its kind contain it in its fields."""
        ...

    def text_rows(self, kind: TextKind) -> int:
        """How many rows of ``kind`` this memory's text search holds."""
        ...

    def turn_keys(self, ids: Sequence[int]) -> dict[int, TurnKey]:
        """The session, speaker and role of each of ``ids`` that is a turn."""
        ...

    def observation_times(self, ids: Sequence[int]) -> dict[int, datetime]:
        """When each of ``ids`` that exists was observed."""
        ...

    def event_times(self, ids: Sequence[int]) -> dict[int, list[datetime]]:
        """When the actions each of ``ids`` reported happened ("moved in yesterday": the day
        before the turn), for those that reported any, earliest first."""
        ...

    def links_for_observations(self, ids: Sequence[int]) -> dict[int, list[int]]: ...
    def speakers_among(self, names: Sequence[str]) -> set[str]: ...
    def known_names(self, *, limit: int) -> list[str]:
        """The names of the memory's newest people and animals, newest first, at most
        ``limit``: what an extractor may recognize in text written without capitals."""
        ...

    def observations_for_entities(
        self, ids: Sequence[int], *, limit: int
    ) -> dict[int, list[int]]: ...
    def neighbour_relationships(
        self, ids: Sequence[int], *, limit: int
    ) -> dict[int, list[RelationshipRow]]:
        """Each entity's strongest relationships (by weight, then the newest), up to
        ``limit`` each, in the order of ``entity_relationships``; every id a key."""
        ...

    def attributes_for_observations(self, ids: Sequence[int]) -> list[AttributeRow]: ...
    def entity_attributes(
        self, entity_ids: Sequence[int], keys: Sequence[str] | None
    ) -> list[AttributeRow]:
        """Every version, current or not, of the entities' attributes of ``keys`` (of every
        key when None): by entity and key, oldest first."""
        ...

    def user_speakers(self, *, limit: int) -> list[str]:
        """Who speaks the newest turns of role ``user`` that name a speaker, newest first,
        each once, at most ``limit``."""
        ...

    def filter_observations(self, query: ObservationFilter, *, limit: int) -> list[int]: ...
    def shown_rows(
        self, observation_ids: Sequence[int], entity_ids: Sequence[int], *, relationships: int
    ) -> ShownRows:
        """What a recall result shows, read together (a backend may send the reads in one
        round trip): the observations and their turns, the entities, and at most
        ``relationships`` relationships among those entities, current ones first, then by
        weight, then by id."""
        ...


# Recall keeps cached matrices of at most this many rows within a bounded budget; a backend
# that searches vectors itself leaves it exact searches up to this size (VectorSearch).
CACHED_ROWS_MAX = 4_096


@runtime_checkable
class VectorSearch(Protocol):
    """A backend that can search a memory's stored vectors itself (PostgreSQL with pgvector),
    so recall need not hold them in the process. Optional: recall searches the vectors of a
    transaction without it (or whose ``nearest_vectors`` returns None) in process, from
    ``load_vectors``. Vectors and queries are float32 bytes; similarity is cosine."""

    memory_id: int

    def nearest_vectors(
        self, kind: str, query: bytes, *, limit: int, add: tuple[str, float] | None = None
    ) -> list[tuple[int, float]] | None:
        """The refs of (about) the ``limit`` vectors of ``kind`` most similar to ``query``,
        with their similarity, best first; None when this database cannot search them, or
        when the memory holds so few that the caller's exact search of ``load_vectors`` in
        the process is the faster one (the caller then searches them itself). With
        ``add=(other, weight)`` a row's score is its similarity plus ``weight`` x that of the
        vector of kind ``other`` with the same ref (none: 0), and the rows nearest by either
        vector are ranked by it."""
        ...


class CopyReads(Protocol):
    """The stored rows no other read returns whole, for copying a memory exactly
    (:mod:`turngraph.core.copying`)."""

    memory_id: int

    def write_seq(self) -> int:
        """The memory's write counter (the last ``next_seq``)."""
        ...

    def observation_assertions(self, observation_id: int) -> list[AssertionRow]: ...
    def observation_backings(self, observation_id: int) -> list[BackingRow]: ...
    def alias_rows(self) -> list[tuple[str, str, int]]:
        """Every alias: (key, name, entity id)."""
        ...

    def search_contexts(self) -> dict[int, str]:
        """Each observation's search context, where the core set one."""
        ...

    def relationship_times(self) -> dict[int, tuple[datetime, datetime]]:
        """Each relationship's (created_at, updated_at)."""
        ...

    def idempotency_rows(self) -> list[IdempotencyRow]: ...
    def retired_slugs(self) -> list[tuple[str, datetime]]: ...
    def rejections(self) -> list[tuple[str, str, datetime]]: ...


class ReadTx(GraphReads, TurnReads, FileReads, RecallReads, CopyReads, Protocol):
    """Reads within one memory, from one consistent snapshot."""


class GraphWrites(Protocol):
    """Writes to the graph."""

    # observations
    def insert_observation(
        self,
        *,
        slug: str,
        title: str,
        content: str,
        category: str,
        tags: Sequence[str],
        observed_at: datetime,
        confidence: float | None,
        source: str | None,
        now: datetime,
        search_context: str = "",
    ) -> int: ...
    def update_observation(
        self,
        observation_id: int,
        *,
        title: str,
        content: str,
        category: str,
        tags: Sequence[str],
        observed_at: datetime,
        confidence: float | None,
        source: str | None,
        now: datetime,
    ) -> None: ...
    def delete_observation(self, observation_id: int) -> None: ...
    def retire_slug(self, slug: str, *, now: datetime) -> None: ...
    def set_observation_files(self, observation_id: int, paths: Sequence[str]) -> None: ...

    # entities
    def insert_entity(
        self,
        *,
        key: str,
        name: str,
        type: str,
        description: str,
        retrieval_queries: Sequence[str],
        now: datetime,
        memory_category: str = "knowledge",
    ) -> EntityRow: ...
    def update_entity(
        self,
        entity_id: int,
        *,
        type: str,
        description: str,
        retrieval_queries: Sequence[str],
        now: datetime,
    ) -> None: ...
    def delete_entities(self, ids: Iterable[int]) -> None: ...
    def add_alias(self, *, key: str, name: str, entity_id: int) -> None: ...
    def move_aliases(self, from_entity_id: int, to_entity_id: int) -> None: ...
    def put_link(
        self,
        observation_id: int,
        entity_id: int,
        *,
        explicit: bool,
        type: str | None,
        description: str | None,
        retrieval_queries: Sequence[str],
        seq: int,
    ) -> None: ...
    def delete_link(self, observation_id: int, entity_id: int) -> None: ...
    def move_links(self, from_entity_id: int, to_entity_id: int) -> int: ...
    def unlinked_entities(self, candidates: Iterable[int]) -> list[int]: ...
    def recompute_degrees(self, ids: Iterable[int]) -> None: ...

    # relationships
    def insert_relationship(
        self,
        *,
        source_id: int,
        type: str,
        target_id: int,
        now: datetime,
        memory_category: str = "knowledge",
        valid_from: datetime | None = None,
    ) -> int: ...
    def update_relationship(
        self, relationship_id: int, *, description: str, weight: float, now: datetime
    ) -> None: ...
    def repoint_relationship(
        self, relationship_id: int, *, source_id: int, target_id: int
    ) -> None: ...
    def delete_relationships(self, ids: Iterable[int]) -> None: ...
    def put_backing(
        self,
        observation_id: int,
        relationship_id: int,
        *,
        description: str | None,
        weight: float | None,
        seq: int,
    ) -> None: ...
    def delete_backing(self, observation_id: int, relationship_id: int) -> None: ...
    def move_backings(self, from_relationship_id: int, to_relationship_id: int) -> None: ...
    def unbacked_relationships(self, candidates: Iterable[int]) -> list[int]: ...

    # attributes and current state
    def insert_attribute(self, row: AttributeRow) -> None: ...
    def set_attribute_links(
        self,
        attribute_id: str,
        *,
        valid_until: datetime | None,
        supersedes: str | None,
        superseded_by: str | None,
    ) -> None: ...
    def delete_attributes(self, ids: Iterable[str]) -> None: ...
    def move_attributes(self, from_entity_id: int, to_entity_id: int) -> None: ...
    def set_entity_category(self, entity_id: int, category: str) -> None: ...
    def set_relationship_validity(
        self,
        relationship_id: int,
        *,
        memory_category: str | None,
        valid_from: datetime | None,
        valid_until: datetime | None,
    ) -> None: ...

    # idempotency and consolidation
    def put_idempotency(self, row: IdempotencyRow) -> None: ...
    def delete_idempotency_for_slug(self, slug: str) -> None: ...
    def insert_proposal(
        self,
        *,
        canonical_key: str,
        canonical_name: str,
        duplicate_key: str,
        duplicate_name: str,
        type: str,
        reasons: Sequence[str],
        score: float,
        now: datetime,
    ) -> int: ...
    def set_proposal_status(self, proposal_id: int, status: str, *, now: datetime) -> None: ...
    def reject_pair(self, key_a: str, key_b: str, *, now: datetime) -> None: ...


class TurnWrites(Protocol):
    """Writes to sessions, turns and their facts."""

    # sessions and turns
    def insert_session(self, session_id: str, *, metadata: str, now: datetime) -> None: ...
    def next_turn_seq(self, session_id: str) -> int: ...
    def insert_turn(
        self,
        *,
        turn_id: str,
        session_id: str,
        seq: int,
        role: str,
        speaker: str | None,
        observation_id: int,
        extracted: str,
        labels: Sequence[str],
        now: datetime,
    ) -> None: ...
    def set_turn_extracted(self, turn_id: str, extracted: str) -> None: ...
    def delete_session(self, session_id: str) -> None: ...

    # turn facts
    def insert_fact(self, row: FactRow) -> None: ...
    def deactivate_fact(self, fact_id: str) -> None: ...


class FileWrites(Protocol):
    """Writes to files."""

    # files
    def put_file(self, row: FileRow) -> None: ...
    def delete_file(self, path: str) -> None: ...


class RecallWrites(Protocol):
    """What keeps recall current (see the module docstring for what a backend must maintain
    by itself)."""

    # recall
    def set_search_context(self, observation_id: int, context: str) -> None: ...
    def put_vector(self, kind: str, ref: int, data: bytes) -> None: ...
    #: Several vectors in one go (a key given twice: its last bytes), and several rows off
    #: the queue: what the indexer writes, in as few statements as a backend can. With
    #: ``dequeue`` the vectors' own rows leave the queue in the same go (they are current).
    def put_vectors(
        self, vectors: Sequence[tuple[str, int, bytes]], *, dequeue: bool = False
    ) -> None: ...
    def enqueue(self, kind: str, ref: int) -> None: ...
    def dequeue_many(self, keys: Sequence[tuple[str, int]]) -> None: ...


class WriteTx(ReadTx, GraphWrites, TurnWrites, FileWrites, RecallWrites, Protocol):
    """Writes within one memory; the store serializes them per memory and commits atomically."""

    #: The memory's count of write transactions, this one included: the store bumps it as the
    #: write begins. What was read at :meth:`~TurnReads.write_count` ``n`` is unchanged when a
    #: write finds ``n + 1``.
    writes: int

    def next_seq(self) -> int: ...
    def raise_seq(self, at_least: int) -> None:
        """Move the write counter up to ``at_least`` (a copy's assertions keep their seq)."""
        ...


class AccessStore(Protocol):
    """Principals, keys, grants and HTTP idempotency records of a deployment."""

    def create_principal(self, row: PrincipalRow) -> PrincipalRow: ...
    def get_principal(self, principal_id: str) -> PrincipalRow | None: ...
    def list_principals(self) -> list[PrincipalRow]: ...
    def count_principals(self) -> int: ...
    def set_create_memories(self, principal_id: str, allowed: bool) -> PrincipalRow | None: ...
    def add_key(self, row: KeyRow, key_hash: str) -> KeyRow: ...
    def find_key(self, key_hash: str) -> tuple[KeyRow, PrincipalRow] | None: ...
    def list_keys(self, principal_id: str | None = None) -> list[KeyRow]: ...
    def key_hashes(self) -> dict[str, str]:
        """Each key's stored hash by key id (for copying a deployment; never shown)."""
        ...

    def revoke_key(self, key_id: str, now: datetime) -> KeyRow | None: ...
    def set_grant(self, principal_id: str, memory_id: int, tier: str, now: datetime) -> None: ...
    def remove_grant(self, principal_id: str, memory_id: int) -> bool: ...
    def get_grant(self, principal_id: str, memory_id: int) -> str | None: ...
    def list_grants(self, principal_id: str | None = None) -> list[GrantRow]: ...
    def idempotency_claim(
        self,
        scope: str,
        key: str,
        fingerprint: str,
        *,
        now: datetime,
        expired_before: datetime,
        owner: str,
        abandoned: Callable[[str | None], bool],
    ) -> IdempotencyRecord | None: ...
    def idempotency_finish(self, scope: str, key: str, status: int, body: str) -> None: ...
    def idempotency_release(self, scope: str, key: str) -> None: ...


class Store(AccessStore, Protocol):
    """A storage backend holding many memories."""

    url: str
    settings: Settings

    def create_memory(
        self,
        *,
        name: str,
        visibility: str,
        retrieval: str,
        now: datetime,
        organization: str = "default",
    ) -> MemoryRow: ...
    # A memory's name is unique within its organization, not across the database.
    def get_memory(self, name: str, *, organization: str = "default") -> MemoryRow | None: ...
    def reach_memory(
        self, principal_id: str, organization: str, name: str
    ) -> tuple[MemoryRow, str | None] | None:
        """The memory a principal of ``organization`` means by ``name`` (its organization's,
        else the one of that name in the first organization, by name, whose memory it holds
        a grant on) and the principal's grant on it (None without one), in one read; None
        when there is neither."""
        ...

    def list_memories(self) -> list[MemoryRow]: ...
    def set_visibility(self, memory_id: int, visibility: str) -> None: ...
    def delete_memory(self, memory_id: int) -> None: ...
    def read(self, memory_id: int) -> AbstractContextManager[ReadTx]: ...
    def write(self, memory_id: int) -> AbstractContextManager[WriteTx]: ...
    def close(self) -> None: ...
