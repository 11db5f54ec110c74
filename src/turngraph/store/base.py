"""The storage contract: what the core needs from a backend, and the rows it gets back.

A backend provides memories (create, find, list) and two kinds of transaction scoped to one
memory: :class:`ReadTx` (a consistent snapshot that never waits for writers) and
:class:`WriteTx` (serialized per memory, atomic: everything in it commits or nothing does).
The rules of the memory (normalization, pruning, folding assertions) live in the core; a
backend only stores and finds rows, so every backend behaves the same and one conformance
suite checks them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from turngraph.config import Settings


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
    ``content`` (the search context the core stored for the turn); attribute: ``name`` (its
    entity's), ``key``, ``content`` (its value).
    """

    kind: str  # observation | entity | window | attribute
    ref: int
    content: str = ""
    title: str = ""
    speaker: str | None = None
    name: str = ""
    key: str = ""
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


class ReadTx(Protocol):
    """Reads within one memory, from one consistent snapshot."""

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
        self, *, type: str | None, limit: int, offset: int, by_name: bool = False
    ) -> list[EntityRow]: ...
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

    # files
    def get_file(self, path: str, *, with_data: bool) -> FileRow | None: ...
    def list_files(self, *, prefix: str | None) -> list[FileRow]: ...

    # idempotency and consolidation
    def get_idempotency(self, key: str) -> IdempotencyRow | None: ...
    def get_proposal(self, proposal_id: int) -> ProposalRow | None: ...
    def list_proposals(
        self, *, status: str | None, limit: int | None = None, offset: int = 0
    ) -> list[ProposalRow]: ...
    def rejected_pairs(self) -> set[tuple[str, str]]: ...

    # sessions and turns
    def get_session(self, session_id: str) -> SessionRow | None: ...
    def list_sessions(self, *, offset: int, limit: int) -> list[SessionRow]: ...
    def get_turn(self, turn_id: str) -> TurnRow | None: ...
    def facts_for_observation(self, observation_id: int) -> list[FactRow]: ...
    def list_turns(
        self, session_id: str, *, after_seq: int, offset: int, limit: int
    ) -> list[TurnRow]: ...
    def last_turns(self, session_id: str, *, count: int) -> list[TurnRow]: ...
    def get_turn_by_observation(self, observation_id: int) -> TurnRow | None: ...
    def session_observation_ids(self, session_id: str) -> list[int]: ...

    # attributes and turn facts
    def attribute_history(self, entity_id: int, key: str) -> list[AttributeRow]: ...
    def current_attributes(self, entity_id: int, key: str) -> list[AttributeRow]: ...
    def current_attributes_of(self, entity_id: int) -> list[AttributeRow]: ...
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
    def list_facts(
        self, *, kind: str, category: str | None, as_of: datetime | None, limit: int
    ) -> list[FactRow]: ...
    def find_active_fact(self, kind: str, dedup: str) -> FactRow | None: ...

    # recall
    def index_version(self) -> int: ...
    def load_vectors(self, kind: str, *, since: int = -1) -> list[tuple[int, bytes]]: ...
    def vector_count(self, kind: str) -> int: ...
    def index_queue(self, *, limit: int) -> list[QueuedRow]:
        """Rows of this memory waiting for their vector, by kind and ref."""
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

    def search_attributes(self, search: TextSearch) -> list[tuple[AttributeRow, float]]:
        """Attribute versions matching ``search`` (of kind ``attribute``), best first."""
        ...

    def term_frequencies(self, search: TextSearch) -> list[int]:
        """For each term of ``search``, how many rows of its kind contain it in its fields."""
        ...

    def text_rows(self, kind: TextKind) -> int:
        """How many rows of ``kind`` this memory's text search holds."""
        ...

    def turns_for_observations(self, ids: Sequence[int]) -> dict[int, TurnRow]: ...
    def turn_keys(self, ids: Sequence[int]) -> dict[int, tuple[str, str | None]]: ...
    def links_for_observations(self, ids: Sequence[int]) -> dict[int, list[int]]: ...
    def speakers_among(self, names: Sequence[str]) -> set[str]: ...
    def observations_for_entities(
        self, ids: Sequence[int], *, limit: int
    ) -> dict[int, list[int]]: ...
    def relationships_among(self, ids: Sequence[int], *, limit: int) -> list[RelationshipRow]: ...
    def attributes_for_observations(self, ids: Sequence[int]) -> list[AttributeRow]: ...
    def filter_observations(self, query: ObservationFilter, *, limit: int) -> list[int]: ...


class WriteTx(ReadTx, Protocol):
    """Writes within one memory; the store serializes them per memory and commits atomically."""

    def next_seq(self) -> int: ...

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

    # files
    def put_file(self, row: FileRow) -> None: ...
    def delete_file(self, path: str) -> None: ...

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

    # attributes and turn facts
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
    def insert_fact(self, row: FactRow) -> None: ...
    def deactivate_fact(self, fact_id: str) -> None: ...

    # recall
    def set_search_context(self, observation_id: int, context: str) -> None: ...
    def put_vector(self, kind: str, ref: int, data: bytes) -> None: ...
    def enqueue(self, kind: str, ref: int) -> None: ...
    def dequeue(self, kind: str, ref: int) -> None: ...


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
    def list_memories(self) -> list[MemoryRow]: ...
    def set_visibility(self, memory_id: int, visibility: str) -> None: ...
    def delete_memory(self, memory_id: int) -> None: ...
    def read(self, memory_id: int) -> AbstractContextManager[ReadTx]: ...
    def write(self, memory_id: int) -> AbstractContextManager[WriteTx]: ...
    def close(self) -> None: ...
