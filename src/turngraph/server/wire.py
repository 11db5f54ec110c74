"""The memory API's wire shapes: camelCase models (for the OpenAPI document and request
parsing) and the conversion of core results into them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from turngraph.config import Limits
from turngraph.recall.context import DEFAULT_TOKENS
from turngraph.recall.context import MAX_TOKENS as MAX_CONTEXT_TOKENS


def camel(value: Any) -> Any:
    """Keys of JSON-ready data in camelCase, recursively."""
    if isinstance(value, dict):
        return {to_camel(k): camel(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel(v) for v in value]
    return value


def camel_model(model: BaseModel) -> dict[str, Any]:
    """A core model as a camelCase JSON object."""
    out: dict[str, Any] = camel(model.model_dump(mode="json"))
    return out


class Wire(BaseModel):
    """camelCase on the wire; unknown keys ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Snake(BaseModel):
    """snake_case on the wire (``/facts``); unknown keys ignored."""

    model_config = ConfigDict(extra="ignore")


InferMode = Literal["full", "triples", "preview", "none"]
# The core's limits, stated once (the same value the core enforces).
L = Limits()
RoleName = Literal["user", "assistant", "system", "tool"]
Category = Literal["identity", "knowledge", "context"]


# -- requests -----------------------------------------------------------------------------


class TripleEntity(Snake):
    type: str = Field(default="other", max_length=L.entity_type_chars)
    name: str = Field(min_length=1, max_length=L.entity_name_chars)


class Triple(Snake):
    entity: TripleEntity
    key: str = Field(min_length=1, max_length=100)
    value: str | None = Field(default=None, max_length=L.description_chars)
    target: TripleEntity | None = None
    memory_category: Category | None = None


class FactsRequest(Snake):
    text: str | None = None
    infer: InferMode = "full"
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)
    scopes: list[list[str]] | None = None
    role: RoleName = "user"
    memory_category: Category | None = None
    labels: list[str] = Field(default_factory=list, max_length=L.labels_per_turn)
    triples: list[Triple] | None = Field(default=None, max_length=L.relationships_per_write)
    observed_at: str | None = None
    speaker: str | None = Field(default=None, max_length=L.speaker_chars)


class BatchMessage(Snake):
    role: RoleName = "user"
    content: str
    ts: str | None = None
    speaker: str | None = Field(default=None, max_length=L.speaker_chars)


class BatchRequest(Snake):
    messages: list[BatchMessage] = Field(min_length=1, max_length=L.messages_per_batch)
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)
    scopes: list[list[str]] | None = None
    extract: Literal["per_message", "whole_conversation"] | None = None
    infer: InferMode = "full"
    labels: list[str] = Field(default_factory=list, max_length=L.labels_per_turn)


class QueryRequest(Wire):
    query: str = Field(min_length=1, max_length=L.query_chars)
    k: int = Field(default=10, ge=1, le=50)
    mode: Literal["hybrid", "vector", "bm25", "graph"] = "hybrid"
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)
    include: list[Literal["facts", "passages"]] | None = None
    as_of: str | None = None
    at_instant: str | None = None
    labels: list[str] = Field(default_factory=list, max_length=L.labels_per_turn)
    lens: list[list[str]] | None = None
    scope_view: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    source: str | None = None


class ForgetRequest(Wire):
    query: str = Field(min_length=1, max_length=L.query_chars)
    purge: bool = False
    dry_run: bool = False


class ConsolidateRequest(Wire):
    dry_run: bool = False
    fact_limit: int | None = Field(default=None, ge=1)
    observation_limit: int | None = Field(default=None, ge=1)


class SessionRequest(Wire):
    scopes: list[list[str]] | None = None
    metadata: Any = None


class ChatRequest(Wire):
    message: str = Field(min_length=1, max_length=L.content_hard_chars)
    stream: bool = False
    session_id: str | None = Field(default=None, max_length=L.session_id_chars)
    scopes: list[list[str]] | None = None
    model: str | None = Field(default=None, max_length=200)
    bypass_cache: bool = False
    labels: list[str] = Field(default_factory=list, max_length=L.labels_per_turn)


class ContextRequest(Wire):
    query: str = Field(min_length=1, max_length=L.query_chars)
    k: int = Field(default=10, ge=1, le=50)
    max_tokens: int = Field(default=DEFAULT_TOKENS, ge=1, le=MAX_CONTEXT_TOKENS)


# -- responses (documentation of what the routes return) ---------------------------------


class ExtractedEntityOut(Wire):
    id: str
    name: str
    entity_type: str
    memory_category: str
    is_new: bool


class ExtractionOut(Wire):
    turn_id: str
    entities: list[ExtractedEntityOut]
    attributes: list[dict[str, Any]]
    relations: list[dict[str, Any]]
    actions: list[dict[str, Any]]
    instructions: list[dict[str, Any]]
    uncertainties: list[dict[str, Any]]
    corrections: list[dict[str, Any]]


class FactsResponse(Wire):
    mode: str
    session_id: str
    turn_id: str
    preview: bool
    extraction: ExtractionOut


class BatchResponse(Wire):
    session_id: str
    turn_ids: list[str]
    extractions: list[ExtractionOut]


class QueryHit(Wire):
    id: str
    score: float
    source: str
    text: str


class QueryTrace(Wire):
    trace_id: str
    resolution_tier: str
    tier_reason: str
    latency_ms: float
    retrieved_count: int
    top_scores: list[float]


class QueryResponse(Wire):
    hits: list[QueryHit]
    tier: str
    query_ms: float
    classification_kind: str
    seed_entities: list[str]
    trace: QueryTrace


class ForgetResponse(Wire):
    deleted: int


class EntityDetail(Wire):
    id: str
    name: str
    entity_type: str
    memory_category: str
    importance: float
    created_at: str
    updated_at: str


class AttributeDetail(Wire):
    id: str
    entity: str
    key: str
    value: str
    memory_category: str
    importance: float
    created_at: str
    valid_from: str | None = None
    valid_until: str | None = None
    supersedes: str | None = None
    superseded_by: str | None = None


class RelationDetail(Wire):
    id: str
    subject: str
    label: str
    object: str
    memory_category: str
    created_at: str
    valid_from: str | None = None
    valid_until: str | None = None


class CategoryOut(Wire):
    entities: list[EntityDetail]
    attributes: list[AttributeDetail]
    relations: list[RelationDetail]
    actions: list[dict[str, Any]]


class StateResponse(Wire):
    identity: CategoryOut
    knowledge: CategoryOut
    context: CategoryOut
    instructions: list[dict[str, Any]]
    unknowns: list[dict[str, Any]]
    truncated: dict[str, bool]


class SessionOut(Wire):
    id: str
    created_at: str
    scopes: list[list[str]]


class ContextOut(Wire):
    """The context payload: ``context`` is the labelled text to put in a prompt; the parts
    it holds follow, with what did not fit the token budget in ``cut``."""

    context: str
    instructions: list[dict[str, Any]] = Field(default_factory=list)
    facts: list[dict[str, Any]] = Field(default_factory=list)
    cut: list[str] = Field(default_factory=list)
    tokens: int = 0


class TurnOut(Wire):
    id: str
    session: str
    role: str
    content: str
    seq: int
    created_at: str


class PageOut(Wire):
    has_more: bool
    next_cursor: str | None = None


class TurnsResponse(Wire):
    turns: list[TurnOut]
    page: PageOut


class EntitiesResponse(Wire):
    entities: list[EntityDetail]


class EntityResponse(Wire):
    entity: EntityDetail
    attributes: list[AttributeDetail]
    relations: list[RelationDetail]


class HistoryResponse(Wire):
    history: list[AttributeDetail]


class ConsolidateOutcome(Wire):
    kind: str
    entity_name: str
    key: str
    value: str
    proof_count: int
    observation_id: str | None = None
    rationale: str | None = None


class ConsolidateResponse(Wire):
    created: int
    updated: int
    superseded: int
    dry_run: bool
    trace_id: str
    outcomes: list[ConsolidateOutcome]


class WhoAmI(Wire):
    principal_id: str
    display_name: str
    kind: str
    organization: str
    tier: str
    grants: dict[str, list[str]]
    effective_grants: dict[str, list[str]]
    delegated_principal_id: str | None = None
    token_grants: dict[str, list[str]] | None = None
    enforce: bool = True
